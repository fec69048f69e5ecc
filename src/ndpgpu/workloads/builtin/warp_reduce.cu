// Integer sum by warp shuffles: grid-stride partial per thread, __shfl_down_sync tree within each warp,
// then lane 0 stores its warp's sum and atomically adds it to the total. blockDim.x is a multiple of 32.
extern "C" __global__ void warp_reduce(const int *x, int *warp_sums, int *total, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  int v = 0;
  for (int i = tid; i < n; i += stride) v += x[i];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) {
    warp_sums[tid >> 5] = v;
    atomicAdd(total, v);
  }
}
