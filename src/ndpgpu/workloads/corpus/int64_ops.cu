// 64- and 32-bit integer semantics: high halves of products, wrapping products, shifts, truncating
// division and remainder of negative numbers (also by constants, which nvcc turns into multiplies),
// widening and narrowing conversions, popcount and leading zeros. One column of each output per element.
// Rows of out64 / outu64 / out32 are the operations listed beside each store.

extern "C" __global__ void int64_ops(const long long *a, const long long *b, const int *s, const int *x,
                                     const int *y, long long *out64, unsigned long long *outu64, int *out32,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long va = a[i], vb = b[i];
  unsigned long long ua = (unsigned long long)va, ub = (unsigned long long)vb;
  int sh = s[i];
  int vx = x[i], vy = y[i];
  long long *o64 = out64 + i;
  unsigned long long *ou = outu64 + i;
  int *o32 = out32 + i;
  o64[0 * n] = __mul64hi(va, vb);
  o64[1 * n] = (long long)(ua * ub);
  o64[2 * n] = va / vb;
  o64[3 * n] = va % vb;
  o64[4 * n] = va >> sh;
  o64[5 * n] = (long long)(ua << sh);
  o64[6 * n] = (long long)vx * (long long)vy;
  o64[7 * n] = (long long)(unsigned int)vx;
  o64[8 * n] = va / 7;
  o64[9 * n] = va % -9;
  ou[0 * n] = __umul64hi(ua, ub);
  ou[1 * n] = ua >> sh;
  ou[2 * n] = ua / ((ub >> 40) | 1ull);
  o32[0 * n] = vx / vy;
  o32[1 * n] = vx % vy;
  o32[2 * n] = __mulhi(vx, vy);
  o32[3 * n] = (int)__umulhi((unsigned int)vx, (unsigned int)vy);
  o32[4 * n] = (int)va;
  o32[5 * n] = vx >> (sh & 31);
  o32[6 * n] = (int)((unsigned int)vx >> (sh & 31));
  o32[7 * n] = vx / -3;
  o32[8 * n] = __popcll(ua);
  o32[9 * n] = __clzll(va);
}
