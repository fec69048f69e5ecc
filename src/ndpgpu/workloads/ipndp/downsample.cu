// DownSample (IP-NDP Type 2): 2x2 box downsampling, out[y][x] = 0.25 * (in[2y][2x] + in[2y][2x+1] +
// in[2y+1][2x] + in[2y+1][2x+1]); the input is (2 * out_height) x (2 * out_width).
// downsample_base: one thread per output pixel, ordinary 2D grid. downsample_pa: row-major PACA over the
// output (a band of output rows per CTA, gridDim.x = #SMs, barrier per block step).
#include "ipndp.cuh"

__device__ __forceinline__ void downsample_pixel(const float *__restrict__ in, float *__restrict__ out, int out_width,
                                                 int x, int y) {
  const int in_width = 2 * out_width;
  const float *p = in + (2 * y) * in_width + 2 * x;
  out[y * out_width + x] = 0.25f * (p[0] + p[1] + p[in_width] + p[in_width + 1]);
}

extern "C" __global__ void downsample_base(const float *__restrict__ in, float *__restrict__ out, int out_width,
                                           int out_height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < out_width && y < out_height) downsample_pixel(in, out, out_width, x, y);
}

template <bool kSync>
__device__ __forceinline__ void downsample_pa_body(const float *__restrict__ in, float *__restrict__ out, int out_width,
                                                   int out_height) {
  int y_lo, y_hi;
  ipndp_row_band(out_height, y_lo, y_hi);
  for (int by = y_lo; by < y_hi; by += blockDim.y) {
    const int y = by + threadIdx.y;
    for (int bx = 0; bx < out_width; bx += blockDim.x) {
      const int x = bx + threadIdx.x;
      if (x < out_width && y < y_hi) downsample_pixel(in, out, out_width, x, y);
      if (kSync) __syncthreads();
    }
  }
}

extern "C" __global__ void downsample_pa(const float *__restrict__ in, float *__restrict__ out, int out_width,
                                         int out_height) {
  downsample_pa_body<true>(in, out, out_width, out_height);
}

// Without Guideline 2's barrier (the ablation of the paper's Fig. 8): the same steps, warps free.
extern "C" __global__ void downsample_pa_nobar(const float *__restrict__ in, float *__restrict__ out, int out_width,
                                               int out_height) {
  downsample_pa_body<false>(in, out, out_width, out_height);
}
