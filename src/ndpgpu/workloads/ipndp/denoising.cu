// Denoising (IP-NDP Type 3): KNN-style edge-preserving filter after the CUDA SDK imageDenoising's KNN
// algorithm, on a grayscale float image: over a 7x7 window (clamp-to-edge reads, like a clamped texture),
// weight = exp(-(|I(p) - I(c)|^2 / h^2 + |p - c|^2 / window_area)), out = sum(weight * I) / sum(weight).
// denoising_base: one thread per pixel, ordinary 2D grid. denoising_pa: row-major PACA (band of rows per
// CTA, gridDim.x = #SMs, barrier per block step). Both run the same per-pixel body.
#include "ipndp.cuh"

#define DN_R 3
#define DN_INV_AREA (1.0f / ((2 * DN_R + 1) * (2 * DN_R + 1)))

__device__ __forceinline__ void denoising_pixel(const float *__restrict__ in, float *__restrict__ out, int width,
                                                int height, float inv_h2, int x, int y) {
  const float c = in[y * width + x];
  float sum = 0.0f, weights = 0.0f;
#pragma unroll
  for (int i = -DN_R; i <= DN_R; ++i) {
    const int yy = min(max(y + i, 0), height - 1);
#pragma unroll
    for (int j = -DN_R; j <= DN_R; ++j) {
      const int xx = min(max(x + j, 0), width - 1);
      const float v = in[yy * width + xx];
      const float d = v - c;
      const float w = __expf(-(d * d * inv_h2 + (float)(i * i + j * j) * DN_INV_AREA));
      sum += v * w;
      weights += w;
    }
  }
  out[y * width + x] = sum * (1.0f / weights);
}

extern "C" __global__ void denoising_base(const float *__restrict__ in, float *__restrict__ out, int width,
                                          int height, float inv_h2) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) denoising_pixel(in, out, width, height, inv_h2, x, y);
}

template <bool kSync>
__device__ __forceinline__ void denoising_pa_body(const float *__restrict__ in, float *__restrict__ out, int width,
                                                  int height, float inv_h2) {
  int y_lo, y_hi;
  ipndp_row_band(height, y_lo, y_hi);
  for (int by = y_lo; by < y_hi; by += blockDim.y) {
    const int y = by + threadIdx.y;
    for (int bx = 0; bx < width; bx += blockDim.x) {
      const int x = bx + threadIdx.x;
      if (x < width && y < y_hi) denoising_pixel(in, out, width, height, inv_h2, x, y);
      if (kSync) __syncthreads();
    }
  }
}

extern "C" __global__ void denoising_pa(const float *__restrict__ in, float *__restrict__ out, int width, int height,
                                        float inv_h2) {
  denoising_pa_body<true>(in, out, width, height, inv_h2);
}

// Without Guideline 2's barrier (the ablation of the paper's Fig. 8): the same steps, warps free.
extern "C" __global__ void denoising_pa_nobar(const float *__restrict__ in, float *__restrict__ out, int width,
                                              int height, float inv_h2) {
  denoising_pa_body<false>(in, out, width, height, inv_h2);
}
