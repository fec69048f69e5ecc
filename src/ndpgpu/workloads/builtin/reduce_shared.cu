// Shared-memory tree reduction (CUDA SDK style: first add during load, sequential addressing).
// Each block sums 2 * blockDim.x elements into out[blockIdx.x]; the host relaunches on the partial sums.
// Dynamic shared memory: blockDim.x floats.
extern "C" __global__ void reduce_sum(const float *in, float *out, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float v = (i < n) ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
