// Jacobi2D (IP-NDP Type 1): one sweep of the 5-point Jacobi stencil, b = 0.2 * (a + 4 neighbours) on the
// interior; the border is not written (the host starts both ping-pong buffers from the input, so it stays
// fixed). The host launches one sweep per time step, swapping a and b.
// jacobi2d_base: one thread per point, ordinary 2D grid. jacobi2d_pa: row-major PACA (band of rows per CTA,
// gridDim.x = #SMs, barrier per block step). Both run the same per-point body.
#include "ipndp.cuh"

__device__ __forceinline__ void jacobi2d_point(const float *__restrict__ a, float *__restrict__ b, int width,
                                               int height, int x, int y) {
  if (x >= 1 && x < width - 1 && y >= 1 && y < height - 1) {
    const int c = y * width + x;
    b[c] = 0.2f * (a[c] + a[c - 1] + a[c + 1] + a[c + width] + a[c - width]);
  }
}

extern "C" __global__ void jacobi2d_base(const float *__restrict__ a, float *__restrict__ b, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  jacobi2d_point(a, b, width, height, x, y);
}

template <bool kSync>
__device__ __forceinline__ void jacobi2d_pa_body(const float *__restrict__ a, float *__restrict__ b, int width,
                                                 int height) {
  int y_lo, y_hi;
  ipndp_row_band(height, y_lo, y_hi);
  for (int by = y_lo; by < y_hi; by += blockDim.y) {
    const int y = by + threadIdx.y;
    for (int bx = 0; bx < width; bx += blockDim.x) {
      const int x = bx + threadIdx.x;
      if (y < y_hi) jacobi2d_point(a, b, width, height, x, y);
      if (kSync) __syncthreads();
    }
  }
}

extern "C" __global__ void jacobi2d_pa(const float *__restrict__ a, float *__restrict__ b, int width, int height) {
  jacobi2d_pa_body<true>(a, b, width, height);
}

// Without Guideline 2's barrier (the ablation of the paper's Fig. 8): the same steps, warps free.
extern "C" __global__ void jacobi2d_pa_nobar(const float *__restrict__ a, float *__restrict__ b, int width,
                                             int height) {
  jacobi2d_pa_body<false>(a, b, width, height);
}
