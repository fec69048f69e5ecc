// Device printf with %d and %f from a few threads (every 16th thread of the first two blocks).
#include <cstdio>

extern "C" __global__ void printf_hello(const float *x, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = 2 * i + 1;
    if (blockIdx.x < 2 && (threadIdx.x % 16) == 0)
      printf("hello from block %d thread %d: x=%f\n", (int)blockIdx.x, (int)threadIdx.x, x[i]);
  }
}
