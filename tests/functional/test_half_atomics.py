"""16-bit floating point in atomics and shuffles, and the warp-level inline assembly libraries write: atomicAdd
on ``__half`` (``atom.add.noftz.f16``), ``__half2`` (``.f16x2``, each half added separately) and
``__nv_bfloat16`` (a CAS loop on sm_80, ``atom.add.noftz.bf16`` on sm_90), ``__bfloat162float``
(``mov.b32 %f, {0, %rs}``), ``__shfl_xor_sync`` on ``__half``/``__nv_bfloat16`` (cuda_fp16.h uses PTX's
``WARP_SZ``), a register pair written with registers declared without ``%`` (CUB's scan), ``cub::WarpScan``,
and the error for a ``.sync`` member mask naming threads on the other side of a divergent branch.

References: IEEE binary16 sums from NumPy (the exact sum in float64, rounded once to float16), bfloat16 as the
upper half of a float32, values chosen so every partial sum under contention is exact whatever the order,
and the CUDA programming guide's definitions of the shuffles and scans.
"""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import CompileError, nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

HALF_SRC = r"""
#include <cuda_fp16.h>
extern "C" __global__ void hadd(__half* p, const __half* v, __half* old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicAdd(&p[i], v[i]);
}
extern "C" __global__ void hadd_one(__half* p, const __half* v, __half* old) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  old[i] = atomicAdd(&p[0], v[i]);
}
extern "C" __global__ void h2add(__half2* p, const __half2* v, __half2* old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicAdd(&p[i], v[i]);
}
extern "C" __global__ void h2add_one(__half2* p, const __half2* v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&p[0], v[i]);
}
"""

HALF_EDGES = [0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 65504.0, -65504.0, 2.0**-24, -(2.0**-24), 2.0**-14, 1024.0,
              2048.0, 0.5, 3.0, float("inf"), float("-inf"), 6.1e-5, 1000.5, -0.75]


def _half_pairs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """All pairs of the edge values and random finite halves (normal and subnormal)."""
    rng = np.random.default_rng(seed)
    e = np.array(HALF_EDGES, np.float16)
    a = np.repeat(e, len(e))
    b = np.tile(e, len(e))
    bits = rng.integers(0, 0x7C00, (2, 100)).astype(np.uint16)  # finite magnitudes, subnormals included
    bits |= rng.integers(0, 2, (2, 100)).astype(np.uint16) << 15
    r = bits.view(np.float16)
    return np.concatenate([a, r[0]]), np.concatenate([b, r[1]])


