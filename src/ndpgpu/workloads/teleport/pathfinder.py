"""PTF: Rodinia PathFinder; global-memory (one launch per row) and hand-written ghost-zone shared versions."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, ceil_div, spec

BLOCK = 256


def pathfinder_reference(wall: np.ndarray) -> np.ndarray:
    """Row-by-row minimum-cost walk (edges clamped: the missing neighbour is the cell above itself)."""
    dist = wall[0].astype(np.int64)
    for r in range(1, wall.shape[0]):
        left = np.concatenate([dist[:1], dist[:-1]])
        right = np.concatenate([dist[1:], dist[-1:]])
        dist = wall[r] + np.minimum(np.minimum(left, dist), right)
    return dist.astype(np.int32)


@register
class Pathfinder(TeleportWorkload):
    name = "tp_pathfinder"
    kernel = "pathfinder"
    description = (
        "TELEPORT PTF, Baseline/TELEPORT kernel: Rodinia PathFinder's dynamic programming over a rows x cols "
        "grid of weights 0-9, one launch per row: a 1D three-point min stencil, 256-thread blocks"
    )
    deviations = (
        "Written after Rodinia's algorithm. Rodinia's kernel is the ghost-zone shared-memory one "
        "(tp_pathfinder_shared, pyramid height 20 as Rodinia's run); this one-row-per-launch Baseline is ours. "
        "Weights are generated uniform in 0..9 as Rodinia's rand() % 10. Paper scale: 100000 columns (Rodinia's "
        "run) and 37 rows, i.e. the 36 iterations the paper states (Rodinia's run uses 100 rows)."
    )
    sources = ("pathfinder.cu",)
    scales = {
        "tiny": {"cols": 3000, "rows": 9, "pyramid": 4},
        "small": {"cols": 20000, "rows": 37, "pyramid": 20},
        "paper": {"cols": 100000, "rows": 37, "pyramid": 20},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"wall": rng.integers(0, 10, size=(p["rows"], p["cols"]), dtype=np.int32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows, cols = p["rows"], p["cols"]
        wall = ndpgpu.asarray(inp["wall"])
        src = ndpgpu.asarray(np.ascontiguousarray(inp["wall"][0]))
        dst = ndpgpu.zeros(cols, np.int32)
        fn = ctx.module.get_function(self.kernel)
        if self.variant == "shared":
            border = p["pyramid"]
            grid = ceil_div(cols, BLOCK - 2 * border)
            row = 1
            while row < rows:
                iteration = min(border, rows - row)
                fn(grid, BLOCK, (wall, src, dst, np.int32(cols), np.int32(row), np.int32(iteration),
                                 np.int32(border)))
                src, dst = dst, src
                row += iteration
        else:
            for row in range(1, rows):
                fn(ceil_div(cols, BLOCK), BLOCK, (wall, src, dst, np.int32(cols), np.int32(row)))
                src, dst = dst, src
        return {"dist": src.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"dist": pathfinder_reference(inp["wall"])}  # integers: exact

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"dist": spec(p["cols"], np.int32)}


@register
class PathfinderShared(Pathfinder):
    name = "tp_pathfinder_shared"
    kernel = "pathfinder_shared"
    variant = "shared"
    description = (
        "TELEPORT PTF, hand-written version (Rodinia's ghost-zone dynproc kernel): a 256-thread block keeps "
        "a row in shared memory and advances `pyramid` rows per launch, 256 - 2 * pyramid valid columns"
    )
