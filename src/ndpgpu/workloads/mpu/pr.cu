// PR (CUB-style device sum): every thread adds a grid-stride range of the input, the block reduces its
// THREADS partial sums by a tree in shared memory and writes one value per block. The host launches the
// same kernel twice: the whole grid over the input, then one block over the per-block sums.

#define THREADS 128

extern "C" __global__ void mpu_sum(const float *in, float *out, int n) {
  __shared__ float partial[THREADS];
  const int tid = threadIdx.x;
  const int stride = gridDim.x * blockDim.x;

  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += stride) sum += in[i];
  partial[tid] = sum;
  __syncthreads();

  for (int half = THREADS / 2; half > 0; half >>= 1) {
    if (tid < half) partial[tid] += partial[tid + half];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}
