"""sm_80's asynchronous copies and barriers: ``cp.async`` (through ``__pipeline_memcpy_async`` with its
zero-fill, ``cooperative_groups::memcpy_async``, and inline PTX with a register ``src-size`` and an
``ignore-src`` predicate), ``mbarrier`` objects (``cuda::barrier`` over several phases, and the ``.parity``
wait in inline PTX), and cooperative groups' grid-wide sync.

References: the PTX ISA's definitions (cp.async copies ``src-size`` bytes and fills the rest of ``cp-size``
with zeros; ``ignore-src`` writes zeros; an mbarrier's phase completes when its pending count reaches zero)
and the values the kernels compute, worked out in NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

SM80 = ("-arch=sm_80",)

PIPELINE_SRC = r"""
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;
extern "C" __global__ void zfill(const float4* g, float4* out, int zf) {
  __shared__ float4 s[64];
  s[threadIdx.x] = make_float4(-1.f, -1.f, -1.f, -1.f);
  __syncthreads();
  __pipeline_memcpy_async(&s[threadIdx.x], &g[threadIdx.x], sizeof(float4), zf);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x];
}
extern "C" __global__ void block_copy(const float* g, float* out) {
  __shared__ float s[256];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, s, g, sizeof(float) * 256);
  cg::wait(block);
  out[threadIdx.x] = s[255 - threadIdx.x];
}
extern "C" __global__ void register_size(const int* g, int* out, int nbytes) {
  __shared__ int4 s[32];
  s[threadIdx.x] = make_int4(-1, -1, -1, -1);
  __syncthreads();
  unsigned dst = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(g + 4 * threadIdx.x), "r"(nbytes));
  asm volatile("cp.async.wait_all;");
  __syncthreads();
  int4 v = s[threadIdx.x];
  out[4 * threadIdx.x] = v.x; out[4 * threadIdx.x + 1] = v.y; out[4 * threadIdx.x + 2] = v.z;
  out[4 * threadIdx.x + 3] = v.w;
}
extern "C" __global__ void ignore_src(const int* g, int* out) {
  __shared__ int s[32];
  s[threadIdx.x] = -1;
  __syncthreads();
  unsigned dst = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0; cp.async.ca.shared.global [%0], [%1], 4, p; }"
               :: "r"(dst), "l"(g + threadIdx.x), "r"((int)(threadIdx.x & 1)));
  asm volatile("cp.async.commit_group; cp.async.wait_group 0;");
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""


@pytest.fixture(scope="module")
def pipeline() -> ndpgpu.RawModule:
    return ndpgpu.RawModule(code=PIPELINE_SRC, options=SM80)


@needs_nvcc
@pytest.mark.parametrize("zfill", [0, 3, 5, 12, 16])
def test_pipeline_copy_fills_the_last_bytes_with_zeros(pipeline, zfill):
    src = np.arange(64 * 4, dtype=np.float32).reshape(64, 4) + 1
    out = ndpgpu.zeros(64 * 4, np.float32)
    pipeline.get_function("zfill")((1,), (64,), (ndpgpu.asarray(src.reshape(-1)), out, np.int32(zfill)))
    want = src.copy()
    want.view(np.uint8).reshape(64, 16)[:, 16 - zfill:] = 0  # the copy takes 16 - zfill bytes
    np.testing.assert_array_equal(out.get().reshape(64, 4), want[::-1])


@needs_nvcc
def test_cooperative_groups_block_copy(pipeline):
    src = np.random.default_rng(3).standard_normal(256).astype(np.float32)
    out = ndpgpu.zeros(256, np.float32)
    pipeline.get_function("block_copy")((1,), (256,), (ndpgpu.asarray(src), out))
    np.testing.assert_array_equal(out.get(), src[::-1])


