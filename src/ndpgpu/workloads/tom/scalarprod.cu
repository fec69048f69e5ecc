// Scalar products of many vector pairs (CUDA SDK scalarProd style). Each block takes whole vectors
// (grid-stride over vectors): ACCUM_N partial sums of interleaved elements, then a shared-memory tree.

#define ACCUM_N 1024

extern "C" __global__ void scalar_prod(float *d_C, const float *d_A, const float *d_B, int vectorN, int elementN) {
  __shared__ float accum[ACCUM_N];

  for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
    const int vector_base = elementN * vec;
    const int vector_end = vector_base + elementN;

    // accumulator a sums elements a, a + ACCUM_N, a + 2 * ACCUM_N, ... (coalesced across the block)
    for (int a = threadIdx.x; a < ACCUM_N; a += blockDim.x) {
      float sum = 0.0f;
      for (int pos = vector_base + a; pos < vector_end; pos += ACCUM_N) sum += d_A[pos] * d_B[pos];
      accum[a] = sum;
    }

    for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int a = threadIdx.x; a < stride; a += blockDim.x) accum[a] += accum[stride + a];
    }

    __syncthreads();
    if (threadIdx.x == 0) d_C[vec] = accum[0];
  }
}
