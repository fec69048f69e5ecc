// BLUR (Halide-style 3x3 box blur): out = (1/9) * sum of the 3 x 3 neighbourhood, for every pixel of every
// 32 x 32 tile of an image, clamped to the tile's edge. Images are in the sliced tile layout (see
// _common.py): pixel (r, c) of tile t is at ((r / 4) * ntiles + t) * 128 + (r % 4) * 32 + c. One block of
// 32 x 4 threads per tile (grid-stride over tiles) loads the tile into shared memory slice by slice, then
// each thread computes the 8 pixels of its column in its row of every slice.

#define TILE 32
#define SLICE 4

extern "C" __global__ void mpu_blur(const float *in, float *out, int ntiles, float scale) {
  __shared__ float tile[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;

  for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
    for (int s = 0; s < TILE / SLICE; ++s) tile[s * SLICE + ty][tx] = in[((s * ntiles + t) * SLICE + ty) * TILE + tx];
    __syncthreads();

    for (int s = 0; s < TILE / SLICE; ++s) {
      const int r = s * SLICE + ty;
      float sum = 0.0f;
      for (int dy = -1; dy <= 1; ++dy) {
        const int rr = min(max(r + dy, 0), TILE - 1);
        for (int dx = -1; dx <= 1; ++dx) sum += tile[rr][min(max(tx + dx, 0), TILE - 1)];
      }
      out[((s * ntiles + t) * SLICE + ty) * TILE + tx] = sum * scale;
    }
    __syncthreads();  // the tile is used up before the next one is loaded
  }
}
