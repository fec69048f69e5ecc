// Sum reduction of ints (TELEPORT's RDC, after the CUDA SDK reduction sample), two kernels:
// reduce_stride (SDK kernel 6's shape: each of a fixed number of blocks first accumulates a grid-stride
// loop of element pairs, then reduces its block in shared memory) leaves one partial sum per block, and
// reduce_pairs (SDK kernel 3's shape: each thread adds the two elements blockIdx.x * 2 * blockDim.x +
// threadIdx.x and that + blockDim.x, then a shared-memory tree) folds the partial sums to one.
// Block sizes are powers of two.

extern "C" __global__ void reduce_stride(const int *in, int *out, unsigned int n) {
  extern __shared__ int sdata[];
  const unsigned int tid = threadIdx.x;
  const unsigned int block = blockDim.x;
  const unsigned int step = 2 * block * gridDim.x;
  int sum = 0;
  for (unsigned int i = blockIdx.x * 2 * block + tid; i < n; i += step) {
    sum += in[i];
    if (i + block < n) sum += in[i + block];
  }
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned int s = block / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sum;
}

extern "C" __global__ void reduce_pairs(const int *in, int *out, unsigned int n) {
  extern __shared__ int sdata[];
  const unsigned int tid = threadIdx.x;
  const unsigned int i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  int sum = i < n ? in[i] : 0;
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sum;
}
