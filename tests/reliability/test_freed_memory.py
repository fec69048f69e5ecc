"""Freed device memory: ``DeviceArray.free`` returns an array's memory; reading it back, freeing it twice,
passing it to a kernel or a kernel's access to it through a raw pointer is an error naming the freed
allocation (a ``MemoryFault``: freed memory is unmapped; under ``bounds_check`` a "use after free" violation),
never stale data or a misleading "past the end of a neighbour" report."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu import DeviceMemoryError

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"
# reads p[tid] through a pointer passed as a plain 64-bit integer (not a device array)
READ = HEADER + """.visible .entry k(.param .u64 p, .param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd4, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.s64 %rd5, %rd4, %rd2;
  st.global.u32 [%rd5], %r2;
  ret;
}
"""


def test_get_and_set_of_a_freed_array_name_it() -> None:
    with ndpgpu.Device():
        a = ndpgpu.DeviceArray(8, np.float32, label="weights")
        a.set(np.ones(8, np.float32))
        a.free()
        assert a.freed
        with pytest.raises(DeviceMemoryError, match=r"get\(\) of a freed device array .*label='weights'.*free\(\)"):
            a.get()
        with pytest.raises(DeviceMemoryError, match=r"set\(\) of a freed device array"):
            a.set(np.zeros(8, np.float32))
        with pytest.raises(DeviceMemoryError, match="freed"):
            a.view(np.uint32).get()


def test_a_double_free_says_already_freed() -> None:
    with ndpgpu.Device():
        a = ndpgpu.zeros(16, np.int32)
        a.free()
        with pytest.raises(DeviceMemoryError, match=r"double free: the freed 64-byte allocation at 0x[0-9a-f]+ "
                                                    "was already freed"):
            a.free()
        b = ndpgpu.zeros(16, np.int32)
        with pytest.raises(DeviceMemoryError, match="4 bytes inside the 64-byte allocation"):
            b.device.memory.free(b.ptr + 4)


def test_passing_a_freed_array_to_a_kernel_names_the_argument() -> None:
    fn = ndpgpu.RawModule(ptx=READ).get_function("k")
    with ndpgpu.Device():
        a, out = ndpgpu.zeros(32, np.uint32), ndpgpu.zeros(32, np.uint32)
        a.free()
        with pytest.raises(DeviceMemoryError, match=r"argument 0 \(.*p.*\) of k: passing of a freed device array"):
            fn((1,), (32,), (a, out))


def test_a_kernel_reading_freed_memory_is_reported_as_freed_under_bounds_check() -> None:
    fn = ndpgpu.RawModule(ptx=READ).get_function("k")
    with ndpgpu.Device(bounds_check=True):
        before = ndpgpu.zeros(32, np.uint32)  # a live neighbour below the freed array
        a = ndpgpu.DeviceArray(32, np.uint32, label="stale")
        out = ndpgpu.zeros(32, np.uint32)
        a.set(np.arange(32, dtype=np.uint32))
        a.free()
        with pytest.raises(ndpgpu.BoundsCheckError, match=r"freed 128-byte allocation 'stale'.*use after free") as e:
            fn((1,), (32,), (np.uint64(a.ptr), out))
        assert "past the end" not in str(e.value)
        del before


# writes p[tid] = tid through a raw pointer, then atomically adds 1 to p[0]
WRITE = HEADER + """.visible .entry w(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  atom.global.add.u32 %r2, [%rd1], 1;
  ret;
}
"""


def test_a_kernel_reading_freed_memory_through_a_raw_pointer_faults() -> None:
    """No bounds check: the freed range is unmapped, so the read faults instead of returning the old contents,
    and the message names the allocation, the offset into it and the line that freed it."""
    fn = ndpgpu.RawModule(ptx=READ).get_function("k")
    with ndpgpu.Device():
        a = ndpgpu.DeviceArray(32, np.uint32, label="stale")
        out = ndpgpu.zeros(32, np.uint32)
        a.set(np.arange(32, dtype=np.uint32) + 7)
        a.free()
        with pytest.raises(ndpgpu.MemoryFault, match=r"thread \(0, 0, 0\).*0 bytes into the freed 128-byte "
                                                     r"allocation 'stale'.*use after free.*test_freed_memory\.py:\d+"):
            fn((1,), (32,), (np.uint64(a.ptr), out))
        assert not out.get().any()  # nothing read was stored


def test_a_kernel_writing_freed_memory_faults_and_live_neighbours_still_work() -> None:
    fn_w = ndpgpu.RawModule(ptx=WRITE).get_function("w")
    fn_r = ndpgpu.RawModule(ptx=READ).get_function("k")
    with ndpgpu.Device():
        below = ndpgpu.zeros(32, np.uint32)
        a = ndpgpu.zeros(32, np.uint32)
        above = ndpgpu.zeros(32, np.uint32)
        a.free()
        with pytest.raises(ndpgpu.MemoryFault, match="freed 128-byte allocation"):
            fn_w((1,), (32,), (np.uint64(a.ptr),))
        for live in (below, above):  # the arrays on either side of the freed range are still mapped
            fn_w((1,), (32,), (live,))
            expect = np.arange(32, dtype=np.uint32)
            expect[0] += 32
            np.testing.assert_array_equal(live.get(), expect)
        out = ndpgpu.zeros(32, np.uint32)
        fn_r((1,), (32,), (below, out))
        np.testing.assert_array_equal(out.get(), below.get())
