// Concat (IP-NDP Type 2): two images of the same height side by side, out = [a | b], out is
// height x (width_a + width_b). concat_base: one thread per output pixel, ordinary 2D grid. concat_pa:
// row-major PACA over the output (band of rows per CTA, gridDim.x = #SMs, barrier per block step).
#include "ipndp.cuh"

__device__ __forceinline__ void concat_pixel(const float *__restrict__ a, const float *__restrict__ b,
                                             float *__restrict__ out, int width_a, int width_b, int x, int y) {
  const int width = width_a + width_b;
  out[y * width + x] = (x < width_a) ? a[y * width_a + x] : b[y * width_b + (x - width_a)];
}

extern "C" __global__ void concat_base(const float *__restrict__ a, const float *__restrict__ b,
                                       float *__restrict__ out, int width_a, int width_b, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width_a + width_b && y < height) concat_pixel(a, b, out, width_a, width_b, x, y);
}

template <bool kSync>
__device__ __forceinline__ void concat_pa_body(const float *__restrict__ a, const float *__restrict__ b,
                                               float *__restrict__ out, int width_a, int width_b, int height) {
  const int width = width_a + width_b;
  int y_lo, y_hi;
  ipndp_row_band(height, y_lo, y_hi);
  for (int by = y_lo; by < y_hi; by += blockDim.y) {
    const int y = by + threadIdx.y;
    for (int bx = 0; bx < width; bx += blockDim.x) {
      const int x = bx + threadIdx.x;
      if (x < width && y < y_hi) concat_pixel(a, b, out, width_a, width_b, x, y);
      if (kSync) __syncthreads();
    }
  }
}

extern "C" __global__ void concat_pa(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ out,
                                     int width_a, int width_b, int height) {
  concat_pa_body<true>(a, b, out, width_a, width_b, height);
}

// Without Guideline 2's barrier (the ablation of the paper's Fig. 8): the same steps, warps free.
extern "C" __global__ void concat_pa_nobar(const float *__restrict__ a, const float *__restrict__ b,
                                           float *__restrict__ out, int width_a, int width_b, int height) {
  concat_pa_body<false>(a, b, out, width_a, width_b, height);
}
