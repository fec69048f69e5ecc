"""Run an exploration: record the kernel once, then time every mechanism's machine with and without it (and
the reference GPU) through the sweep runner, resumable in the result store."""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import Any

from ..points import DEFAULT_POLICY, Point, SweepSpec
from ..provenance import canonical_json, short_hash
from ..runner import default_store_path, run_sweep
from ..store import Filters, ResultStore
from .defaults import REFERENCE, Option, select
from .executor import NAME, ExploreExecutor
from .target import Target, resolve


@dataclasses.dataclass
class Measured:
    """The stored rows of every point explored: (machine, policy) -> metric name -> value."""

    rows: dict[tuple[str, str], dict[str, float]]
    keys: dict[tuple[str, str], str]
    errors: dict[tuple[str, str], str]

    def get(self, machine: str, policy: str) -> dict[str, float] | None:
        return self.rows.get((machine, policy))


@dataclasses.dataclass
class Plan:
    """What an exploration runs: the target, its options (policies resolved for it), the reference GPU."""

    target: Target
    options: list[Option]
    reference: str
    overrides: dict[str, Any]
    launches: list[Any]  # LaunchInfo of each recorded launch
    kernels: list[str]

    def points(self) -> list[Point]:
        t, ov = self.target, self.overrides
        pts = [Point(workload=t.workload, scale=t.scale, machine=self.reference, overrides=ov)]
        for o in self.options:
            pts += [Point(workload=t.workload, scale=t.scale, machine=o.machine, policy=o.baseline, overrides=ov),
                    Point(workload=t.workload, scale=t.scale, machine=o.machine, policy=o.policy, overrides=ov)]
        return list({p.identity(): p for p in pts}.values())


def ipndp_policy(workload: str, launches: list[Any]) -> str:
    """IP-NDP's policy for this kernel: PACA with the prefetcher for the suite's pattern-aware kernels, the
    prefetcher alone (round-robin CTAs) for any other, with the image row taken from the launch when the kernel
    is not one of the suite's (a 2-D launch's gridDim.x x blockDim.x, else its whole width)."""
    if workload.startswith("ipndp_"):
        return "ipndp:paca+pf" if re.search(r"_pa(16)?(_|$)", workload) else "ipndp:rr+pf"
    two_d = [tr for tr in launches if tr.grid[1] > 1 or tr.block[1] > 1]
    tr = (two_d or launches or [None])[0]
    width = tr.grid[0] * tr.block[0] if tr is not None else 1
    return f"ipndp:rr+pf,width={width}"


def experiment_name(target: Target) -> str:
    return "explore-" + re.sub(r"[^A-Za-z0-9_.\-]", "_", f"{target.workload}-{target.scale}")


def _record(target: Target, options: dict[str, Any], traces_root: Path) -> Any:
    """Record the target once, where the sweep will look for it (the same directory and key), and return its
    manifest; a failed functional check raises."""
    from .. import worker

    executor = ExploreExecutor(options)
    prov = executor.identify(target.workload, target.scale)
    rec_key = short_hash(canonical_json([NAME, target.workload, target.scale, dataclasses.asdict(prov)]))
    rec_dir = traces_root / target.workload / target.scale / rec_key
    answer = worker.run_record(NAME, options, target.workload, target.scale, str(rec_dir),
                               worker.recording_key(target.workload, target.scale, prov))
    if answer["status"] != "ok":
        raise RuntimeError(f"recording {target.workload}@{target.scale} failed: {answer['error']}")
    manifest = answer["manifest"]
    if not manifest.passed:
        raise RuntimeError(f"{target.workload}@{target.scale}: functional check failed: {manifest.failure_message()}")
    return manifest


