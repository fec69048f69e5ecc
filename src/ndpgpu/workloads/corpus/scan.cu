// Work-efficient (Blelloch) exclusive scan of int in shared memory: each block scans 2 * blockDim.x
// elements (up-sweep, clear, down-sweep) and writes its total to block_sums; the host scans the block
// sums recursively and add_offsets adds them back. Shared indices are padded by one int every 32 to
// avoid bank conflicts. Dynamic shared memory: (m + m / 32) ints, m = 2 * blockDim.x.
#define LOG_BANKS 5
#define PAD(i) ((i) >> LOG_BANKS)

extern "C" __global__ void scan_block(const int *in, int *out, int *block_sums, int n) {
  extern __shared__ int temp[];
  int t = threadIdx.x;
  int m = 2 * blockDim.x;
  int base = blockIdx.x * m;
  int ai = t;
  int bi = t + blockDim.x;
  temp[ai + PAD(ai)] = (base + ai < n) ? in[base + ai] : 0;
  temp[bi + PAD(bi)] = (base + bi < n) ? in[base + bi] : 0;
  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1) {  // up-sweep
    __syncthreads();
    if (t < d) {
      int a = offset * (2 * t + 1) - 1;
      int b = offset * (2 * t + 2) - 1;
      temp[b + PAD(b)] += temp[a + PAD(a)];
    }
    offset <<= 1;
  }
  if (t == 0) {
    int last = m - 1 + PAD(m - 1);
    block_sums[blockIdx.x] = temp[last];
    temp[last] = 0;
  }
  for (int d = 1; d < m; d <<= 1) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int a = offset * (2 * t + 1) - 1;
      int b = offset * (2 * t + 2) - 1;
      a += PAD(a);
      b += PAD(b);
      int left = temp[a];
      temp[a] = temp[b];
      temp[b] += left;
    }
  }
  __syncthreads();
  if (base + ai < n) out[base + ai] = temp[ai + PAD(ai)];
  if (base + bi < n) out[base + bi] = temp[bi + PAD(bi)];
}

// data[i] += offsets[i / per_block]
extern "C" __global__ void add_offsets(int *data, const int *offsets, int n, int per_block) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += offsets[i / per_block];
}
