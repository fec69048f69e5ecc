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
SCALE_SEP = ":"
"""Separates a named scale from the parameters a scale sets: ``paper:m=384,n=384,k=384``."""


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
        """The parameters at ``scale``: a named scale, or one with some parameters set
        (``paper:m=384,n=384``, see :func:`parse_scale`)."""
        tier, settings = parse_scale(scale)
        if tier not in cls.scales:
            raise WorkloadError(
                f"workload {cls.name!r} has no scale {tier!r}; its scales are {sorted(cls.scales)}"
            )
        params = dict(cls.scales[tier])
        for key, text in settings:
            if key not in params:
                raise WorkloadError(f"scale {scale!r}: workload {cls.name!r} has no parameter {key!r} at scale "
                                    f"{tier!r}; its parameters are {sorted(params)}")
            params[key] = _parameter_value(cls.name, scale, key, text, params[key])
        return params

    @classmethod
    def canonical_scale(cls, scale: str) -> str:
        """``scale`` spelt one way: its settings in the order of the named scale's parameters, values
        written as parsed, settings equal to the named scale's values dropped (``paper:k=0128,m=384,n=512``
        becomes ``paper:m=384,k=128``; ``paper:m=512`` is ``paper``). Raises as :meth:`params`."""
        tier, _ = parse_scale(scale)
        params = cls.params(scale)
        named = cls.scales[tier]
        changed = [f"{k}={_spell(v)}" for k, v in params.items() if v != named[k] or type(v) is not type(named[k])]
        return tier + SCALE_SEP + ",".join(changed) if changed else tier


def parse_scale(scale: str) -> tuple[str, list[tuple[str, str]]]:
    """Split ``tier[:key=value[,key=value...]]`` into the named scale and its (key, value text) settings.

    Raises :class:`WorkloadError` for an empty key or value, a setting without ``=``, or a key set twice.
    """
    tier, sep, rest = scale.partition(SCALE_SEP)
    settings: list[tuple[str, str]] = []
    if not sep:
        return tier, settings
    if not rest:
        raise WorkloadError(f"scale {scale!r}: nothing after {SCALE_SEP!r}; write e.g. 'paper:m=384'")
    for item in rest.split(","):
        key, eq, text = (part.strip() for part in item.partition("="))
        if not eq or not key or not text:
            raise WorkloadError(f"scale {scale!r}: {item!r} is not key=value")
        if any(key == k for k, _ in settings):
            raise WorkloadError(f"scale {scale!r}: {key!r} is set twice")
        settings.append((key, text))
    return tier, settings


def _parameter_value(workload: str, scale: str, key: str, text: str, default: Any) -> Any:
    """``text`` read as the type of the named scale's value ``default`` (bool, int, float or str)."""
    where = f"scale {scale!r}: workload {workload!r}'s parameter {key!r}"
    if isinstance(default, bool):
        if text.lower() in ("true", "1", "yes"):
            return True
        if text.lower() in ("false", "0", "no"):
            return False
        raise WorkloadError(f"{where} is a bool; got {text!r}")
    for kind in (int, float):
        if isinstance(default, kind):
            try:
                return kind(text)
            except ValueError:
                raise WorkloadError(f"{where} is {'an' if kind is int else 'a'} {kind.__name__}; "
                                    f"got {text!r}") from None
    if isinstance(default, str):
        return text
    raise WorkloadError(f"{where} ({type(default).__name__}) cannot be set from a scale")


def _spell(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


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
