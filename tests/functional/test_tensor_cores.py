"""Tensor-core instructions: ``wmma`` (nvcuda::wmma fragments, m16n16k16, f16 and bf16 inputs, f32 and f16
accumulators, row- and column-major loads and stores from global and shared memory), ``mma.sync``
m16n8k16 / m16n8k8 with the PTX ISA's fragment layouts, and ``ldmatrix`` (x1, x2, x4, ``.trans``).

References: NumPy matrix products in float64 of the exactly representable inputs, rounded once to the
accumulator type (small integers and their products are exact in every type involved, so the order of the
hardware's sums does not matter for them), and the PTX ISA's fragment layouts (groupID = lane / 4,
threadID_in_group = lane % 4) written out here element by element.
"""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

RNG = np.random.default_rng(7)

WMMA_SRC = r"""
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;
// D (column-major) = 2 * (A (row-major) x B (column-major) + C (row-major)), f32 accumulators
extern "C" __global__ void f32acc(const half* a, const half* b, const float* c, float* d, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, ld);
  wmma::load_matrix_sync(fb, b, ld);
  wmma::load_matrix_sync(fc, c, ld, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.0f;
  wmma::store_matrix_sync(d, fc, ld, wmma::mem_col_major);
}
// A column-major through shared memory, B row-major, f16 accumulators from zero, D row-major
extern "C" __global__ void f16acc(const half* a, const half* b, half* d) {
  __shared__ half sa[256];
  for (int i = threadIdx.x; i < 256; i += 32) sa[i] = a[i];
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, sa, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
// a tiled GEMM: each warp computes one 16x16 tile of C = A (MxK, row-major) x B (KxN, row-major)
extern "C" __global__ void gemm(const half* a, const half* b, float* c, int m, int n, int k) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tiles_n = n / 16;
  int tm = warp / tiles_n, tn = warp % tiles_n;
  if (tm * 16 >= m) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + tm * 16 * k + kk, k);
    wmma::load_matrix_sync(fb, b + kk * n + tn * 16, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + tm * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}
#if __CUDA_ARCH__ >= 800
extern "C" __global__ void bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 1.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
#endif
"""


def _bf16(x: np.ndarray) -> np.ndarray:
    """bfloat16 bits of values bfloat16 holds exactly (small integers)."""
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _small(shape, lo=-4, hi=5) -> np.ndarray:
    return RNG.integers(lo, hi, shape).astype(np.float64)


@pytest.fixture(scope="module")
def wmma75() -> ndpgpu.RawModule:
    return ndpgpu.RawModule(code=WMMA_SRC, options=("-arch=sm_75",))


@needs_nvcc
def test_wmma_f32_accumulators_with_every_layout(wmma75):
    a, b, c = _small((16, 16)), _small((16, 16)), _small((16, 16), -8, 9)
    d = ndpgpu.zeros(256, np.float32)
    wmma75.get_function("f32acc")((1,), (32,), (
        ndpgpu.asarray(a.astype(np.float16).reshape(-1)), ndpgpu.asarray(b.T.astype(np.float16).reshape(-1)),
        ndpgpu.asarray(c.astype(np.float32).reshape(-1)), d, np.int32(16)))
    np.testing.assert_array_equal(d.get().reshape(16, 16).T, (2 * (a @ b + c)).astype(np.float32))


@needs_nvcc
def test_wmma_f16_accumulators_through_shared_memory(wmma75):
    a, b = _small((16, 16), -3, 4), _small((16, 16), -3, 4)
    d = ndpgpu.zeros(256, np.float16)
    wmma75.get_function("f16acc")((1,), (32,), (
        ndpgpu.asarray(a.T.astype(np.float16).reshape(-1)), ndpgpu.asarray(b.astype(np.float16).reshape(-1)), d))
    np.testing.assert_array_equal(d.get().reshape(16, 16), (a @ b).astype(np.float16))


