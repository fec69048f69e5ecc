// HIST (CUB-style even-bin histogram, privatised): each block counts a grid-stride range of the input into
// its own BINS counters in shared memory (shared atomics) and writes them out; a second kernel adds the
// per-block counts, one thread per bin. Values in [0, 1) go to bin floor(v * BINS), clamped to the range.

#define BINS 256

extern "C" __global__ void mpu_hist_block(const float *in, unsigned int *partial, int n) {
  __shared__ unsigned int counts[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) counts[b] = 0;
  __syncthreads();

  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    int bin = (int)(in[i] * (float)BINS);
    bin = min(max(bin, 0), BINS - 1);
    atomicAdd(&counts[bin], 1u);
  }
  __syncthreads();

  for (int b = threadIdx.x; b < BINS; b += blockDim.x) partial[blockIdx.x * BINS + b] = counts[b];
}

extern "C" __global__ void mpu_hist_merge(const unsigned int *partial, unsigned int *hist, int nblocks) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= BINS) return;
  unsigned int sum = 0;
  for (int k = 0; k < nblocks; ++k) sum += partial[k * BINS + b];
  hist[b] = sum;
}
