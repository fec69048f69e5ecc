"""Run a registered workload: inputs, host launch sequence, check against the NumPy reference.

``run_workload`` runs and checks one workload at a scale (optionally timed on a machine).
``record_workload`` is the functional step of a sweep: it also persists one trace per launch so that
every machine and policy of the sweep can replay them without re-running the kernels.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..api import Device, RawModule
from ..frontend import nvcc
from .base import OutputCheck, RunContext, Workload, check_outputs, get_workload

CODE_VERSION = "0.1.0"


@dataclasses.dataclass
class WorkloadRun:
    """The outcome of one workload run."""

    name: str
    scale: str
    passed: bool
    checks: list[OutputCheck]
    stats: dict[str, float]
    provenance: dict[str, str]
    launches: int
    wall_seconds: float
    device: Device
    module: RawModule | None = None  # the compiled module the run launched (mechanism policies analyse it)
    outputs: dict[str, np.ndarray] | None = None  # what the workload's launch returned

    def summary(self) -> str:
        status = "ran, not checked" if not self.checks else "PASS" if self.passed else "FAIL"
        lines = [f"{self.name} [{self.scale}] {status}: {self.launches} launches, "
                 f"{self.stats.get('thread_instructions', 0):,.0f} thread-instructions, {self.wall_seconds:.2f} s"]
        if self.stats.get("truncated_launches"):
            cut, kept = self.stats["truncated_launches"], self.stats["traced_warp_instructions"]
            lines.append(f"  traced: a prefix of {cut:.0f} launch(es) (the trace's size cap): {kept:,.0f} of "
                         f"{self.stats['warp_instructions']:,.0f} warp-instructions")
        lines += [f"  {c.message}" for c in self.checks if not c.passed]
        return "\n".join(lines)


@dataclasses.dataclass
class Recording:
    """A functional run with its traces persisted (the shared step of a sweep)."""

    name: str
    scale: str
    passed: bool
    checks: list[OutputCheck]
    trace_paths: list[Path]
    stats: dict[str, float]
    provenance: dict[str, str]
    copies: list[dict] = dataclasses.field(default_factory=list)  # Device.copies of the run
    allocations: list[dict] = dataclasses.field(default_factory=list)  # device allocations: addr, bytes, label


def _hash_files(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _hash_inputs(inputs: dict[str, Any]) -> str:
    h = hashlib.sha256()
    for key in sorted(inputs):
        v = inputs[key]
        h.update(key.encode())
        if isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode())
            h.update(str(v.shape).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        else:
            h.update(repr(v).encode())
    return h.hexdigest()[:16]


def _module_for(cls: type[Workload]) -> RawModule:
    paths = cls.source_paths()
    if not paths:
        raise ValueError(f"workload {cls.name!r} names no CUDA sources")
    if len(paths) == 1:
        return RawModule(path=str(paths[0]), options=cls.options)
    # several translation units are concatenated into one (workloads keep their kernels in one namespace)
    code = "\n".join(f'#line 1 "{p.name}"\n' + p.read_text() for p in paths)
    return RawModule(code=code, options=(*cls.options, f"-I{paths[0].parent}"))


def run_workload(name: str | type[Workload], scale: str = "tiny", *, machine: str | None = None,
                 overrides: dict | None = None, trace: bool | None = None, bounds_check: bool = False,
                 check: bool = True, device: Device | None = None) -> WorkloadRun:
    """Run workload ``name`` (or a :class:`Workload` class, e.g. a kernel file's) at ``scale`` and check its
    outputs against the reference."""
    cls = name if isinstance(name, type) else get_workload(name)
    name = cls.name
    params = cls.params(scale)
    workload = cls()
    rng = np.random.default_rng(cls.seed)
    inputs = workload.inputs(params, rng)
    module = _module_for(cls)
    dev = device or Device(machine, overrides=overrides, trace=trace, bounds_check=bounds_check)
    t0 = time.perf_counter()
    with dev:
        outputs = workload.launch(RunContext(module, dev, scale, params), inputs, params)
    wall = time.perf_counter() - t0
    checks: list[OutputCheck] = []
    if check:
        expected = workload.reference(inputs, params)
        checks = check_outputs(outputs, expected, cls.tolerance)
    stats = {
        "launches": float(len(dev.launches)),
        "warp_instructions": float(sum(r.warp_instructions for r in dev.launches)),
        "thread_instructions": float(sum(r.thread_instructions for r in dev.launches)),
        "functional_seconds": float(sum(r.wall_seconds for r in dev.launches)),
    }
    if dev.traces:  # what the traces hold: less than the run when a size cap kept only a prefix of a launch
        stats["traced_warp_instructions"] = float(sum(t.warp_instructions() for t in dev.traces))
        stats["truncated_launches"] = float(sum(bool(t.truncated) for t in dev.traces))
    provenance = {
        "workload": name, "scale": scale, "nvcc_version": module.nvcc_version, "arch": module.arch,
        "source_hash": _hash_files(cls.source_paths()), "input_hash": _hash_inputs(inputs),
        "code_version": CODE_VERSION,
    }
    return WorkloadRun(name, scale, all(c.passed for c in checks), checks, stats, provenance,
                       len(dev.launches), wall, dev, module, outputs)


def record_workload(name: str, scale: str, trace_dir: Path | str) -> Recording:
    """Run ``name`` at ``scale`` with tracing and persist one trace per launch under ``trace_dir``."""
    trace_dir = Path(trace_dir)
    trace_dir.mkdir(parents=True, exist_ok=True)
    run = run_workload(name, scale, trace=True)
    allocs = [{"addr": a.address, "bytes": a.size, "label": a.label} for a in run.device.memory.allocations]
    paths = []
    for i, tr in enumerate(run.device.traces):
        paths.append(tr.save(trace_dir / f"launch{i:04d}.npz"))
    (trace_dir / "recording.json").write_text(json.dumps({
        "name": name, "scale": scale, "passed": run.passed, "stats": run.stats, "provenance": run.provenance,
        "traces": [p.name for p in paths], "copies": run.device.copies, "allocations": allocs,
    }, indent=1))
    return Recording(name, scale, run.passed, run.checks, paths, run.stats, run.provenance,
                     copies=list(run.device.copies), allocations=allocs)


def toolchain_available() -> bool:
    """True when nvcc and a host compiler are present (workloads need them)."""
    return nvcc.nvcc_available()
