// Back propagation (Rodinia style): the input -> hidden layer of a network with 16 hidden units.
// A 16x16 block handles 16 input units x 16 hidden units. Weights are (in + 1) x (hid + 1), row-major;
// row 0 (bias) and column 0 are not touched by layerforward.

#define BP_HEIGHT 16
#define BP_WIDTH 16
#define BP_ETA 0.3f
#define BP_MOMENTUM 0.3f

// Weighted inputs of each hidden unit, summed over the block's 16 input units by a shared-memory tree.
// Like Rodinia, the tile left after the tree is written back over the weights.
extern "C" __global__ void bp_layerforward(const float *input_units, float *input_weights,
                                           float *hidden_partial_sum, int in, int hid) {
  __shared__ float node[BP_HEIGHT];
  __shared__ float tile[BP_HEIGHT][BP_WIDTH];
  const int by = blockIdx.y;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = BP_HEIGHT * by + ty + 1;
  const int index = (hid + 1) * row + tx + 1;

  if (tx == 0) node[ty] = input_units[row];
  __syncthreads();
  tile[ty][tx] = input_weights[index];
  __syncthreads();
  tile[ty][tx] = tile[ty][tx] * node[ty];
  __syncthreads();
  for (int stride = 1; stride < BP_HEIGHT; stride *= 2) {
    if ((ty & (2 * stride - 1)) == 0) tile[ty][tx] = tile[ty][tx] + tile[ty + stride][tx];
    __syncthreads();
  }
  input_weights[index] = tile[ty][tx];
  __syncthreads();
  if (tx == 0) hidden_partial_sum[by * hid + ty] = tile[tx][ty];
}

// Gradient step with momentum on the input -> hidden weights; block (0, 0) also moves the bias row.
extern "C" __global__ void bp_adjust_weights(const float *delta, int hid, const float *ly, int in, float *w,
                                             float *oldw) {
  const int by = blockIdx.y;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = BP_HEIGHT * by + ty + 1;
  const int col = tx + 1;
  const int index = (hid + 1) * row + col;

  float dw = BP_ETA * delta[col] * ly[row] + BP_MOMENTUM * oldw[index];
  w[index] += dw;
  oldw[index] = dw;
  __syncthreads();
  if (ty == 0 && by == 0) {
    float db = BP_ETA * delta[col] + BP_MOMENTUM * oldw[col];
    w[col] += db;
    oldw[col] = db;
  }
}
