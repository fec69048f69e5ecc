// ConvSep (IP-NDP Type 2): separable convolution with a 17-tap kernel (radius 8), a row pass into a buffer
// and then a column pass, zero outside the image, after the algorithm of the CUDA SDK's convolutionSeparable.
// Every output is sum_{j=-R..R} k[R - j] * in[pos + j] accumulated in this order, so all kernels below give
// the same bits.
//
//  * shared-memory forms (the SDK's scheme, Guideline 4 not applied)
//    - convsep_{rows,cols}_smem: the SDK's tiling: 16x4 threads for rows, 16x8 for columns, each thread
//      computing 8 outputs from a shared tile that holds one block-wide halo on either side.
//    - convsep_{rows,cols}_smem_pa: PACA, 32x8 threads; a block step stages its 32x8 pixels plus an R-pixel
//      halo in shared memory; rows walk a row band (row-major), columns a column band (column-major).
//  * L1 forms (Guideline 4: plain global loads through the L1 instead of shared memory)
//    - convsep_{rows,cols}_l1: one thread per pixel, 32x8 blocks.
//    - convsep_{rows,cols}_l1_pa: PACA, row band for the row pass, column band for the column pass.
#include "ipndp.cuh"

#define CS_R 8
#define CS_TAPS (2 * CS_R + 1)

__constant__ float convsep_kernel[CS_TAPS];

// SDK-style tiling of the baseline shared-memory kernels
#define ROWS_BX 16
#define ROWS_BY 4
#define ROWS_STEPS 8
#define ROWS_HALO 1
#define COLS_BX 16
#define COLS_BY 8
#define COLS_STEPS 8
#define COLS_HALO 1
// PACA block: 32x8 = 256 threads
#define PA_BX 32
#define PA_BY 8

// ------------------------------------------------------------------------------------------ shared memory

extern "C" __global__ void convsep_rows_smem(const float *__restrict__ src, float *__restrict__ dst, int width,
                                             int height) {
  __shared__ float tile[ROWS_BY][(ROWS_STEPS + 2 * ROWS_HALO) * ROWS_BX];
  const int x0 = (blockIdx.x * ROWS_STEPS - ROWS_HALO) * ROWS_BX + threadIdx.x;
  const int y = blockIdx.y * ROWS_BY + threadIdx.y;
  const float *row = src + y * width;
  // main part: always inside the image (width % (ROWS_STEPS * ROWS_BX) == 0); halos: zero outside
#pragma unroll
  for (int s = ROWS_HALO; s < ROWS_HALO + ROWS_STEPS; ++s) tile[threadIdx.y][threadIdx.x + s * ROWS_BX] = row[x0 + s * ROWS_BX];
#pragma unroll
  for (int s = 0; s < ROWS_HALO; ++s)
    tile[threadIdx.y][threadIdx.x + s * ROWS_BX] = (x0 + s * ROWS_BX >= 0) ? row[x0 + s * ROWS_BX] : 0.0f;
#pragma unroll
  for (int s = ROWS_HALO + ROWS_STEPS; s < ROWS_HALO + ROWS_STEPS + ROWS_HALO; ++s)
    tile[threadIdx.y][threadIdx.x + s * ROWS_BX] = (x0 + s * ROWS_BX < width) ? row[x0 + s * ROWS_BX] : 0.0f;
  __syncthreads();
#pragma unroll
  for (int s = ROWS_HALO; s < ROWS_HALO + ROWS_STEPS; ++s) {
    float sum = 0.0f;
#pragma unroll
    for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * tile[threadIdx.y][threadIdx.x + s * ROWS_BX + j];
    dst[y * width + x0 + s * ROWS_BX] = sum;
  }
}

