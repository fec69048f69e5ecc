// KMEANS (Rodinia kmeans, the assignment kernel): every point (one per thread, grid-stride) finds its
// nearest centre by squared Euclidean distance. Features are feature-major (features[f * npoints + p],
// Rodinia's transposed layout), centres cluster-major (clusters[c * nfeatures + f]). The squares are
// rounded before they are added (__fmul_rn: no fma contraction) so the choice is reproducible bit for bit.
// Each block first copies the centres into shared memory (dynamic, nclusters * nfeatures floats): every
// thread reads every centre, and MPU has no data cache, so reading them from global memory would send each
// warp's reads to the one near-bank unit that holds them.

#include <float.h>

extern "C" __global__ void mpu_kmeans_assign(const float *features, const float *clusters, int *membership,
                                             int npoints, int nclusters, int nfeatures) {
  extern __shared__ float centres[];
  for (int i = threadIdx.x; i < nclusters * nfeatures; i += blockDim.x) centres[i] = clusters[i];
  __syncthreads();
  const int stride = gridDim.x * blockDim.x;
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < npoints; p += stride) {
    int best = 0;
    float best_dist = FLT_MAX;
    for (int c = 0; c < nclusters; ++c) {
      float dist = 0.0f;
      for (int f = 0; f < nfeatures; ++f) {
        const float d = features[f * npoints + p] - centres[c * nfeatures + f];
        dist += __fmul_rn(d, d);
      }
      if (dist < best_dist) {
        best_dist = dist;
        best = c;
      }
    }
    membership[p] = best;
  }
}
