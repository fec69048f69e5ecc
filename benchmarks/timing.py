"""Timing-engine speed: wall time per kernel in one warm process, against GPGPU-Sim's 100x targets.

Run: ``python benchmarks/timing.py [--repeat N] [--json OUT]``. For each case the workload's launch
sequence runs functionally with tracing (outputs are not checked here; CI checks them), then every
launch is timed on the machine. Compilation (nvcc and numba, functional and timing engines) happens in a
warm-up round whose time is reported separately; the figures are the best of ``--repeat`` rounds.

``--against DIR`` compares the timing engine of this checkout with another (DIR: its repository root,
e.g. a ``git worktree`` of the commit before a change): every case's traces are recorded once, then one
child process per tree and round times all cases (``--rounds`` rounds, old and new alternating; each child
warms up, then keeps the best of ``--repeat``), and the best timing seconds of each tree and their ratio
are printed. Both trees run the cases through the public API (``TimingSession``, session policies).

Reported per case: functional+trace seconds, timing seconds, their sum (the figure the targets apply
to), simulated core cycles, warp-instructions, and cycles and warp-instructions simulated per second
of timing. Targets (GPGPU-Sim 4.0 on this kind of machine / 100, ``shared/reference/gpgpusim.md``):
vector add 2^20 0.87 s on gtx480 and 1.65 s on v100, naive matmul 256 2.97 s on gtx480.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.mechanisms.policy import make_policy
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
    # LLC-Compute / Omni-Compute (seed 001): vector add of 2^20 floats (`small`) and KMN, with and without
    # offloading (docs/llc.md)
    ("llc_vecadd_aligned", "small", "llc-mesh", None),
    ("llc_vecadd_aligned", "small", "llc-mesh", None, "llc:llc"),
    ("llc_vecadd_strided", "small", "llc-mesh", None),
    ("llc_vecadd_strided", "small", "llc-mesh", None, "llc:omni"),
    ("kmeans", "small", "llc-mesh", None),
    ("kmeans", "small", "llc-mesh", None, "llc:omni"),
    # MPU (seed 003): its processor on the mpu machine (docs/mpu.md)
    ("mpu_gemv", "small", "mpu", None, "mpu:annotation"),
    ("mpu_blur", "small", "mpu", None, "mpu:annotation"),
    # TELEPORT (seed 002): JAC's `small` input with the preload controller (docs/teleport.md)
    ("tp_jacobi", "small", "gtx480", None, "teleport:real"),
    # IP-NDP (seed 004): Conv2D's pattern-aware kernel on IP-8 (PACA with prefetching) at the paper's 2048x2048
    ("ipndp_conv2d_pa", "paper", "ipndp-ip8", None, "ipndp:paca+pf"),
    # the declared GPGPU-Sim timings the reproductions run on (docs/timing.md, "Three timing flavours"): fetch
    # buffers, instruction and constant caches, the refetch after a taken branch
    ("sgemm_naive", {"n": 256}, "gtx480-gpgpusim", None),
    ("bfs", {"nodes": 1 << 16, "max_degree": 11, "block": 256}, "gtx480-gpgpusim3", None),
]


def record(name: str, params: dict[str, Any] | str, clock: Callable[[], float] = time.perf_counter
           ) -> tuple[dict[str, Any], Any, ndpgpu.Device, float]:
    """Run a workload functionally with tracing: (its parameters, its module, the device holding the traces and
    allocations, the run's seconds by ``clock``; nvcc's compilation is not counted)."""
    cls = get_workload(name)
    p = cls.params(params) if isinstance(params, str) else params
    wl = cls()
    inputs = wl.inputs(p, np.random.default_rng(cls.seed))
    module = _module_for(cls)
    t0 = clock()
    with ndpgpu.Device(trace=True) as dev:
        wl.launch(RunContext(module, dev, "bench", p), inputs, p)
    return p, module, dev, clock() - t0


def run_case(name: str, params: dict[str, Any] | str, machine: str, policy: str | None = None) -> dict[str, Any]:
    """One round: functional run with traces, then timing of every launch on ``machine`` (with ``policy``
    prepared first: its time, candidate analysis and mapping included, counts as timing)."""
    params, _module, dev, functional_s = record(name, params)
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


def record_cases(directory: Path, only: set[int] | None = None) -> None:
    """Run every case's workload functionally once and save its traces and allocations under ``directory``."""
    for i, (name, params, _machine, _, *_pol) in enumerate(CASES):
        if only is not None and i not in only:
            continue
        dev = record(name, params)[2]
        case = directory / f"case{i}"
        case.mkdir(parents=True, exist_ok=True)
        for k, trace in enumerate(dev.traces):
            trace.save(case / f"launch{k}.npz")
        allocs = [{"addr": a.address, "bytes": a.size} for a in dev.memory.allocations]
        (case / "allocations.json").write_text(json.dumps(allocs))


