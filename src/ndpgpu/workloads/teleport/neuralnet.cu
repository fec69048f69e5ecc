// Neural network (TELEPORT's NN, after the GPGPU-Sim ISPASS-2009 suite's convolutional digit recogniser):
// four layers, four kernels, one thread block per image:
//   layer1: 29 x 29 input -> 6 maps of 13 x 13 (5 x 5 kernels, stride 2), block 13 x 13
//   layer2: 6 x 13 x 13 -> 50 maps of 5 x 5 (5 x 5 kernels over all 6 maps, stride 2), block 5 x 5
//   layer3: 1250 -> 100 fully connected, block 100
//   layer4: 100 -> 10 fully connected, block 10
// Every neuron's weights start with its bias; activation 1.7159 tanh(2/3 x).

#define NN_IN 29
#define NN_L1 13
#define NN_L1_MAPS 6
#define NN_L2 5
#define NN_L2_MAPS 50
#define NN_L3 100
#define NN_L4 10
#define NN_K 5

__device__ __forceinline__ float nn_act(float x) { return 1.7159f * tanhf(0.66666667f * x); }

extern "C" __global__ void nn_layer1(const float *input, const float *weights, float *out) {
  const int img = blockIdx.x;
  const int x = threadIdx.x;
  const int y = threadIdx.y;
  const float *in = input + img * NN_IN * NN_IN;
  for (int m = 0; m < NN_L1_MAPS; m++) {
    const float *w = weights + m * (1 + NN_K * NN_K);
    float sum = w[0];
    for (int ky = 0; ky < NN_K; ky++)
      for (int kx = 0; kx < NN_K; kx++) sum += w[1 + ky * NN_K + kx] * in[(2 * y + ky) * NN_IN + 2 * x + kx];
    out[img * NN_L1_MAPS * NN_L1 * NN_L1 + m * NN_L1 * NN_L1 + y * NN_L1 + x] = nn_act(sum);
  }
}

extern "C" __global__ void nn_layer2(const float *l1, const float *weights, float *out) {
  const int img = blockIdx.x;
  const int x = threadIdx.x;
  const int y = threadIdx.y;
  const float *in = l1 + img * NN_L1_MAPS * NN_L1 * NN_L1;
  for (int m = 0; m < NN_L2_MAPS; m++) {
    const float *w = weights + m * (1 + NN_L1_MAPS * NN_K * NN_K);
    float sum = w[0];
    for (int c = 0; c < NN_L1_MAPS; c++)
      for (int ky = 0; ky < NN_K; ky++)
        for (int kx = 0; kx < NN_K; kx++)
          sum += w[1 + c * NN_K * NN_K + ky * NN_K + kx] * in[c * NN_L1 * NN_L1 + (2 * y + ky) * NN_L1 + 2 * x + kx];
    out[img * NN_L2_MAPS * NN_L2 * NN_L2 + m * NN_L2 * NN_L2 + y * NN_L2 + x] = nn_act(sum);
  }
}

// Fully connected layer: neuron threadIdx.x of image blockIdx.x over n_in inputs.
extern "C" __global__ void nn_dense(const float *in, const float *weights, float *out, int n_in) {
  const int img = blockIdx.x;
  const int n = threadIdx.x;
  const float *w = weights + n * (1 + n_in);
  float sum = w[0];
  for (int i = 0; i < n_in; i++) sum += w[1 + i] * in[img * n_in + i];
  out[img * blockDim.x + n] = nn_act(sum);
}
