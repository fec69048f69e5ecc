// UPSAMP (Halide-style 2x nearest-neighbour upsampling): out[y][x] = in[y / 2][x / 2]. Row-major float32
// images; one input pixel per thread (grid-stride), written as one float2 (two equal pixels) into each of
// the two output rows it covers.

extern "C" __global__ void mpu_upsample(const float *in, float2 *out, int in_rows, int in_cols) {
  const int total = in_rows * in_cols;
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int r = i / in_cols;
    const int c = i - r * in_cols;
    const float v = in[i];
    const float2 pair = make_float2(v, v);
    out[(2 * r) * in_cols + c] = pair;  // an output row holds in_cols float2
    out[(2 * r + 1) * in_cols + c] = pair;
  }
}
