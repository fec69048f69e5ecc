// PolyBench/GPU MVT: x1 = x1 + A * y1 and x2 = x2 + A^T * y2, one thread per row (kernel 1, row-major walk of
// A) or per column (kernel 2, coalesced across the warp). The accumulators stay in global memory as in
// PolyBench (no __restrict__): each step is a load-load-FMA-store on x[i].

extern "C" __global__ void llc_mvt_kernel1(const float *a, float *x1, const float *y1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int j = 0; j < n; j++) x1[i] += a[i * n + j] * y1[j];
  }
}

extern "C" __global__ void llc_mvt_kernel2(const float *a, float *x2, const float *y2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int j = 0; j < n; j++) x2[i] += a[j * n + i] * y2[j];
  }
}
