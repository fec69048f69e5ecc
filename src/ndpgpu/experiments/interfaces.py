"""The executor: the one extension point of the experiment machinery.

An executor turns points into metric rows. The runner calls :meth:`Executor.identify` and
:meth:`Executor.configure` in the main process (cheap; they decide the store key), :meth:`Executor.record`
once per (workload, scale) in a worker, and :meth:`Executor.time` once per point in a worker. Executors are
registered by name (:func:`ndpgpu.experiments.executors.register_executor`) so worker processes can build
them from ``(name, options)``.
"""

from __future__ import annotations

import abc
import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from .points import Point


class MetricRow(NamedTuple):
    """One statistic: where it was measured (``path``, e.g. ``l2``), its name, value and unit."""

    path: str
    metric: str
    value: float
    unit: str

    @property
    def name(self) -> str:
        """``path.metric``, or ``metric`` when the path is empty: the name the store indexes."""
        return f"{self.path}.{self.metric}" if self.path else self.metric


@dataclasses.dataclass(frozen=True)
class Provenance:
    """What a workload's functional run depends on (part of every store key)."""

    source_hash: str
    input_hash: str
    nvcc_version: str
    arch: str
    code_version: str


@dataclasses.dataclass(frozen=True)
class MachineConfig:
    """A point's resolved machine config (machine, policy, overrides) and its hash."""

    config_hash: str
    config: dict[str, Any]


@dataclasses.dataclass
class RecordingManifest:
    """A persisted functional run of one (workload, scale): outputs checked, one trace per launch.

    ``trace_paths`` are relative to the recording's directory while persisted (``manifest.json``) and
    absolute once loaded. ``key`` is the identity it was recorded for (workload, scale and the
    :class:`Provenance` fields) and ``trace_digests`` the sha256 of each trace file's bytes: a reused
    recording must match both (:meth:`identity_mismatches`), since a trace file's own CRC proves only that
    the file is intact, not that it is this key's trace.
    """

    workload: str
    scale: str
    passed: bool
    checks: list[dict[str, Any]]
    trace_paths: list[str]
    stats: dict[str, float]
    provenance: dict[str, Any]
    elapsed_s: float = 0.0
    reused: bool = False
    copies: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # host<->device copies, in order
    allocations: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # device allocations: addr, bytes
    key: dict[str, Any] = dataclasses.field(default_factory=dict)  # the identity it was recorded for
    trace_digests: list[str] = dataclasses.field(default_factory=list)  # sha256 of each trace file, in order

    FILE: ClassVar[str] = "manifest.json"

    def seal(self, key: dict[str, Any]) -> None:
        """Record the identity this recording was made for and the digest of each of its trace files."""
        self.key = {str(k): v for k, v in key.items()}
        self.trace_digests = [file_digest(Path(p)) for p in self.trace_paths]

    def identity_mismatches(self, key: dict[str, Any]) -> list[str]:
        """What differs between this (loaded) recording and the identity ``key`` it should have: each
        differing key field, and each trace file whose bytes are not the ones recorded. Empty: reusable."""
        if not self.key or len(self.trace_digests) != len(self.trace_paths):
            return ["the manifest carries no recorded identity or trace digests (recorded by an older version)"]
        out = []
        for field in sorted(set(key) | set(self.key)):
            want, have = key.get(field), self.key.get(field)
            if str(want) != str(have):
                out.append(f"{field} is {have!r} in the manifest, expected {want!r}")
        for path, digest in zip(self.trace_paths, self.trace_digests, strict=True):
            actual = file_digest(Path(path))
            if actual != digest:
                out.append(f"trace file {path} has sha256 {actual[:16]}..., the recording's was {digest[:16]}... "
                           "(replaced or modified since it was recorded)")
        return out

    def failure_message(self) -> str:
        """The failed output checks, one per line."""
        bad = [str(c.get("message", c.get("name", "?"))) for c in self.checks if not c.get("passed", False)]
        return "\n".join(bad) or "the functional run reported failure without a failing check"

    def save(self, directory: Path) -> Path:
        """Write ``manifest.json`` with trace paths made relative to ``directory``."""
        data = dataclasses.asdict(self)
        data.pop("reused")
        rel = []
        for p in self.trace_paths:
            path = Path(p)
            try:
                rel.append(path.resolve().relative_to(directory.resolve()).as_posix())
            except ValueError:
                raise ValueError(f"trace {path} is outside the recording directory {directory}") from None
        data["trace_paths"] = rel
        target = directory / self.FILE
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True, default=str))
        tmp.replace(target)
        return target

    @classmethod
    def load(cls, directory: Path) -> RecordingManifest:
        """Read ``manifest.json`` from ``directory`` (trace paths made absolute)."""
        data = json.loads((directory / cls.FILE).read_text())
        data["trace_paths"] = [str(directory / p) for p in data["trace_paths"]]
        return cls(**data, reused=True)


def file_digest(path: Path) -> str:
    """The sha256 of a file's bytes (hex)."""
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class RecordingMismatchWarning(UserWarning):
    """A stored recording is not the one its key asks for (another key's manifest, or a trace file replaced
    since it was recorded): it is moved aside and recorded again."""


class Executor(abc.ABC):
    """Runs points. Implementations hold no state that changes results between calls.

    ``identify`` and ``configure`` must not write anything; ``record`` writes only under ``trace_dir``;
    ``time`` writes nothing and returns its statistics. Any exception is recorded as the point's failure.
    """

    name: ClassVar[str]
    # modules a worker process may import before its first task (speeds up process start)
    preload: ClassVar[tuple[str, ...]] = ()

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self.options = dict(options or {})

    @abc.abstractmethod
    def identify(self, workload: str, scale: str) -> Provenance:
        """The provenance of ``workload`` at ``scale`` (source, input and toolchain hashes)."""

    @abc.abstractmethod
    def configure(self, point: Point) -> MachineConfig:
        """Resolve the point's machine, policy and overrides; a bad value raises naming the field."""

    def verify(self, recording: RecordingManifest) -> None:
        """Raise when a stored recording cannot be reused (a truncated or corrupt trace); default: trust it."""
        del recording

    @abc.abstractmethod
    def record(self, workload: str, scale: str, trace_dir: Path) -> RecordingManifest:
        """Run the workload functionally, check its outputs and persist its traces under ``trace_dir``."""

    @abc.abstractmethod
    def time(self, point: Point, recording: RecordingManifest) -> list[MetricRow]:
        """Replay the recording's traces on the point's machine; return every statistic."""
