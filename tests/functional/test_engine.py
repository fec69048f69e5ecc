"""The functional engine end to end: control flow, barriers, memory, errors, printf, traces."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available
from ndpgpu.trace.format import SPACE, KernelTrace

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

DIVERGE_SRC = r"""
extern "C" __global__ void collatz(const int* in, int* steps, int* trace_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i], s = 0;
  while (x != 1) {            // divergent trip counts inside a loop
    if (x & 1) x = 3 * x + 1; // divergent branch inside the loop
    else x >>= 1;
    s++;
  }
  steps[i] = s;
  int acc = 0;                // after reconvergence every lane runs this
  for (int k = 0; k < (i % 7); ++k) acc += k * (i & 3);
  trace_out[i] = acc;
}
"""


def collatz_steps(x: int) -> int:
    s = 0
    while x != 1:
        x = 3 * x + 1 if x & 1 else x >> 1
        s += 1
    return s


@needs_nvcc
def test_divergence_and_reconvergence_in_loops():
    n = 300
    rng = np.random.default_rng(1)
    data = rng.integers(1, 5000, n).astype(np.int32)
    k = ndpgpu.RawKernel(DIVERGE_SRC, "collatz")
    with ndpgpu.Device(trace=True) as dev:
        d_in = ndpgpu.asarray(data)
        steps = ndpgpu.zeros(n, np.int32)
        acc = ndpgpu.zeros(n, np.int32)
        k((3,), (128,), (d_in, steps, acc, np.int32(n)))
    assert steps.get().tolist() == [collatz_steps(int(v)) for v in data]
    expect = [sum(kk * (i & 3) for kk in range(i % 7)) for i in range(n)]
    assert acc.get().tolist() == expect
    tr = dev.traces[0]
    # thread-instructions counted by the engine equal those recomputed from the trace's segments
    assert tr.thread_instructions() == dev.launches[0].thread_instructions
    assert tr.warp_instructions() == dev.launches[0].warp_instructions
    # divergence shows as partial masks in the trace
    masks = tr.segments["mask"]
    assert (masks != 0xFFFFFFFF).any() and (masks != 0).all()


BARRIER_SRC = r"""
extern "C" __global__ void rotate(const float* in, float* out) {
  __shared__ float buf[256];
  int t = threadIdx.x;
  buf[t] = in[blockIdx.x * 256 + t];
  __syncthreads();                       // every warp must have written before anyone reads
  out[blockIdx.x * 256 + t] = buf[(t + 97) % 256];
  __syncthreads();
  int votes = __syncthreads_count(buf[t] > 0.5f);
  if (t == 0) out[blockIdx.x * 256] = (float)votes;
}
"""


@needs_nvcc
def test_barriers_order_shared_memory_and_reduce():
    data = np.random.default_rng(2).random(4 * 256).astype(np.float32)
    k = ndpgpu.RawKernel(BARRIER_SRC, "rotate")
    d_in = ndpgpu.asarray(data)
    out = ndpgpu.zeros(4 * 256, np.float32)
    k((4,), (256,), (d_in, out))
    got = out.get().reshape(4, 256)
    src = data.reshape(4, 256)
    expect = np.roll(src, -97, axis=1)
    expect[:, 0] = (src > 0.5).sum(axis=1)
    np.testing.assert_array_equal(got, expect)


ATOMIC_SRC = r"""
extern "C" __global__ void contend(unsigned* counter, float* fsum, unsigned* maxv, int* order) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned ticket = atomicAdd(counter, 1u);
  order[i] = ticket;
  atomicAdd(fsum, 1.0f);
  atomicMax(maxv, (unsigned)(i * 2654435761u));
}
"""


@needs_nvcc
def test_atomics_under_contention():
    k = ndpgpu.RawKernel(ATOMIC_SRC, "contend")
    n = 64 * 96
    counter = ndpgpu.zeros(1, np.uint32)
    fsum = ndpgpu.zeros(1, np.float32)
    maxv = ndpgpu.zeros(1, np.uint32)
    order = ndpgpu.zeros(n, np.int32)
    k((64,), (96,), (counter, fsum, maxv, order))
    assert counter.get()[0] == n
    assert fsum.get()[0] == n  # exactly representable, so the order does not matter
    assert maxv.get()[0] == max((i * 2654435761) % 2**32 for i in range(n))
    # every ticket handed out once
    assert sorted(order.get().tolist()) == list(range(n))


@needs_nvcc
def test_argument_type_errors_name_the_parameter():
    k = ndpgpu.RawKernel(DIVERGE_SRC, "collatz")
    a = ndpgpu.asarray(np.ones(4, np.int32))
    with pytest.raises(TypeError, match="argument 3"):
        k((1,), (32,), (a, a, a, np.float32(4)))
    with pytest.raises(TypeError, match="argument 3"):
        k((1,), (32,), (a, a, a, np.int64(4)))
    with pytest.raises(OverflowError, match="argument 3"):
        k((1,), (32,), (a, a, a, 1 << 40))
    with pytest.raises(TypeError, match="takes 4 arguments"):
        k((1,), (32,), (a, a, a))
    with pytest.raises(ndpgpu.LaunchConfigError, match="threads per block"):
        k((1,), (32, 32, 2), (a, a, a, 4))
    k((1,), (32,), (a, a, a, 4))  # a Python int converts to the declared type


OOB_SRC = r"""
extern "C" __global__ void poke(float* p, long long offset, int write) {
  if (threadIdx.x == 5) { if (write) p[offset] = 1.0f; else p[0] = p[offset]; }
}
"""


@needs_nvcc
def test_access_outside_mapped_memory_names_thread_and_address():
    k = ndpgpu.RawKernel(OOB_SRC, "poke")
    with ndpgpu.Device():
        buf = ndpgpu.zeros(16, np.float32)
        # just past the allocation, inside its page: reads the zero padding
        k((1,), (32,), (buf, np.int64(20), np.int32(0)))
        assert buf.get()[0] == 0.0
        with pytest.raises(ndpgpu.MemoryFault) as info:
            k((2,), (32,), (buf, np.int64(1 << 30), np.int32(1)))
    msg = str(info.value)
    assert "poke" in msg and "block (0, 0, 0)" in msg and "thread (5, 0, 0)" in msg
    addr = buf.ptr + 4 * (1 << 30)
    assert f"{addr:#x}" in msg and "PTX line" in msg


@needs_nvcc
def test_bounds_check_mode_reports_every_stray_access():
    k = ndpgpu.RawKernel(OOB_SRC, "poke")
    with ndpgpu.Device(bounds_check=True):
        buf = ndpgpu.zeros(16, np.float32)
        k((1,), (32,), (buf, np.int64(3), np.int32(0)))  # inside: fine
        with pytest.raises(ndpgpu.BoundsCheckError) as info:
            k((3,), (32,), (buf, np.int64(20), np.int32(0)))
    v = info.value.violations
    assert len(v) == 3  # one stray read per block
    assert {x["block"][0] for x in v} == {0, 1, 2}
    assert all(x["address"] == buf.ptr + 80 for x in v)


NEIGHBOUR_SRC = r"""
extern "C" __global__ void spill(int* a, int* b) { a[threadIdx.x + 64] = 99; b[threadIdx.x] += 1; }
"""


@needs_nvcc
def test_bounds_check_sees_an_overrun_into_the_next_allocation():
    """``a[threadIdx.x + 64]`` on a 64-element ``a`` reached the next allocation (256-byte aligned, right
    behind it) and was accepted; guard zones between allocations make it a reported violation."""
    k = ndpgpu.RawKernel(NEIGHBOUR_SRC, "spill")
    with ndpgpu.Device(bounds_check=True):
        a = ndpgpu.zeros(64, np.int32)
        b = ndpgpu.zeros(64, np.int32)
        with pytest.raises(ndpgpu.BoundsCheckError) as info:
            k((1,), (64,), (a, b))
        assert b.get().tolist() == [1] * 64  # the neighbour was not overwritten
    v = info.value.violations
    assert len(v) == 64
    assert sorted(x["address"] for x in v) == [a.ptr + 256 + 4 * i for i in range(64)]
    assert "past the end of the 256-byte allocation" in str(info.value)
    with ndpgpu.Device():  # without bounds checking the layout is cudaMalloc's: b follows a directly
        a = ndpgpu.zeros(64, np.int32)
        b = ndpgpu.zeros(64, np.int32)
        assert b.ptr == a.ptr + 256


UNSUPPORTED_PTX = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<3>;
  mov.u32 %r1, 1;
  vadd.u32.u32.u32 %r2, %r1, %r1;
  ret;
}
"""


