// UPSAMP (Halide-style 2x nearest-neighbour upsampling): out[y][x] = in[y / 2][x / 2]. The input is the
// row-major (in_rows x in_cols) image; the output is in MPU-Sim's four-plane layout (workloads/mpu/_common.py,
// to_quad_planes). Each step a block of 128 threads stages its 128 contiguous input pixels in shared memory,
// then writes 128 contiguous floats into each of the four planes at the offsets of its own inputs: plane
// 2*kx+ky, position i, gets pixel (128*ky + t) / 2 of the staged run. Needs blockDim.x == 128 and in_cols a
// multiple of 128.

#define UPSAMP_THREADS 128

extern "C" __global__ void mpu_upsample(const float *in, float *planes, int in_rows, int in_cols) {
  __shared__ float run[UPSAMP_THREADS];
  const int n = in_rows * in_cols;
  const int t = threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += stride) {
    run[t] = in[i];
    __syncthreads();
    for (int kx = 0; kx < 2; ++kx) {
      for (int ky = 0; ky < 2; ++ky) planes[(2 * kx + ky) * n + i] = run[(ky * UPSAMP_THREADS + t) >> 1];
    }
    __syncthreads();
  }
}
