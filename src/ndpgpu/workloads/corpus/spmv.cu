// Sparse matrix-vector product y = A x with A in CSR form.
// spmv_csr_scalar: one thread per row. spmv_csr_vector: one warp per row, lanes stride over the row's
// nonzeros and combine with __shfl_down_sync.

extern "C" __global__ void spmv_csr_scalar(const int *row_ptr, const int *col_idx, const float *vals,
                                           const float *x, float *y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int e = row_ptr[r]; e < row_ptr[r + 1]; ++e) acc += vals[e] * x[col_idx[e]];
    y[r] = acc;
  }
}

extern "C" __global__ void spmv_csr_vector(const int *row_ptr, const int *col_idx, const float *vals,
                                           const float *x, float *y, int rows) {
  int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  int r = gtid >> 5;
  int lane = threadIdx.x & 31;
  if (r < rows) {  // uniform per warp: blockDim.x is a multiple of 32
    float acc = 0.0f;
    for (int e = row_ptr[r] + lane; e < row_ptr[r + 1]; e += 32) acc += vals[e] * x[col_idx[e]];
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0) y[r] = acc;
  }
}
