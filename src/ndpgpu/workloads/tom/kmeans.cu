// K-means (Rodinia kmeans_cuda, in Rogers et al.'s variant: features and centres in global memory,
// not texture/constant memory). Features are first transposed to feature-major order so that a warp's
// loads of one feature are coalesced; the host then relaunches the assignment until nothing moves.

#include <cfloat>

// features[point][f] -> features_flipped[f][point]
extern "C" __global__ void km_invert_mapping(const float *input, float *output, int npoints, int nfeatures) {
  int point = blockIdx.x * blockDim.x + threadIdx.x;
  if (point < npoints) {
    for (int f = 0; f < nfeatures; f++) output[point + f * npoints] = input[point * nfeatures + f];
  }
}

// membership[point] = index of the nearest centre (squared Euclidean distance; first one on ties).
// The 2-D grid is flattened as Rodinia does. The square is rounded before it is added (__fmul_rn) so
// every distance is the same float32 value a NumPy reference computes.
extern "C" __global__ void km_assign(const float *features, const float *clusters, int *membership,
                                     int npoints, int nclusters, int nfeatures) {
  const unsigned int block_id = gridDim.x * blockIdx.y + blockIdx.x;
  const unsigned int point = block_id * blockDim.x + threadIdx.x;
  if (point < npoints) {
    int index = 0;
    float min_dist = FLT_MAX;
    for (int c = 0; c < nclusters; c++) {
      int base = c * nfeatures;
      float dist = 0.0f;
      for (int f = 0; f < nfeatures; f++) {
        float diff = features[point + f * npoints] - clusters[base + f];
        dist += __fmul_rn(diff, diff);
      }
      if (dist < min_dist) {
        min_dist = dist;
        index = c;
      }
    }
    membership[point] = index;
  }
}
