// heartwall_sat (a labelled variant; TOM's HW is heartwall.cu, the port of Rodinia's kernel): heart-wall tracking
// after Rodinia's heartwall kernel: one launch per frame, one block per sample point
// (endocardium and epicardium points alike), every per-point working array in global memory.
//
// Launch for frame 0: every block cuts its point's template (tsize x tsize pixels around the point) out of
// the frame. Launch for frame f > 0, per point:
//   1. selection      copy the search area (side 2 * search + 1, centred on the point's anchor, kept
//                     inside the frame) from the frame into the point's area array
//   2. integral images one thread per column runs down the area, one per row across it: summed-area tables
//                     of the pixels and of their squares (Rodinia's padded cumulative sums)
//   3. template sums  the template goes to shared memory; per-column partial sums, then one thread adds them
//   4. correlation    every candidate position within max_move of the point's previous position scores the
//                     template against the area under it (products read the area from global memory, the
//                     window sums come from the integral images) and writes its score to the point's map
//   5. maximum        a strided scan of the score map, then a shared-memory tree: the first best candidate
//   6. update         the point moves there; every update_every frames the anchor moves too and the template
//                     is blended with the frame's patch at the new position
// Pixels and templates hold integers, so every sum is an exact integer and each score is the same float32
// value a NumPy reference computes.

#define HW_THREADS 128  // launch with blockDim.x == HW_THREADS (a power of two)
#define HW_MAX_TSIZE 51
#define HW_BLEND_OLD 87  // template update: (87 * old + 13 * new + 50) / 100, Rodinia's alpha = 0.87
#define HW_BLEND_NEW 13

