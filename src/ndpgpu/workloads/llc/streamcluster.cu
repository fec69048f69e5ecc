// Rodinia streamcluster (CUDA): the pgain kernel. For a candidate centre x, each thread (one per point)
// computes the weighted squared distance of its point to x over dim-major coordinates and records in its
// own work_mem row what opening x would save: in column K when the point would switch to x, else against its
// current centre's column (centre_table maps a centre point to its column).

struct Point {
  float weight;
  float *coord;
  long assign;  // index of the point's centre
  float cost;   // weight * squared distance to that centre
};

__device__ float sc_dist(int p1, int p2, int num, int dim, const float *coord) {
  float retval = 0.0f;
  for (int i = 0; i < dim; i++) {
    float tmp = coord[(i * num) + p1] - coord[(i * num) + p2];
    retval += tmp * tmp;
  }
  return retval;
}

// At most 32 registers per thread (.maxnreg): a 512-thread CTA then fits the paper's 64 KB register file
// (Table 2: 16384 registers), as it must have on the paper's Fermi-class cores; unbounded, nvcc 13 uses 56.
extern "C" __global__ void __maxnreg__(32) llc_sc_compute_cost(int num, int dim, long x, const Point *p, int K, int stride,
                                               const float *coord, float *work_mem, const int *center_table,
                                               bool *switch_membership) {
  const int bid = blockIdx.x + gridDim.x * blockIdx.y;
  const int tid = blockDim.x * bid + threadIdx.x;
  if (tid < num) {
    float *lower = &work_mem[tid * stride];
    float x_cost = sc_dist(tid, x, num, dim, coord) * p[tid].weight;
    if (x_cost < p[tid].cost) {
      switch_membership[tid] = 1;
      lower[K] += x_cost - p[tid].cost;
    } else {
      lower[center_table[p[tid].assign]] += p[tid].cost - x_cost;
    }
  }
}
