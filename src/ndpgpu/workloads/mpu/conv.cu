// CONV (TensorFlow-style 3x3 convolution, one channel, stride 1): out = sum over the 3 x 3 neighbourhood of
// weight[dy][dx] * pixel (cross-correlation, as tf.nn.conv2d), for every pixel of every 32 x 32 tile,
// clamped to the tile's edge. Same sliced tile layout and block shape as BLUR. Each block first copies the 9
// weights into shared memory: every thread reads all of them, and MPU has no data cache, so reading them from
// global memory would send every warp's reads to the one near-bank unit that holds them.

#define TILE 32
#define SLICE 4

extern "C" __global__ void mpu_conv(const float *in, const float *weight, float *out, int ntiles) {
  __shared__ float tile[TILE][TILE + 1];
  __shared__ float w[9];
  const int tx = threadIdx.x, ty = threadIdx.y;
  if (ty == 0 && tx < 9) w[tx] = weight[tx];
  __syncthreads();

  for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
    for (int s = 0; s < TILE / SLICE; ++s) tile[s * SLICE + ty][tx] = in[((s * ntiles + t) * SLICE + ty) * TILE + tx];
    __syncthreads();

    for (int s = 0; s < TILE / SLICE; ++s) {
      const int r = s * SLICE + ty;
      float sum = 0.0f;
      for (int dy = 0; dy < 3; ++dy) {
        const int rr = min(max(r + dy - 1, 0), TILE - 1);
        for (int dx = 0; dx < 3; ++dx) sum += w[dy * 3 + dx] * tile[rr][min(max(tx + dx - 1, 0), TILE - 1)];
      }
      out[((s * ntiles + t) * SLICE + ty) * TILE + tx] = sum;
    }
    __syncthreads();
  }
}
