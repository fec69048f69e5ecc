"""Points and sweep specs: what an experiment runs, declared in Python or YAML.

A point is one (workload, scale, machine, policy, overrides) combination. A sweep spec lists points
explicitly and/or as grids (cross products)::

    name: builtin-two-machines
    grid:
      workloads: ["suite:builtin"]      # names, "suite:<suite>", or "*"
      scales: [tiny]
      machines: [gtx480, v100]
      policies: [baseline]
      overrides: [{}, {l1d.size_kb: 48, l1d.assoc: 6}]
    points:
      - {workload: saxpy, scale: small, machine: gtx480, overrides: {l2.size_kb: 1536}}

Specs are validated with pydantic; an error names the field's path (``grid.0.machines.1``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ndpgpu import yamlio

from .provenance import canonical_json

Scalar = bool | int | float | str
DEFAULT_POLICY = "baseline"
DEFAULT_SCALE = "small"
_NAME_PATTERN = r"^[A-Za-z0-9_.\-]+$"


class SpecError(ValueError):
    """A sweep spec is malformed or names an unknown workload, scale or machine."""


class Point(BaseModel):
    """One simulation: a workload at a scale, timed on a machine with a policy and config overrides."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workload: str = Field(min_length=1)
    scale: str = Field(default=DEFAULT_SCALE, min_length=1)
    machine: str = Field(min_length=1)
    policy: str = Field(default=DEFAULT_POLICY, min_length=1)
    overrides: dict[str, Scalar] = Field(default_factory=dict)

    @property
    def overrides_json(self) -> str:
        """The overrides as canonical JSON (sorted keys)."""
        return canonical_json(self.overrides)

    def identity(self) -> tuple[str, str, str, str, str]:
        """A hashable tuple that identifies the point."""
        return (self.workload, self.scale, self.machine, self.policy, self.overrides_json)

    @property
    def config_label(self) -> str:
        """The machine configuration as a short label: ``machine[/policy][{k=v,...}]``."""
        return config_label(self.machine, self.policy, self.overrides)

    @property
    def label(self) -> str:
        """``workload@scale on config_label``: how progress, errors and reports name the point."""
        return f"{self.workload}@{self.scale} on {self.config_label}"


def config_label(machine: str, policy: str, overrides: dict[str, Any]) -> str:
    """``machine[/policy][{k=v,...}]``; the policy is shown when it is not the baseline."""
    label = machine if policy == DEFAULT_POLICY else f"{machine}/{policy}"
    if overrides:
        label += "{" + ",".join(f"{k}={overrides[k]}" for k in sorted(overrides)) + "}"
    return label


class Grid(BaseModel):
    """The cross product workloads x scales x machines x policies x override sets."""

    model_config = ConfigDict(extra="forbid")

    workloads: list[str] = Field(min_length=1)
    scales: list[str] = Field(default_factory=lambda: [DEFAULT_SCALE], min_length=1)
    machines: list[str] = Field(min_length=1)
    policies: list[str] = Field(default_factory=lambda: [DEFAULT_POLICY], min_length=1)
    overrides: list[dict[str, Scalar]] = Field(default_factory=lambda: [{}], min_length=1)