def _half_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """binary16 a + b, round to nearest even: the float64 sum of two halves is exact, rounded once."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf + -inf is NaN; sums beyond 65504 round to inf
        return (a.astype(np.float64) + b.astype(np.float64)).astype(np.float16)


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint16 if x.dtype.itemsize == 2 else np.uint32)


@pytest.fixture(scope="module")
def half_sm75() -> ndpgpu.RawModule:
    return ndpgpu.RawModule(code=HALF_SRC, options=("-arch=sm_75",))


@needs_nvcc
def test_atomic_add_half_per_address(half_sm75):
    assert "atom.add.noftz.f16 " in half_sm75.ptx
    a, b = _half_pairs(16)
    n = len(a)
    p = ndpgpu.asarray(a)
    old = ndpgpu.zeros(n, np.float16)
    half_sm75.get_function("hadd")(((n + 127) // 128,), (128,), (p, ndpgpu.asarray(b), old, np.int32(n)))
    assert np.array_equal(_bits(old.get()), _bits(a))  # the value before the add
    want = _half_sum(a, b)
    got = p.get()
    nan = np.isnan(want)  # inf + -inf: a NaN (any NaN)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(_bits(got[~nan]), _bits(want[~nan]))
    assert _half_sum(np.float16([65504.0]), np.float16([8.0]))[0] == 65504.0  # rounds back down, worked cases
    assert _half_sum(np.float16([65504.0]), np.float16([16.0]))[0] == np.inf  # the tie 65520 rounds to even: inf
    assert _bits(_half_sum(np.float16([2.0**-24]), np.float16([2.0**-24])))[0] == 2  # subnormals are kept


@needs_nvcc
def test_atomic_add_half_under_contention(half_sm75):
    """96 threads (three warps) add 0.5 to one half: each partial sum k/2 (k < 96) is exact, so the old values
    are exactly {0, 0.5, ..., 47.5} in some order and the final value 48."""
    n = 96
    p = ndpgpu.zeros(1, np.float16)
    old = ndpgpu.zeros(n, np.float16)
    half_sm75.get_function("hadd_one")((1,), (n,), (p, ndpgpu.asarray(np.full(n, 0.5, np.float16)), old))
    assert p.get()[0] == np.float16(48.0)
    assert np.array_equal(np.sort(old.get().astype(np.float64)), np.arange(n) * 0.5)
    # multiples of 0.25 (1 to 4 quarters) with a small total: every order sums exactly
    v = ((np.arange(n) % 4 + 1) * 0.25).astype(np.float16)
    p = ndpgpu.asarray(np.float16([1.0]))
    half_sm75.get_function("hadd_one")((1,), (n,), (p, ndpgpu.asarray(v), old))
    assert p.get()[0] == np.float16(1.0 + 24 * 2.5)


@needs_nvcc
def test_atomic_add_half2_adds_each_half():
    module = ndpgpu.RawModule(code=HALF_SRC, options=("-arch=sm_80",))
    assert "atom.add.noftz.f16x2" in module.ptx
    a, b = _half_pairs(162)
    n = len(a) // 2
    a, b = a[: 2 * n], b[: 2 * n]
    p = ndpgpu.asarray(a)  # n __half2: element k is halves 2k (low) and 2k+1 (high)
    old = ndpgpu.zeros(2 * n, np.float16)
    module.get_function("h2add")(((n + 127) // 128,), (128,), (p, ndpgpu.asarray(b), old, np.int32(n)))
    assert np.array_equal(_bits(old.get()), _bits(a))
    want = _half_sum(a, b)
    got = p.get()
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(_bits(got[~nan]), _bits(want[~nan]))
    # contention: 64 threads add (0.25, -1.5) to one __half2; each half sums exactly
    v = np.tile(np.float16([0.25, -1.5]), 64)
    one = ndpgpu.asarray(np.float16([2.0, 100.0]))
    module.get_function("h2add_one")((1,), (64,), (one, ndpgpu.asarray(v)))
    assert np.array_equal(one.get(), np.float16([2.0 + 16.0, 100.0 - 96.0]))


BF16_SRC = r"""
#include <cuda_bf16.h>
extern "C" __global__ void widen(const __nv_bfloat16* v, float* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = __bfloat162float(v[i]);
}
#if __CUDA_ARCH__ >= 800
extern "C" __global__ void bfadd_one(__nv_bfloat16* p, const __nv_bfloat16* v, __nv_bfloat16* old) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  old[i] = atomicAdd(&p[0], v[i]);
}
#endif
"""


def _to_bf16(x) -> np.ndarray:
    """bfloat16 bits of values exactly representable in it (the upper half of their float32)."""
    f = np.asarray(x, np.float32)
    bits = f.view(np.uint32)
    assert np.all(bits & 0xFFFF == 0), "not exactly representable in bfloat16"
    return (bits >> 16).astype(np.uint16)


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_75", "sm_80"])
def test_bfloat16_to_float_is_the_upper_half(arch):
    module = ndpgpu.RawModule(code=BF16_SRC, options=(f"-arch={arch}",))
    assert "{0," in module.ptx.replace(" ", "")  # mov.b32 %f, {0, %rs}: the immediate half of a vector mov
    rng = np.random.default_rng(80)
    bits = np.concatenate([np.array([0, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC1, 0x0001, 0x807F, 0x4049,
                                     0x7F7F, 0xFFFF], np.uint16),
                           rng.integers(0, 1 << 16, 200).astype(np.uint16)])
    n = len(bits)
    out = ndpgpu.zeros(n, np.float32)
    module.get_function("widen")(((n + 127) // 128,), (128,), (ndpgpu.asarray(bits), out, np.int32(n)))
    assert np.array_equal(out.get().view(np.uint32), bits.astype(np.uint32) << 16)  # NaN payloads included
    assert out.get()[2] == 1.0 and out.get()[9] == np.float32(3.140625)


@needs_nvcc
@pytest.mark.parametrize("arch, instruction", [("sm_80", "atom.global.cas.b16"), ("sm_90", "atom.add.noftz.bf16")])
def test_atomic_add_bfloat16_under_contention(arch, instruction):
    """bf16 has 8 significant bits: integers up to 256 are exact, so 64 adds of 1.0 leave old values exactly
    {0, ..., 63}; adds of lane % 8 (total 224) and of multiples of 0.5 up to 128 are exact in any order."""
    module = ndpgpu.RawModule(code=BF16_SRC, options=(f"-arch={arch}",))
    assert instruction in module.ptx
    fn = module.get_function("bfadd_one")
    n = 64
    p = ndpgpu.zeros(1, np.uint16)
    old = ndpgpu.zeros(n, np.uint16)
    fn((1,), (n,), (p, ndpgpu.asarray(_to_bf16(np.ones(n))), old))
    assert p.get()[0] == _to_bf16([64.0])[0]
    olds = (old.get().astype(np.uint32) << 16).view(np.float32)
    assert np.array_equal(np.sort(olds), np.arange(n, dtype=np.float32))
    for values, total in ((np.arange(n) % 8, 224.0), ((np.arange(n) % 4) * 0.5 + 0.5, 80.0)):
        p = ndpgpu.asarray(_to_bf16([0.0]))
        fn((1,), (n,), (p, ndpgpu.asarray(_to_bf16(values)), old))
        assert p.get()[0] == _to_bf16([total])[0], (values, total)


SHFL16_SRC = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void shx(const __half* v, __half* o, const __nv_bfloat16* w, __nv_bfloat16* q) {
  int i = threadIdx.x;
  o[i] = __shfl_xor_sync(0xffffffff, v[i], 5);
  q[i] = __shfl_xor_sync(0xffffffff, w[i], 17);
}
"""


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_75", "sm_80"])
def test_shfl_xor_of_half_and_bfloat16(arch):
    """cuda_fp16.hpp/cuda_bf16.hpp's shuffles read ``WARP_SZ``: lane l gets lane l ^ laneMask's value."""
    module = ndpgpu.RawModule(code=SHFL16_SRC, options=(f"-arch={arch}",))
    assert "WARP_SZ" in module.ptx
    rng = np.random.default_rng(17)
    v = rng.integers(0, 1 << 16, 64).astype(np.uint16)  # raw 16-bit patterns: the shuffle moves bits
    w = rng.integers(0, 1 << 16, 64).astype(np.uint16)
    o = ndpgpu.zeros(64, np.uint16)
    q = ndpgpu.zeros(64, np.uint16)
    module.get_function("shx")((1,), (64,), (ndpgpu.asarray(v), o, ndpgpu.asarray(w), q))
    lanes = np.arange(64)
    warp = lanes - lanes % 32
    assert np.array_equal(o.get(), v[warp + (lanes % 32 ^ 5)])
    assert np.array_equal(q.get(), w[warp + (lanes % 32 ^ 17)])


