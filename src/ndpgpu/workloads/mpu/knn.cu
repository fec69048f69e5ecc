// KNN (Rodinia nn): the distance of every record to the query point, one record per thread
// (grid-stride). The coordinates are two separate arrays (structure of arrays); the k smallest are
// selected on the host, as in Rodinia.

extern "C" __global__ void mpu_knn_dist(const float *x, const float *y, float *dist, int n, float qx, float qy) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float dx = x[i] - qx;
    const float dy = y[i] - qy;
    dist[i] = sqrtf(dx * dx + dy * dy);
  }
}