@needs_nvcc
@pytest.mark.parametrize("nbytes", [16, 12, 8, 4, 0])
def test_register_src_size_copies_whole_words_and_zeros_the_rest(pipeline, nbytes):
    src = np.arange(128, dtype=np.int32) + 1
    out = ndpgpu.zeros(128, np.int32)
    pipeline.get_function("register_size")((1,), (32,), (ndpgpu.asarray(src), out, np.int32(nbytes)))
    want = src.reshape(32, 4).copy()
    want[:, nbytes // 4:] = 0
    np.testing.assert_array_equal(out.get(), want.reshape(-1))


@needs_nvcc
def test_a_register_src_size_inside_a_word_is_refused(pipeline):
    src, out = ndpgpu.asarray(np.arange(128, dtype=np.int32)), ndpgpu.zeros(128, np.int32)
    with pytest.raises(ndpgpu.KernelTrap, match="src-size that is not a multiple of 4"):
        pipeline.get_function("register_size")((1,), (32,), (src, out, np.int32(6)))


@needs_nvcc
def test_ignore_src_writes_zeros(pipeline):
    src = np.arange(32, dtype=np.int32) + 100
    out = ndpgpu.zeros(32, np.int32)
    pipeline.get_function("ignore_src")((1,), (32,), (ndpgpu.asarray(src), out))
    want = src.copy()
    want[1::2] = 0  # odd threads set ignore-src
    np.testing.assert_array_equal(out.get(), want)


BARRIER_SRC = r"""
#include <cuda/barrier>
extern "C" __global__ void rounds(int* out, int nrounds) {
  __shared__ int s[128];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  int acc = 0;
  for (int r = 0; r < nrounds; r++) {
    s[threadIdx.x] = threadIdx.x * (r + 1);
    bar.arrive_and_wait();
    acc += s[(threadIdx.x + 1) % blockDim.x];
    bar.arrive_and_wait();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void parity(int* out) {
  __shared__ unsigned long long bar;
  __shared__ int s[64];
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x));
  __syncthreads();
  s[threadIdx.x] = 7 * threadIdx.x;
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(b));
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(b));
  unsigned count;
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(count) : "l"(state));
  out[threadIdx.x] = s[63 - threadIdx.x];
  out[64 + threadIdx.x] = (int)count;
}
"""


@needs_nvcc
def test_cuda_barrier_over_several_phases():
    fn = ndpgpu.RawModule(code=BARRIER_SRC, options=SM80).get_function("rounds")
    out = ndpgpu.zeros(3 * 128, np.int32)
    fn((3,), (128,), (out, np.int32(5)))
    t = np.arange(128)
    want = sum(((t + 1) % 128) * (r + 1) for r in range(5))
    np.testing.assert_array_equal(out.get(), np.tile(want, 3))


@needs_nvcc
def test_mbarrier_parity_wait_and_pending_count():
    fn = ndpgpu.RawModule(code=BARRIER_SRC, options=SM80).get_function("parity")
    out = ndpgpu.zeros(128, np.int32)
    fn((1,), (64,), (out,))
    got = out.get()
    np.testing.assert_array_equal(got[:64], 7 * (63 - np.arange(64)))
    # the state a thread's arrival returned holds the count pending before it: 64, 63, ... in arrival order
    assert sorted(got[64:].tolist()) == list(range(1, 65))


GRID_SRC = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void grid_sum(const float* x, float* partial, float* out, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float s[128];
  float acc = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) acc += x[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int st = 64; st > 0; st >>= 1) {
    if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float t = 0;
    for (int b = 0; b < gridDim.x; b++) t += partial[b];
    out[0] = t;
  }
  grid.sync();
  if (threadIdx.x == 0) out[1 + blockIdx.x] = out[0];
}
"""


@needs_nvcc
@pytest.mark.parametrize("blocks", [3, 40])
def test_grid_sync_orders_the_whole_grid(blocks):
    fn = ndpgpu.RawModule(code=GRID_SRC).get_function("grid_sum")
    x = np.arange(5000, dtype=np.float32) % 7  # small integers: every partial sum is exact in float32
    partial, out = ndpgpu.zeros(blocks, np.float32), ndpgpu.zeros(blocks + 1, np.float32)
    for _ in range(2):  # the second launch finds the sync counter zeroed again
        fn((blocks,), (128,), (ndpgpu.asarray(x), partial, out, np.int32(x.size)))
        np.testing.assert_array_equal(out.get(), np.full(blocks + 1, x.sum(), np.float32))


@needs_nvcc
def test_a_grid_sync_larger_than_the_device_holds_is_refused():
    fn = ndpgpu.RawModule(code=GRID_SRC).get_function("grid_sum")  # sm_75: 1024 threads per SM, 80 SMs
    args = (ndpgpu.zeros(8, np.float32), ndpgpu.zeros(700, np.float32), ndpgpu.zeros(701, np.float32), np.int32(8))
    with pytest.raises(ndpgpu.LaunchConfigError, match="cooperative launch too large"):
        fn((700,), (128,), args)  # 8 blocks of 128 threads per SM: 640 at most
    fn((640,), (128,), args)


BARRIER_COPY_SRC = r"""
#include <cuda/barrier>
extern "C" __global__ void with_barrier(const float4* in, float* out) {
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ float4 s[64];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float4), bar);  // cp.async.mbarrier.arrive
  bar.arrive_and_wait();
  const float* f = reinterpret_cast<const float*>(s);
  out[threadIdx.x] = f[4 * (63 - threadIdx.x)] + f[4 * threadIdx.x + 3];
}
extern "C" __global__ void noinc(const int* in, int* out) {
  __shared__ unsigned long long bar;
  __shared__ int s[32];
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(b), "r"(2 * blockDim.x));
  __syncthreads();
  unsigned dst = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst), "l"(in + threadIdx.x));
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(b));  // one arrival per thread
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(b));  // and a second one
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(b), "l"(state));
  out[threadIdx.x] = s[31 - threadIdx.x];
}
"""


@needs_nvcc
def test_memcpy_async_completing_on_a_barrier():
    module = ndpgpu.RawModule(code=BARRIER_COPY_SRC, options=SM80)
    x = np.arange(256, dtype=np.float32)
    out = ndpgpu.zeros(64, np.float32)
    module.get_function("with_barrier")((1,), (64,), (ndpgpu.asarray(x), out))
    i = np.arange(64)
    np.testing.assert_array_equal(out.get(), x[4 * (63 - i)] + x[4 * i + 3])
    y = np.arange(32, dtype=np.int32) * 7
    out2 = ndpgpu.zeros(32, np.int32)
    module.get_function("noinc")((1,), (32,), (ndpgpu.asarray(y), out2))
    np.testing.assert_array_equal(out2.get(), y[::-1])
