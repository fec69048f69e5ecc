// Bitonic sort of each block's segment of blockDim.x (a power of two) ints in shared memory, ascending;
// the tail of the last segment is padded with INT_MAX. Dynamic shared memory: blockDim.x ints.
#include <climits>

extern "C" __global__ void bitonic_sort_block(int *keys, int n) {
  extern __shared__ int s[];
  unsigned int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  s[t] = (g < n) ? keys[g] : INT_MAX;
  __syncthreads();
  for (unsigned int k = 2; k <= blockDim.x; k <<= 1) {
    for (unsigned int j = k >> 1; j > 0; j >>= 1) {
      unsigned int partner = t ^ j;
      if (partner > t) {
        int a = s[t];
        int b = s[partner];
        bool ascending = (t & k) == 0;
        if ((a > b) == ascending) {
          s[t] = b;
          s[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  if (g < n) keys[g] = s[t];
}