def test_unsupported_ptx_names_opcode_kernel_and_line():
    mod = ndpgpu.RawModule(ptx=UNSUPPORTED_PTX)
    fn = mod.get_function("k")
    with pytest.raises(ndpgpu.UnsupportedPTX) as info:
        fn((1,), (32,), (ndpgpu.zeros(1, np.float32),))
    assert "vadd.u32.u32.u32" in str(info.value) and "'k'" in str(info.value) and "line 9" in str(info.value)
    assert "unsupported" in str(info.value)
    assert info.value.line == 9


def test_malformed_ptx_reports_line_and_column():
    bad = UNSUPPORTED_PTX.replace("mov.u32 %r1, 1;", "mov.u32 %r1, [;")
    with pytest.raises(ndpgpu.PTXParseError) as info:
        ndpgpu.RawModule(ptx=bad)
    assert info.value.line == 8


DEADLOCK_PTX = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra WAIT;
  bar.sync 1, 64;
  ret;
WAIT:
  bar.sync 0;
  ret;
}
"""


def test_barrier_that_cannot_complete_is_reported():
    fn = ndpgpu.RawModule(ptx=DEADLOCK_PTX).get_function("k")
    with pytest.raises(ndpgpu.BarrierDeadlock, match="barrier cannot complete"):
        fn((1,), (64,), ())


SPIN_PTX = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry spin(.param .u64 flag)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
  mov.u32 %r1, %laneid;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra DONE;
LOOP:
  ld.volatile.global.u32 %r2, [%rd1];
  setp.eq.u32 %p2, %r2, 0;
  @%p2 bra LOOP;
DONE:
  st.volatile.global.u32 [%rd1], 1;
  ret;
}
"""


