// The PTX .approx instructions and the fast-math intrinsics built on them, one output array each, so a replay
// on a GPU can say per instruction how ndpgpu's results differ from the GPU's (benchmarks/hardware/README.md).
extern "C" __global__ void approx_probe(const float *x, const float *p, int n, float *ex2, float *ex2_noftz,
                                        float *lg2, float *sin_, float *cos_, float *rsqrt_, float *rcp_,
                                        float *tanh_, float *expf_, float *logf_, float *divf_) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = p[i], r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a)); ex2[i] = r;
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(a)); ex2_noftz[i] = r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b)); lg2[i] = r;
    asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a)); sin_[i] = r;
    asm("cos.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a)); cos_[i] = r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b)); rsqrt_[i] = r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b)); rcp_[i] = r;
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(a)); tanh_[i] = r;
    expf_[i] = __expf(a);
    logf_[i] = __logf(b);
    divf_[i] = __fdividef(a, b);
}
