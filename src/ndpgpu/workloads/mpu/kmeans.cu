// KMEANS (Rodinia kmeans, the assignment kernel): every point (one per thread, grid-stride) finds its
// nearest centre by squared Euclidean distance. The numbers of centres and features are compile-time
// constants, as MPU-Sim compiles its kmeans (4 and 4), so the loops unroll and each feature of a point is
// loaded once. Features are feature-major (features[f * npoints + p], Rodinia's transposed layout), centres
// feature-major too (clusters[f * KM_CLUSTERS + c], MPU-Sim's layout). The squares are rounded before they are
// added (__fmul_rn: no fma contraction) so the choice is reproducible bit for bit. Each block first copies the
// centres into shared memory: every thread reads every centre, and MPU has no data cache, so reading them from
// global memory would send each warp's reads to the one near-bank unit that holds them.

#include <float.h>

#define KM_CLUSTERS 4
#define KM_FEATURES 4

extern "C" __global__ void mpu_kmeans_assign(const float *features, const float *clusters, int *membership,
                                             int npoints) {
  __shared__ float centres[KM_CLUSTERS * KM_FEATURES];
  for (int i = threadIdx.x; i < KM_CLUSTERS * KM_FEATURES; i += blockDim.x) centres[i] = clusters[i];
  __syncthreads();
  const int stride = gridDim.x * blockDim.x;
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < npoints; p += stride) {
    int best = 0;
    float best_dist = FLT_MAX;
#pragma unroll
    for (int c = 0; c < KM_CLUSTERS; ++c) {
      float dist = 0.0f;
#pragma unroll
      for (int f = 0; f < KM_FEATURES; ++f) {
        const float d = features[f * npoints + p] - centres[f * KM_CLUSTERS + c];
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
