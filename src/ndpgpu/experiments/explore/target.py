"""What ``ndpgpu explore`` is given: a registered workload, a ``.cu`` file with its launch, or a launch YAML.

A kernel file becomes a workload (:mod:`ndpgpu.workloads.kernelfile`) registered under its name in this
process and, through the executor's options, in every worker, so that the sweep machinery (keys, recordings,
the store) treats it as it treats a registered workload.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ...workloads.base import WORKLOADS, Workload


@dataclasses.dataclass(frozen=True)
class Target:
    """The workload explored: its registry name, scale, and (for a kernel file) how to rebuild it."""

    workload: str
    scale: str
    file: dict[str, Any] | None = None  # executor option: {"yaml": PATH} or describe()'s arguments

    @property
    def label(self) -> str:
        if self.file is None:
            return self.workload
        return f"{self.workload} ({self.file.get('yaml') or self.file['source']})"


def file_workload(spec: dict[str, Any]) -> type[Workload]:
    """The workload class of a kernel file described by ``spec`` (``{"yaml": path}`` or describe()'s fields)."""
    from ...workloads import kernelfile

    if "yaml" in spec:
        return kernelfile.workload_class(kernelfile.load_description(spec["yaml"]))
    return kernelfile.workload_class(kernelfile.describe(
        spec["source"], spec.get("kernel"), spec.get("grid"), spec.get("block"), list(spec.get("args", [])),
        shared_mem=spec.get("shared_mem", 0), options=list(spec.get("options", [])), repeat=spec.get("repeat", 1),
        seed=spec.get("seed", 2026)))


def register_file(spec: dict[str, Any]) -> str:
    """Register the kernel file's workload (replacing an earlier one of the same name); return its name."""
    cls = file_workload(spec)
    WORKLOADS.unregister(cls.name)
    WORKLOADS.register(cls.name, cls)
    return cls.name


def resolve(target: str, scale: str = "small", launch: dict[str, Any] | None = None) -> Target:
    """A workload name (or a paper's name for one), a ``.yaml`` launch description, or a ``.cu`` file with
    ``launch`` (kernel, grid, block, args, ...)."""
    if target.endswith((".yaml", ".yml")):
        spec: dict[str, Any] = {"yaml": str(Path(target).resolve())}
        return Target(register_file(spec), "given", spec)
    if target.endswith(".cu"):
        spec = {"source": str(Path(target).resolve()), **{k: v for k, v in (launch or {}).items() if v is not None}}
        return Target(register_file(spec), "given", spec)
    from ...workloads.base import get_workload

    cls = get_workload(target)  # an unknown name raises with suggestions
    return Target(cls.name, cls.canonical_scale(scale))  # an unknown scale or parameter raises WorkloadError
