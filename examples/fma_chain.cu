// A compute-bound kernel: a long chain of dependent FMAs per thread and one store at the end (no loads).
extern "C" __global__ void fma_chain(float *out, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = i * 1e-3f, b = 0.999f;
        for (int k = 0; k < iters; ++k) {
            a = fmaf(a, b, 0.25f);
            b = fmaf(b, 0.5f, 0.5f);
        }
        out[i] = a;
    }
}
