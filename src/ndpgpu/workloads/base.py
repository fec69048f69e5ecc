"""The one format every workload follows, and the registry that finds them.

A workload is a subclass of :class:`Workload` in a module under ``ndpgpu.workloads.<suite>``, decorated
with :func:`register` (the first lookup imports every module of every suite package). It names its CUDA
sources (files beside the module), generates its inputs from a seed at named scales, runs the host-side
launch sequence through the public API (``ctx.module`` is a :class:`ndpgpu.RawModule` of its sources),
and gives a NumPy reference with a fair tolerance::

    @register
    class Saxpy(Workload):
        name = "saxpy"
        suite = "builtin"
        description = "y = a*x + y"
        sources = ("saxpy.cu",)
        scales = {"tiny": {"n": 1000}, "small": {"n": 1 << 20}, "paper": {"n": 1 << 22}}

        def inputs(self, p, rng):
            return {"a": np.float32(2.5), "x": rng.random(p["n"], np.float32), "y": ...}

        def launch(self, ctx, inp, p):
            y = ndpgpu.asarray(inp["y"])
            ctx.module.get_function("saxpy")((p["n"] + 255) // 256, 256, (inp["a"], ..., y, np.int32(p["n"])))
            return {"y": y.get()}

        def reference(self, inp, p):
            return {"y": inp["a"] * inp["x"] + inp["y"]}
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..registry import Registry, import_submodules, subpackages

STANDARD_SCALES = ("tiny", "small", "paper")


class WorkloadError(Exception):
    """A workload is unknown, malformed, or was asked for a scale it does not have."""


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """How close an output must be to the reference: ``|out - ref| <= atol + rtol * |ref|``."""

    rtol: float = 0.0
    atol: float = 0.0


@dataclasses.dataclass
class RunContext:
    """What a workload's ``launch`` may use: its compiled module and the device it runs on."""

    module: Any  # ndpgpu.RawModule
    device: Any  # ndpgpu.Device
    scale: str
    params: dict[str, Any]

    @property
    def num_sms(self) -> int:
        """SMs of the device's machine (pattern-aware workloads size their grid by it)."""
        return int(getattr(self.device, "num_sms", 15))


