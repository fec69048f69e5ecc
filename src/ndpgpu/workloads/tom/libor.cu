// LIBOR market model Monte Carlo (after Giles' algorithm, as in the GPGPU-Sim suite's LIB benchmark).
// One thread per path (grid-stride over paths). Every path keeps its forward rates L[NN], the stored
// forward sweep L2[NN * (NMAT + 1)] and its normals z[NN] in per-thread arrays indexed in loops, so nvcc
// places them in local memory; the adjoint L_b shares L's storage, as in the original.
//   libor_forward : path simulation + swaption portfolio value
//   libor_adjoint : path simulation storing every step, portfolio value and its adjoint (portfolio_b,
//                   whose last two loops are TOM's Fig. 4), then the reverse path sweep.

#define NN 80
#define NMAT 40
#define L2_SIZE 3280  // NN * (NMAT + 1)
#define NOPT 15

__constant__ float c_delta = 0.25f;
__constant__ float c_lambda[NN];  // volatilities, set by the host
__constant__ int c_maturities[NOPT] = {4, 4, 4, 8, 8, 8, 20, 20, 20, 28, 28, 28, 40, 40, 40};
__constant__ float c_swaprates[NOPT] = {0.045f, 0.05f, 0.055f, 0.045f, 0.05f, 0.055f, 0.045f, 0.05f,
                                        0.055f, 0.045f, 0.05f, 0.055f, 0.045f, 0.05f, 0.055f};

// Forward sweep: evolve the rates through NMAT time steps.
__device__ void evolve_rates(float *L, const float *z) {
  const float delta = c_delta;
  for (int step = 0; step < NMAT; step++) {
    float shock = sqrtf(delta) * z[step];
    float drift = 0.0f;
    for (int k = step + 1; k < NN; k++) {
      float lam = c_lambda[k - step - 1];
      float dl = delta * lam;
      drift += __fdividef(dl * L[k], 1.0f + delta * L[k]);
      float growth = __expf(dl * drift + lam * (shock - 0.5f * dl));
      L[k] = L[k] * growth;
    }
  }
}

// Forward sweep keeping the rates of every step in L2 (row s holds the rates after s steps).
__device__ void evolve_rates_store(float *L, const float *z, float *L2) {
  const float delta = c_delta;
  for (int k = 0; k < NN; k++) L2[k] = L[k];
  for (int step = 0; step < NMAT; step++) {
    float shock = sqrtf(delta) * z[step];
    float drift = 0.0f;
    for (int k = step + 1; k < NN; k++) {
      float lam = c_lambda[k - step - 1];
      float dl = delta * lam;
      drift += __fdividef(dl * L[k], 1.0f + delta * L[k]);
      float growth = __expf(dl * drift + lam * (shock - 0.5f * dl));
      L[k] = L[k] * growth;
      L2[k + (step + 1) * NN] = L[k];
    }
  }
}

// Reverse sweep: propagate the rate sensitivities L_b back through the stored steps.
__device__ void evolve_rates_reverse(float *L_b, const float *L2) {
  const float delta = c_delta;
  for (int step = NMAT - 1; step >= 0; step--) {
    float acc = 0.0f;
    for (int k = NN - 1; k > step; k--) {
      float lam = c_lambda[k - step - 1];
      acc += lam * L2[k + (step + 1) * NN] * L_b[k];
      float f = __fdividef(delta, 1.0f + delta * L2[k + step * NN]);
      L_b[k] = L_b[k] * __fdividef(L2[k + (step + 1) * NN], L2[k + step * NN]) + acc * lam * f * f;
    }
  }
}

// Value of a portfolio of receiver swaptions on the evolved rates.
__device__ float portfolio(const float *L) {
  const float delta = c_delta;
  float B[NMAT], S[NMAT];
  float bond = 1.0f, annuity = 0.0f;
  for (int m = 0; m < NN - NMAT; m++) {
    bond = __fdividef(bond, 1.0f + delta * L[m + NMAT]);
    annuity = annuity + delta * bond;
    B[m] = bond;
    S[m] = annuity;
  }
  float v = 0.0f;
  for (int o = 0; o < NOPT; o++) {
    int m = c_maturities[o] - 1;
    float swapval = B[m] + c_swaprates[o] * S[m] - 1.0f;
    if (swapval < 0.0f) v += -100.0f * swapval;
  }
  float discount = 1.0f;
  for (int n = 0; n < NMAT; n++) discount = discount / (1.0f + delta * L[n]);
  return discount * v;
}

// Portfolio value and its adjoint with respect to the rates; L_b may alias L.
__device__ float portfolio_b(float *L, float *L_b) {
  const float delta = c_delta;
  float B[NMAT], S[NMAT], B_b[NMAT], S_b[NMAT];
  float b = 1.0f, s = 0.0f;
  for (int m = 0; m < NN - NMAT; m++) {
    b = __fdividef(b, 1.0f + delta * L[m + NMAT]);
    s = s + delta * b;
    B[m] = b;
    S[m] = s;
  }
  float v = 0.0f;
  for (int m = 0; m < NN - NMAT; m++) {
    B_b[m] = 0.0f;
    S_b[m] = 0.0f;
  }
  for (int o = 0; o < NOPT; o++) {
    int m = c_maturities[o] - 1;
    float swapval = B[m] + c_swaprates[o] * S[m] - 1.0f;
    if (swapval < 0.0f) {
      v += -100.0f * swapval;
      S_b[m] += -100.0f * c_swaprates[o];
      B_b[m] += -100.0f;
    }
  }
  for (int m = NN - NMAT - 1; m >= 0; m--) {
    int n = m + NMAT;
    B_b[m] += delta * S_b[m];
    L_b[n] = -B_b[m] * B[m] * __fdividef(delta, 1.0f + delta * L[n]);
    if (m > 0) {
      S_b[m - 1] += S_b[m];
      B_b[m - 1] += __fdividef(B_b[m], 1.0f + delta * L[n]);
    }
  }
  // discount to time zero
  b = 1.0f;
  for (int n = 0; n < NMAT; n++) b = b / (1.0f + delta * L[n]);
  v = b * v;
  // TOM Fig. 4: the two loops are conditional offload candidates (one load and one store per trip)
#pragma unroll 1
  for (int n = 0; n < NMAT; n++) L_b[n] = -v * delta / (1.0f + delta * L[n]);
#pragma unroll 1
  for (int n = NMAT; n < NN; n++) L_b[n] = b * L_b[n];
  return v;
}

// z holds NN normals per path, laid out z[k * npath + path]; L0 is the initial forward rate.
extern "C" __global__ void libor_forward(const float *d_z, float *d_v, float L0, int npath) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int nthreads = blockDim.x * gridDim.x;
  float L[NN], z[NN];
  for (int path = tid; path < npath; path += nthreads) {
    for (int k = 0; k < NN; k++) {
      z[k] = d_z[k * npath + path];
      L[k] = L0;
    }
    evolve_rates(L, z);
    d_v[path] = portfolio(L);
  }
}

extern "C" __global__ void libor_adjoint(const float *d_z, float *d_v, float *d_Lb, float L0, int npath) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int nthreads = blockDim.x * gridDim.x;
  float L[NN], L2[L2_SIZE], z[NN];
  float *L_b = L;
  for (int path = tid; path < npath; path += nthreads) {
    for (int k = 0; k < NN; k++) {
      z[k] = d_z[k * npath + path];
      L[k] = L0;
    }
    evolve_rates_store(L, z, L2);
    d_v[path] = portfolio_b(L, L_b);
    evolve_rates_reverse(L_b, L2);
    d_Lb[path] = L_b[NN - 1];
  }
}
