// Matrix transpose: out (cols x rows) = in (rows x cols)^T.

// Naive: one element per thread of a 16x16 block; the writes are strided.
__global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;  // column of in
  int y = blockIdx.y * blockDim.y + threadIdx.y;  // row of in
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}

// Shared-memory tiles of 32x32 with one column of padding (no bank conflicts), 32x8 threads per block,
// each thread moving 4 elements; both the reads and the writes are coalesced.
#define TDIM 32
#define BROWS 8

__global__ void transpose_shared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TDIM][TDIM + 1];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += BROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;  // column of out = row of in
  y = blockIdx.x * TDIM + threadIdx.y;  // row of out = column of in
  for (int j = 0; j < TDIM; j += BROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
