// SHOC Reduction (float sum) and the paper's global-memory variants (Sec. 6.2, Fig. 17).
// Each thread sums pairs in[i] + in[i + BLOCK] over a grid-stride loop, then the block reduces its BLOCK
// partial sums by a halving tree. GLEVELS = 0 is SHOC's kernel (the whole tree in shared memory); with
// GLEVELS = N the first N tree levels run on a per-block scratch array in global memory (RED-HybridN:
// scratch[t] = scratch[t] + scratch[t + s], a load-load-add-store chain) and the rest in shared memory;
// GLEVELS = LOG_BLOCK runs the whole tree in global memory (RED-Global). The arithmetic, and so the result,
// is the same in every variant. Block sums go to out[blockIdx.x]; the host adds them up, as SHOC does.

#define BLOCK 256
#define LOG_BLOCK 8

template <int GLEVELS>
__device__ __forceinline__ void red_body(const float *in, float *out, float *scratch, unsigned int n) {
  __shared__ float sdata[BLOCK];
  const unsigned int tid = threadIdx.x;
  const unsigned int grid_size = BLOCK * 2 * gridDim.x;
  float sum = 0.0f;
  for (unsigned int i = blockIdx.x * (BLOCK * 2) + tid; i < n; i += grid_size) sum += in[i] + in[i + BLOCK];

  unsigned int s = BLOCK;  // live partial sums
  if (GLEVELS == 0) {
    sdata[tid] = sum;
    __syncthreads();
  } else {
    float *g = scratch + blockIdx.x * BLOCK;
    g[tid] = sum;
    __syncthreads();
    for (int level = 0; level < GLEVELS; level++) {
      s >>= 1;
      if (tid < s) g[tid] = g[tid] + g[tid + s];
      __syncthreads();
    }
    if (GLEVELS == LOG_BLOCK) {
      if (tid == 0) out[blockIdx.x] = g[0];
      return;
    }
    if (tid < s) sdata[tid] = g[tid];
    __syncthreads();
  }

  // shared-memory tree: block barriers while more than a warp is live, then the last warp alone
  for (s >>= 1; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = sdata[tid] + sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    volatile float *v = sdata;
    for (; s > 0; s >>= 1) {
      float x = 0.0f;
      if (tid < s) x = v[tid] + v[tid + s];
      __syncwarp();
      if (tid < s) v[tid] = x;
      __syncwarp();
    }
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

extern "C" __global__ void llc_red(const float *in, float *out, float *scratch, unsigned int n) {
  red_body<0>(in, out, scratch, n);
}
extern "C" __global__ void llc_red_hybrid1(const float *in, float *out, float *scratch, unsigned int n) {
  red_body<1>(in, out, scratch, n);
}
extern "C" __global__ void llc_red_hybrid2(const float *in, float *out, float *scratch, unsigned int n) {
  red_body<2>(in, out, scratch, n);
}
extern "C" __global__ void llc_red_hybrid3(const float *in, float *out, float *scratch, unsigned int n) {
  red_body<3>(in, out, scratch, n);
}
extern "C" __global__ void llc_red_global(const float *in, float *out, float *scratch, unsigned int n) {
  red_body<LOG_BLOCK>(in, out, scratch, n);
}
