// MAXP (TensorFlow max_pool, 2x2 window, stride 2, VALID, one channel): out[r][c] = max of in[2r..2r+1][2c..2c+1].
// The input is in MPU-Sim's four-plane layout (workloads/mpu/_common.py, to_quad_planes): plane 2*kx+ky holds,
// at output index o's position, the pixel of image row 2r+kx that the block's threads exchange through shared
// memory. Each step a block of 128 threads reads 128 contiguous floats from each plane (at the offsets of its
// own outputs), stages two image rows of 256 pixels in shared memory, and each thread takes the maximum of
// its window from there. The output is the row-major (out_rows x out_cols) image. Needs blockDim.x == 128
// and out_cols a multiple of 128.

#define MAXP_THREADS 128

extern "C" __global__ void mpu_maxpool(const float *planes, float *out, int out_rows, int out_cols) {
  __shared__ float rows[2][2 * MAXP_THREADS];
  const int n = out_rows * out_cols;
  const int t = threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (int o = blockIdx.x * blockDim.x + t; o < n; o += stride) {
    for (int kx = 0; kx < 2; ++kx) {
      for (int ky = 0; ky < 2; ++ky) rows[kx][ky * MAXP_THREADS + t] = planes[(2 * kx + ky) * n + o];
    }
    __syncthreads();
    const float top = fmaxf(rows[0][2 * t], rows[0][2 * t + 1]);
    const float bottom = fmaxf(rows[1][2 * t], rows[1][2 * t + 1]);
    __syncthreads();
    out[o] = fmaxf(top, bottom);
  }
}
