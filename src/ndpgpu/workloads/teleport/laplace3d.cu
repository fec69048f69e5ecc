// Laplace 3D (TELEPORT's LPS, after the GPGPU-Sim ISPASS-2009 suite's laplace3d by M. Giles): one Jacobi
// sweep of an nx x ny x nz float grid per launch (ping-pong). 32 x 4 thread blocks tile the x-y plane and
// every thread marches along z; boundary points are copied, interior points become the mean of their six
// neighbours.

extern "C" __global__ void laplace3d(int nx, int ny, int nz, const float *u1, float *u2) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  const int j = threadIdx.y + blockIdx.y * blockDim.y;
  const int ioff = 1;
  const int joff = nx;
  const int koff = nx * ny;
  const float sixth = 1.0f / 6.0f;
  int ind = i + j * joff;
  const bool active = i < nx && j < ny;
  for (int k = 0; k < nz; k++) {
    if (active) {
      float u;
      if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) {
        u = u1[ind];
      } else {
        u = (u1[ind - ioff] + u1[ind + ioff] + u1[ind - joff] + u1[ind + joff] + u1[ind - koff] + u1[ind + koff]) *
            sixth;
      }
      u2[ind] = u;
    }
    ind += koff;
  }
}
