"""Compile (or load from numba's cache) the two engines by running a tiny PTX kernel (a tool above every layer:
it uses the public API and the timing engine).

``python -m ndpgpu.warmup`` needs no nvcc; it prints how long compilation took.
"""

from __future__ import annotations

import time

import numpy as np

WARMUP_PTX = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry warm(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  cvt.rn.f32.u32 %f1, %r1;
  @%p1 bra SKIP;
  fma.rn.f32 %f1, %f1, %f1, %f1;
SKIP:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
  ret;
}
"""


def warmup() -> tuple[float, object]:
    """Run the warm-up kernel with and without tracing; return the seconds spent and a trace of it."""
    import ndpgpu

    t0 = time.perf_counter()
    fn = ndpgpu.RawModule(ptx=WARMUP_PTX).get_function("warm")
    with ndpgpu.Device(trace=True) as dev:
        out = ndpgpu.zeros(32, np.float32)
        fn((1,), (32,), (out,))
        fn((1,), (32,), (out,), trace=False)
        x = np.arange(32, dtype=np.float32)
        expect = np.where(x < 16, x, x * x + x)
        if not np.array_equal(out.get(), expect):
            raise RuntimeError("the functional engine failed its warm-up kernel")
        fn((1,), (32,), (out,), trace=True)
        trace = dev.launches[-1].trace
    return time.perf_counter() - t0, trace


def warmup_timing(trace: object) -> float:
    """Compile (or load) the timing engine by timing the warm-up launch on the gtx480 preset."""
    from ndpgpu.timing import TimingSession

    t0 = time.perf_counter()
    stats = TimingSession("gtx480").run_launch(trace)
    if stats.cycles <= 0:
        raise RuntimeError("the timing engine failed its warm-up launch")
    return time.perf_counter() - t0


if __name__ == "__main__":
    functional_s, warm_trace = warmup()
    print(f"ndpgpu functional engine ready ({functional_s:.1f} s)")
    print(f"ndpgpu timing engine ready ({warmup_timing(warm_trace):.1f} s)")
