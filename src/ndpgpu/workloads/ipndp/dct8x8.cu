// Dct8x8 (IP-NDP Type 2): forward 2D DCT-II (orthonormal) of every 8x8 block of a float image,
// C = D * X * D^T with D[k][n] = c(k) cos((2n + 1) k pi / 16) in constant memory, after the algorithm of the
// CUDA SDK's dct8x8 (CUDAkernel1DCT): a CTA step stages 32x8 pixels (four 8x8 blocks) in shared memory, runs
// the 1D DCT down the columns into a second shared array, then along the rows, one coefficient per thread.
// dct8x8_base: one thread per pixel over an ordinary grid of 32x8 blocks. dct8x8_pa: tile-based PACA: the
// image is tiles_x x tiles_y tiles (= gridDim.x), each CTA walks its tile block by block in row-major order,
// barrier per step. Both run the same per-step body.
#include "ipndp.cuh"

#define DCT_BX 32
#define DCT_BY 8

__constant__ float dct_matrix[64];  // D[k][n] at k * 8 + n

__device__ __forceinline__ void dct8x8_step(const float *__restrict__ src, float *__restrict__ dst, int width,
                                            int height, int bx, int by, float (*tile)[DCT_BX],
                                            float (*tmp)[DCT_BX]) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = bx + tx, y = by + ty;  // by is a multiple of 8: row ty of the step is row ty of its 8x8 blocks
  const bool inside = x < width && y < height;
  tile[ty][tx] = inside ? src[y * width + x] : 0.0f;
  __syncthreads();
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += dct_matrix[ty * 8 + k] * tile[k][tx];  // column DCT: frequency v = ty
  tmp[ty][tx] = s;
  __syncthreads();
  const int u = tx & 7, base = tx - u;
  s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += dct_matrix[u * 8 + k] * tmp[ty][base + k];  // row DCT: frequency u
  if (inside) dst[y * width + x] = s;
}

extern "C" __global__ void dct8x8_base(const float *__restrict__ src, float *__restrict__ dst, int width, int height) {
  __shared__ float tile[DCT_BY][DCT_BX];
  __shared__ float tmp[DCT_BY][DCT_BX];
  dct8x8_step(src, dst, width, height, blockIdx.x * DCT_BX, blockIdx.y * DCT_BY, tile, tmp);
}

extern "C" __global__ void dct8x8_pa(const float *__restrict__ src, float *__restrict__ dst, int width, int height,
                                     int tiles_x, int tiles_y) {
  __shared__ float tile[DCT_BY][DCT_BX];
  __shared__ float tmp[DCT_BY][DCT_BX];
  int x_lo, x_hi, y_lo, y_hi;
  ipndp_tile(width, height, tiles_x, tiles_y, x_lo, x_hi, y_lo, y_hi);
  for (int by = y_lo; by < y_hi; by += DCT_BY) {
    for (int bx = x_lo; bx < x_hi; bx += DCT_BX) {
      dct8x8_step(src, dst, width, height, bx, by, tile, tmp);
      __syncthreads();  // Guideline 2 (and the shared arrays are reused by the next step)
    }
  }
}
