// Stencils in one, two and three dimensions.

#define RADIUS 3

// 1D: out[i] = sum of in[i-R .. i+R] (zeros outside), through a shared tile with halos.
// Dynamic shared memory: (blockDim.x + 2*RADIUS) floats.
extern "C" __global__ void stencil1d(const float *in, float *out, int n) {
  extern __shared__ float tile[];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  tile[l] = (g < n) ? in[g] : 0.0f;
  if (threadIdx.x < RADIUS) {
    int left = g - RADIUS;
    int right = g + blockDim.x;
    tile[l - RADIUS] = (left >= 0 && left < n) ? in[left] : 0.0f;
    tile[l + blockDim.x] = (right < n) ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g < n) {
    float s = 0.0f;
    for (int o = -RADIUS; o <= RADIUS; ++o) s += tile[l + o];
    out[g] = s;
  }
}

// 2D 5-point Jacobi sweep; the boundary is copied unchanged.
extern "C" __global__ void jacobi2d(const float *in, float *out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

// 3D 7-point stencil on a 3D grid of 3D blocks; the boundary is copied unchanged.
extern "C" __global__ void stencil3d(const float *in, float *out, int nx, int ny, int nz, float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  int plane = nx * ny;
  int i = z * plane + y * nx + x;
  if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
    out[i] = in[i];
    return;
  }
  float s = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - plane] + in[i + plane];
  out[i] = c0 * in[i] + c1 * s;
}