// rows, cols: frame size; tsize: template side (odd); search: search-area half side; max_move: candidates
// lie within +-max_move rows and columns of the previous position; update_every: anchor and template update
// period in frames.
extern "C" __global__ void hw_frame(const float *frame, int rows, int cols, int tsize, int search,
                                   int max_move, int update_every, int npoints, int frame_no, float *templates,
                                   int *anchor_row, int *anchor_col, int *point_row, int *point_col,
                                   float *area, int *sat, int *sat_sqr, float *scores, int *track_row,
                                   int *track_col) {
  __shared__ float s_tpl[HW_MAX_TSIZE * HW_MAX_TSIZE];
  __shared__ int s_colsum[HW_MAX_TSIZE];
  __shared__ int s_tsum;
  __shared__ float s_best[HW_THREADS];
  __shared__ int s_index[HW_THREADS];
  __shared__ int s_new_row, s_new_col;

  const int p = blockIdx.x;
  const int tid = threadIdx.x;
  const int t = tsize;
  const int half = t / 2;
  const int telems = t * t;
  float *tpl = templates + (size_t)p * telems;

  if (frame_no == 0) {  // template extraction around the initial point
    const int r0 = point_row[p] - half, c0 = point_col[p] - half;
    for (int k = tid; k < telems; k += HW_THREADS) {
      int y = k / t, x = k - (k / t) * t;
      tpl[k] = frame[(r0 + y) * cols + c0 + x];
    }
    return;
  }

  const int w = 2 * search + 1;  // area side
  const int ws = w + 1;             // integral-image side (a zero row and column in front)
  float *in2 = area + (size_t)p * w * w;
  int *s1 = sat + (size_t)p * ws * ws;
  int *s2 = sat_sqr + (size_t)p * ws * ws;
  const int r0 = min(max(anchor_row[p] - search, 0), rows - w);
  const int c0 = min(max(anchor_col[p] - search, 0), cols - w);

  // 1. selection
  for (int k = tid; k < w * w; k += HW_THREADS) {
    int r = k / w, c = k - (k / w) * w;
    in2[k] = frame[(r0 + r) * cols + c0 + c];
  }
  __syncthreads();

  // 2. integral images: column sums down, then row sums across
  for (int c = tid; c < ws; c += HW_THREADS) {
    s1[c] = 0;
    s2[c] = 0;
    if (c == 0) continue;
    int sum = 0, sum_sqr = 0;
    for (int r = 1; r < ws; r++) {
      int v = (int)in2[(r - 1) * w + c - 1];
      sum += v;
      sum_sqr += v * v;
      s1[r * ws + c] = sum;
      s2[r * ws + c] = sum_sqr;
    }
  }
  __syncthreads();
  for (int r = 1 + tid; r < ws; r += HW_THREADS) {
    s1[r * ws] = 0;
    s2[r * ws] = 0;
    int sum = 0, sum_sqr = 0;
    for (int c = 1; c < ws; c++) {
      sum += s1[r * ws + c];
      sum_sqr += s2[r * ws + c];
      s1[r * ws + c] = sum;
      s2[r * ws + c] = sum_sqr;
    }
  }

  // 3. template into shared memory, its sum
  for (int k = tid; k < telems; k += HW_THREADS) s_tpl[k] = tpl[k];
  __syncthreads();
  for (int x = tid; x < t; x += HW_THREADS) {
    int sum = 0;
    for (int y = 0; y < t; y++) sum += (int)s_tpl[y * t + x];
    s_colsum[x] = sum;
  }
  __syncthreads();
  if (tid == 0) {
    int sum = 0;
    for (int x = 0; x < t; x++) sum += s_colsum[x];
    s_tsum = sum;
  }
  __syncthreads();

  // 4. correlation at the candidates (top-left corners of the template inside the area)
  const int pu = point_row[p] - half - r0, pv = point_col[p] - half - c0;
  const int u_lo = max(pu - max_move, 0), u_hi = min(pu + max_move, w - t);
  const int v_lo = max(pv - max_move, 0), v_hi = min(pv + max_move, w - t);
  const int ncols = v_hi - v_lo + 1;
  const int ncand = (u_hi - u_lo + 1) * ncols;
  const int span = 2 * max_move + 1;
  float *map = scores + (size_t)p * span * span;
  const long long n = telems;
  const long long tsum = s_tsum;
  for (int k = tid; k < ncand; k += HW_THREADS) {
    int u = u_lo + k / ncols, v = v_lo + k - (k / ncols) * ncols;
    int sft = 0;
    for (int y = 0; y < t; y++) {
      const float *arow = in2 + (u + y) * w + v;
      const float *trow = s_tpl + y * t;
      for (int x = 0; x < t; x++) sft += (int)arow[x] * (int)trow[x];
    }
    int a = u * ws + v, b = u * ws + v + t, c = (u + t) * ws + v, d = (u + t) * ws + v + t;
    long long sf = s1[d] - s1[b] - s1[c] + s1[a];
    long long sff = s2[d] - s2[b] - s2[c] + s2[a];
    long long num = n * sft - sf * tsum;
    long long den = n * sff - sf * sf;
    map[k] = den > 0 ? (float)num / sqrtf((float)den) : 0.0f;
  }
  __syncthreads();

  // 5. maximum: the first candidate (row-major) with the largest score
  float best = -3.0e38f;
  int best_index = ncand;
  for (int k = tid; k < ncand; k += HW_THREADS) {
    float s = map[k];
    if (s > best) {
      best = s;
      best_index = k;
    }
  }
  s_best[tid] = best;
  s_index[tid] = best_index;
  __syncthreads();
  for (int stride = HW_THREADS / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      float other = s_best[tid + stride];
      int other_index = s_index[tid + stride];
      if (other > s_best[tid] || (other == s_best[tid] && other_index < s_index[tid])) {
        s_best[tid] = other;
        s_index[tid] = other_index;
      }
    }
    __syncthreads();
  }

  // 6. update the point, and every update_every frames its anchor and template
  if (tid == 0) {
    int k = s_index[0];
    int new_row = r0 + u_lo + k / ncols + half;
    int new_col = c0 + v_lo + k - (k / ncols) * ncols + half;
    point_row[p] = new_row;
    point_col[p] = new_col;
    track_row[(frame_no - 1) * npoints + p] = new_row;
    track_col[(frame_no - 1) * npoints + p] = new_col;
    s_new_row = new_row;
    s_new_col = new_col;
    if (frame_no % update_every == 0) {
      anchor_row[p] = new_row;
      anchor_col[p] = new_col;
    }
  }
  __syncthreads();
  if (frame_no % update_every == 0) {
    const int tr = s_new_row - half, tc = s_new_col - half;
    for (int k = tid; k < telems; k += HW_THREADS) {
      int y = k / t, x = k - (k / t) * t;
      int old = (int)s_tpl[k];
      int cur = (int)frame[(tr + y) * cols + tc + x];
      tpl[k] = (float)((HW_BLEND_OLD * old + HW_BLEND_NEW * cur + 50) / 100);
    }
  }
}
