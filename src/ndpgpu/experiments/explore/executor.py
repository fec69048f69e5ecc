"""The simulator executor, able to run a kernel file: it registers the file's workload in the process it
runs in (the main process and every worker) from its options, then behaves as ``simulator``."""

from __future__ import annotations

from typing import Any

from ..executors import SimulatorExecutor
from . import compose  # noqa: F401  (registers the compose: policies in every process that runs points)
from .target import register_file

NAME = "ndpgpu.experiments.explore.executor:ExploreExecutor"
"""How a sweep names it: a worker imports this module to rebuild it (no registration needed)."""


class ExploreExecutor(SimulatorExecutor):
    """``simulator`` plus the kernel file named by the option ``file`` (see :mod:`.target`)."""

    name = NAME
    preload = (*SimulatorExecutor.preload, "ndpgpu.experiments.explore.executor")

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options)
        if self.options.get("file"):
            register_file(self.options["file"])
