// Conv2D (IP-NDP Type 1): 3x3 convolution of a float image, clamp-to-edge borders, weights in constant
// memory. conv2d_base: one thread per pixel over an ordinary 2D grid (the paper's Fig. 7a).
// conv2d_pa: row-major PACA (Fig. 7b/c): gridDim.x = #SMs, each CTA walks its band of rows block by block,
// left to right and then down, with a barrier after every block. Both run the same per-pixel body.
#include "ipndp.cuh"

__constant__ float conv2d_weights[9];  // row-major 3x3: weights[(dy + 1) * 3 + (dx + 1)]

__device__ __forceinline__ void conv2d_pixel(const float *__restrict__ in, float *__restrict__ out, int width,
                                             int height, int x, int y) {
  float acc = 0.0f;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max(y + dy, 0), height - 1);
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = min(max(x + dx, 0), width - 1);
      acc += conv2d_weights[(dy + 1) * 3 + (dx + 1)] * in[yy * width + xx];
    }
  }
  out[y * width + x] = acc;
}

extern "C" __global__ void conv2d_base(const float *__restrict__ in, float *__restrict__ out, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) conv2d_pixel(in, out, width, height, x, y);
}

template <bool kSync>
__device__ __forceinline__ void conv2d_pa_body(const float *__restrict__ in, float *__restrict__ out, int width,
                                               int height) {
  int y_lo, y_hi;
  ipndp_row_band(height, y_lo, y_hi);  // Step 1: this SM's region
  for (int by = y_lo; by < y_hi; by += blockDim.y) {      // Step 4: next row block
    const int y = by + threadIdx.y;
    for (int bx = 0; bx < width; bx += blockDim.x) {      // Step 2/3: blocks along the row block
      const int x = bx + threadIdx.x;
      if (x < width && y < y_hi) conv2d_pixel(in, out, width, height, x, y);
      if (kSync) __syncthreads();  // Guideline 2: keep the warps of the CTA in step
    }
  }
}

extern "C" __global__ void conv2d_pa(const float *__restrict__ in, float *__restrict__ out, int width, int height) {
  conv2d_pa_body<true>(in, out, width, height);
}

// Without Guideline 2's barrier (the ablation of the paper's Fig. 8): the same steps, warps free.
extern "C" __global__ void conv2d_pa_nobar(const float *__restrict__ in, float *__restrict__ out, int width,
                                           int height) {
  conv2d_pa_body<false>(in, out, width, height);
}
