"""Launches CUDA would refuse fail with a typed error; runaway kernels stop (budget, spin-wait at a
barrier) with an error that says what to change; a long launch returns to Python so signals get through."""

from __future__ import annotations

import signal

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"

EMPTY_PTX = HEADER + ".visible .entry k()\n{\n  ret;\n}\n"

BIG_SHARED_PTX = HEADER + """
.visible .entry big(.param .u64 out)
{
  .reg .b32 %r<3>;
  .shared .align 4 .b8 s[262144];
  mov.u32 %r1, %tid.x;
  st.shared.u32 [s], %r1;
  ret;
}
"""

SPIN_PTX = HEADER + """
.visible .entry spin(.param .u64 flag)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [flag];
LOOP:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra LOOP;
  ret;
}
"""

BARRIER_SPIN_SRC = r"""
extern "C" __global__ void hang(volatile int* f) {
  if (threadIdx.x < 64) { __syncthreads(); f[0] = 1; }
  else { while (f[0] == 0) {} }
}
"""


@pytest.mark.parametrize("grid, block, what", [
    ((1, 70000), (32,), "grid.y = 70000"),
    ((1, 1, 65536), (32,), "grid.z = 65536"),
    ((2**31,), (32,), "grid.x = 2147483648"),
    ((1,), (1, 1, 128), "block.z = 128"),
    ((1,), (2048,), "block.x = 2048"),
    ((1,), (64, 32), "2048 threads per block"),
    ((0,), (32,), "positive"),
])
def test_launches_beyond_cudas_limits_are_refused(grid, block, what):
    fn = ndpgpu.RawModule(ptx=EMPTY_PTX).get_function("k")
    with pytest.raises(ndpgpu.LaunchConfigError, match=what.replace("(", r"\(").replace(")", r"\)")):
        fn(grid, block, ())
    fn((1, 65535, 1), (1024, 1, 1), ())  # the limits themselves are accepted


def test_shared_memory_beyond_the_per_block_limits_is_refused():
    fn = ndpgpu.RawModule(ptx=BIG_SHARED_PTX).get_function("big")
    out = ndpgpu.zeros(1, np.uint32)
    with pytest.raises(ndpgpu.LaunchConfigError, match="262144 bytes of static __shared__"):
        fn((1,), (32,), (out,))
    empty = ndpgpu.RawModule(ptx=EMPTY_PTX).get_function("k")
    with pytest.raises(ndpgpu.LaunchConfigError, match="dynamic bytes of shared memory"):
        empty((1,), (32,), (), shared_mem=300 * 1024)


def test_default_budget_is_finite_and_the_error_says_how_to_raise_it():
    from ndpgpu.functional.launch import launch_budget

    assert ndpgpu.LaunchOptions().budget_warp_instructions is None  # derived from the grid at each launch
    assert launch_budget(ndpgpu.LaunchOptions(), warps=1) == 1 << 28
    fn = ndpgpu.RawModule(ptx=SPIN_PTX).get_function("spin")
    with ndpgpu.Device(options=ndpgpu.LaunchOptions(budget_warp_instructions=10_000)):
        flag = ndpgpu.zeros(1, np.uint32)
        with pytest.raises(ndpgpu.InstructionBudgetExceeded, match="budget_warp_instructions=N"):
            fn((1,), (32,), (flag,))


@needs_nvcc
def test_spin_wait_beside_a_barrier_is_a_deadlock():
    """Warps 0-1 wait at ``__syncthreads`` for warps 2-3, which spin on a flag only warps 0-1 would set:
    the launch never ends on a GPU; here it stops with BarrierDeadlock naming the waiting warp."""
    fn = ndpgpu.RawModule(code=BARRIER_SPIN_SRC).get_function("hang")
    with ndpgpu.Device(options=ndpgpu.LaunchOptions(barrier_wait_limit=200_000)):
        f = ndpgpu.zeros(1, np.int32)
        with pytest.raises(ndpgpu.BarrierDeadlock, match="without arriving") as info:
            fn((1,), (128,), (f,))
    assert "warp 0" in str(info.value) or "warp 1" in str(info.value)
    assert ndpgpu.LaunchOptions().barrier_wait_limit == 1 << 26


