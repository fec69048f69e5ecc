// SRAD (TELEPORT's SRD, after Rodinia's speckle-reducing anisotropic diffusion, srad_v2's algorithm) on a
// rows x cols float image, 16 x 16 thread blocks, one pixel per thread, two kernels per iteration:
// srad_coef computes the four directional derivatives and the diffusion coefficient of every pixel, and
// srad_update moves the image by the divergence. A neighbour outside the image is the pixel itself.
// Global memory only (srad_v2 stages tiles in shared memory; TELEPORT counts SRD among its
// shared-memory-free benchmarks).

extern "C" __global__ void srad_coef(const float *J, float *dN, float *dS, float *dW, float *dE, float *C, int rows,
                                     int cols, float q0sqr) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols) return;
  int k = i * cols + j;
  int in = i > 0 ? i - 1 : 0;
  int is = i < rows - 1 ? i + 1 : rows - 1;
  int jw = j > 0 ? j - 1 : 0;
  int je = j < cols - 1 ? j + 1 : cols - 1;
  float jc = J[k];
  float n = J[in * cols + j] - jc;
  float s = J[is * cols + j] - jc;
  float w = J[i * cols + jw] - jc;
  float e = J[i * cols + je] - jc;
  float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  float l = (n + s + w + e) / jc;
  float num = 0.5f * g2 - 0.0625f * (l * l);
  float den = 1.0f + 0.25f * l;
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + den);
  c = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
  dN[k] = n;
  dS[k] = s;
  dW[k] = w;
  dE[k] = e;
  C[k] = c;
}

extern "C" __global__ void srad_update(float *J, const float *dN, const float *dS, const float *dW, const float *dE,
                                       const float *C, int rows, int cols, float lambda) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols) return;
  int k = i * cols + j;
  int is = i < rows - 1 ? i + 1 : rows - 1;
  int je = j < cols - 1 ? j + 1 : cols - 1;
  float cn = C[k];
  float cs = C[is * cols + j];
  float cw = C[k];
  float ce = C[i * cols + je];
  float d = cn * dN[k] + cs * dS[k] + cw * dW[k] + ce * dE[k];
  J[k] = J[k] + 0.25f * lambda * d;
}