extern "C" __global__ void convsep_cols_smem(const float *__restrict__ src, float *__restrict__ dst, int width,
                                             int height) {
  __shared__ float tile[COLS_BX][(COLS_STEPS + 2 * COLS_HALO) * COLS_BY + 1];  // +1: no bank conflicts
  const int x = blockIdx.x * COLS_BX + threadIdx.x;
  const int y0 = (blockIdx.y * COLS_STEPS - COLS_HALO) * COLS_BY + threadIdx.y;
  const float *col = src + x;
#pragma unroll
  for (int s = COLS_HALO; s < COLS_HALO + COLS_STEPS; ++s)
    tile[threadIdx.x][threadIdx.y + s * COLS_BY] = col[(y0 + s * COLS_BY) * width];
#pragma unroll
  for (int s = 0; s < COLS_HALO; ++s)
    tile[threadIdx.x][threadIdx.y + s * COLS_BY] = (y0 + s * COLS_BY >= 0) ? col[(y0 + s * COLS_BY) * width] : 0.0f;
#pragma unroll
  for (int s = COLS_HALO + COLS_STEPS; s < COLS_HALO + COLS_STEPS + COLS_HALO; ++s)
    tile[threadIdx.x][threadIdx.y + s * COLS_BY] =
        (y0 + s * COLS_BY < height) ? col[(y0 + s * COLS_BY) * width] : 0.0f;
  __syncthreads();
#pragma unroll
  for (int s = COLS_HALO; s < COLS_HALO + COLS_STEPS; ++s) {
    float sum = 0.0f;
#pragma unroll
    for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * tile[threadIdx.x][threadIdx.y + s * COLS_BY + j];
    dst[(y0 + s * COLS_BY) * width + x] = sum;
  }
}

extern "C" __global__ void convsep_rows_smem_pa(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                int height) {
  __shared__ float tile[PA_BY][PA_BX + 2 * CS_R];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int y_lo, y_hi;
  ipndp_row_band(height, y_lo, y_hi);
  for (int by = y_lo; by < y_hi; by += PA_BY) {
    const int y = by + ty;
    const bool row_in = y < y_hi;
    const float *row = src + y * width;
    for (int bx = 0; bx < width; bx += PA_BX) {
      const int x = bx + tx;
      tile[ty][tx + CS_R] = (row_in && x < width) ? row[x] : 0.0f;
      if (tx < CS_R) {
        tile[ty][tx] = (row_in && x - CS_R >= 0) ? row[x - CS_R] : 0.0f;
        tile[ty][tx + PA_BX + CS_R] = (row_in && x + PA_BX < width) ? row[x + PA_BX] : 0.0f;
      }
      __syncthreads();
      if (row_in && x < width) {
        float sum = 0.0f;
#pragma unroll
        for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * tile[ty][tx + CS_R + j];
        dst[y * width + x] = sum;
      }
      __syncthreads();  // Guideline 2 (and the tile is reused by the next step)
    }
  }
}

