// A 32x32 tile per block (16x16 threads, 4 pixels each) is reduced in shared memory to 16x16, 8x8, 4x4,
// 2x2 and 1x1 by 2x2 averaging, with a barrier between levels; every level is written out.
// levels: per tile, 256 + 64 + 16 + 4 + 1 = 341 floats, level by level, row-major.
#define TILE 32
#define LEVELS_PER_TILE 341

extern "C" __global__ void pyramid(const float *img, float *levels, int width) {
  __shared__ float buf[TILE * TILE + LEVELS_PER_TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      int lx = tx + dx * 16, ly = ty + dy * 16;
      buf[ly * TILE + lx] = img[(y0 + ly) * width + x0 + lx];
    }
  __syncthreads();
  float *out = levels + (size_t)(blockIdx.y * gridDim.x + blockIdx.x) * LEVELS_PER_TILE;
  int src = 0, dst = TILE * TILE, written = 0;
  for (int size = TILE / 2; size >= 1; size >>= 1) {
    int src_w = 2 * size;
    if (tx < size && ty < size) {
      const float *s = buf + src + (2 * ty) * src_w + 2 * tx;
      float v = 0.25f * (s[0] + s[1] + s[src_w] + s[src_w + 1]);
      buf[dst + ty * size + tx] = v;
      out[written + ty * size + tx] = v;
    }
    __syncthreads();
    src = dst;
    dst += size * size;
    written += size * size;
  }
}
