// Sobel edge detection (TELEPORT's EDS) on a w x h 8-bit grayscale image, 16 x 16 thread blocks, one pixel per
// thread. Pixels outside the image count as dark (0); out = min(255, |Gx| + |Gy|).
// sobel: the Baseline/TELEPORT kernel, which bounds-checks each of the eight neighbours in global memory.
// sobel_shared: the hand-written version; a block stages its 18 x 18 halo tile in shared memory (dark
// pixels written for the outside), then computes without bounds checks.

#define EDS_TILE 16

__device__ __forceinline__ int eds_pixel(const unsigned char *img, int x, int y, int w, int h) {
  return (x >= 0 && x < w && y >= 0 && y < h) ? (int)img[y * w + x] : 0;
}

__device__ __forceinline__ unsigned char eds_magnitude(int p00, int p01, int p02, int p10, int p12, int p20,
                                                       int p21, int p22) {
  int gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20);
  int gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02);
  int m = abs(gx) + abs(gy);
  return (unsigned char)(m > 255 ? 255 : m);
}

extern "C" __global__ void sobel(const unsigned char *in, unsigned char *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int p00 = eds_pixel(in, x - 1, y - 1, w, h);
  int p01 = eds_pixel(in, x, y - 1, w, h);
  int p02 = eds_pixel(in, x + 1, y - 1, w, h);
  int p10 = eds_pixel(in, x - 1, y, w, h);
  int p12 = eds_pixel(in, x + 1, y, w, h);
  int p20 = eds_pixel(in, x - 1, y + 1, w, h);
  int p21 = eds_pixel(in, x, y + 1, w, h);
  int p22 = eds_pixel(in, x + 1, y + 1, w, h);
  out[y * w + x] = eds_magnitude(p00, p01, p02, p10, p12, p20, p21, p22);
}

extern "C" __global__ void sobel_shared(const unsigned char *in, unsigned char *out, int w, int h) {
  __shared__ int tile[EDS_TILE + 2][EDS_TILE + 2];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int x0 = blockIdx.x * EDS_TILE - 1;  // image coordinates of tile[0][0]
  const int y0 = blockIdx.y * EDS_TILE - 1;
  // 324 halo-tile cells, loaded by the 256 threads in two rounds
  for (int i = ty * EDS_TILE + tx; i < (EDS_TILE + 2) * (EDS_TILE + 2); i += EDS_TILE * EDS_TILE) {
    int r = i / (EDS_TILE + 2);
    int c = i - r * (EDS_TILE + 2);
    int gx = x0 + c;
    int gy = y0 + r;
    tile[r][c] = (gx >= 0 && gx < w && gy >= 0 && gy < h) ? (int)in[gy * w + gx] : 0;
  }
  __syncthreads();
  int x = x0 + 1 + tx;
  int y = y0 + 1 + ty;
  if (x >= w || y >= h) return;
  out[y * w + x] = eds_magnitude(tile[ty][tx], tile[ty][tx + 1], tile[ty][tx + 2], tile[ty + 1][tx],
                                 tile[ty + 1][tx + 2], tile[ty + 2][tx], tile[ty + 2][tx + 1],
                                 tile[ty + 2][tx + 2]);
}
