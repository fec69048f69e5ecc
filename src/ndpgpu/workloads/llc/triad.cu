// SHOC Triad: C[i] = A[i] + s * B[i], one element per thread (Table 1 pattern 9 once the FMA is split:
// ld b; ld a; mul by the scalar; add; st c).

extern "C" __global__ void llc_triad(const float *A, const float *B, float *C, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) C[i] = A[i] + s * B[i];
}
