// Rodinia SRAD v1 (speckle-reducing anisotropic diffusion, global-memory version). The image is stored
// column-major (element ei = row + nr * col), one thread per pixel, 512-thread blocks:
//   extract: I = exp(I / 255)                 prepare: sums = I, sums2 = I * I
//   reduce:  block sums of sums/sums2 in shared memory, written back in place at the block's first
//            element (stride mul), relaunched by the host until one value is left
//   srad:    directional derivatives dN/dS/dW/dE and the diffusion coefficient c (uses q0sqr from the host)
//   srad2:   divergence D of c * gradient, I += 0.25 * lambda * D
//   compress: I = log(I) * 255
// Single precision throughout (float literals).

#define NT 512

extern "C" __global__ void llc_srad_extract(int ne, float *img) {
  int ei = blockIdx.x * blockDim.x + threadIdx.x;
  if (ei < ne) img[ei] = expf(img[ei] / 255.0f);
}

extern "C" __global__ void llc_srad_prepare(int ne, const float *img, float *sums, float *sums2) {
  int ei = blockIdx.x * blockDim.x + threadIdx.x;
  if (ei < ne) {
    sums[ei] = img[ei];
    sums2[ei] = img[ei] * img[ei];
  }
}

extern "C" __global__ void llc_srad_reduce(int ne, int mul, float *sums, float *sums2) {
  __shared__ float ps[NT];
  __shared__ float ps2[NT];
  const int tx = threadIdx.x;
  const long ei = ((long)blockIdx.x * NT + tx) * mul;
  ps[tx] = ei < ne ? sums[ei] : 0.0f;
  ps2[tx] = ei < ne ? sums2[ei] : 0.0f;
  __syncthreads();
  for (int s = NT / 2; s > 0; s >>= 1) {
    if (tx < s) {
      ps[tx] = ps[tx] + ps[tx + s];
      ps2[tx] = ps2[tx] + ps2[tx + s];
    }
    __syncthreads();
  }
  if (tx == 0) {
    sums[(long)blockIdx.x * NT * mul] = ps[0];
    sums2[(long)blockIdx.x * NT * mul] = ps2[0];
  }
}

extern "C" __global__ void llc_srad_srad(float lambda, int nr, int nc, int ne, const int *iN, const int *iS,
                                         const int *jE, const int *jW, float *dN, float *dS, float *dE, float *dW,
                                         float q0sqr, float *c, const float *img) {
  int ei = blockIdx.x * blockDim.x + threadIdx.x;
  if (ei < ne) {
    int row = ei % nr;
    int col = ei / nr;
    float jc = img[ei];
    float n = img[iN[row] + nr * col] - jc;
    float s = img[iS[row] + nr * col] - jc;
    float w = img[row + nr * jW[col]] - jc;
    float e = img[row + nr * jE[col]] - jc;
    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = (0.5f * g2) - ((1.0f / 16.0f) * (l * l));
    float den = 1.0f + (0.25f * l);
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float cc = 1.0f / (1.0f + den);
    if (cc < 0.0f)
      cc = 0.0f;
    else if (cc > 1.0f)
      cc = 1.0f;
    dN[ei] = n;
    dS[ei] = s;
    dW[ei] = w;
    dE[ei] = e;
    c[ei] = cc;
  }
}

extern "C" __global__ void llc_srad_srad2(float lambda, int nr, int nc, int ne, const int *iN, const int *iS,
                                          const int *jE, const int *jW, const float *dN, const float *dS,
                                          const float *dE, const float *dW, const float *c, float *img) {
  int ei = blockIdx.x * blockDim.x + threadIdx.x;
  if (ei < ne) {
    int row = ei % nr;
    int col = ei / nr;
    float cn = c[ei];
    float cs = c[iS[row] + nr * col];
    float cw = c[ei];
    float ce = c[row + nr * jE[col]];
    float d = cn * dN[ei] + cs * dS[ei] + cw * dW[ei] + ce * dE[ei];
    img[ei] = img[ei] + 0.25f * lambda * d;
  }
}

extern "C" __global__ void llc_srad_compress(int ne, float *img) {
  int ei = blockIdx.x * blockDim.x + threadIdx.x;
  if (ei < ne) img[ei] = logf(img[ei]) * 255.0f;
}
