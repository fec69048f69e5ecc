// Fast Walsh-Hadamard transform (CUDA SDK fastWalshTransform style), used for a dyadic convolution.
// Large strides: fwt_global_radix4 does one radix-4 butterfly stage per launch over global memory.
// Once a batch fits (N <= 2^ELEMENTARY_LOG2SIZE), fwt_shared does the remaining stages in shared memory:
// one radix-2 stage when log2N is odd, then radix-4 stages, one thread per 4 elements.

#define ELEMENTARY_LOG2SIZE 11

extern "C" __global__ void fwt_shared(float *d_out, const float *d_in, int log2N) {
  extern __shared__ float s_data[];
  const int N = 1 << log2N;
  const int base = blockIdx.x << log2N;
  const float *src = d_in + base;
  float *dst = d_out + base;

  for (int pos = threadIdx.x; pos < N; pos += blockDim.x) s_data[pos] = src[pos];

  int stride = N;
  if (log2N & 1) {
    __syncthreads();
    stride >>= 1;
    for (int pos = threadIdx.x; pos < N / 2; pos += blockDim.x) {
      int lo = pos & (stride - 1);
      int i0 = ((pos - lo) << 1) + lo;
      int i1 = i0 + stride;
      float a = s_data[i0];
      float b = s_data[i1];
      s_data[i0] = a + b;
      s_data[i1] = a - b;
    }
  }

  const int pos = threadIdx.x;
  for (stride >>= 2; stride > 0; stride >>= 2) {
    int lo = pos & (stride - 1);
    int i0 = ((pos - lo) << 2) + lo;
    int i1 = i0 + stride;
    int i2 = i1 + stride;
    int i3 = i2 + stride;
    __syncthreads();
    float d0 = s_data[i0];
    float d1 = s_data[i1];
    float d2 = s_data[i2];
    float d3 = s_data[i3];
    float t = d0;
    d0 = d0 + d2;
    d2 = t - d2;
    t = d1;
    d1 = d1 + d3;
    d3 = t - d3;
    t = d0;
    s_data[i0] = d0 + d1;
    s_data[i1] = t - d1;
    t = d2;
    s_data[i2] = d2 + d3;
    s_data[i3] = t - d3;
  }

  __syncthreads();
  for (int p = threadIdx.x; p < N; p += blockDim.x) dst[p] = s_data[p];
}

// One radix-4 stage with the given stride; blockIdx.y selects the batch of N = 4 * threads elements.
extern "C" __global__ void fwt_global_radix4(float *d_out, const float *d_in, int stride) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  const int N = blockDim.x * gridDim.x * 4;
  const float *src = d_in + blockIdx.y * N;
  float *dst = d_out + blockIdx.y * N;

  int lo = pos & (stride - 1);
  int i0 = ((pos - lo) << 2) + lo;
  int i1 = i0 + stride;
  int i2 = i1 + stride;
  int i3 = i2 + stride;

  float d0 = src[i0];
  float d1 = src[i1];
  float d2 = src[i2];
  float d3 = src[i3];
  float t = d0;
  d0 = d0 + d2;
  d2 = t - d2;
  t = d1;
  d1 = d1 + d3;
  d3 = t - d3;
  t = d0;
  dst[i0] = d0 + d1;
  dst[i1] = t - d1;
  t = d2;
  dst[i2] = d2 + d3;
  dst[i3] = t - d3;
}

// Pointwise product of the two spectra, scaled by 1/N (the inverse transform is the forward one / N).
extern "C" __global__ void fwt_modulate(float *d_a, const float *d_b, int N) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int nthreads = blockDim.x * gridDim.x;
  const float rcpN = 1.0f / (float)N;
  for (int pos = tid; pos < N; pos += nthreads) d_a[pos] *= d_b[pos] * rcpN;
}