class SweepSpec(BaseModel):
    """A named set of points, and the executor that runs them."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=_NAME_PATTERN)
    description: str = ""
    executor: str = "simulator"
    executor_options: dict[str, Any] = Field(default_factory=dict)
    grid: list[Grid] = Field(default_factory=list)
    points: list[Point] = Field(default_factory=list)
    # seconds one recording or one point may run in a worker before it is stopped and stored as failed
    # (None: no limit; not enforced with jobs=0, where tasks run in the sweep's own process)
    time_limit_s: float | None = Field(default=3600.0, gt=0)

    @field_validator("grid", mode="before")
    @classmethod
    def _one_grid_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value

    def with_executor(self, executor: str | None = None, options: dict[str, Any] | None = None) -> SweepSpec:
        """A copy run by ``executor`` with ``options`` (each kept from this spec when None)."""
        if executor is None and options is None:
            return self
        return self.model_copy(
            update={
                "executor": executor or self.executor,
                "executor_options": self.executor_options if options is None else options,
            }
        )

    def expand(self, scale: str | None = None) -> list[Point]:
        """Every point of the spec, in declaration order, without duplicates.

        Workload names are resolved against the registry (``*`` and ``suite:<name>`` expand); an unknown
        workload or scale raises :class:`SpecError` naming the field. ``scale`` replaces every scale.
        """
        from ndpgpu.workloads.base import WorkloadError, all_workloads

        known = all_workloads()
        out: dict[tuple[str, ...], Point] = {}

        def add(where: str, point: Point) -> None:
            cls = known.get(point.workload)
            if cls is None:
                raise SpecError(f"{where}: unknown workload {point.workload!r}; known: {', '.join(known)}")
            try:
                canon = cls.canonical_scale(point.scale)
            except WorkloadError as e:
                raise SpecError(f"{where}: {e}") from None
            if canon != point.scale:
                point = point.model_copy(update={"scale": canon})
            out.setdefault(point.identity(), point)

        for gi, grid in enumerate(self.grid):
            names: list[str] = []
            for wi, pattern in enumerate(grid.workloads):
                matched = _match_workloads(pattern, known)
                if not matched:
                    raise SpecError(
                        f"grid.{gi}.workloads.{wi}: {pattern!r} matches no workload; "
                        f"known: {', '.join(known)}; "
                        f"suites: {', '.join(sorted({c.suite for c in known.values()}))}"
                    )
                names.extend(n for n in matched if n not in names)
            for name in names:
                for sc in [scale] if scale else grid.scales:
                    for machine in grid.machines:
                        for policy in grid.policies:
                            for ov in grid.overrides:
                                point = Point(workload=name, scale=sc, machine=machine, policy=policy, overrides=ov)
                                add(f"grid.{gi}", point)
        for pi, point in enumerate(self.points):
            add(f"points.{pi}", point.model_copy(update={"scale": scale}) if scale else point)
        if not out:
            raise SpecError(f"sweep {self.name!r} declares no points (give 'grid' or 'points')")
        return list(out.values())


# kernel files a session registered (``ndpgpu explore FILE.cu``, suite "file") are named, never matched by "*"
FILE_SUITE = "file"


def _match_workloads(pattern: str, known: dict[str, Any]) -> list[str]:
    if pattern == "*":
        return [n for n, c in known.items() if c.suite != FILE_SUITE]
    if pattern.startswith("suite:"):
        suite = pattern.split(":", 1)[1]
        return [n for n, c in known.items() if c.suite == suite]
    return [pattern] if pattern in known else []


def format_validation_error(err: ValidationError, source: str) -> str:
    """One line per problem: ``field.path: message (got value)``."""
    lines = [f"{source}: invalid sweep spec ({err.error_count()} problem{'s' if err.error_count() > 1 else ''})"]
    for e in err.errors():
        path = ".".join(str(p) for p in e["loc"]) or "(top level)"
        got = e.get("input")
        shown = "" if isinstance(got, (dict, list)) else f" (got {got!r})"
        lines.append(f"  {path}: {e['msg']}{shown}")
    return "\n".join(lines)


def spec_from_dict(data: Any, source: str = "<spec>") -> SweepSpec:
    """Validate a spec given as plain data; raise :class:`SpecError` with field paths."""
    if not isinstance(data, dict):
        raise SpecError(f"{source}: a sweep spec is a mapping with 'name' and 'grid' and/or 'points'")
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as err:
        raise SpecError(format_validation_error(err, source)) from None


def load_spec(path: str | Path) -> SweepSpec:
    """Read and validate a YAML sweep spec."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise SpecError(f"cannot read sweep spec {path}: {exc.strerror}") from None
    try:
        data = yamlio.safe_load(text)
    except yaml.YAMLError as exc:
        raise SpecError(f"{path}: not valid YAML: {exc}") from None
    return spec_from_dict(data, str(path))
