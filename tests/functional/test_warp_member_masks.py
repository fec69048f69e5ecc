"""Warp-level synchronisation scoped by member masks: ``__syncwarp()`` inside one warp of a larger block (it
synchronises that warp only; it deadlocked as a block barrier), and ``__reduce_*_sync``, ``__all_sync``,
``__any_sync``, ``__ballot_sync`` and ``__match_any_sync`` over two 16-lane groups of one warp, each lane
combining only with the lanes its own mask names (CUB's 16-lane ``WarpReduce`` and cooperative groups'
``tiled_partition<16>`` compile to this on sm_80). Also CuPy's ``a[...] = x`` on device arrays.

References: the PTX ISA's definitions of the ``.sync`` instructions (the result over the threads of the member
mask), computed in NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

SRC = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void one_warp_syncs(const int* in, int* out) {
  __shared__ int s[128];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32) {  // warp 0 alone
    s[threadIdx.x] += s[threadIdx.x + 32];
    __syncwarp();
    s[threadIdx.x] += s[threadIdx.x + 64] + s[threadIdx.x + 96];
  }
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x & 31];
}
extern "C" __global__ void halves(const int* in, int* red, int* all_, int* any_, unsigned* bal, unsigned* mat,
                                  int* mx) {
  int lane = threadIdx.x & 31;
  unsigned mask = lane < 16 ? 0x0000FFFFu : 0xFFFF0000u;
  int v = in[threadIdx.x];
  red[threadIdx.x] = __reduce_add_sync(mask, v);
  mx[threadIdx.x] = __reduce_max_sync(mask, (unsigned)v);
  all_[threadIdx.x] = __all_sync(mask, v > 0);
  any_[threadIdx.x] = __any_sync(mask, v < 0);
  bal[threadIdx.x] = __ballot_sync(mask, v & 1);
  mat[threadIdx.x] = __match_any_sync(mask, v & 3);
}
extern "C" __global__ void tiles16(const int* in, int* out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(tile, in[threadIdx.x], cg::plus<int>());
}
"""


@pytest.fixture(scope="module")
def module() -> ndpgpu.RawModule:
    return ndpgpu.RawModule(code=SRC, options=("-arch=sm_80",))


@needs_nvcc
def test_syncwarp_in_one_warp_of_a_block(module):
    x = np.arange(128, dtype=np.int32)
    out = ndpgpu.zeros(128, np.int32)
    module.get_function("one_warp_syncs")((1,), (128,), (ndpgpu.asarray(x), out))
    np.testing.assert_array_equal(out.get(), np.tile(x.reshape(4, 32).sum(0), 4))


@needs_nvcc
def test_sync_collectives_over_each_lanes_member_mask(module):
    x = np.arange(1, 65, dtype=np.int32)
    x[20] = -5
    outs = [ndpgpu.zeros(64, dt) for dt in (np.int32, np.int32, np.int32, np.uint32, np.uint32, np.uint32)]
    module.get_function("halves")((1,), (64,), (ndpgpu.asarray(x), *outs))
    red, all_, any_, bal, mat, mx = (o.get() for o in outs)
    for lane in range(64):
        lo = lane // 16 * 16
        grp = x[lo:lo + 16]
        shift = lo % 32
        assert red[lane] == grp.sum() and mx[lane] == grp.astype(np.uint32).max()
        assert all_[lane] == int((grp > 0).all()) and any_[lane] == int((grp < 0).any())
        assert bal[lane] == sum(1 << (shift + k) for k in range(16) if grp[k] & 1)
        assert mat[lane] == sum(1 << (shift + k) for k in range(16) if (grp[k] & 3) == (x[lane] & 3))


@needs_nvcc
def test_tiled_partition_16_reduce(module):
    x = np.random.default_rng(5).integers(-1000, 1000, 128).astype(np.int32)
    out = ndpgpu.zeros(128, np.int32)
    module.get_function("tiles16")((1,), (128,), (ndpgpu.asarray(x), out))
    np.testing.assert_array_equal(out.get(), np.repeat(x.reshape(8, 16).sum(1), 16))


def test_device_array_item_assignment():
    a = ndpgpu.zeros(8, np.float32)
    a[...] = np.arange(8)
    a[2:4] = -1
    a[7] = 2.5
    np.testing.assert_array_equal(a.get(), [0, 1, -1, -1, 4, 5, 6, 2.5])


@needs_nvcc
def test_name_expressions_with_enum_arguments_and_the_closest_names_on_a_miss():
    """The compiler resolves a name expression (as NVRTC does for CuPy), so ``k<A1>`` names the kernel whose
    symbol demangles to ``k<(Alg)1>``; PTX text can only be matched by that spelling, and a miss lists the
    closest names the module defines."""
    src = "enum Alg { A0, A1 };\ntemplate <Alg A> __global__ void k(int* o) { o[0] = (int)A; }\n"
    module = ndpgpu.RawModule(code=src, name_expressions=("k<A1>", "k<Alg::A0>"))
    for expr, want in (("k<A1>", 1), ("k<Alg::A0>", 0)):
        out = ndpgpu.zeros(1, np.int32)
        module.get_function(expr)((1,), (1,), (out,))
        assert out.get()[0] == want
    with pytest.raises(ValueError, match=r"closest it defines: .*k<\(Alg\)1>"):
        ndpgpu.RawModule(ptx=module.ptx, name_expressions=("k<A1>",))
    assert ndpgpu.RawModule(ptx=module.ptx, name_expressions=("k<(Alg)1>",)).get_function("k<(Alg)1>")


PRODUCER_CONSUMER_SRC = r"""
// warp 0 produces a row into shared memory, warp 1 consumes it: named barriers 1 (full) and 2 (empty)
extern "C" __global__ void pipeline(const int* in, int* out, int rows) {
  __shared__ int buf[32];
  int lane = threadIdx.x & 31;
  if (threadIdx.x < 32) {
    for (int r = 0; r < rows; r++) {
      if (r > 0) asm volatile("bar.sync 2, 64;");      // wait until the consumer has read the last row
      buf[lane] = in[r * 32 + lane] * 2;
      asm volatile("bar.arrive 1, 64;" ::: "memory");  // the row is full: signal and go on
    }
  } else {
    for (int r = 0; r < rows; r++) {
      asm volatile("bar.sync 1, 64;" ::: "memory");    // wait for a full row
      out[r * 32 + lane] = buf[lane] + r;
      if (r + 1 < rows) asm volatile("bar.arrive 2, 64;" ::: "memory");  // the row is read
    }
  }
}
"""


@needs_nvcc
def test_named_barriers_with_bar_arrive():
    fn = ndpgpu.RawModule(code=PRODUCER_CONSUMER_SRC).get_function("pipeline")
    rows = 6
    x = np.arange(rows * 32, dtype=np.int32)
    out = ndpgpu.zeros(rows * 32, np.int32)
    fn((2,), (64,), (ndpgpu.asarray(x), out, np.int32(rows)))
    np.testing.assert_array_equal(out.get().reshape(rows, 32), x.reshape(rows, 32) * 2 + np.arange(rows)[:, None])
