"""MPU's timing speed beside MPU-Sim's: warp-instructions simulated per CPU-second, warm.

Run: ``python benchmarks/mpu_speed.py [--repeat N] [--policy mpu:annotation]``. Each kernel runs on machine
``mpu`` at the size MPU-Sim's examples use (vector add of 64K elements, GEMV of 128 x 512; BLUR at our `tiny`
image, MPU-Sim's size for it not being recorded here). Each kernel is recorded once (functional run with
tracing), then timed ``--repeat`` times after a warm-up round (nvcc and numba compilation, reported apart). The
figure is warp-instructions / CPU-seconds of the timing run; the session's set-up (reading the machine preset,
the compiler pass and the state) is reported beside it.

MPU-Sim's figures were measured on this kind of machine (2 cores, warm): vector add 64K, 31,232
warp-instructions in 116 CPU-s; GEMV 128 x 512, 51,200 in 246 CPU-s; that is 210-350 warp-instructions per
CPU-second.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ndpgpu.mechanisms.policy import make_policy
from ndpgpu.timing import TimingSession

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import record  # noqa: E402  (the shared benchmark recording)

CASES = [
    # (our workload, its parameters, MPU-Sim's kernel, MPU-Sim's warp-instructions, MPU-Sim's CPU-seconds)
    ("mpu_axpy", {"n": 1 << 16, "grid": 512}, "vectoradd 64K", 31_232, 116.0),
    ("mpu_gemv", {"nrows": 128, "ncols": 512, "grid": 128}, "gemv 128x512", 51_200, 246.0),
    ("mpu_blur", "tiny", "blur (size not recorded)", None, None),
]


def time_once(name: str, module: Any, traces: list[Any], policy: str) -> tuple[float, float, int]:
    """(set-up CPU-s, timing CPU-s, warp-instructions) of one timing run."""
    c0 = time.process_time()
    session = TimingSession("mpu")
    make_policy(policy).prepare(session, SimpleNamespace(workload=name, allocations=[], module=module), traces)
    c1 = time.process_time()
    for trace in traces:
        session.run_launch(trace)
    c2 = time.process_time()
    return c1 - c0, c2 - c1, int(session.totals().c("WARP_INSTS"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--policy", default="mpu:annotation")
    args = ap.parse_args()
    t0 = time.perf_counter()
    recorded = []
    for c in CASES:
        _, module, dev, functional = record(c[0], c[1], time.process_time)
        recorded.append((c, module, dev.traces, functional))
    for (name, *_), module, traces, _ in recorded:
        time_once(name, module, traces, args.policy)
    warm = time.perf_counter() - t0
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}; machine mpu, "
          f"{args.policy}; warm-up round (nvcc and numba compilation included) {warm:.1f} s; best of {args.repeat}")
    print("| kernel | warp-instr | functional CPU-s | set-up CPU-s | timing CPU-s | warp-instr / CPU-s | MPU-Sim "
          "kernel | MPU-Sim warp-instr / CPU-s | ours / MPU-Sim |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (name, params, sim_name, sim_wi, sim_s), module, traces, functional in recorded:
        setup, run, wi = min((time_once(name, module, traces, args.policy) for _ in range(args.repeat)),
                             key=lambda r: r[1])
        rate = wi / run
        sim_rate = sim_wi / sim_s if sim_wi and sim_s else None
        size = params if isinstance(params, str) else ", ".join(f"{k}={v}" for k, v in params.items())
        print(f"| {name} ({size}) | {wi:,} | {functional:.3f} | {setup:.3f} | {run:.3f} | {rate:,.0f} | {sim_name} | "
              f"{f'{sim_rate:.0f}' if sim_rate else '-'} | {f'{rate / sim_rate:,.0f}x' if sim_rate else '-'} |")


if __name__ == "__main__":
    main()