def time_recorded(directory: Path, repeat: int, only: set[int] | None = None) -> None:
    """Child of ``--against``: time every recorded case on its machine (a warm-up, then best of ``repeat``)
    and print ``{case: [timing seconds, cycles]}`` as JSON."""
    from ndpgpu.trace.format import KernelTrace

    out: dict[str, list[float]] = {}
    for i, (name, _params, machine, _, *pol) in enumerate(CASES):
        if only is not None and i not in only:
            continue
        case = directory / f"case{i}"
        traces = [KernelTrace.load(f) for f in sorted(case.glob("launch*.npz"), key=lambda f: int(f.stem[6:]))]
        allocs = json.loads((case / "allocations.json").read_text())
        best = float("inf")
        for r in range(repeat + 1):  # round 0 warms up (numba cache loads, first touch) and is not counted
            t0 = time.perf_counter()
            session = TimingSession(machine)
            if pol:
                make_policy(pol[0]).prepare(session, SimpleNamespace(workload=name, allocations=allocs), traces)
            for trace in traces:
                session.run_launch(trace)
            dt = time.perf_counter() - t0
            if r > 0:
                best = min(best, dt)
        out[str(i)] = [best, int(session.totals().cycles)]
    print(json.dumps(out))


def compare(other: Path, rounds: int, repeat: int, only: set[int] | None = None) -> None:
    """Timing-only comparison of this checkout and ``other``, interleaved (see the module docstring)."""
    import tempfile

    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        record_cases(Path(tmp), only)
        runs: dict[str, list[dict[str, list[float]]]] = {"old": [], "new": []}
        for _ in range(rounds):
            for label, tree in (("old", other), ("new", here)):
                env = dict(os.environ, PYTHONPATH=str(tree / "src"))
                cases = ["--cases", ",".join(map(str, sorted(only)))] if only else []
                cmd = [sys.executable, __file__, "--child", tmp, "--repeat", str(repeat), *cases]
                res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                runs[label].append(json.loads(res.stdout.strip().splitlines()[-1]))
    print(f"# {platform.processor() or platform.machine()}, {platform.python_version()}; this tree {here} (new) "
          f"against {other} (old); timing only (the traces recorded once), {rounds} interleaved rounds of one "
          f"process per tree, best of {repeat} per process after a warm-up; the figure is the best over rounds")
    print("| kernel | machine | old timing s | new timing s | new/old | cycles old | cycles new |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    tot_o = tot_n = 0.0
    for i, (name, params, machine, _, *pol) in enumerate(CASES):
        if only is not None and i not in only:
            continue
        o = min(r[str(i)][0] for r in runs["old"])
        n = min(r[str(i)][0] for r in runs["new"])
        tot_o, tot_n = tot_o + o, tot_n + n
        label = machine + (f" {pol[0]}" if pol else "")
        size = params if isinstance(params, str) else ", ".join(f"{k}={v}" for k, v in params.items() if k != "block")
        print(f"| {name} ({size}) | {label} | {o:.3f} | {n:.3f} | {n / o:.3f} | {runs['old'][0][str(i)][1]:,} | "
              f"{runs['new'][0][str(i)][1]:,} |")
    print(f"| all | | {tot_o:.3f} | {tot_n:.3f} | {tot_n / tot_o:.3f} | | |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the rows here")
    ap.add_argument("--against", type=Path, help="compare with the checkout at this directory (interleaved)")
    ap.add_argument("--rounds", type=int, default=2, help="interleaved rounds of --against")
    ap.add_argument("--cases", help="only these case indices (comma-separated)")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    only = {int(x) for x in args.cases.split(",")} if args.cases else None
    if args.child is not None:
        return time_recorded(args.child, args.repeat, only)
    if args.against is not None:
        return compare(args.against.resolve(), args.rounds, args.repeat, only)
    cases = [c for i, c in enumerate(CASES) if only is None or i in only]
    t0 = time.perf_counter()
    for name, params, machine, _, *pol in cases:  # nvcc, numba (both engines), first-touch
        run_case(name, params, machine, *pol)
    warm_s = time.perf_counter() - t0
    rows = []
    for name, params, machine, target, *pol in cases:
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
