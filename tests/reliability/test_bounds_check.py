"""Bounds checking a write past the end of one array far enough to land inside the next allocation: the
guard zones between allocations miss it, but the access's pointer comes from a kernel parameter, so
``bounds_check=True`` reports it against that parameter's allocation, naming the neighbour it hit. Without
``bounds_check`` such a write behaves as on a GPU (documented): it lands in the neighbour."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.analysis.pointers import param_pointers

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"
# out[tid + off] = tid, out[idx[tid]] = 1 (an index loaded from memory), and *(ptrs[0]) read (a pointer loaded
# from memory: not a parameter's, not checked against one)
KERNEL = HEADER + """.visible .entry k(.param .u64 out, .param .u32 off, .param .u64 idx, .param .u64 ptrs)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [off];
  ld.param.u64 %rd4, [idx];
  ld.param.u64 %rd8, [ptrs];
  cvta.to.global.u64 %rd9, %rd1;
  mov.u32 %r1, %tid.x;
  add.s32 %r3, %r1, %r2;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd9, %rd2;
  st.global.u32 [%rd3], %r1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r4, [%rd6];
  mul.wide.u32 %rd7, %r4, 4;
  add.s64 %rd10, %rd9, %rd7;
  st.global.u32 [%rd10], 1;
  ld.global.u64 %rd11, [%rd8];
  ld.global.u32 %r5, [%rd11];
  ret;
}
"""


def test_the_pointer_of_each_access_is_traced_to_its_parameter() -> None:
    fn = ndpgpu.RawModule(ptx=KERNEL).get_function("k")
    assert param_pointers(fn.kernel) == {17: "out", 20: "idx", 23: "out", 24: "ptrs"}  # line 25: not a parameter's


def _run(off: int, index: int, bounds_check: bool = True):
    """``off`` and ``index`` of -1: into the neighbour."""
    fn = ndpgpu.RawModule(ptx=KERNEL).get_function("k")
    with ndpgpu.Device(bounds_check=bounds_check):
        out = ndpgpu.DeviceArray(32, np.uint32, label="out")
        neighbour = ndpgpu.DeviceArray(256, np.uint32, label="neighbour")
        neighbour.set(np.zeros(256, np.uint32))
        stride = (neighbour.ptr - out.ptr) // 4  # elements from out[0] to neighbour[0]
        idx = ndpgpu.asarray(np.full(32, index if index >= 0 else stride + 5, np.uint32))
        ptrs = ndpgpu.asarray(np.array([neighbour.ptr], np.uint64))
        fn((1,), (32,), (out, np.uint32(off if off >= 0 else stride), idx, ptrs))
        return out.get(), neighbour.get()


def test_in_bounds_accesses_and_loaded_pointers_pass() -> None:
    out, _ = _run(0, 3)
    assert out.tolist() == [0, 1, 2, 1] + list(range(4, 32))


def test_a_write_that_lands_inside_the_next_allocation_is_reported() -> None:
    with pytest.raises(ndpgpu.BoundsCheckError, match=r"32 access\(es\) outside their allocation") as e:
        _run(-1, 3)  # out[tid + (neighbour - out)]: past the guard zone, into the neighbour
    first = e.value.violations[0]
    assert first["line"] == 17
    assert "past the end of the 128-byte allocation 'out'" in first["where"]
    assert "(parameter out), inside the 1024-byte allocation 'neighbour'" in first["where"]


def test_an_index_loaded_from_memory_is_checked_against_the_parameter() -> None:
    with pytest.raises(ndpgpu.BoundsCheckError) as e:
        _run(0, -1)  # out[idx[tid]] with an index that reaches into the neighbour
    assert {v["line"] for v in e.value.violations} == {23}


def test_without_bounds_check_the_write_lands_in_the_neighbour_as_on_a_gpu() -> None:
    _, neighbour = _run(-1, 3, bounds_check=False)
    assert neighbour[:32].tolist() == list(range(32))
