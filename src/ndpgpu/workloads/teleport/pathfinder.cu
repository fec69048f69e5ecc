// PathFinder (TELEPORT's PTF, after Rodinia's dynamic-programming grid walk): rows x cols integer weights;
// dist[0] = wall[0], dist[r][c] = wall[r][c] + min(dist[r-1][c-1], dist[r-1][c], dist[r-1][c+1]) with the
// out-of-grid neighbour replaced by the cell above itself. Returns the last row.
// pathfinder: Baseline/TELEPORT kernel, one launch per row (a 1D three-point stencil), 256-thread blocks.
// pathfinder_shared: hand-written version in Rodinia's ghost-zone form: a 256-thread block keeps a row in
// shared memory and advances `iteration` rows per launch, computing 256 - 2 * border valid columns.

#define PF_BLOCK 256

extern "C" __global__ void pathfinder(const int *wall, const int *src, int *dst, int cols, int row) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  int left = src[c > 0 ? c - 1 : c];
  int up = src[c];
  int right = src[c < cols - 1 ? c + 1 : c];
  int best = min(left, min(up, right));
  dst[c] = wall[row * cols + c] + best;
}

extern "C" __global__ void pathfinder_shared(const int *wall, const int *src, int *dst, int cols, int start_row,
                                             int iteration, int border) {
  __shared__ int prev[PF_BLOCK];
  __shared__ int result[PF_BLOCK];
  const int tx = threadIdx.x;
  const int small_cols = PF_BLOCK - 2 * border;
  const int x0 = small_cols * blockIdx.x - border;  // column of prev[0]
  const int c = x0 + tx;
  const int valid_min = x0 < 0 ? -x0 : 0;
  const int valid_max = x0 + PF_BLOCK - 1 > cols - 1 ? cols - 1 - x0 : PF_BLOCK - 1;
  const int w = tx - 1 < valid_min ? valid_min : tx - 1;
  const int e = tx + 1 > valid_max ? valid_max : tx + 1;
  const bool valid = tx >= valid_min && tx <= valid_max;
  if (valid) prev[tx] = src[c];
  __syncthreads();
  bool computed = false;
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (tx >= i + 1 && tx <= PF_BLOCK - i - 2 && valid) {
      computed = true;
      int best = min(prev[w], min(prev[tx], prev[e]));
      result[tx] = wall[(start_row + i) * cols + c] + best;
    }
    __syncthreads();
    if (i == iteration - 1) break;
    if (computed) prev[tx] = result[tx];
    __syncthreads();
  }
  if (computed && tx >= border && tx < PF_BLOCK - border) dst[c] = result[tx];
}
