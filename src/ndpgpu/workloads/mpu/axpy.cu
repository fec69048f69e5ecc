// AXPY (cuBLAS saxpy): y = alpha * x + y over float32 vectors, in place, with a grid-stride loop
// (the shape of MPU's Listing 1). One load of x, one load and one store of y per element.

extern "C" __global__ void mpu_axpy(float alpha, const float *x, float *y, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = alpha * x[i] + y[i];
}