PAIR_SRC = r"""
extern "C" __global__ void scan_step(const int* x, int* out) {
  int v = x[threadIdx.x], r;
  asm volatile("{ .reg .s32 r0; .reg .pred p; shfl.sync.up.b32 r0|p, %1, 1, 0, -1; @p add.s32 r0, r0, %1; "
               "mov.s32 %0, r0; }" : "=r"(r) : "r"(v));
  out[threadIdx.x] = r;
}
"""


@needs_nvcc
def test_register_pair_of_registers_declared_without_percent():
    """``shfl.sync.up`` with c = 0: lane l > 0 reads lane l - 1 and its predicate is true; lane 0 reads
    itself with a false predicate. So lane 0 keeps x[0] and lane l gets x[l - 1] + x[l]."""
    fn = ndpgpu.RawModule(code=PAIR_SRC).get_function("scan_step")
    x = np.arange(1, 65, dtype=np.int32) * 3 - 50  # negative and positive
    out = ndpgpu.zeros(64, np.int32)
    fn((1,), (64,), (ndpgpu.asarray(x), out))
    want = x.copy()
    for lane in range(64):
        if lane % 32:
            want[lane] = x[lane - 1] + x[lane]
    assert np.array_equal(out.get(), want)
    x1 = np.arange(1, 33, dtype=np.int32)  # the brief's case: x = lane + 1 gives 1, 3, 5, ...
    out = ndpgpu.zeros(32, np.int32)
    fn((1,), (32,), (ndpgpu.asarray(x1), out))
    assert np.array_equal(out.get(), np.concatenate([[1], 2 * np.arange(2, 33) - 1]))


