"""Frontier BFS over a seeded random graph in CSR form, relaunched level by level until nothing changes."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec


def random_csr_graph(n: int, max_degree: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A directed graph: node degrees uniform in ``[1, max_degree]``, neighbours uniform over all nodes.

    Returns ``(row_offsets, cols)`` as int32 (``row_offsets`` has ``n + 1`` entries).
    """
    degrees = rng.integers(1, max_degree + 1, size=n, dtype=np.int64)
    row_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=row_offsets[1:])
    cols = rng.integers(0, n, size=int(row_offsets[-1]), dtype=np.int64)
    return row_offsets.astype(np.int32), cols.astype(np.int32)


def bfs_levels(row_offsets: np.ndarray, cols: np.ndarray, source: int) -> np.ndarray:
    """BFS level of every node from ``source`` (-1 where unreachable), by a vectorised frontier loop."""
    n = row_offsets.size - 1
    cost = np.full(n, -1, dtype=np.int32)
    cost[source] = 0
    frontier = np.array([source], dtype=np.int64)
    level = 0
    starts_all = row_offsets.astype(np.int64)
    while frontier.size:
        starts = starts_all[frontier]
        lengths = starts_all[frontier + 1] - starts
        total = int(lengths.sum())
        if total == 0:
            break
        # edge index of each neighbour of the frontier, without a Python loop over nodes
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
        neighbours = np.unique(cols[offsets])
        new = neighbours[cost[neighbours] < 0]
        level += 1
        cost[new] = level
        frontier = new
    return cost


@register
class Bfs(Workload):
    name = "bfs"
    suite = "builtin"
    description = "level-synchronous BFS (expand + update kernels per level) over a random CSR graph"
    sources = ("bfs.cu",)
    scales = {
        "tiny": {"nodes": 4096, "max_degree": 11, "block": 256},
        "small": {"nodes": 1 << 16, "max_degree": 11, "block": 256},
        "paper": {"nodes": 1_000_000, "max_degree": 11, "block": 256},  # average degree 6
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        row_offsets, cols = random_csr_graph(p["nodes"], p["max_degree"], rng)
        return {"row_offsets": row_offsets, "cols": cols, "source": np.int32(0)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n, block = p["nodes"], p["block"]
        src = int(inp["source"])
        flags = np.zeros(n, dtype=np.uint8)
        flags[src] = 1
        cost_host = np.full(n, -1, dtype=np.int32)
        cost_host[src] = 0
        row_offsets = ndpgpu.asarray(inp["row_offsets"])
        cols = ndpgpu.asarray(inp["cols"])
        frontier = ndpgpu.asarray(flags)
        visited = ndpgpu.asarray(flags)
        nxt = ndpgpu.zeros(n, np.uint8)
        cost = ndpgpu.asarray(cost_host)
        changed = ndpgpu.zeros(1, np.int32)
        expand = ctx.module.get_function("bfs_expand")
        update = ctx.module.get_function("bfs_update")
        grid = ceil_div(n, block)
        iterations = 0
        while True:
            iterations += 1
            changed.set(np.zeros(1, dtype=np.int32))
            expand(grid, block, (row_offsets, cols, frontier, nxt, visited, cost, np.int32(n)))
            update(grid, block, (frontier, nxt, visited, changed, np.int32(n)))
            if int(changed.get()[0]) == 0:
                break
        return {"cost": cost.get(), "iterations": np.array([iterations], dtype=np.int32)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        cost = bfs_levels(inp["row_offsets"], inp["cols"], int(inp["source"]))
        # one launch pair per level found, plus the last one that finds nothing new
        return {"cost": cost, "iterations": np.array([int(cost.max()) + 1], dtype=np.int32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"cost": spec(p["nodes"], np.int32), "iterations": spec(1, np.int32)}
