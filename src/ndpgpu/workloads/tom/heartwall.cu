// Heart-wall tracking (Rodinia heartwall style): one block per tracked point, one launch per frame.
// The block copies the frame window around its point into a per-point scratch buffer in global memory
// (as Rodinia keeps its per-point working arrays in global memory), then every thread scores candidate
// displacements by normalised cross-correlation with the point's template, and a shared-memory argmax
// picks the best one; thread 0 moves the point and records it.
// Pixels are integer-valued floats; the correlation sums are integers, so every score is exact.

#include <cfloat>

#define HW_THREADS 256  // launch with blockDim.x == HW_THREADS (a power of two)

extern "C" __global__ void hw_track(const float *frame, int rows, int cols, const float *templates,
                                    const int *template_sum, int tsize, int search, int *point_row,
                                    int *point_col, float *windows, int *track_row, int *track_col,
                                    int frame_index, int npoints) {
  __shared__ float s_score[HW_THREADS];
  __shared__ int s_index[HW_THREADS];
  const int p = blockIdx.x;
  const int tid = threadIdx.x;
  const int half = tsize / 2;
  const int wsize = 2 * search + tsize;
  const int span = 2 * search + 1;

  // window origin, kept inside the frame
  const int r0 = min(max(point_row[p] - search - half, 0), rows - wsize);
  const int c0 = min(max(point_col[p] - search - half, 0), cols - wsize);
  float *win = windows + (size_t)p * wsize * wsize;
  for (int k = tid; k < wsize * wsize; k += blockDim.x) {
    int r = k / wsize;
    int c = k - r * wsize;
    win[k] = frame[(r0 + r) * cols + c0 + c];
  }
  __syncthreads();

  const float *tpl = templates + (size_t)p * tsize * tsize;
  const long long n = (long long)tsize * tsize;
  const long long sum_t = template_sum[p];
  float best = -FLT_MAX;
  int best_index = span * span;
  for (int cand = tid; cand < span * span; cand += blockDim.x) {
    int u = cand / span;
    int v = cand - u * span;
    int sft = 0, sf = 0, sff = 0;
    for (int y = 0; y < tsize; y++) {
      const float *wrow = win + (u + y) * wsize + v;
      const float *trow = tpl + y * tsize;
      for (int x = 0; x < tsize; x++) {
        int f = (int)wrow[x];
        int t = (int)trow[x];
        sft += f * t;
        sf += f;
        sff += f * f;
      }
    }
    long long num = n * sft - (long long)sf * sum_t;
    long long den = n * sff - (long long)sf * sf;
    float score = den > 0 ? (float)num / sqrtf((float)den) : 0.0f;
    if (score > best) {
      best = score;
      best_index = cand;
    }
  }

  s_score[tid] = best;
  s_index[tid] = best_index;
  __syncthreads();
  for (int stride = HW_THREADS / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      float other = s_score[tid + stride];
      int other_index = s_index[tid + stride];
      if (other > s_score[tid] || (other == s_score[tid] && other_index < s_index[tid])) {
        s_score[tid] = other;
        s_index[tid] = other_index;
      }
    }
    __syncthreads();
  }

  if (tid == 0) {
    int cand = s_index[0];
    int u = cand / span;
    int v = cand - u * span;
    int new_row = r0 + u + half;
    int new_col = c0 + v + half;
    point_row[p] = new_row;
    point_col[p] = new_col;
    track_row[frame_index * npoints + p] = new_row;
    track_col[frame_index * npoints + p] = new_col;
  }
}