def plan(target: str | Target, *, scale: str = "small", mechanisms: list[str] | None = None,
         machines: dict[str, str] | None = None, overrides: dict[str, Any] | None = None,
         reference: str = REFERENCE, launch: dict[str, Any] | None = None, traces: Path | None = None,
         compose: bool = False) -> tuple[Plan, dict[str, Any]]:
    """Resolve the target, record it, and fix each option's policy for it; returns the plan and the executor's
    options."""
    from ...trace.format import KernelTrace

    t = target if isinstance(target, Target) else resolve(target, scale, launch)
    opts = select(mechanisms, machines, compose)
    ex_options: dict[str, Any] = {"file": t.file} if t.file else {}
    assert traces is not None
    manifest = _record(t, ex_options, traces)
    launches = [KernelTrace.load(p).launch for p in manifest.trace_paths]
    kernels = list(dict.fromkeys(str(tr.kernel) for tr in launches))
    ipndp = ipndp_policy(t.workload, launches)
    opts = [dataclasses.replace(o, policy=o.policy.replace("ipndp:rr+pf", ipndp) if o.beyond else ipndp)
            if "ipndp" in o.key else o for o in opts]
    return Plan(t, opts, reference, dict(overrides or {}), launches, kernels), ex_options


def run(p: Plan, ex_options: dict[str, Any], *, jobs: int = 2, store: str | Path | None = None,
        traces: Path | None = None, scheduler: str | None = None, progress: bool | None = None) -> Measured:
    """Time every point of ``p`` (stored points are reused) and read their rows back."""
    spec = SweepSpec(name=experiment_name(p.target), description=f"ndpgpu explore {p.target.label}",
                     executor=NAME, executor_options=ex_options, points=p.points())
    result = run_sweep(spec, jobs=jobs, store=store, traces=traces, progress=progress, scheduler=scheduler)
    keys = {(pp.point.machine, pp.point.policy): pp.key for pp in result.points}
    db, _ = ResultStore.open_for_reading(result.store_path)
    try:
        rows: dict[tuple[str, str], dict[str, float]] = {k: {} for k in keys}
        by_key = {v: k for k, v in keys.items()}
        for r in db.results(Filters(keys=list(keys.values()))):
            rows[by_key[r["key"]]][r["name"]] = float(r["value"])
        errors = {by_key[pt["key"]]: str(pt.get("error") or "") for pt in db.points(Filters(keys=list(keys.values())))
                  if pt.get("status") != "ok"}
    finally:
        db.close()
    return Measured({k: v for k, v in rows.items() if v}, keys, errors)


def explore(target: str, *, scale: str = "small", mechanisms: list[str] | None = None,
            machines: dict[str, str] | None = None, overrides: dict[str, Any] | None = None,
            reference: str = REFERENCE, launch: dict[str, Any] | None = None, jobs: int = 2,
            store: str | Path | None = None, traces: str | Path | None = None, scheduler: str | None = None,
            progress: bool | None = None, compose: bool = False) -> Any:
    """Explore ``target`` (a workload, a launch YAML, or a .cu file with ``launch``) under every mechanism (or
    ``mechanisms``; ``compose``: also the compatible pairs, beyond the papers); returns an
    :class:`~.analysis.Exploration` (rows ranked, verdicts, report writers)."""
    from ...workloads.base import get_workload
    from ...workloads.runner import _module_for
    from .analysis import build
    from .verdicts import all_verdicts

    start = time.perf_counter()
    store_path = Path(store) if store is not None else default_store_path()
    traces_root = (Path(traces) if traces is not None else store_path.parent / "traces").absolute()
    p, ex_options = plan(target, scale=scale, mechanisms=mechanisms, machines=machines, overrides=overrides,
                         reference=reference, launch=launch, traces=traces_root, compose=compose)
    measured = run(p, ex_options, jobs=jobs, store=store_path, traces=traces_root, scheduler=scheduler,
                   progress=progress)
    module = _module_for(get_workload(p.target.workload))
    verdicts = all_verdicts(module, p.kernels, p.launches, p.target.workload,
                            list(dict.fromkeys(o.mechanism for o in p.options if not o.beyond)))
    return build(p, measured, verdicts, elapsed_s=time.perf_counter() - start, store=store_path)


__all__ = ["DEFAULT_POLICY", "Measured", "Plan", "explore", "plan", "run"]
