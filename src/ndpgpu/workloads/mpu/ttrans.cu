// TTRANS (cuBLAS-style tensor transposition): out[t][j][i] = in[t][i][j] for a tensor of ntiles 32 x 32
// matrices in the sliced tile layout (see _common.py). One block of 32 x 4 threads per matrix (grid-stride)
// stages it in a padded shared-memory tile (coalesced slice loads), then writes the transposed slices
// (coalesced stores, conflict-free column reads).

#define TILE 32
#define SLICE 4

extern "C" __global__ void mpu_ttrans(const float *in, float *out, int ntiles) {
  __shared__ float tile[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;

  for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
    for (int s = 0; s < TILE / SLICE; ++s) tile[s * SLICE + ty][tx] = in[((s * ntiles + t) * SLICE + ty) * TILE + tx];
    __syncthreads();
    for (int s = 0; s < TILE / SLICE; ++s) out[((s * ntiles + t) * SLICE + ty) * TILE + tx] = tile[tx][s * SLICE + ty];
    __syncthreads();
  }
}
