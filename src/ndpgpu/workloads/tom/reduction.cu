// Parallel sum reduction of ints (CUDA SDK 'reduction' sample, kernel 6 style). Each thread first adds
// many elements (two per step, grid-stride), then the block reduces in dynamic shared memory: a
// __syncthreads tree down to 64 values, then the last warp without block barriers (volatile shared
// memory; __syncwarp between steps, which the SDK's pre-Volta warp-synchronous code left implicit).
// The block size is a compile-time constant, as in the SDK's template, with one kernel per size.

template <unsigned int blockSize>
__device__ __forceinline__ void reduce6_body(const int *g_idata, int *g_odata, unsigned int n) {
  extern __shared__ int sdata[];
  const unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
  const unsigned int gridSize = blockSize * 2 * gridDim.x;

  int mySum = 0;
  while (i < n) {
    mySum += g_idata[i];
    if (i + blockSize < n) mySum += g_idata[i + blockSize];
    i += gridSize;
  }
  sdata[tid] = mySum;
  __syncthreads();

  if (blockSize >= 512) {
    if (tid < 256) sdata[tid] = mySum = mySum + sdata[tid + 256];
    __syncthreads();
  }
  if (blockSize >= 256) {
    if (tid < 128) sdata[tid] = mySum = mySum + sdata[tid + 128];
    __syncthreads();
  }
  if (blockSize >= 128) {
    if (tid < 64) sdata[tid] = mySum = mySum + sdata[tid + 64];
    __syncthreads();
  }

  if (tid < 32) {
    volatile int *smem = sdata;
    if (blockSize >= 64) { mySum += smem[tid + 32]; __syncwarp(); smem[tid] = mySum; __syncwarp(); }
    if (blockSize >= 32) { mySum += smem[tid + 16]; __syncwarp(); smem[tid] = mySum; __syncwarp(); }
    if (blockSize >= 16) { mySum += smem[tid + 8]; __syncwarp(); smem[tid] = mySum; __syncwarp(); }
    if (blockSize >= 8) { mySum += smem[tid + 4]; __syncwarp(); smem[tid] = mySum; __syncwarp(); }
    if (blockSize >= 4) { mySum += smem[tid + 2]; __syncwarp(); smem[tid] = mySum; __syncwarp(); }
    if (blockSize >= 2) { mySum += smem[tid + 1]; __syncwarp(); smem[tid] = mySum; __syncwarp(); }
  }

  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

#define REDUCE6_KERNEL(B) \
  extern "C" __global__ void reduce6_##B(const int *g_idata, int *g_odata, unsigned int n) { \
    reduce6_body<B>(g_idata, g_odata, n); \
  }

REDUCE6_KERNEL(512)
REDUCE6_KERNEL(256)
REDUCE6_KERNEL(128)
REDUCE6_KERNEL(64)
REDUCE6_KERNEL(32)
REDUCE6_KERNEL(16)
REDUCE6_KERNEL(8)
REDUCE6_KERNEL(4)
REDUCE6_KERNEL(2)
REDUCE6_KERNEL(1)
