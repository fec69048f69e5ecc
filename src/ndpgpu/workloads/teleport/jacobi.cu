// Jacobi smoothing (TELEPORT's JAC, after the PGI accelerator Jacobi example): every interior point of an
// n x n float grid becomes the mean of its 3 x 3 neighbourhood (itself and its eight neighbours); boundary
// points are copied. One launch per iteration (ping-pong), 16 x 16 thread blocks, one point per thread.
// jacobi: Baseline/TELEPORT kernel, nine global loads per point.
// jacobi_shared: hand-written version; a block stages its 18 x 18 halo tile in shared memory first.

#define JAC_TILE 16

__device__ __forceinline__ float jac_mean(float a, float b, float c, float d, float e, float f, float g, float h,
                                          float i) {
  return (((a + b) + (c + d)) + ((e + f) + (g + h)) + i) * (1.0f / 9.0f);
}

extern "C" __global__ void jacobi(const float *u, float *unew, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
    unew[i * n + j] = u[i * n + j];
    return;
  }
  unew[i * n + j] = jac_mean(u[(i - 1) * n + j - 1], u[(i - 1) * n + j], u[(i - 1) * n + j + 1], u[i * n + j - 1],
                             u[i * n + j + 1], u[(i + 1) * n + j - 1], u[(i + 1) * n + j],
                             u[(i + 1) * n + j + 1], u[i * n + j]);
}

extern "C" __global__ void jacobi_shared(const float *u, float *unew, int n) {
  __shared__ float tile[JAC_TILE + 2][JAC_TILE + 2];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int j0 = blockIdx.x * JAC_TILE - 1;
  const int i0 = blockIdx.y * JAC_TILE - 1;
  for (int k = ty * JAC_TILE + tx; k < (JAC_TILE + 2) * (JAC_TILE + 2); k += JAC_TILE * JAC_TILE) {
    int r = k / (JAC_TILE + 2);
    int c = k - r * (JAC_TILE + 2);
    int gi = i0 + r;
    int gj = j0 + c;
    tile[r][c] = (gi >= 0 && gi < n && gj >= 0 && gj < n) ? u[gi * n + gj] : 0.0f;
  }
  __syncthreads();
  int i = i0 + 1 + ty;
  int j = j0 + 1 + tx;
  if (i >= n || j >= n) return;
  if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
    unew[i * n + j] = tile[ty + 1][tx + 1];
    return;
  }
  unew[i * n + j] = jac_mean(tile[ty][tx], tile[ty][tx + 1], tile[ty][tx + 2], tile[ty + 1][tx], tile[ty + 1][tx + 2],
                             tile[ty + 2][tx], tile[ty + 2][tx + 1], tile[ty + 2][tx + 2], tile[ty + 1][tx + 1]);
}
