// Matrix-matrix add C = A + B (TELEPORT's MMA), n x n floats, 16 x 16 thread blocks, one element per thread.
// tp_matadd is the Baseline/TELEPORT kernel (global memory only); tp_matadd_shared is the hand-written
// version that stages both input tiles through shared memory before the add.

#define MMA_TILE 16

extern "C" __global__ void matadd(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int idx = row * n + col;
  C[idx] = A[idx] + B[idx];
}

extern "C" __global__ void matadd_shared(const float *A, const float *B, float *C, int n) {
  __shared__ float tileA[MMA_TILE][MMA_TILE];
  __shared__ float tileB[MMA_TILE][MMA_TILE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int col = blockIdx.x * blockDim.x + tx;
  int row = blockIdx.y * blockDim.y + ty;
  int idx = row * n + col;
  tileA[ty][tx] = A[idx];
  tileB[ty][tx] = B[idx];
  __syncthreads();
  C[idx] = tileA[ty][tx] + tileB[ty][tx];
}
