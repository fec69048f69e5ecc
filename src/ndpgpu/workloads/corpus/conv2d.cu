// 3x3 image convolution with clamp-to-edge borders; the weights live in constant memory.
__constant__ float weights[9];

extern "C" __global__ void conv3x3(const float *in, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    int yy = min(max(y + dy, 0), height - 1);
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), width - 1);
      acc += weights[(dy + 1) * 3 + (dx + 1)] * in[yy * width + xx];
    }
  }
  out[y * width + x] = acc;
}
