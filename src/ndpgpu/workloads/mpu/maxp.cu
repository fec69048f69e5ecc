// MAXP (TensorFlow max_pool, 2x2 window, stride 2, VALID, one channel): out[r][c] = max of in[2r..2r+1][2c..2c+1].
// Row-major float32 images; one output pixel per thread (grid-stride); each input row pair is read as
// float2 (the two pixels of a window row in one 8-byte load).

extern "C" __global__ void mpu_maxpool(const float2 *in, float *out, int out_rows, int out_cols) {
  const int total = out_rows * out_cols;
  const int stride = gridDim.x * blockDim.x;
  for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < total; o += stride) {
    const int r = o / out_cols;
    const int c = o - r * out_cols;
    const float2 top = in[(2 * r) * out_cols + c];  // an input row holds out_cols float2
    const float2 bottom = in[(2 * r + 1) * out_cols + c];
    out[o] = fmaxf(fmaxf(top.x, top.y), fmaxf(bottom.x, bottom.y));
  }
}
