// Single-precision math library and conversions: expf, logf, sinf, sqrtf, rsqrtf, powf, __expf, fminf,
// fmaxf, floorf, truncating float->int casts and IEEE division. One row of out per function.
extern "C" __global__ void math_funcs(const float *x, const float *y, const float *p, float *out, int *iout,
                                      unsigned int *uout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float vx = x[i], vy = y[i], vp = p[i];
  out[0 * n + i] = expf(vx);
  out[1 * n + i] = logf(vp);
  out[2 * n + i] = sinf(vx * 7.0f);
  out[3 * n + i] = sqrtf(vp);
  out[4 * n + i] = rsqrtf(vp);
  out[5 * n + i] = powf(vp, vy);
  out[6 * n + i] = __expf(vx);
  out[7 * n + i] = fminf(vx, vy);
  out[8 * n + i] = fmaxf(vx, vy);
  out[9 * n + i] = floorf(vx * 3.0f);
  out[10 * n + i] = vx / vy;
  out[11 * n + i] = cosf(vy);
  iout[i] = (int)(vx * 1000.0f);
  uout[i] = (unsigned int)(vp * 1.0e6f);
}
