// LLC-Compute / Omni-Compute microbenchmarks (paper Table 3). One element per thread, each kernel body a
// single load-compute-store chain of one Table 1 pattern:
//   COPY (3): b[i] = a[i]        VECADD (1): c[i] = a[i] + b[i]        NORM (7): b[i] = a[i] * scale
//   COMPARE (5): a[i] != b[i]    DENSITY (6): a[i] == 0
// COMPARE and DENSITY count the true predicates (Sec. 5: "count the number of different elements", "counts
// the number of 0's"): the warp's vote (the bitmap the offload reply carries) is popcounted and lane 0 stores
// the warp's count to its own word (count[i / 32]); the host sums the words. No atomic, no shared counter:
// the paper's text names none, so no warp waits on another's update.

extern "C" __global__ void llc_copy(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}

extern "C" __global__ void llc_vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// scale is the reciprocal of the norm, computed on the host (one multiply per element).
extern "C" __global__ void llc_norm(const float *a, float *b, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * scale;
}

extern "C" __global__ void llc_compare(const unsigned char *a, const unsigned char *b, unsigned int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool differ = false;
  if (i < n) differ = a[i] != b[i];
  unsigned int bits = __ballot_sync(0xffffffffu, differ);
  if ((threadIdx.x & 31) == 0 && i < n) count[i >> 5] = __popc(bits);
}

extern "C" __global__ void llc_density(const int *a, unsigned int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool zero = false;
  if (i < n) zero = a[i] == 0;
  unsigned int bits = __ballot_sync(0xffffffffu, zero);
  if ((threadIdx.x & 31) == 0 && i < n) count[i >> 5] = __popc(bits);
}
