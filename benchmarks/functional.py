"""Functional-engine speed: active thread-instructions per second, warm, trace off and on.

Run: ``python benchmarks/functional.py [--quick]``. Compilation (nvcc and numba) happens in a warm-up
launch and is reported separately; each figure is the best of ``--repeat`` launches in one process.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import ndpgpu
from ndpgpu.warmup import warmup
from ndpgpu.workloads.base import get_workload


def bench_kernel(name: str, scale_params: dict, repeat: int) -> list[dict]:
    """Run a built-in workload's launch sequence with trace off and on; report per-launch speed."""
    cls = get_workload(name)
    wl = cls()
    inputs = wl.inputs(scale_params, np.random.default_rng(cls.seed))
    from ndpgpu.workloads.base import RunContext
    from ndpgpu.workloads.runner import _module_for

    module = _module_for(cls)
    rows = []
    t0 = time.perf_counter()
    with ndpgpu.Device() as dev:  # warm-up run: nvcc (cached) and first launch
        wl.launch(RunContext(module, dev, "bench", scale_params), inputs, scale_params)
    warm_s = time.perf_counter() - t0
    for trace in (False, True):
        best = None
        for _ in range(repeat):
            with ndpgpu.Device(trace=trace) as dev:
                wl.launch(RunContext(module, dev, "bench", scale_params), inputs, scale_params)
            secs = sum(r.wall_seconds for r in dev.launches)
            tinstr = sum(r.thread_instructions for r in dev.launches)
            if best is None or secs < best[0]:
                best = (secs, tinstr)
        secs, tinstr = best
        rows.append({"workload": name, "params": scale_params, "trace": trace, "seconds": secs,
                     "thread_instructions": tinstr, "mips": tinstr / secs / 1e6, "first_run_s": warm_s})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller inputs (for a smoke run)")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    compile_s, _ = warmup()
    cases = [
        ("saxpy", {"n": 1 << 22}),
        ("sgemm_naive", {"n": 512}),
        ("sgemm_tiled", {"n": 512}),
        ("bfs", {"nodes": 1 << 20}),
    ]
    if args.quick:
        cases = [("saxpy", {"n": 1 << 18}), ("sgemm_naive", {"n": 128}), ("sgemm_tiled", {"n": 128}),
                 ("bfs", {"nodes": 1 << 14})]
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"ndpgpu {ndpgpu.__version__}; engine warm-up (numba compile or cache load) {compile_s:.1f} s")
    print("| workload | size | trace | seconds | thread-instructions | M thread-instr/s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, params in cases:
        cls = get_workload(name)
        full = {**cls.scales["paper"], **params}
        for r in bench_kernel(name, full, args.repeat):
            size = ", ".join(f"{k}={v}" for k, v in params.items())
            print(f"| {name} | {size} | {'on' if r['trace'] else 'off'} | {r['seconds']:.3f} | "
                  f"{r['thread_instructions']:,} | {r['mips']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
