// A per-thread array indexed by data-dependent values, so it lives in local memory.
#define LEN 16

extern "C" __global__ void local_array(const unsigned int *seeds, unsigned int *out, int rounds, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int buf[LEN];
  unsigned int v = seeds[i];
  for (int k = 0; k < LEN; ++k) buf[k] = v * (unsigned int)(k + 1) ^ ((unsigned int)k << 3);
  unsigned int acc = 0, state = v;
  for (int r = 0; r < rounds; ++r) {
    state = state * 1103515245u + 12345u;
    unsigned int j = (state >> 16) & (LEN - 1);
    acc += buf[j];
    buf[(j + 5) & (LEN - 1)] ^= acc;
  }
  out[i] = acc ^ buf[v & (LEN - 1)];
}
