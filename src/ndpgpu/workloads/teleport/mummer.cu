// Exact-match alignment of short reads (TELEPORT's MUM, after MUMmerGPU from the GPGPU-Sim ISPASS-2009
// suite): one thread per query; for every query suffix at least min_match long, the longest prefix that
// occurs anywhere in the reference. MUMmerGPU walks a suffix tree; here the reference index is a suffix
// array, searched by binary search with character comparisons, the answer being the longer common prefix with
// the two suffixes around the insertion point. match_len[q][p] is that length, or 0 below min_match.

__device__ __forceinline__ int mum_lcp(const char *ref, int ref_len, int s, const char *query, int len) {
  int k = 0;
  while (k < len && s + k < ref_len && ref[s + k] == query[k]) k++;
  return k;
}

extern "C" __global__ void mum_match(const char *ref, int ref_len, const int *sa, const char *queries, int qlen,
                                     int nq, int min_match, int *match_len) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nq) return;
  const int positions = qlen - min_match + 1;
  const char *query = queries + q * qlen;
  for (int p = 0; p < positions; p++) {
    const char *suffix = query + p;
    const int len = qlen - p;
    int lo = 0;
    int hi = ref_len;
    while (lo < hi) {  // first reference suffix not below the query suffix
      int mid = (lo + hi) / 2;
      int s = sa[mid];
      int k = mum_lcp(ref, ref_len, s, suffix, len);
      bool below = k < len && (s + k == ref_len || ref[s + k] < suffix[k]);
      if (below) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    int best = 0;
    if (lo < ref_len) best = mum_lcp(ref, ref_len, sa[lo], suffix, len);
    if (lo > 0) best = max(best, mum_lcp(ref, ref_len, sa[lo - 1], suffix, len));
    match_len[q * positions + p] = best >= min_match ? best : 0;
  }
}
