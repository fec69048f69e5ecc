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
//    - convsep_{rows,cols}_l1rb: the SDK kernels with the shared-memory staging taken out and nothing else
//      changed: the same 16x4 / 16x8 threads and grid, each thread computing the same 8 outputs (spaced one
//      block apart along the pass), every tap an ordinary global load through the L1.
//    - convsep_{rows,cols}_l1rb_pa: PACA (32x8 threads, row band / column band, barrier per block step), each
//      thread computing 8 outputs per block step as the SDK kernels do (spaced 32 pixels apart along the row,
//      blockDim.y rows apart down the column), every tap a global load through the L1.
//    - convsep_{rows,cols}_l1 and _l1_pa: one thread per output pixel, 32x8 blocks (the first L1 rewrite, kept as
//      a labelled variant: it also gives up the SDK's 8 outputs per thread).
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

// ------------------------------------------------------------------------ L1, register-blocked (Guideline 4)
// Guideline 4 (Sec. 3.4): staging through shared memory costs a global load plus a shared store and a shared
// load per datum; with few threads and the prefetcher the L1 serves plain global loads, so the L1 code reads
// every tap with one global load. Everything else stays as in the SDK kernels: each thread computes CS_RB
// outputs spaced one block apart along the pass, each output summed over its 17 taps in the same order.

#define CS_RB 8  // outputs per thread (the SDK's ROWS_STEPS / COLS_STEPS)

// CS_RB outputs of one row, at x0 + s * SX (s < CS_RB); xb is the block's first output column. The SDK's shared
// tile held zeros outside the image in its halo; here a block whose taps all lie inside the row runs one
// straight-line body without bounds checks (the compiler may keep a value two outputs share in a register), and
// in a block at an image edge an output whose 17 taps lie inside (a test on xb + s * SX, the same for the whole
// warp) reads them unchecked while only the outputs at the edge test each tap (the same sums in the same order
// on every path). Outputs at or beyond `width` are not written.
template <int SX>
__device__ __forceinline__ void convsep_row_block(const float *__restrict__ row, float *__restrict__ out, int width,
                                                  int xb, int x0) {
  if (xb >= CS_R && xb + CS_RB * SX + CS_R <= width) {  // the whole block inside: one straight-line body
#pragma unroll
    for (int s = 0; s < CS_RB; ++s) {
      float sum = 0.0f;
#pragma unroll
      for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * row[x0 + s * SX + j];
      out[x0 + s * SX] = sum;
    }
    return;
  }
#pragma unroll
  for (int s = 0; s < CS_RB; ++s) {
    const int x = x0 + s * SX;
    float sum = 0.0f;
    if (xb + s * SX >= CS_R && xb + (s + 1) * SX + CS_R <= width) {
#pragma unroll
      for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * row[x + j];
      out[x] = sum;
    } else if (x < width) {
#pragma unroll
      for (int j = -CS_R; j <= CS_R; ++j) {
        const int xx = x + j;
        sum += convsep_kernel[CS_R - j] * ((xx >= 0 && xx < width) ? row[xx] : 0.0f);
      }
      out[x] = sum;
    }
  }
}

// CS_RB outputs of column x, at rows y0 + s * SY (SY = 0: at y0 + s * sy, a spacing known only at run time); yb
// is the block's first output row; the bounds are tested as in convsep_row_block.
template <int SY>
__device__ __forceinline__ void convsep_col_block(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                  int height, int x, int yb, int y0, int sy = SY) {
  const int step = SY > 0 ? SY : sy;
  if (yb >= CS_R && yb + CS_RB * step + CS_R <= height) {  // the whole block inside
    const float *p = src + y0 * width + x;
#pragma unroll
    for (int s = 0; s < CS_RB; ++s) {
      float sum = 0.0f;
#pragma unroll
      for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * p[(s * step + j) * width];
      dst[(y0 + s * step) * width + x] = sum;
    }
    return;
  }
#pragma unroll
  for (int s = 0; s < CS_RB; ++s) {
    const int y = y0 + s * step;
    float sum = 0.0f;
    if (yb + s * step >= CS_R && yb + (s + 1) * step + CS_R <= height) {
      const float *p = src + y * width + x;
#pragma unroll
      for (int j = -CS_R; j <= CS_R; ++j) sum += convsep_kernel[CS_R - j] * p[j * width];
      dst[y * width + x] = sum;
    } else if (y < height) {
#pragma unroll
      for (int j = -CS_R; j <= CS_R; ++j) {
        const int yy = y + j;
        sum += convsep_kernel[CS_R - j] * ((yy >= 0 && yy < height) ? src[yy * width + x] : 0.0f);
      }
      dst[y * width + x] = sum;
    }
  }
}

