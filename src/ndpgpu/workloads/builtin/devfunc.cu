// A kernel calling two __noinline__ device functions (real PTX .func calls):
// horner() evaluates a polynomial whose coefficients live in a __constant__ array set by the host;
// collatz_steps() has a data-dependent loop, so lanes of a warp diverge inside the callee.
#define MAX_COEFFS 16

__constant__ float coeffs[MAX_COEFFS];

__device__ __noinline__ float horner(float x, int order) {
  float r = coeffs[order];
  for (int k = order - 1; k >= 0; --k) r = r * x + coeffs[k];
  return r;
}

__device__ __noinline__ int collatz_steps(unsigned int v, int limit) {
  int steps = 0;
  while (v != 1u && steps < limit) {
    v = (v & 1u) ? 3u * v + 1u : v >> 1;
    ++steps;
  }
  return steps;
}

extern "C" __global__ void devfunc(const float *x, const unsigned int *seeds, float *poly, int *steps,
                                   int order, int limit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    poly[i] = horner(x[i], order);
    steps[i] = collatz_steps(seeds[i], limit);
  }
}