class _Interrupted(Exception):
    pass


def test_a_running_launch_returns_to_python_for_signals():
    """A kernel spinning forever is interrupted by a Python signal handler (as Ctrl-C is): the compiled loop
    returns every ``slice_warp_instructions`` so that handlers run."""
    fn = ndpgpu.RawModule(ptx=SPIN_PTX).get_function("spin")

    def handler(signum, frame):
        raise _Interrupted

    old = signal.signal(signal.SIGALRM, handler)
    try:
        with ndpgpu.Device(options=ndpgpu.LaunchOptions(budget_warp_instructions=1 << 30,
                                                        slice_warp_instructions=1 << 16)):
            fn((1,), (32,), (ndpgpu.asarray(np.ones(1, np.uint32)),))  # returns at once: warm before the timer
            flag = ndpgpu.zeros(1, np.uint32)
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            with pytest.raises(_Interrupted):
                fn((1,), (32,), (flag,))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


BOUNDED_SRC = r"""
extern "C" __global__ void __launch_bounds__(128) bounded(int* out) {
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  out[t] = 3 * t + 1;
}
"""


@needs_nvcc
def test_more_threads_than_launch_bounds_are_refused():
    """CUDA fails a launch with more threads per block than ``__launch_bounds__`` (``.maxntid``) promises."""
    module = ndpgpu.RawModule(code=BOUNDED_SRC)
    assert ".maxntid 128" in module.ptx
    fn = module.get_function("bounded")
    out = ndpgpu.zeros(256, np.int32)
    for block in ((256,), (16, 16), (129,)):
        with pytest.raises(ndpgpu.LaunchConfigError, match="__launch_bounds__"):
            fn((1,), block, (out,))
    assert not out.get().any()  # nothing ran
    for block in ((128,), (64, 2)):
        fn((1,), block, (out,))
        assert np.array_equal(out.get()[:128], 3 * np.arange(128) + 1)


HEAVY_SRC = r"""
#define N 96
extern "C" __global__ void heavy(const float* x, float* y) {
  int t = threadIdx.x, n = blockDim.x;
  float v[N];
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = x[t + k * n];
#pragma unroll
  for (int k = 0; k < N; ++k) s += v[k] * v[N - 1 - k];
#pragma unroll
  for (int k = 0; k < N; ++k) y[t + k * n] = v[k] * s;
}
"""
REGISTERS_PER_SM = 65536  # compute capability 7.5 and newer
REGISTER_UNIT = 256  # registers are allocated to a warp in units of 256


@needs_nvcc
def test_a_block_needing_more_registers_than_an_sm_has_is_refused():
    """cudaErrorLaunchOutOfResources: a block needs ceil(threads / 32) warps of 32 x regs registers each,
    rounded up to the allocation unit, and all of them must fit in one SM's 65536."""
    module = ndpgpu.RawModule(code=HEAVY_SRC)
    regs = module.registers.get("heavy")
    if not regs:
        pytest.skip("ptxas reported no register count")
    per_warp = -(-regs * 32 // REGISTER_UNIT) * REGISTER_UNIT
    fits = REGISTERS_PER_SM // per_warp  # warps of one block that fit
    if fits >= 32:
        pytest.skip(f"the kernel needs only {regs} registers: every block of up to 1024 threads fits")
    fn = module.get_function("heavy")
    too_many = (fits + 1) * 32
    x = ndpgpu.asarray(np.arange(96 * 1024, dtype=np.float32) % 7 - 3)
    y = ndpgpu.zeros(96 * 1024, np.float32)
    with pytest.raises(ndpgpu.LaunchConfigError, match="registers"):
        fn((1,), (too_many,), (x, y))
    with pytest.raises(ndpgpu.LaunchConfigError, match="registers"):
        fn((1,), (fits * 32 + 1,), (x, y))  # one thread more is one warp more
    n = fits * 32  # the largest block that fits runs
    fn((1,), (n,), (x, y))
    v = (np.arange(96 * n, dtype=np.float32) % 7 - 3).reshape(96, n)
    s = (v * v[::-1]).sum(axis=0)  # small integers: exact in float32 whatever the order
    np.testing.assert_array_equal(y.get()[: 96 * n].reshape(96, n), v * s)