// The SDK's grids and blocks (16x4 threads, 8 outputs each, for rows; 16x8 for columns), no shared memory.
extern "C" __global__ void convsep_rows_l1rb(const float *__restrict__ src, float *__restrict__ dst, int width,
                                             int height) {
  const int xb = blockIdx.x * CS_RB * ROWS_BX;
  const int y = blockIdx.y * ROWS_BY + threadIdx.y;
  if (y < height) convsep_row_block<ROWS_BX>(src + y * width, dst + y * width, width, xb, xb + threadIdx.x);
}

extern "C" __global__ void convsep_cols_l1rb(const float *__restrict__ src, float *__restrict__ dst, int width,
                                             int height) {
  const int x = blockIdx.x * COLS_BX + threadIdx.x;
  const int yb = blockIdx.y * CS_RB * COLS_BY;
  if (x < width) convsep_col_block<COLS_BY>(src, dst, width, height, x, yb, yb + threadIdx.y);
}

// PACA: one 32-wide CTA per SM over its row band; a block step is 32 * CS_RB outputs wide and blockDim.y rows.
template <bool kSync>
__device__ __forceinline__ void convsep_rows_l1rb_pa_body(const float *__restrict__ src, float *__restrict__ dst,
                                                          int width, int height) {
  int y_lo, y_hi;
  ipndp_row_band(height, y_lo, y_hi);
  for (int by = y_lo; by < y_hi; by += blockDim.y) {
    const int y = by + threadIdx.y;
    for (int bx = 0; bx < width; bx += PA_BX * CS_RB) {
      if (y < y_hi) convsep_row_block<PA_BX>(src + y * width, dst + y * width, width, bx, bx + threadIdx.x);
      if (kSync) __syncthreads();
    }
  }
}

extern "C" __global__ void convsep_rows_l1rb_pa(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                int height) {
  convsep_rows_l1rb_pa_body<true>(src, dst, width, height);
}

extern "C" __global__ void convsep_rows_l1rb_pa_nobar(const float *__restrict__ src, float *__restrict__ dst,
                                                      int width, int height) {
  convsep_rows_l1rb_pa_body<false>(src, dst, width, height);
}

// PACA over a column band: a block step is 32 columns and CS_RB * blockDim.y rows. The output spacing is a
// compile-time constant as the SDK's COLUMNS_BLOCKDIM_Y, one instantiation per CTA height the warp sweep launches
// (1, 2, 4, 8, 16 warps); any other height takes the spacing from blockDim.y at run time (SY = 0).
template <bool kSync, int SY>
__device__ __forceinline__ void convsep_cols_l1rb_pa_steps(const float *__restrict__ src, float *__restrict__ dst,
                                                           int width, int height) {
  int x_lo, x_hi;
  ipndp_col_band(width, x_lo, x_hi);
  for (int bx = x_lo; bx < x_hi; bx += PA_BX) {
    const int x = bx + threadIdx.x;
    for (int by = 0; by < height; by += blockDim.y * CS_RB) {
      if (x < x_hi) convsep_col_block<SY>(src, dst, width, height, x, by, by + threadIdx.y, blockDim.y);
      if (kSync) __syncthreads();
    }
  }
}

template <bool kSync>
__device__ __forceinline__ void convsep_cols_l1rb_pa_body(const float *__restrict__ src, float *__restrict__ dst,
                                                          int width, int height) {
  switch (blockDim.y) {
    case 1: convsep_cols_l1rb_pa_steps<kSync, 1>(src, dst, width, height); break;
    case 2: convsep_cols_l1rb_pa_steps<kSync, 2>(src, dst, width, height); break;
    case 4: convsep_cols_l1rb_pa_steps<kSync, 4>(src, dst, width, height); break;
    case 8: convsep_cols_l1rb_pa_steps<kSync, 8>(src, dst, width, height); break;
    case 16: convsep_cols_l1rb_pa_steps<kSync, 16>(src, dst, width, height); break;
    default: convsep_cols_l1rb_pa_steps<kSync, 0>(src, dst, width, height); break;
  }
}

extern "C" __global__ void convsep_cols_l1rb_pa(const float *__restrict__ src, float *__restrict__ dst, int width,
                                                int height) {
  convsep_cols_l1rb_pa_body<true>(src, dst, width, height);
}

extern "C" __global__ void convsep_cols_l1rb_pa_nobar(const float *__restrict__ src, float *__restrict__ dst,
                                                      int width, int height) {
  convsep_cols_l1rb_pa_body<false>(src, dst, width, height);
}