class Workload:
    """Base class of every workload; subclasses set the class attributes and the three methods."""

    name: ClassVar[str]
    suite: ClassVar[str]
    description: ClassVar[str]
    papers: ClassVar[tuple[str, ...]] = ()
    deviations: ClassVar[str] = "none"
    sources: ClassVar[tuple[str, ...]] = ()
    options: ClassVar[tuple[str, ...]] = ()
    scales: ClassVar[dict[str, dict[str, Any]]] = {}
    tolerance: ClassVar[dict[str, Tolerance]] = {}  # per output name; missing: exact
    seed: ClassVar[int] = 2026

    def inputs(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        """Generate the inputs for one scale (deterministic given ``rng``)."""
        raise NotImplementedError

    def launch(self, ctx: RunContext, inputs: dict[str, Any], params: dict[str, Any]) -> dict[str, np.ndarray]:
        """Run the host-side launch sequence; return the outputs to check, by name."""
        raise NotImplementedError

    def reference(self, inputs: dict[str, Any], params: dict[str, Any]) -> dict[str, np.ndarray]:
        """The NumPy reference of every output ``launch`` returns."""
        raise NotImplementedError

    # -- helpers --------------------------------------------------------------------------------
    @classmethod
    def directory(cls) -> Path:
        module = importlib.import_module(cls.__module__)
        return Path(module.__file__).parent  # type: ignore[arg-type]

    @classmethod
    def source_paths(cls) -> list[Path]:
        return [cls.directory() / s for s in cls.sources]

    @classmethod
    def params(cls, scale: str) -> dict[str, Any]:
        if scale not in cls.scales:
            raise WorkloadError(
                f"workload {cls.name!r} has no scale {scale!r}; its scales are {sorted(cls.scales)}"
            )
        return dict(cls.scales[scale])


def _discover() -> None:
    for suite in subpackages("ndpgpu.workloads"):
        import_submodules(suite)


WORKLOADS: Registry[type[Workload]] = Registry("workload", error=WorkloadError, load=_discover,
                                               listing="ndpgpu workloads")
"""Every workload by name; the first read imports every module of every suite package."""


def register(cls: type[Workload]) -> type[Workload]:
    """Class decorator: add a workload to :data:`WORKLOADS` under its ``name`` (names are unique)."""
    for attr in ("name", "suite", "description"):
        if not getattr(cls, attr, None):
            raise WorkloadError(f"workload class {cls.__qualname__} must set {attr!r}")
    for scale in STANDARD_SCALES:
        if scale not in cls.scales:
            raise WorkloadError(f"workload {cls.name!r} must define scale {scale!r}")
    return WORKLOADS.register(cls.name, cls)


def all_workloads() -> dict[str, type[Workload]]:
    """Every registered workload by name (sorted by suite, then name)."""
    return dict(sorted(WORKLOADS.items(), key=lambda kv: (kv[1].suite, kv[0])))


def get_workload(name: str) -> type[Workload]:
    """The workload class called ``name``, or named by a paper (``KM``, ``TOM:BFS``: :mod:`.aliases`); an
    unknown name suggests close ones and lists the known ones, an ambiguous paper name lists its candidates."""
    if name in WORKLOADS:
        return WORKLOADS.get(name)
    from .aliases import AmbiguousAlias, resolve_alias

    try:
        real = resolve_alias(name)
    except AmbiguousAlias as exc:
        raise WorkloadError(str(exc)) from None
    return WORKLOADS.get(real if real is not None else name)


@dataclasses.dataclass
class OutputCheck:
    name: str
    passed: bool
    max_abs_error: float
    max_rel_error: float
    worst_index: tuple[int, ...] | None
    message: str


def check_outputs(
    outputs: dict[str, np.ndarray], expected: dict[str, np.ndarray], tolerance: dict[str, Tolerance]
) -> list[OutputCheck]:
    """Compare each expected output; NaNs must match NaNs; shapes must agree."""
    checks = []
    for name, ref in expected.items():
        if name not in outputs:
            checks.append(OutputCheck(name, False, np.inf, np.inf, None, f"output {name!r} was not produced"))
            continue
        out = np.asarray(outputs[name])
        ref = np.asarray(ref)
        if out.shape != ref.shape:
            checks.append(
                OutputCheck(name, False, np.inf, np.inf, None, f"{name}: shape {out.shape} != reference {ref.shape}")
            )
            continue
        tol = tolerance.get(name, Tolerance())
        if out.dtype.kind in "fc" or ref.dtype.kind in "fc":
            o = out.astype(np.float64)
            r = ref.astype(np.float64)
            nan_mismatch = np.isnan(o) != np.isnan(r)
            same_inf = np.isinf(o) & np.isinf(r) & (np.sign(o) == np.sign(r))
            inf_mismatch = (np.isinf(o) | np.isinf(r)) & ~same_inf
            with np.errstate(invalid="ignore"):
                diff = np.where((np.isnan(o) & np.isnan(r)) | same_inf, 0.0, np.abs(o - r))
                bound = tol.atol + tol.rtol * np.where(np.isinf(r), 0.0, np.abs(r))
            bad = nan_mismatch | inf_mismatch | ~(np.nan_to_num(diff, nan=np.inf) <= bound)
            bad &= ~((np.isnan(o) & np.isnan(r)) | same_inf)
            rel = diff / np.maximum(np.abs(r), np.finfo(np.float64).tiny)
        else:
            diff = np.abs(out.astype(np.int64) - ref.astype(np.int64)).astype(np.float64) if out.size else np.zeros(0)
            bad = diff > tol.atol
            rel = diff / np.maximum(np.abs(ref.astype(np.float64)), 1.0)
        max_abs = float(np.nanmax(diff)) if diff.size else 0.0
        max_rel = float(np.nanmax(rel)) if rel.size else 0.0
        if bad.any():
            idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))
            msg = (
                f"{name}: {int(bad.sum())} of {bad.size} elements outside rtol={tol.rtol} atol={tol.atol}; "
                f"first at {idx}: got {out[idx]!r}, expected {ref[idx]!r}"
            )
            checks.append(OutputCheck(name, False, max_abs, max_rel, idx, msg))
        else:
            checks.append(OutputCheck(name, True, max_abs, max_rel, None, f"{name}: ok"))
    return checks
