"""Executors by name: ``simulator`` (the functional engine plus the timing engine) and ``fake`` (tests).

A worker process rebuilds its executor from ``(name, options)``, so an executor must be registered by a
module that :func:`get_executor_class` imports: this one, :mod:`ndpgpu.experiments.fake`, or a module
named as ``"package.module:Class"``.
"""

from __future__ import annotations

import importlib
import inspect
import numbers
from pathlib import Path
from typing import Any

from ..registry import Registry
from .interfaces import Executor, MachineConfig, MetricRow, Provenance, RecordingManifest
from .points import DEFAULT_POLICY, Point
from .provenance import canonical_json, code_version, short_hash, workload_input_hash, workload_source_hash

_BUILTIN_MODULES = ("ndpgpu.experiments.fake",)


class ExecutorError(LookupError):
    """An unknown executor name."""


def _load_builtin() -> None:
    for module in _BUILTIN_MODULES:
        importlib.import_module(module)


EXECUTORS: Registry[type[Executor]] = Registry("executor", error=ExecutorError, load=_load_builtin)


def register_executor(name: str) -> Any:
    """Class decorator: register an :class:`Executor` subclass under ``name``."""

    def deco(cls: type[Executor]) -> type[Executor]:
        EXECUTORS.register(name, cls)
        cls.name = name
        return cls

    return deco


def get_executor_class(name: str) -> type[Executor]:
    """The executor registered as ``name`` (or ``"module:Class"``); an unknown name lists the known ones."""
    if ":" in name:
        module, _, attr = name.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        if not (inspect.isclass(cls) and issubclass(cls, Executor)):
            raise ExecutorError(f"{name} is not an Executor subclass")
        return cls
    return EXECUTORS.get(name)


def make_executor(name: str, options: dict[str, Any] | None = None) -> Executor:
    """Build the executor ``name`` with ``options``."""
    return get_executor_class(name)(options)


def _machine_dict(machine: Any) -> dict[str, Any]:
    for attr in ("to_config", "config_dict"):
        fn = getattr(machine, attr, None)
        if callable(fn):
            return dict(fn())
    dump = getattr(machine, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return {"repr": repr(machine)}


@register_executor("simulator")
class SimulatorExecutor(Executor):
    """The real thing: ``record_workload`` (functional run, outputs checked) and ``TimingSession`` replay.

    Options: ``arch`` (the nvcc architecture; default the frontend's).
    """

    preload = ("ndpgpu.workloads.runner", "ndpgpu.timing")

    def _arch(self) -> str:
        from ndpgpu.frontend.nvcc import DEFAULT_ARCH

        return str(self.options.get("arch", DEFAULT_ARCH))

    def identify(self, workload: str, scale: str) -> Provenance:
        from ndpgpu.frontend.nvcc import toolchain
        from ndpgpu.workloads.base import get_workload

        cls = get_workload(workload)
        return Provenance(
            source_hash=workload_source_hash(cls),
            input_hash=workload_input_hash(cls, scale),
            nvcc_version=toolchain().version,
            arch=self._arch(),
            code_version=code_version(),
        )

    def _load_machine(self, point: Point) -> Any:
        from ndpgpu.timing import load_machine

        return load_machine(point.machine, overrides=dict(point.overrides))

    def _policy(self, point: Point) -> Any:
        """The point's session policy (``mechanisms.policy``), or None for the baseline."""
        from ..mechanisms.policy import make_policy

        return None if point.policy == DEFAULT_POLICY else make_policy(point.policy)

    def configure(self, point: Point) -> MachineConfig:
        self._policy(point)  # an unknown policy fails here, before anything runs
        machine = self._load_machine(point)
        config = {"machine": point.machine, "policy": point.policy, "config": _machine_dict(machine)}
        return MachineConfig(
            config_hash=short_hash(canonical_json([str(machine.config_hash()), point.policy])), config=config
        )

    def record(self, workload: str, scale: str, trace_dir: Path) -> RecordingManifest:
        from ndpgpu.workloads.runner import record_workload

        kwargs: dict[str, Any] = {"trace_dir": trace_dir}
        if "arch" in self.options and "arch" in inspect.signature(record_workload).parameters:
            kwargs["arch"] = self._arch()
        rec = record_workload(workload, scale, **kwargs)
        checks = [_check_dict(c) for c in rec.checks]
        return RecordingManifest(
            workload=workload,
            scale=scale,
            passed=bool(rec.passed),
            checks=checks,
            trace_paths=[str(p) for p in rec.trace_paths],
            stats={str(k): float(v) for k, v in dict(rec.stats).items() if not str(k).endswith("seconds")},
            provenance={str(k): v for k, v in dict(rec.provenance).items()},
            copies=[dict(c) for c in getattr(rec, "copies", [])],
            allocations=[dict(a) for a in getattr(rec, "allocations", [])],
        )

    def verify(self, recording: RecordingManifest) -> None:
        from ndpgpu.trace.format import KernelTrace

        for path in recording.trace_paths:
            KernelTrace.verify(path)

    def time(self, point: Point, recording: RecordingManifest) -> list[MetricRow]:
        from ndpgpu.timing.measure import measure
        from ndpgpu.trace.format import KernelTrace

        traces = [KernelTrace.load(p, mmap=True) for p in recording.trace_paths]  # shared, file-backed pages
        m = measure(self._load_machine(point), traces, recording.copies, policy=self._policy(point),
                    recording=recording)
        # identity rows (kernel name, machine, hash) are strings: the point's key already records them
        return [MetricRow(str(p), str(name), float(v), str(u)) for p, name, v, u in m.rows()
                if isinstance(v, numbers.Real) and not _is_wall_time(str(name))]


def _is_wall_time(stat: str) -> bool:
    """Wall-clock statistics differ run to run: they are not stored as results (the store keeps each
    point's run time in ``points.elapsed_s``; the functional run's ``*seconds`` stats are dropped too)."""
    return "wall" in stat


def _check_dict(check: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in ("name", "passed", "max_abs_error", "max_rel_error", "message"):
        if hasattr(check, field):
            value = getattr(check, field)
            out[field] = value if isinstance(value, (bool, str)) else float(value)
    return out
