// Breadth-first search in the shape of Rodinia's BFS Kernel/Kernel2 (TELEPORT's BFS, Listing 2 / Table 1):
// one thread per node, 512-thread blocks. The edge loop keeps Rodinia's form, whose bound re-reads
// nodes[tid].no_of_edges and nodes[tid].starting: the seven global read indexes the paper classifies are
// mask[tid], nodes[tid] (three times), edges[i], visited[id] and cost[tid].

struct Node {
  int starting;
  int no_of_edges;
};

extern "C" __global__ void bfs_expand(const Node *nodes, const int *edges, bool *mask, bool *updating_mask,
                                      const bool *visited, int *cost, int no_of_nodes) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < no_of_nodes && mask[tid]) {
    mask[tid] = false;
    for (int i = nodes[tid].starting; i < (nodes[tid].no_of_edges + nodes[tid].starting); i++) {
      int id = edges[i];
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating_mask[id] = true;
      }
    }
  }
}

extern "C" __global__ void bfs_update(bool *mask, bool *updating_mask, bool *visited, bool *over, int no_of_nodes) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < no_of_nodes && updating_mask[tid]) {
    mask[tid] = true;
    visited[tid] = true;
    *over = true;
    updating_mask[tid] = false;
  }
}
