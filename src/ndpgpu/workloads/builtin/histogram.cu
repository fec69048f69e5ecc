// 256-bin histogram of bytes, two variants over a grid-stride loop:
// histogram_global: one global atomicAdd per element;
// histogram_shared: per-block privatised bins in shared memory, merged with one global atomic per bin.
#define BINS 256

extern "C" __global__ void histogram_global(const unsigned char *data, unsigned int *bins, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&bins[data[i]], 1u);
}

extern "C" __global__ void histogram_shared(const unsigned char *data, unsigned int *bins, int n) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    unsigned int count = local[b];
    if (count) atomicAdd(&bins[b], count);
  }
}
