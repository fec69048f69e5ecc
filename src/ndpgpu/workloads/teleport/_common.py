"""Helpers shared by the TELEPORT workloads (host side only)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ndpgpu.workloads.base import Workload
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

__all__ = ["OutputSpecs", "TeleportWorkload", "ceil_div", "grid2d", "spec"]


class TeleportWorkload(Workload):
    """Base of the TELEPORT workloads: suite, paper and the kernel a variant launches.

    A hand-written shared-memory variant subclasses its global-memory workload, so it gets the same inputs,
    launch sequence and reference, and only changes ``name``, ``description`` and ``kernel``.
    """

    suite = "teleport"
    papers = ("TELEPORT",)
    kernel: ClassVar[str] = ""
    variant: ClassVar[str] = "global"  # "global" (Baseline/TELEPORT code) or "shared" (hand-written)


def grid2d(cols: int, rows: int, tile: int = 16) -> tuple[int, int]:
    """Blocks of ``tile`` x ``tile`` threads covering a cols x rows domain (x first)."""
    return ceil_div(cols, tile), ceil_div(rows, tile)


def f32(x: Any) -> np.float32:
    return np.float32(x)
