"""Memory-space details of compiled CUDA: ``__device__`` pointers initialised to addresses of other variables
(nvcc writes ``generic(garr)+8``), vector loads that are misaligned as a whole (a ``float4`` needs 16 bytes of
alignment, not 4), and ``isspacep`` through ``__isGlobal``/``__isShared``/``__isLocal``/``__isConstant`` for
each kind of pointer.

References: the C++ initialisers themselves (``&garr[2]`` is garr's address plus 8), the CUDA programming
guide's alignment rule (an access to a type of size N must be N-byte aligned; float4 and double2 are 16) and its
definitions of the address-space predicates.
"""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

POINTER_INIT_SRC = r"""
__device__ float garr[5] = {1, 2, 3, 4, 5};
__device__ float* gp = &garr[2];
__device__ int a[4] = {10, 20, 30, 40};
__device__ int* tab[] = {&a[0], &a[3]};
extern "C" __global__ void read_through(float* f, int* i) {
  f[0] = *gp;
  f[1] = gp[1];
  f[2] = gp[-2];
  i[0] = *tab[0];
  i[1] = *tab[1];
  i[2] = tab[1][-1];
}
extern "C" __global__ void write_through(float v) { gp[2] = v; *tab[1] = (int)v; }
"""


@needs_nvcc
def test_device_pointers_initialised_to_other_variables():
    module = ndpgpu.RawModule(code=POINTER_INIT_SRC)
    assert "generic(garr)+8" in module.ptx.replace(" ", "")
    f = ndpgpu.zeros(3, np.float32)
    i = ndpgpu.zeros(3, np.int32)
    module.get_function("read_through")((1,), (1,), (f, i))
    assert f.get().tolist() == [3.0, 4.0, 1.0]
    assert i.get().tolist() == [10, 40, 30]
    garr, a = module.get_global("garr"), module.get_global("a")
    assert int(module.get_global("gp").get()[0]) == garr.ptr + 8
    assert module.get_global("tab").get().tolist() == [a.ptr, a.ptr + 12]
    module.get_function("write_through")((1,), (1,), (np.float32(-7.0),))
    assert garr.get().view(np.float32).tolist() == [1.0, 2.0, 3.0, 4.0, -7.0]  # nvcc declares them .b8 arrays
    assert a.get().view(np.int32).tolist() == [10, 20, 30, -7]


VECTOR_SRC = r"""
extern "C" __global__ void load4(const float* p, int off, float* out) {
  float4 v = *reinterpret_cast<const float4*>(p + off);
  out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = v.w;
}
extern "C" __global__ void load2d(const double* p, int off, double* out) {
  double2 v = *reinterpret_cast<const double2*>(p + off);
  out[0] = v.x; out[1] = v.y;
}
"""


@needs_nvcc
def test_misaligned_vector_loads_fault():
    module = ndpgpu.RawModule(code=VECTOR_SRC)
    assert "ld.global.v4.f32" in module.ptx and "ld.global.v2.f64" in module.ptx
    p = ndpgpu.asarray(np.arange(16, dtype=np.float32) + 0.5)
    assert p.ptr % 16 == 0
    out = ndpgpu.zeros(4, np.float32)
    load4 = module.get_function("load4")
    load4((1,), (1,), (p, np.int32(4), out))  # 16-byte aligned: fine
    assert out.get().tolist() == [4.5, 5.5, 6.5, 7.5]
    with pytest.raises(ndpgpu.MisalignedAccess, match=f"{p.ptr + 8:#x}"):  # p + 2: 8-byte aligned only
        load4((1,), (1,), (p, np.int32(2), out))
    with pytest.raises(ndpgpu.MisalignedAccess):  # p + 1: 4-byte aligned
        load4((1,), (1,), (p, np.int32(1), out))
    d = ndpgpu.asarray(np.arange(8, dtype=np.float64) * 2.0 + 1.0)
    dout = ndpgpu.zeros(2, np.float64)
    load2d = module.get_function("load2d")
    load2d((1,), (1,), (d, np.int32(2), dout))
    assert dout.get().tolist() == [5.0, 7.0]
    with pytest.raises(ndpgpu.MisalignedAccess, match=f"{d.ptr + 8:#x}"):  # 8-byte aligned, not 16
        load2d((1,), (1,), (d, np.int32(1), dout))


SPACES_SRC = r"""
__constant__ int cv[4];
__device__ int dv;
__device__ int dv2[3];
__device__ __noinline__ int space(const void* p) {
  return __isGlobal(p) | (__isShared(p) << 1) | (__isLocal(p) << 2) | (__isConstant(p) << 3);
}
extern "C" __global__ void spaces(int* g, int* o, int i) {
  __shared__ int s[4];
  int loc[4];
  loc[i & 3] = i;
  s[i & 3] = i;
  o[0] = space(g);
  o[1] = space(&dv);
  o[2] = space(&cv[1]);
  o[3] = space(&s[1]);
  o[4] = space(&loc[i & 3]);
  o[5] = space(&dv2[2]);
  o[6] = space(&cv[3]);
  o[7] = loc[i & 3] + s[i & 3];
}
"""


@needs_nvcc
def test_isspacep_for_each_kind_of_pointer():
    """A ``__noinline__`` function sees only a generic pointer, so every predicate is ``isspacep``."""
    module = ndpgpu.RawModule(code=SPACES_SRC)
    for space in ("global", "shared", "local", "const"):
        assert f"isspacep.{space}" in module.ptx
    g = ndpgpu.zeros(4, np.int32)
    o = ndpgpu.zeros(8, np.int32)
    module.get_function("spaces")((1,), (1,), (g, o, np.int32(2)))
    global_, shared, local, constant = 1, 2, 4, 8
    assert o.get().tolist() == [global_, global_, constant, shared, local, global_, constant, 4]
