// Matrix-vector product y = A x with one thread per row of A (m x k).
// matvec_row: A row-major, so a warp's loads are k floats apart (uncoalesced).
// matvec_col: A column-major (stored as A^T row-major), so a warp's loads are contiguous.

extern "C" __global__ void matvec_row(const float *A, const float *x, float *y, int m, int k) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) {
    float acc = 0.0f;
    for (int c = 0; c < k; ++c) acc += A[(size_t)r * k + c] * x[c];
    y[r] = acc;
  }
}

extern "C" __global__ void matvec_col(const float *At, const float *x, float *y, int m, int k) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) {
    float acc = 0.0f;
    for (int c = 0; c < k; ++c) acc += At[(size_t)c * m + r] * x[c];
    y[r] = acc;
  }
}