CUB_SRC = r"""
#include <cub/cub.cuh>
extern "C" __global__ void warp_scan(const int* x, int* out) {
  typedef cub::WarpScan<int> WarpScan;
  __shared__ typename WarpScan::TempStorage temp[4];
  int r;
  WarpScan(temp[threadIdx.x / 32]).InclusiveSum(x[threadIdx.x], r);
  out[threadIdx.x] = r;
}
"""


@needs_nvcc
def test_cub_warp_scan_inclusive_sum():
    try:
        module = ndpgpu.RawModule(code=CUB_SRC)
    except CompileError as exc:
        if "cub/cub.cuh" in str(exc):
            pytest.skip("nvcc cannot find <cub/cub.cuh> (CCCL headers not installed)")
        raise
    rng = np.random.default_rng(32)
    x = rng.integers(-1000, 1000, 128).astype(np.int32)
    out = ndpgpu.zeros(128, np.int32)
    module.get_function("warp_scan")((1,), (128,), (ndpgpu.asarray(x), out))
    assert np.array_equal(out.get(), np.cumsum(x.reshape(4, 32), axis=1).reshape(-1))


DIVERGENT_SHFL_SRC = r"""
extern "C" __global__ void swap_halves(const int* x, int* out) {
  int l = threadIdx.x, v = x[l], r;
  if (l < 16) r = __shfl_sync(0xffffffff, v, l + 16);
  else r = __shfl_sync(0xffffffff, v, l - 16);
  out[l] = r;
}
extern "C" __global__ void active_only(const int* x, int* out) {
  int l = threadIdx.x, v = x[l], r;
  if (l < 16) r = __shfl_sync(__activemask(), v, (l + 1) % 16);
  else r = -v;
  r = __shfl_sync(0xffffffff, r, 31 - l);  // after the branch: converged again
  out[l] = r;
}
"""


@needs_nvcc
def test_member_mask_naming_threads_across_a_divergent_branch_is_refused():
    """On sm_70+ independent thread scheduling runs both sides to the full-mask shuffle, which the SIMT-stack
    model cannot: the launch raises instead of returning wrong values."""
    module = ndpgpu.RawModule(code=DIVERGENT_SHFL_SRC)
    x = np.arange(32, dtype=np.int32) * 7 + 1
    out = ndpgpu.zeros(32, np.int32)
    with pytest.raises(ndpgpu.IndependentThreadSchedulingRequired, match="member mask"):
        module.get_function("swap_halves")((1,), (32,), (ndpgpu.asarray(x), out))
    # naming only the active threads inside the branch, and the full mask after it, both run
    out = ndpgpu.zeros(32, np.int32)
    module.get_function("active_only")((1,), (32,), (ndpgpu.asarray(x), out))
    inner = np.array([x[(lane + 1) % 16] if lane < 16 else -x[lane] for lane in range(32)])
    assert np.array_equal(out.get(), inner[31 - np.arange(32)])
