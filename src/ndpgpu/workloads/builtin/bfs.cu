// Frontier-based breadth-first search over a CSR graph (one thread per node, two kernels per level).
// frontier/next/visited are byte flags; cost is the BFS level (-1 where unreached).

extern "C" __global__ void bfs_expand(const int *row_offsets, const int *cols, unsigned char *frontier,
                                      unsigned char *next, const unsigned char *visited, int *cost, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && frontier[v]) {
    frontier[v] = 0;
    int level = cost[v] + 1;
    int end = row_offsets[v + 1];
    for (int e = row_offsets[v]; e < end; ++e) {
      int u = cols[e];
      if (!visited[u]) {
        cost[u] = level;  // every writer of this level writes the same value
        next[u] = 1;
      }
    }
  }
}

extern "C" __global__ void bfs_update(unsigned char *frontier, unsigned char *next, unsigned char *visited,
                                      int *changed, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && next[v]) {
    frontier[v] = 1;
    visited[v] = 1;
    next[v] = 0;
    *changed = 1;
  }
}
