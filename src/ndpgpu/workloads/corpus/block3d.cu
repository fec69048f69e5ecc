// A 2D grid of 3D blocks: threadIdx.z selects a channel of an interleaved (H, W, C) image, and every
// thread records its coordinates to check the launch geometry (block/grid dims and indices).
extern "C" __global__ void block3d(const int *in, int *out, int *ids, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int c = threadIdx.z;
  int channels = blockDim.z;
  int block_linear = blockIdx.y * gridDim.x + blockIdx.x;
  int thread_linear = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int threads_per_block = blockDim.x * blockDim.y * blockDim.z;
  ids[block_linear * threads_per_block + thread_linear] =
      ((blockIdx.y * 1000 + blockIdx.x) * 10 + threadIdx.z) * 100 + threadIdx.y * 10 + threadIdx.x;
  if (x < width && y < height) {
    int i = (y * width + x) * channels + c;
    out[i] = in[i] * (c + 1) + y - x + (int)(gridDim.x * gridDim.y * gridDim.z);
  }
}
