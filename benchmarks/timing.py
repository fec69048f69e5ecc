"""Timing-engine speed: wall time per kernel in one warm process, against GPGPU-Sim's 100x targets.

Run: ``python benchmarks/timing.py [--repeat N] [--json OUT]``. For each case the workload's launch
sequence runs functionally with tracing (outputs are not checked here; CI checks them), then every
launch is timed on the machine. Compilation (nvcc and numba, functional and timing engines) happens in a
warm-up round whose time is reported separately; the figures are the best of ``--repeat`` rounds.

Reported per case: functional+trace seconds, timing seconds, their sum (the figure the targets apply
to), simulated core cycles, warp-instructions, and cycles and warp-instructions simulated per second
of timing. Targets (GPGPU-Sim 4.0 on this kind of machine / 100, ``shared/reference/gpgpusim.md``):
vector add 2^20 0.87 s on gtx480 and 1.65 s on v100, naive matmul 256 2.97 s on gtx480.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from types import SimpleNamespace
from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.experiments.policies import make_policy
from ndpgpu.timing import TimingSession
from ndpgpu.workloads.base import RunContext, get_workload
from ndpgpu.workloads.runner import _module_for

CASES = [
    # (workload, params, machine, target seconds or None)
    ("vecadd", {"n": 1 << 20, "block": 256}, "gtx480", 0.87),
    ("vecadd", {"n": 1 << 20, "block": 256}, "v100", 1.65),
    ("sgemm_naive", {"n": 256}, "gtx480", 2.97),
    ("sgemm_naive", {"n": 256}, "v100", None),
    ("bfs", {"nodes": 1 << 16, "max_degree": 11, "block": 256}, "gtx480", None),
    ("bfs", {"nodes": 1 << 16, "max_degree": 11, "block": 256}, "v100", None),
    ("vecadd", {"n": 1 << 20, "block": 256}, "llc-mesh", None),
    ("sgemm_naive", {"n": 256}, "llc-mesh", None),
    ("vecadd", {"n": 1 << 20, "block": 256}, "tom-baseline", None),
    ("vecadd", {"n": 1 << 20, "block": 256}, "ipndp-base8", None),
    # TOM (seed 000): the workload's `small` inputs, timed with a session policy (docs/tom.md)
    ("kmeans", "small", "tom-baseline", None, "tom:gpu+bmap"),
    ("kmeans", "small", "tom-ndp", None, "tom:ctrl+tmap"),
    ("reduction", "small", "tom-ndp", None, "tom:ctrl+tmap"),
]


def run_case(name: str, params: dict[str, Any] | str, machine: str, policy: str | None = None) -> dict[str, Any]:
    """One round: functional run with traces, then timing of every launch on ``machine`` (with ``policy``
    prepared first: its time, candidate analysis and mapping included, counts as timing)."""
    cls = get_workload(name)
    if isinstance(params, str):
        params = cls.params(params)
    wl = cls()
    inputs = wl.inputs(params, np.random.default_rng(cls.seed))
    module = _module_for(cls)
    t0 = time.perf_counter()
    with ndpgpu.Device(trace=True) as dev:
        wl.launch(RunContext(module, dev, "bench", params), inputs, params)
    functional_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    session = TimingSession(machine)
    if policy is not None:
        allocs = [{"addr": a.address, "bytes": a.size} for a in dev.memory.allocations]
        make_policy(policy).prepare(session, SimpleNamespace(workload=name, allocations=allocs), dev.traces)
    for trace in dev.traces:
        session.run_launch(trace)
    timing_s = time.perf_counter() - t1
    total = session.totals()
    return {"workload": name, "params": params, "machine": machine + (f" {policy}" if policy else ""),
            "launches": len(dev.traces),
            "functional_s": functional_s, "timing_s": timing_s, "total_s": functional_s + timing_s,
            "cycles": int(total.cycles), "warp_instructions": int(total.c("WARP_INSTS"))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()
    t0 = time.perf_counter()
    for name, params, machine, _, *pol in CASES:  # nvcc, numba (both engines), first-touch
        run_case(name, params, machine, *pol)
    warm_s = time.perf_counter() - t0
    rows = []
    for name, params, machine, target, *pol in CASES:
        best = min((run_case(name, params, machine, *pol) for _ in range(args.repeat)), key=lambda r: r["total_s"])
        best["target_s"] = target
        best["cycles_per_s"] = best["cycles"] / best["timing_s"]
        best["warp_insts_per_s"] = best["warp_instructions"] / best["timing_s"]
        rows.append(best)
    print(f"# {platform.processor() or platform.machine()}, {platform.python_version()}; "
          f"warm-up round (compilation included) {warm_s:.1f} s; best of {args.repeat}")
    print("| kernel | machine | launches | functional+trace s | timing s | total s | target s | cycles | "
          "warp-instr | cycles/s | warp-instr/s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        size = ", ".join(f"{k}={v}" for k, v in r["params"].items() if k != "block" and k != "max_degree"
                         and not isinstance(v, (list, dict)))
        target = f"{r['target_s']:.2f}" if r["target_s"] else "-"
        print(f"| {r['workload']} ({size}) | {r['machine']} | {r['launches']} | {r['functional_s']:.2f} | "
              f"{r['timing_s']:.2f} | {r['total_s']:.2f} | {target} | {r['cycles']:,} | "
              f"{r['warp_instructions']:,} | {r['cycles_per_s']:,.0f} | {r['warp_insts_per_s']:,.0f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"warm_up_s": warm_s, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
