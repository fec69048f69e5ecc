// y = a * x + y: the kernel of examples/saxpy.yaml (`ndpgpu run examples/saxpy.yaml`)
__global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
