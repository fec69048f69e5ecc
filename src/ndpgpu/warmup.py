"""Compile (or load from numba's cache) the two engines by running a tiny PTX kernel, and the mechanisms' hook
functions, which compile apart (a tool above every layer: it uses the public API and the timing engine).

``python -m ndpgpu.warmup`` needs no nvcc; it prints how long compilation took.

:func:`warmup_both` compiles the two engines at once, in two processes: the timing engine's compile is given the
warm-up kernel's trace as shipped with the package (``warmup_trace.npz``, what :func:`warmup` records), so it
need not wait for the functional engine that records it. The fresh trace is compared with the shipped one
afterwards; if they differ (a trace format change not yet re-shipped), the timing engine is warmed on the fresh
trace too, and the result stays right, only slower.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SHIPPED_TRACE = Path(__file__).resolve().parent / "warmup_trace.npz"

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


def warmup_mechanisms() -> tuple[float, list[str]]:
    """Compile (or load) every found mechanism's hook functions, which compile apart from the engine; return
    the seconds spent and the mechanisms' names."""
    from ndpgpu.timing.engine import hooks

    t0 = time.perf_counter()
    hooks.bind()
    for name in hooks.MECHANISMS:
        hooks.pointers(name)
    return time.perf_counter() - t0, list(hooks.MECHANISMS)


def _same_trace(a: object, b: object) -> bool:
    """Whether two kernel traces hold the same launch and the same arrays."""
    names = ("static", "segments", "warp_seg_start", "mem", "warp_mem_start", "lane_addrs", "regvals")
    return (a.launch == b.launch and a.opcode_names == b.opcode_names  # type: ignore[attr-defined]
            and all(np.array_equal(getattr(a, n), getattr(b, n)) for n in names))


def _timing_child() -> subprocess.Popen | None:
    """Start compiling the timing engine on the shipped trace in a child process, or None when the package has
    no usable shipped trace (then the timing engine is warmed after the functional one, on the fresh trace)."""
    from ndpgpu.trace.format import KernelTrace, TraceError

    try:
        KernelTrace.load(SHIPPED_TRACE)
    except TraceError:
        return None
    return subprocess.Popen([sys.executable, "-m", "ndpgpu.warmup", "--timing-only"], stdout=subprocess.PIPE,
                            text=True)


def warmup_both(report=print) -> None:  # noqa: ANN001 -- any callable taking a line
    """Compile (or load) both engines, concurrently where the shipped trace allows; ``report`` gets one line
    per engine with its seconds (the timing engine's measured in its own process)."""
    child = _timing_child()
    try:
        functional_s, trace = warmup()
        report(f"ndpgpu functional engine ready ({functional_s:.1f} s)")
        mechanisms_s, names = warmup_mechanisms()  # (while the child may still compile the timing engine)
        report(f"ndpgpu mechanisms' hardware ready ({', '.join(names)}: {mechanisms_s:.1f} s)")
    except BaseException:
        if child is not None:  # no orphan compiling on after the failure
            child.kill()
            child.wait()
        raise
    if child is not None:
        out, _ = child.communicate()
        if child.returncode != 0:
            raise RuntimeError(f"the timing engine's warm-up process failed (exit status {child.returncode})")
        report(out.strip())
        from ndpgpu.trace.format import KernelTrace

        if _same_trace(KernelTrace.load(SHIPPED_TRACE), trace):
            return
        report("ndpgpu: the shipped warm-up trace differs from the recorded one (re-ship it with "
               "`python -m ndpgpu.warmup --write-trace`); warming the timing engine on the recorded one")
    report(f"ndpgpu timing engine ready ({warmup_timing(trace):.1f} s)")


def _main(argv: list[str]) -> int:
    if argv == ["--timing-only"]:
        from ndpgpu.trace.format import KernelTrace

        print(f"ndpgpu timing engine ready ({warmup_timing(KernelTrace.load(SHIPPED_TRACE)):.1f} s)")
    elif argv == ["--write-trace"]:
        _, trace = warmup()
        trace.save(SHIPPED_TRACE)  # type: ignore[attr-defined]
        print(f"wrote {SHIPPED_TRACE}")
    elif not argv:
        warmup_both()
    else:
        print("usage: python -m ndpgpu.warmup [--timing-only | --write-trace]", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
