// Half precision through cuda_fp16.h: conversions (round to nearest even, subnormals, overflow to inf),
// and __half arithmetic (add, mul, sub, fma, comparison). __half outputs are raw 16-bit values.
#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const float *a, const float *b, const float *c, const float *f,
                                    __half *h_sum, __half *h_prod, __half *h_fma, __half *h_conv,
                                    float *back, int *less, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half ha = __float2half(a[i]);
  __half hb = __float2half(b[i]);
  __half hc = __float2half(c[i]);
  h_sum[i] = __hadd(ha, hb);
  h_prod[i] = __hmul(ha, hb);
  h_fma[i] = __hfma(ha, hb, hc);
  h_conv[i] = __float2half(f[i]);
  back[i] = __half2float(__hsub(ha, hc)) * 2.0f + __half2float(__float2half(f[i]));
  less[i] = __hlt(ha, hb) ? 1 : 0;
}
