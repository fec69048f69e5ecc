// PolyBench/GPU FDTD-2D: per time step three kernels over an nx x ny grid (2-D blocks, x along columns):
//   ey: row 0 = the source fict[t]; other rows ey -= 0.5 (hz[i][j] - hz[i-1][j])
//   ex: columns j > 0, ex -= 0.5 (hz[i][j] - hz[i][j-1])
//   hz: i < nx-1, j < ny-1, hz -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])

extern "C" __global__ void llc_fdtd_step1(const float *fict, float *ex, float *ey, const float *hz, int t, int nx,
                                          int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny) {
    if (i == 0)
      ey[j] = fict[t];
    else
      ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
}

extern "C" __global__ void llc_fdtd_step2(float *ex, const float *ey, const float *hz, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny && j > 0) ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

extern "C" __global__ void llc_fdtd_step3(const float *ex, const float *ey, float *hz, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx - 1 && j < ny - 1)
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
