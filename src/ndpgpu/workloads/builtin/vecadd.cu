// The vector-add kernel GPGPU-Sim ran for the reference figures (see shared/reference/gpgpusim.md).
__global__ void vec_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
