// Breadth-first search (Rodinia style): one thread per node, two kernels per level.
// Nodes are {first edge, edge count} structs; the masks are bools (bytes). cost is the level (-1: unreached).

struct Node {
  int starting;
  int no_of_edges;
};

// Expand the frontier: every masked node labels its unvisited neighbours with the next level.
extern "C" __global__ void bfs_kernel(const Node *nodes, const int *edges, bool *mask, bool *updating_mask,
                                      const bool *visited, int *cost, int no_of_nodes) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < no_of_nodes && mask[tid]) {
    mask[tid] = false;
    int first = nodes[tid].starting;
    int last = first + nodes[tid].no_of_edges;
    for (int e = first; e < last; e++) {
      int id = edges[e];
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating_mask[id] = true;
      }
    }
  }
}

// Turn the newly reached nodes into the next frontier and tell the host whether there was any.
extern "C" __global__ void bfs_kernel2(bool *mask, bool *updating_mask, bool *visited, bool *over,
                                       int no_of_nodes) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < no_of_nodes && updating_mask[tid]) {
    mask[tid] = true;
    visited[tid] = true;
    *over = true;
    updating_mask[tid] = false;
  }
}