extern "C" __global__ void convsep_cols_smem_pa(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                int height) {
  __shared__ float tile[PA_BY + 2 * CS_R][PA_BX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int x_lo, x_hi;
  ipndp_col_band(width, x_lo, x_hi);
  for (int bx = x_lo; bx < x_hi; bx += PA_BX) {
    const int x = bx + tx;
    const bool col_in = x < x_hi;
    const float *col = src + x;
    for (int by = 0; by < height; by += PA_BY) {
      const int y = by + ty;
      tile[ty + CS_R][tx] = (col_in && y < height) ? col[y * width] : 0.0f;
      for (int h = ty; h < CS_R; h += PA_BY) {  // the halo rows above and below the block
        tile[h][tx] = (col_in && by - CS_R + h >= 0) ? col[(by - CS_R + h) * width] : 0.0f;
        tile[h + PA_BY + CS_R][tx] = (col_in && by + PA_BY + h < height) ? col[(by + PA_BY + h) * width] : 0.0f;
      }
      __syncthreads();
      if (col_in && y < height) {
        float sum = 0.0f;
#pragma unroll
        for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * tile[ty + CS_R + j][tx];
        dst[y * width + x] = sum;
      }
      __syncthreads();
    }
  }
}

// --------------------------------------------------------------------------------------------------- L1

__device__ __forceinline__ void convsep_row_pixel(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                  int x, int y) {
  const float *row = src + y * width;
  float sum = 0.0f;
  if (x >= CS_R && x + CS_R < width) {  // interior: no bounds checks (same sum, same order)
#pragma unroll
    for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * row[x + j];
  } else {
#pragma unroll
    for (int j = -CS_R; j <= CS_R; ++j) {
      const int xx = x + j;
      sum += convsep_kernel[CS_R - j] * ((xx >= 0 && xx < width) ? row[xx] : 0.0f);
    }
  }
  dst[y * width + x] = sum;
}

__device__ __forceinline__ void convsep_col_pixel(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                  int height, int x, int y) {
  float sum = 0.0f;
  if (y >= CS_R && y + CS_R < height) {
    const float *p = src + y * width + x;
#pragma unroll
    for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * p[j * width];
  } else {
#pragma unroll
    for (int j = -CS_R; j <= CS_R; ++j) {
      const int yy = y + j;
      sum += convsep_kernel[CS_R - j] * ((yy >= 0 && yy < height) ? src[yy * width + x] : 0.0f);
    }
  }
  dst[y * width + x] = sum;
}

extern "C" __global__ void convsep_rows_l1(const float *__restrict__ src, float *__restrict__ dst, int width,
                                           int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) convsep_row_pixel(src, dst, width, x, y);
}

extern "C" __global__ void convsep_cols_l1(const float *__restrict__ src, float *__restrict__ dst, int width,
                                           int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) convsep_col_pixel(src, dst, width, height, x, y);
}

template <bool kSync>
__device__ __forceinline__ void convsep_rows_l1_pa_body(const float *__restrict__ src, float *__restrict__ dst,
                                                        int width, int height) {
  int y_lo, y_hi;
  ipndp_row_band(height, y_lo, y_hi);
  for (int by = y_lo; by < y_hi; by += blockDim.y) {
    const int y = by + threadIdx.y;
    for (int bx = 0; bx < width; bx += blockDim.x) {
      const int x = bx + threadIdx.x;
      if (x < width && y < y_hi) convsep_row_pixel(src, dst, width, x, y);
      if (kSync) __syncthreads();
    }
  }
}

extern "C" __global__ void convsep_rows_l1_pa(const float *__restrict__ src, float *__restrict__ dst, int width,
                                              int height) {
  convsep_rows_l1_pa_body<true>(src, dst, width, height);
}

// Without Guideline 2's barrier (the ablation of the paper's Fig. 8): the same steps, warps free.
extern "C" __global__ void convsep_rows_l1_pa_nobar(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                    int height) {
  convsep_rows_l1_pa_body<false>(src, dst, width, height);
}

template <bool kSync>
__device__ __forceinline__ void convsep_cols_l1_pa_body(const float *__restrict__ src, float *__restrict__ dst,
                                                        int width, int height) {
  int x_lo, x_hi;
  ipndp_col_band(width, x_lo, x_hi);
  for (int bx = x_lo; bx < x_hi; bx += blockDim.x) {
    const int x = bx + threadIdx.x;
    for (int by = 0; by < height; by += blockDim.y) {
      const int y = by + threadIdx.y;
      if (x < x_hi && y < height) convsep_col_pixel(src, dst, width, height, x, y);
      if (kSync) __syncthreads();
    }
  }
}

extern "C" __global__ void convsep_cols_l1_pa(const float *__restrict__ src, float *__restrict__ dst, int width,
                                              int height) {
  convsep_cols_l1_pa_body<true>(src, dst, width, height);
}

// Without Guideline 2's barrier (the ablation of the paper's Fig. 8): the same steps, warps free.
extern "C" __global__ void convsep_cols_l1_pa_nobar(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                    int height) {
  convsep_cols_l1_pa_body<false>(src, dst, width, height);
}
