"""State-space address arithmetic: 32-bit shared/local/param addresses wrap modulo 2^32, generic <-> shared
and local conversions (``cvta``), ``isspacep``, and nvcc's negative folded offsets on a real stencil."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"

WAVE_SRC = r"""
extern "C" __global__ void wave(int* out, int n) {
  __shared__ int s[9][9];
  int x = threadIdx.x, y = threadIdx.y;
  s[y][x] = 100 * y + x;
  __syncthreads();
  int v = 0;
  for (int k = 1; k <= n; ++k) {
    if (x >= k && y >= k) v += s[y - k][x - k] - s[y][x - k];
  }
  out[y * 9 + x] = v;
}
"""


@needs_nvcc
def test_wavefront_over_a_static_shared_2d_array():
    """nvcc folds ``&s[y-k][x-k]`` into a base register that goes below zero (``%r = &s[y][x] - 160``) plus a
    positive immediate; with ``s`` at shared offset 0 the register wraps to 0xFFFFFF..., and the access must
    land modulo 2^32 (it raised MemoryFault at 0x1_0000_0000 before)."""
    n = 6
    fn = ndpgpu.RawModule(code=WAVE_SRC).get_function("wave")
    out = ndpgpu.zeros(81, np.int32)
    fn((1,), (9, 9), (out, np.int32(n)))
    s = 100 * np.arange(9)[:, None] + np.arange(9)[None, :]
    want = np.zeros((9, 9), dtype=np.int64)
    for y in range(9):
        for x in range(9):
            for k in range(1, n + 1):
                if x >= k and y >= k:
                    want[y, x] += s[y - k, x - k] - s[y, x - k]
    assert np.array_equal(out.get().reshape(9, 9), want)


WRAP_PTX = HEADER + """
.visible .entry wrap(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sm[64];
  .local .align 4 .b8 lm[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;                  // shared offset 0
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  add.s32 %r5, %r4, -36;            // sm + 4*tid - 36: below zero, wraps to 0xFFFFFFDC + 4*tid
  st.shared.u32 [%r5+36], %r1;      // lands at sm + 4*tid modulo 2^32
  bar.sync 0;
  mov.u32 %r7, lm;                  // local offset 0
  add.s32 %r8, %r7, -1000;
  add.s32 %r9, %r1, 7;
  st.local.u32 [%r8+1004], %r9;     // lm + 4 through a wrapped register
  ld.local.u32 %r10, [%r7+4];
  cvt.u64.u32 %rd2, %r5;            // the same wrapped base, zero-extended in a 64-bit register
  ld.shared.u32 %r11, [%rd2+36];    // 0x1_0000_0000 + 4*tid: still sm + 4*tid modulo 2^32
  ld.shared.u32 %r6, [%r4];
  mul.wide.u32 %rd3, %r1, 12;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r6;
  st.global.u32 [%rd4+4], %r10;
  st.global.u32 [%rd4+8], %r11;
  ret;
}
"""


def test_shared_and_local_addresses_wrap_modulo_2_32():
    fn = ndpgpu.RawModule(ptx=WRAP_PTX).get_function("wrap")
    out = ndpgpu.zeros((8, 3), np.uint32)
    fn((1,), (8,), (out,))
    got = out.get()
    tid = np.arange(8).tolist()
    assert got[:, 0].tolist() == tid                       # each word written through a wrapped register
    assert got[:, 1].tolist() == [t + 7 for t in tid]      # the local store through a wrapped register
    assert got[:, 2].tolist() == tid                       # a 64-bit register's carry out of bit 31 dropped


GENERIC_PTX = HEADER + """
.visible .entry gen(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  .reg .pred %p<4>;
  .shared .align 8 .b8 sm[256];
  .local .align 8 .b8 lm[16];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, sm;
  cvta.shared.u64 %rd3, %rd2;           // generic address of sm
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  add.s32 %r2, %r1, 100;
  st.u32 [%rd5], %r2;                   // generic store into shared
  bar.sync 0;
  cvta.to.shared.u64 %rd6, %rd5;        // back to a shared offset
  ld.shared.u32 %r3, [%rd6];
  mov.u64 %rd7, lm;
  cvta.local.u64 %rd8, %rd7;
  st.u32 [%rd8+8], %r1;                 // generic store into local
  ld.local.u32 %r4, [lm+8];
  isspacep.shared %p1, %rd5;
  isspacep.local %p2, %rd8;
  isspacep.global %p3, %rd1;
  selp.u32 %r5, 1, 0, %p1;
  selp.u32 %r6, 2, 0, %p2;
  selp.u32 %r7, 4, 0, %p3;
  or.b32 %r5, %r5, %r6;
  or.b32 %r5, %r5, %r7;
  mul.wide.u32 %rd9, %r1, 16;
  add.s64 %rd10, %rd1, %rd9;
  st.global.u32 [%rd10], %r3;
  st.global.u32 [%rd10+4], %r4;
  st.global.u32 [%rd10+8], %r5;
  cvt.u32.u64 %r6, %rd6;
  st.global.u32 [%rd10+12], %r6;
  ret;
}
"""


def test_cvta_round_trips_and_isspacep():
    fn = ndpgpu.RawModule(ptx=GENERIC_PTX).get_function("gen")
    out = ndpgpu.zeros((32, 4), np.uint32)
    fn((1,), (32,), (out,))
    got = out.get()
    tid = np.arange(32)
    assert got[:, 0].tolist() == (tid + 100).tolist()
    assert got[:, 1].tolist() == tid.tolist()
    assert got[:, 2].tolist() == [7] * 32
    assert got[:, 3].tolist() == (4 * tid).tolist()    # cvta.to.shared gives the shared offset (sm at 0)
