// A grid-stride loop (a small grid walks a long array) with wrapping unsigned arithmetic and signed
// division/remainder by a constant and by a data value.
extern "C" __global__ void grid_stride(const unsigned int *x, const int *d, unsigned int *hash, int *quot,
                                       int *rem, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned int v = x[i];
    hash[i] = v * v + 3u * v + 0x9e3779b9u;
    int s = (int)v;  // reinterpret: often negative
    quot[i] = s / 7 + s / d[i];
    rem[i] = s % d[i];
  }
}