@needs_nvcc
def test_wmma_tiled_gemm_over_several_warps(wmma75):
    m, n, k = 48, 32, 64
    a, b = _small((m, k), -2, 3), _small((k, n), -2, 3)
    c = ndpgpu.zeros(m * n, np.float32)
    warps = (m // 16) * (n // 16)
    wmma75.get_function("gemm")((warps // 2,), (64,), (
        ndpgpu.asarray(a.astype(np.float16).reshape(-1)), ndpgpu.asarray(b.astype(np.float16).reshape(-1)),
        c, np.int32(m), np.int32(n), np.int32(k)))
    np.testing.assert_array_equal(c.get().reshape(m, n), (a @ b).astype(np.float32))


@needs_nvcc
def test_wmma_bf16_inputs():
    fn = ndpgpu.RawModule(code=WMMA_SRC, options=("-arch=sm_80",)).get_function("bf16")
    a, b = _small((16, 16)), _small((16, 16))
    d = ndpgpu.zeros(256, np.float32)
    fn((1,), (32,), (ndpgpu.asarray(_bf16(a).reshape(-1)), ndpgpu.asarray(_bf16(b).reshape(-1)), d))
    np.testing.assert_array_equal(d.get().reshape(16, 16), (a @ b + 1).astype(np.float32))


# ---- mma.sync and ldmatrix: the PTX ISA's register layouts -------------------------------------------------
MMA_SRC = r"""
extern "C" __global__ void m16n8k16(const unsigned* A, const unsigned* B, const float* C, float* D) {
  int l = threadIdx.x;
  unsigned a0 = A[l * 4], a1 = A[l * 4 + 1], a2 = A[l * 4 + 2], a3 = A[l * 4 + 3], b0 = B[l * 2], b1 = B[l * 2 + 1];
  float c0 = C[l * 4], c1 = C[l * 4 + 1], c2 = C[l * 4 + 2], c3 = C[l * 4 + 3], d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%10,%11,%12,%13};" : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  D[l * 4] = d0; D[l * 4 + 1] = d1; D[l * 4 + 2] = d2; D[l * 4 + 3] = d3;
}
extern "C" __global__ void m16n8k8_f16(const unsigned* A, const unsigned* B, const unsigned* C, unsigned* D) {
  int l = threadIdx.x;
  unsigned a0 = A[l * 2], a1 = A[l * 2 + 1], b0 = B[l], c0 = C[l * 2], c1 = C[l * 2 + 1], d0, d1;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
               : "=r"(d0), "=r"(d1) : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1));
  D[l * 2] = d0; D[l * 2 + 1] = d1;
}
extern "C" __global__ void m16n8k16_bf16(const unsigned* A, const unsigned* B, const float* C, float* D) {
  int l = threadIdx.x;
  unsigned a0 = A[l * 4], a1 = A[l * 4 + 1], a2 = A[l * 4 + 2], a3 = A[l * 4 + 3], b0 = B[l * 2], b1 = B[l * 2 + 1];
  float c0 = C[l * 4], c1 = C[l * 4 + 1], c2 = C[l * 4 + 2], c3 = C[l * 4 + 3], d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%10,%11,%12,%13};" : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  D[l * 4] = d0; D[l * 4 + 1] = d1; D[l * 4 + 2] = d2; D[l * 4 + 3] = d3;
}
template <int N, bool T>
__device__ void ldm(unsigned addr, unsigned* r);
template <> __device__ void ldm<1, false>(unsigned addr, unsigned* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr)); }
template <> __device__ void ldm<2, false>(unsigned addr, unsigned* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr)); }
template <> __device__ void ldm<4, false>(unsigned addr, unsigned* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr)); }
template <> __device__ void ldm<4, true>(unsigned addr, unsigned* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr)); }
template <int N, bool T>
__global__ void ldmatrix_k(const unsigned short* g, unsigned* out) {
  __shared__ unsigned short s[4 * 64 + 64];
  for (int i = threadIdx.x; i < 4 * 64 + 64; i += 32) s[i] = g[i];
  __syncwarp();
  // row r of matrix i lives at element 72 * i + 9 * r (rows 18 bytes apart would misalign: use 16-byte rows
  // at a shuffled order instead): thread t names row t % 8 of matrix t / 8 at element 8 * perm(t)
  int t = threadIdx.x;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&s[8 * ((t * 5) % 32)]);
  unsigned r[4] = {0, 0, 0, 0};
  ldm<N, T>(addr, r);
  for (int i = 0; i < 4; i++) out[t * 4 + i] = r[i];
}
template __global__ void ldmatrix_k<1, false>(const unsigned short*, unsigned*);
template __global__ void ldmatrix_k<2, false>(const unsigned short*, unsigned*);
template __global__ void ldmatrix_k<4, false>(const unsigned short*, unsigned*);
template __global__ void ldmatrix_k<4, true>(const unsigned short*, unsigned*);
"""


@pytest.fixture(scope="module")
def mma80() -> ndpgpu.RawModule:
    names = tuple(f"ldmatrix_k<{n}, {t}>" for n, t in ((1, "false"), (2, "false"), (4, "false"), (4, "true")))
    return ndpgpu.RawModule(code=MMA_SRC, options=("-arch=sm_80",), name_expressions=names)


def _bits(x: float, kind: str) -> int:
    if kind == "f16":
        return int(np.array([x], np.float16).view(np.uint16)[0])
    return int(np.array([x], np.float32).view(np.uint32)[0]) >> 16  # bf16 of an exactly representable value


def _pack(x: float, y: float, kind: str = "f16") -> int:
    return _bits(x, kind) | (_bits(y, kind) << 16)


def _fragments(a: np.ndarray, b: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """A (16 x k) and B (k x 8) in the PTX ISA's m16n8k16 / m16n8k8 register layouts."""
    k = a.shape[1]
    af = np.zeros((32, k // 4), np.uint32)
    bf = np.zeros((32, k // 8), np.uint32)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(k // 4):  # rows g, g + 8; columns 2t, 2t + 1 (+ 8)
            r, c = g + 8 * (i & 1), 2 * t + 8 * (i >> 1)
            af[lane, i] = _pack(a[r, c], a[r, c + 1], kind)
        for j in range(k // 8):  # rows 2t, 2t + 1 (+ 8); column g
            bf[lane, j] = _pack(b[2 * t + 8 * j, g], b[2 * t + 8 * j + 1, g], kind)
    return af, bf


def _accumulator(m: np.ndarray) -> list[list[float]]:
    """A 16 x 8 accumulator in c0..c3 order per lane: (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1)."""
    return [[m[(lane >> 2) + 8 * (i >> 1), 2 * (lane & 3) + (i & 1)] for i in range(4)] for lane in range(32)]


@needs_nvcc
@pytest.mark.parametrize(("kernel", "kind"), [("m16n8k16", "f16"), ("m16n8k16_bf16", "bf16")])
def test_mma_m16n8k16_with_f32_accumulators(mma80, kernel, kind):
    a, b, c = _small((16, 16)), _small((16, 8)), RNG.standard_normal((16, 8)).astype(np.float32)
    af, bf = _fragments(a, b, kind)
    d = ndpgpu.zeros(128, np.float32)
    mma80.get_function(kernel)((1,), (32,), (
        ndpgpu.asarray(af.reshape(-1)), ndpgpu.asarray(bf.reshape(-1)),
        ndpgpu.asarray(np.array(_accumulator(c), np.float32).reshape(-1)), d))
    want = np.array(_accumulator(a @ b + c.astype(np.float64)), np.float32)
    np.testing.assert_array_equal(d.get().reshape(32, 4), want)


@needs_nvcc
def test_mma_m16n8k8_with_f16_accumulators(mma80):
    a, b, c = _small((16, 8), -3, 4), _small((8, 8), -3, 4), _small((16, 8))
    af, bf = _fragments(a, b, "f16")
    cf = [[_pack(v[0], v[1]), _pack(v[2], v[3])] for v in _accumulator(c)]
    d = ndpgpu.zeros(64, np.uint32)
    mma80.get_function("m16n8k8_f16")((1,), (32,), (
        ndpgpu.asarray(af.reshape(-1)), ndpgpu.asarray(bf.reshape(-1)),
        ndpgpu.asarray(np.array(cf, np.uint32).reshape(-1)), d))
    want = [[_pack(v[0], v[1]), _pack(v[2], v[3])] for v in _accumulator(a @ b + c)]
    np.testing.assert_array_equal(d.get().reshape(32, 2), np.array(want, np.uint32))


@needs_nvcc
@pytest.mark.parametrize(("count", "trans"), [(1, False), (2, False), (4, False), (4, True)])
def test_ldmatrix(mma80, count, trans):
    g = np.arange(4 * 64 + 64, dtype=np.uint16) * 3 + 1
    out = ndpgpu.zeros(128, np.uint32)
    fn = mma80.get_function(f"ldmatrix_k<{count}, {'true' if trans else 'false'}>")
    fn((1,), (32,), (ndpgpu.asarray(g), out))
    row_start = [8 * ((t * 5) % 32) for t in range(32)]  # the element where thread t's row starts
    want = np.zeros((32, 4), np.uint32)
    for lane in range(32):
        for i in range(count):
            if trans:  # rows 2(l % 4) and 2(l % 4) + 1 of matrix i, column l / 4
                lo = g[row_start[8 * i + 2 * (lane & 3)] + (lane >> 2)]
                hi = g[row_start[8 * i + 2 * (lane & 3) + 1] + (lane >> 2)]
            else:  # row l / 4 of matrix i, columns 2(l % 4) and + 1
                base = row_start[8 * i + (lane >> 2)] + 2 * (lane & 3)
                lo, hi = g[base], g[base + 1]
            want[lane, i] = int(lo) | (int(hi) << 16)
    np.testing.assert_array_equal(out.get().reshape(32, 4), want)
