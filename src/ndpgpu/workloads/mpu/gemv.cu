// GEMV (cuBLAS sgemv, y = A x): one block per row (grid-stride over rows). A is stored in column panels of
// PANEL columns, each panel row-major: A[r][p * PANEL + k] lives at (p * nrows + r) * PANEL + k, so a row's
// chunks of every panel sit PANEL * nrows floats apart and a warp reads 128 contiguous bytes. Thread k
// accumulates column k of every panel; the block then adds its PANEL partial sums by a shared-memory tree.
// blockDim.x must equal PANEL and ncols must be a multiple of it.

#define PANEL 128

extern "C" __global__ void mpu_gemv(const float *A, const float *x, float *y, int nrows, int ncols) {
  __shared__ float partial[PANEL];
  const int k = threadIdx.x;
  const int npanels = ncols / PANEL;

  for (int row = blockIdx.x; row < nrows; row += gridDim.x) {
    float sum = 0.0f;
    for (int p = 0; p < npanels; ++p) sum += A[(p * nrows + row) * PANEL + k] * x[p * PANEL + k];
    partial[k] = sum;
    __syncthreads();
    for (int half = PANEL / 2; half > 0; half >>= 1) {
      if (k < half) partial[k] += partial[k + half];
      __syncthreads();
    }
    if (k == 0) y[row] = partial[0];
    __syncthreads();  // partial[0] is read before the next row overwrites it
  }
}
