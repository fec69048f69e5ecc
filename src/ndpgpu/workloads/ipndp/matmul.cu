// MatMul (IP-NDP Type 3): C = A B (A is M x K, B is K x N, row-major), after the algorithm of the CUDA SDK's
// matrixMul: each CTA step computes one 16x16 block of C, marching 16x16 tiles of A and B through shared
// memory with two barriers per tile. matmul_base: one CTA per block of C over an ordinary 2D grid.
// matmul_pa: tile-based PACA: C is split into tiles_x x tiles_y tiles (= gridDim.x), each CTA walks its tile
// block by block in row-major order. Sizes are multiples of 16. Both run the same per-block body.
#include "ipndp.cuh"

#define MM_T 16

__device__ __forceinline__ void matmul_block(const float *__restrict__ a, const float *__restrict__ b,
                                             float *__restrict__ c, int n, int k, int row0, int col0,
                                             float (*as)[MM_T], float (*bs)[MM_T]) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = row0 + ty, col = col0 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += MM_T) {
    as[ty][tx] = a[row * k + k0 + tx];
    bs[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < MM_T; ++kk) acc += as[ty][kk] * bs[kk][tx];
    __syncthreads();  // also Guideline 2's barrier at the end of a PACA block step
  }
  c[row * n + col] = acc;
}

extern "C" __global__ void matmul_base(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                                       int m, int n, int k) {
  __shared__ float as[MM_T][MM_T];
  __shared__ float bs[MM_T][MM_T];
  matmul_block(a, b, c, n, k, blockIdx.y * MM_T, blockIdx.x * MM_T, as, bs);
}

extern "C" __global__ void matmul_pa(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                                     int m, int n, int k, int tiles_x, int tiles_y) {
  __shared__ float as[MM_T][MM_T];
  __shared__ float bs[MM_T][MM_T];
  int x_lo, x_hi, y_lo, y_hi;
  ipndp_tile(n, m, tiles_x, tiles_y, x_lo, x_hi, y_lo, y_hi);
  for (int row0 = y_lo; row0 < y_hi; row0 += MM_T)
    for (int col0 = x_lo; col0 < x_hi; col0 += MM_T) matmul_block(a, b, c, n, k, row0, col0, as, bs);
}