def test_intra_warp_spin_wait_is_detected_not_hung():
    fn = ndpgpu.RawModule(ptx=SPIN_PTX).get_function("spin")
    opts = ndpgpu.api.LaunchOptions(its_limit=20_000)
    with ndpgpu.Device(options=opts):
        flag = ndpgpu.zeros(1, np.uint32)
        with pytest.raises(ndpgpu.IndependentThreadSchedulingRequired, match="independent thread scheduling"):
            fn((1,), (32,), (flag,))


def test_instruction_budget_stops_a_runaway_kernel():
    fn = ndpgpu.RawModule(ptx=SPIN_PTX.replace("setp.eq.u32 %p1, %r1, 0;", "setp.eq.u32 %p1, %r1, 99;")
                          ).get_function("spin")
    opts = ndpgpu.api.LaunchOptions(budget_warp_instructions=10_000)
    with ndpgpu.Device(options=opts):
        flag = ndpgpu.zeros(1, np.uint32)
        with pytest.raises(ndpgpu.InstructionBudgetExceeded):
            fn((1,), (32,), (flag,))


PRINTF_SRC = r"""
#include <cstdio>
extern "C" __global__ void hello(int n, double x) {
  if (threadIdx.x < 2) printf("t%d n=%d x=%.3f %s|%5.1e\n", threadIdx.x, n, x, "ok", x * 1000.0);
}
"""


@needs_nvcc
def test_printf_output_returns_to_the_host():
    k = ndpgpu.RawKernel(PRINTF_SRC, "hello")
    with ndpgpu.Device(echo_printf=False) as dev:
        k((1,), (32,), (np.int32(7), np.float64(2.5)))
    assert dev.printf_output == ["t0 n=7 x=2.500 ok|2.5e+03\n", "t1 n=7 x=2.500 ok|2.5e+03\n"]


GLOBALS_SRC = r"""
__constant__ float coeffs[4];
__device__ int hits;
__device__ __noinline__ float poly(float x, int k) {
  float r = 0.0f;
  for (int i = 0; i < k; ++i) { if (x > 0.0f) r = r * x + coeffs[i]; else r -= coeffs[i]; }
  return r;
}
__global__ void evalpoly(const float* x, float* y, int n) {
  extern __shared__ float tmp[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tmp[threadIdx.x] = (i < n) ? poly(x[i], (i % 4) + 1) : 0.0f;
  __syncthreads();
  if (i < n) { y[i] = tmp[threadIdx.x]; atomicAdd(&hits, 1); }
}
"""


@needs_nvcc
def test_device_functions_globals_and_dynamic_shared_memory():
    mod = ndpgpu.RawModule(code=GLOBALS_SRC)
    fn = mod.get_function("evalpoly")  # the plain C++ name of _Z8evalpolyPKfPfi
    assert fn.name.startswith("_Z")
    c = np.array([1.5, -2.0, 0.25, 3.0], np.float32)
    mod.get_global("coeffs").set(c.view(np.uint8))
    x = np.linspace(-2, 2, 200).astype(np.float32)
    dx = ndpgpu.asarray(x)
    dy = ndpgpu.zeros(200, np.float32)
    fn((4,), (64,), (dx, dy, np.int32(200)), shared_mem=64 * 4)
    expect = []
    for i, xi in enumerate(x):
        r = np.float32(0)
        for k in range((i % 4) + 1):
            r = np.float32(r * xi + c[k]) if xi > 0 else np.float32(r - c[k])
        expect.append(r)
    # the device rounds r*x+c once (fma), NumPy twice: allow one rounding step
    np.testing.assert_allclose(dy.get(), np.array(expect, np.float32), rtol=1e-6, atol=1e-6)
    assert mod.get_global("hits").get()[0] == 200


