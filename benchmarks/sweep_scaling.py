"""Sweep scaling: the same sweep on 1 and 2 workers (local pool and a local Dask cluster), and an estimate for N
workers computed from the measured per-task times.

Each run starts from an empty store and an empty trace directory, so recordings are part of it. The
estimate replays the runner's policy (recordings first, in spec order; a finished recording puts its points
at the head of the queue; a free worker takes the next task) on N workers with each task's measured
duration: a recording's ``elapsed_s`` from its manifest, a point's ``points.elapsed_s`` from the store.
Task overheads (dispatch, result transfer, writing) are not in those durations, so the estimate is a lower
bound; the 2-worker estimate is printed beside the measured 2-worker run to show how far it is off.

    python benchmarks/sweep_scaling.py                       # builtin workloads, small scale, gtx480
    python benchmarks/sweep_scaling.py --estimate-only --store S --traces T --experiment E   # any store
"""

from __future__ import annotations

import argparse
import heapq
import json
import shutil
import tempfile
import time
from collections import deque
from pathlib import Path

from ndpgpu.experiments import run_sweep, spec_from_dict
from ndpgpu.experiments.store import Filters, ResultStore


def task_times(store: Path, traces: Path, experiment: str | None) -> list[tuple[float, list[float]]]:
    """(recording seconds, [point seconds]) per recording group, in the store's order."""
    with ResultStore(store, read_only=True) as db:
        points = db.points(Filters(experiment=experiment)) if experiment else db.points()
    by_workload: dict[tuple[str, str], list[float]] = {}
    for p in points:
        by_workload.setdefault((p["workload"], p["scale"]), []).append(float(p["elapsed_s"] or 0.0))
    groups = []
    for (workload, scale), times in by_workload.items():
        manifests = list((traces / workload / scale).glob("*/manifest.json"))
        rec = max((json.loads(m.read_text()).get("elapsed_s") or 0.0 for m in manifests), default=0.0)
        groups.append((float(rec), times))
    return groups


def simulate(groups: list[tuple[float, list[float]]], workers: int) -> float:
    """The makespan of the runner's policy on ``workers`` workers with these task durations."""
    pending: deque[tuple[str, int, float]] = deque(("record", i, rec) for i, (rec, _) in enumerate(groups))
    free_at = [0.0] * workers
    running: list[tuple[float, str, int]] = []  # (finish time, kind, group)
    now, end = 0.0, 0.0
    while pending or running:
        while pending and len(running) < workers:
            kind, g, d = pending.popleft()
            w = min(range(workers), key=lambda i: free_at[i])
            start = max(now, free_at[w])
            free_at[w] = start + d
            heapq.heappush(running, (start + d, kind, g))
        finish, kind, g = heapq.heappop(running)
        now = end = max(end, finish)
        if kind == "record":
            pending.extendleft(reversed([("time", g, d) for d in groups[g][1]]))
    return end


def run_once(spec_dict: dict, jobs: int, dask_workers: int | None, root: Path) -> tuple[float, Path, Path]:
    store, traces = root / "r.duckdb", root / "traces"
    start = time.perf_counter()
    if dask_workers is None:
        result = run_sweep(spec_from_dict(spec_dict), jobs=jobs, store=store, traces=traces, progress=False)
    else:
        from distributed import LocalCluster

        with LocalCluster(n_workers=dask_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                          host="127.0.0.1") as cluster:
            result = run_sweep(spec_from_dict(spec_dict), store=store, traces=traces, progress=False,
                               scheduler=cluster.scheduler_address)
    wall = time.perf_counter() - start
    if result.failures:
        raise SystemExit(f"failed points: {result.failures}")
    return wall, store, traces


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", nargs="+", default=["suite:builtin"])
    ap.add_argument("--scale", default="small")
    ap.add_argument("--machines", nargs="+", default=["gtx480"])
    ap.add_argument("--estimate-only", action="store_true", help="only estimate from --store/--traces")
    ap.add_argument("--store", type=Path)
    ap.add_argument("--traces", type=Path)
    ap.add_argument("--experiment", default=None)
    ap.add_argument("--workers", nargs="+", type=int, default=[1, 2, 4, 8, 16, 32, 64])
    args = ap.parse_args()
    if args.estimate_only:
        groups = task_times(args.store, args.traces, args.experiment)
    else:
        spec = {"name": "scaling", "grid": {"workloads": args.workloads, "scales": [args.scale],
                                           "machines": args.machines}}
        rows, groups = [], []
        for label, jobs, dask_workers in (("local pool", 1, None), ("local pool", 2, None),
                                          ("Dask LocalCluster", 1, 1), ("Dask LocalCluster", 2, 2)):
            root = Path(tempfile.mkdtemp(prefix="ndpgpu-scaling-"))
            wall, store, traces = run_once(spec, jobs, dask_workers, root)
            if (label, jobs) == ("local pool", 1):
                groups = task_times(store, traces, None)
            rows.append((label, jobs, wall))
            shutil.rmtree(root, ignore_errors=True)
        print("| engine | workers | wall s | speed-up over 1 worker |\n| --- | --- | --- | --- |")
        for label, jobs, wall in rows:
            one = next(w for lab, j, w in rows if lab == label and j == 1)
            print(f"| {label} | {jobs} | {wall:.1f} | {one / wall:.2f} |")
    total = sum(rec + sum(pts) for rec, pts in groups)
    print(f"\n{sum(len(p) for _, p in groups)} points, {len(groups)} recordings, {total:.1f} s of task time; "
          f"longest recording + its longest point {max(r + max(p, default=0) for r, p in groups):.1f} s")
    print("| workers | estimated s | efficiency |\n| --- | --- | --- |")
    for n in args.workers:
        t = simulate(groups, n)
        print(f"| {n} | {t:.1f} | {total / (n * t):.0%} |")


if __name__ == "__main__":
    main()
