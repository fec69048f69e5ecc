// Neural network (TELEPORT's NN): the GPGPU-Sim ISPASS-2009 suite's "NN" benchmark (NN/NN_kernel.cu), a
// four-layer convolutional digit recogniser, in that benchmark's kernel shapes:
//   layer 1: grid (6 maps, images), block 13 x 13: one thread per output pixel, 5 x 5 taps (stride 2) of the
//            29 x 29 image, tap offsets from a __constant__ table; 26 weights per map (bias first)
//   layer 2: grid (50 maps, images), block 5 x 5: 25 taps over all 6 layer-1 maps (stride 2), the six maps
//            written out in the loop body; 156 weights per map (bias, then tap-major, map-minor)
//   layer 3: grid (100 neurons, images), block 1: one thread loops over the 1250 layer-2 outputs
//   layer 4: grid (10 neurons, images), block 1: one thread loops over the 100 layer-3 outputs
// The activation is the suite's 1.7159 tanh(0.66666667 x) with double-precision constants.

#define NN_IMG 29     // input image side (28 x 28 digit in a 29 x 29 frame)
#define NN_L1 13      // layer-1 map side
#define NN_L1_MAPS 6
#define NN_L2 5       // layer-2 map side
#define NN_L2_OUT 1250  // 50 maps of 5 x 5
#define NN_L3_OUT 100
#define NN_L4_OUT 10

// Offset of tap t (row t / 5, column t % 5) of a 5 x 5 window in a row-major image 29 (13) wide.
__constant__ int nn_tap29[25] = {0,  1,  2,  3,  4,  29, 30, 31, 32, 33, 58, 59, 60,
                                 61, 62, 87, 88, 89, 90, 91, 116, 117, 118, 119, 120};
__constant__ int nn_tap13[25] = {0,  1,  2,  3,  4,  13, 14, 15, 16, 17, 26, 27, 28,
                                 29, 30, 39, 40, 41, 42, 43, 52, 53, 54, 55, 56};

extern "C" __global__ void nn_layer1(const float *image, const float *weight, float *out) {
  int map = blockIdx.x;
  int x = threadIdx.x;
  int y = threadIdx.y;
  int w0 = map * 26;
  int left = 2 * x;
  int top = 2 * y;
  float sum = 0;
  sum += weight[w0];
  ++w0;
  for (int t = 0; t < 25; ++t)
    sum += image[(top * NN_IMG + left + nn_tap29[t]) + NN_IMG * NN_IMG * blockIdx.y] * weight[w0 + t];
  sum = 1.7159 * tanhf(0.66666667 * sum);
  out[(NN_L1 * NN_L1 * map + y * NN_L1 + x) + NN_L1 * NN_L1 * NN_L1_MAPS * blockIdx.y] = sum;
}

extern "C" __global__ void nn_layer2(const float *in, const float *weight, float *out) {
  int map = blockIdx.x;
  int x = threadIdx.x;
  int y = threadIdx.y;
  int w0 = map * 26 * NN_L1_MAPS;
  int left = 2 * x;
  int top = 2 * y;
  int img = NN_L1 * NN_L1 * NN_L1_MAPS * blockIdx.y;
  float sum = 0;
  sum += weight[w0];
  ++w0;
  for (int t = 0; t < 25; ++t) {
    sum += in[(left + NN_L1 * top + nn_tap13[t]) + img] * weight[w0 + t * 6];
    sum += in[(169 + left + NN_L1 * top + nn_tap13[t]) + img] * weight[w0 + t * 6 + 1];
    sum += in[(338 + left + NN_L1 * top + nn_tap13[t]) + img] * weight[w0 + t * 6 + 2];
    sum += in[(507 + left + NN_L1 * top + nn_tap13[t]) + img] * weight[w0 + t * 6 + 3];
    sum += in[(676 + left + NN_L1 * top + nn_tap13[t]) + img] * weight[w0 + t * 6 + 4];
    sum += in[(845 + left + NN_L1 * top + nn_tap13[t]) + img] * weight[w0 + t * 6 + 5];
  }
  sum = 1.7159 * tanhf(0.66666667 * sum);
  out[(NN_L2 * NN_L2 * map + y * NN_L2 + x) + NN_L2_OUT * blockIdx.y] = sum;
}

extern "C" __global__ void nn_layer3(const float *in, const float *weight, float *out) {
  int neuron = blockIdx.x;
  int w0 = neuron * (NN_L2_OUT + 1);
  float sum = 0;
  sum += weight[w0];
  ++w0;
  for (int i = 0; i < NN_L2_OUT; ++i) sum += in[i + NN_L2_OUT * blockIdx.y] * weight[w0 + i];
  sum = 1.7159 * tanhf(0.66666667 * sum);
  out[neuron + NN_L3_OUT * blockIdx.y] = sum;
}

extern "C" __global__ void nn_layer4(const float *in, const float *weight, float *out) {
  int neuron = blockIdx.x;
  int w0 = neuron * (NN_L3_OUT + 1);
  float sum = 0;
  sum += weight[w0];
  ++w0;
  for (int i = 0; i < NN_L3_OUT; ++i) sum += in[i + NN_L3_OUT * blockIdx.y] * weight[w0 + i];
  sum = 1.7159 * tanhf(0.66666667 * sum);
  out[neuron + NN_L4_OUT * blockIdx.y] = sum;
}