STRUCT_SRC = r"""
struct Item { float w; int id; double v; };
struct Scale { float a; int b; };
extern "C" __global__ void scale(Item* items, Scale s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { items[i].w *= s.a; items[i].id += s.b; items[i].v = items[i].v * 2.0 + s.a; }
}
"""


@needs_nvcc
def test_struct_arrays_and_structs_by_value():
    item = np.dtype([("w", np.float32), ("id", np.int32), ("v", np.float64)], align=True)
    scale_t = np.dtype([("a", np.float32), ("b", np.int32)], align=True)
    host = np.zeros(50, item)
    host["w"] = np.arange(50)
    host["id"] = np.arange(50) * 3
    host["v"] = np.arange(50) / 4
    k = ndpgpu.RawKernel(STRUCT_SRC, "scale")
    d = ndpgpu.asarray(host)
    s = np.array((1.5, -7), dtype=scale_t)[()]
    k((1,), (64,), (d, s, np.int32(50)))
    out = d.get()
    np.testing.assert_array_equal(out["w"], host["w"] * np.float32(1.5))
    np.testing.assert_array_equal(out["id"], host["id"] - 7)
    np.testing.assert_array_equal(out["v"], host["v"] * 2 + 1.5)
    bad = np.zeros(4, dtype=np.dtype([("a", np.int8), ("b", np.int32)], align=False))
    with pytest.raises(TypeError, match="not aligned"):
        ndpgpu.asarray(bad)
    with pytest.raises(TypeError, match="structured value of 16 bytes"):
        k((1,), (64,), (d, np.zeros((), item)[()], np.int32(50)))


@needs_nvcc
def test_trace_records_affine_and_local_addresses():
    src = r"""
    extern "C" __global__ void t(const float* x, float* y, const int* idx, int n) {
      float loc[8];
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      for (int k = 0; k < 8; ++k) loc[k] = x[(i + k) % n];
      y[i] = loc[idx[i] & 7] + x[idx[i]];
    }"""
    k = ndpgpu.RawKernel(src, "t")
    n = 64
    idx = np.random.default_rng(3).integers(0, n, n).astype(np.int32)
    xs = np.arange(n, dtype=np.float32)
    with ndpgpu.Device(trace=True) as dev:
        k((2,), (32,), (ndpgpu.asarray(xs), y := ndpgpu.zeros(n, np.float32), d_idx := ndpgpu.asarray(idx),
                        np.int32(n)))
    loc = [[xs[(i + kk) % n] for kk in range(8)] for i in range(n)]
    np.testing.assert_array_equal(y.get(), [loc[i][idx[i] & 7] + xs[idx[i]] for i in range(n)])
    tr = dev.traces[0]
    mem = tr.mem
    glob = mem[mem["space"] == SPACE["global"]]
    # the idx[i] load of warp 0 is affine with stride 4 from idx's base
    idx_loads = glob[(glob["base"] >= d_idx.ptr) & (glob["base"] < d_idx.ptr + 4 * n) & (glob["stride"] == 4)]
    assert len(idx_loads) >= 2
    # x[idx[i]] is a gather: stored lane by lane
    gathers = glob[glob["addr_index"] >= 0]
    assert len(gathers) >= 2
    rec = int(np.nonzero(mem["addr_index"] >= 0)[0][0])
    lanes = tr.lane_addresses(rec)
    assert set(((lanes - tr.mem[rec]["base"]) % 4).tolist()) == {0}
    # local arrays follow the hardware interleaving: lane l of a warp at 4*l from the warp's word
    local = mem[mem["space"] == SPACE["local"]]
    if len(local):
        assert (local["stride"][local["addr_index"] < 0] == 4).all()
    # a trace survives a round trip through its file
    path = tr.save(tmp := __import__("tempfile").mkdtemp() + "/t.npz")
    back = KernelTrace.load(path)
    assert back.warp_instructions() == tr.warp_instructions()
    assert np.array_equal(back.mem, tr.mem)
    del tmp


def test_grid_and_block_validation():
    fn = ndpgpu.RawModule(ptx=DEADLOCK_PTX).get_function("k")
    with pytest.raises(ValueError, match="grid"):
        fn((0,), (64,), ())
    with pytest.raises(TypeError, match="block"):
        fn((1,), "x", ())
