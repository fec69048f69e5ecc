// Double-precision dot product: grid-stride partial per thread, shared-memory tree per block of 256
// threads, then one atomicAdd(double) per block into the result.
#define BLOCK 256

extern "C" __global__ void dot_double(const double *a, const double *b, double *result, double *block_sums,
                                      int n) {
  __shared__ double s[BLOCK];
  int t = threadIdx.x;
  double sum = 0.0;
  for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) sum += a[i] * b[i];
  s[t] = sum;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    block_sums[blockIdx.x] = s[0];
    atomicAdd(result, s[0]);
  }
}
