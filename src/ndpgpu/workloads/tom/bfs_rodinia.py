"""BFS: Rodinia's two-kernel breadth-first search with byte masks, over a generated graph1MW_6-like graph."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

NODE_DTYPE = np.dtype([("starting", np.int32), ("no_of_edges", np.int32)], align=True)
MAX_THREADS_PER_BLOCK = 512


def rodinia_graph(n: int, min_edges: int, max_edges: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """An undirected random graph as Rodinia's graph generator builds it: every node starts a uniform
    number of edges in ``[min_edges, max_edges]`` to uniformly chosen nodes, each stored in both directions
    (average degree ``min_edges + max_edges``; 2..4 gives graph1MW_6's 6).

    Returns the node structs (first edge, edge count) and the edge list, both CSR-ordered by source.
    """
    starts = rng.integers(min_edges, max_edges + 1, size=n)
    src = np.repeat(np.arange(n, dtype=np.int64), starts)
    dst = rng.integers(0, n, size=src.size, dtype=np.int64)
    a = np.concatenate([src, dst])
    b = np.concatenate([dst, src])
    order = np.argsort(a, kind="stable")
    edges = b[order].astype(np.int32)
    degree = np.bincount(a, minlength=n)
    nodes = np.zeros(n, dtype=NODE_DTYPE)
    nodes["no_of_edges"] = degree
    nodes["starting"][1:] = np.cumsum(degree)[:-1]
    return nodes, edges


def bfs_cost(nodes: np.ndarray, edges: np.ndarray, source: int) -> np.ndarray:
    """Level of every node from ``source`` (-1 where unreached), one vectorised frontier step per level."""
    n = nodes.size
    first = nodes["starting"].astype(np.int64)
    count = nodes["no_of_edges"].astype(np.int64)
    cost = np.full(n, -1, dtype=np.int32)
    cost[source] = 0
    frontier = np.array([source], dtype=np.int64)
    level = 0
    while frontier.size:
        lengths = count[frontier]
        total = int(lengths.sum())
        if total == 0:
            break
        edge_ids = np.repeat(first[frontier] - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
        reached = np.unique(edges[edge_ids])
        frontier = reached[cost[reached] < 0]
        level += 1
        cost[frontier] = level
    return cost


def run_rodinia_bfs(ctx: RunContext, inp: dict[str, Any], n: int, expand_name: str,
                    update_name: str) -> dict[str, np.ndarray]:
    """Rodinia's host loop: upload, then Kernel, Kernel2 and a read-back of the stop flag until no node is
    reached. Returns the costs and the number of iterations (shared by TOM's and TELEPORT's BFS)."""
    src = int(inp["source"])
    threads = min(n, MAX_THREADS_PER_BLOCK)
    blocks = ceil_div(n, MAX_THREADS_PER_BLOCK)
    start = np.zeros(n, dtype=np.bool_)
    start[src] = True
    cost_host = np.full(n, -1, dtype=np.int32)
    cost_host[src] = 0
    nodes = ndpgpu.asarray(inp["nodes"])
    edges = ndpgpu.asarray(inp["edges"])
    mask = ndpgpu.asarray(start)
    updating = ndpgpu.zeros(n, np.bool_)
    visited = ndpgpu.asarray(start)
    cost = ndpgpu.asarray(cost_host)
    over = ndpgpu.zeros(1, np.bool_)
    expand = ctx.module.get_function(expand_name)
    update = ctx.module.get_function(update_name)
    n32 = np.int32(n)
    launches = 0
    while True:
        launches += 1
        over.set(np.zeros(1, dtype=np.bool_))
        expand(blocks, threads, (nodes, edges, mask, updating, visited, cost, n32))
        update(blocks, threads, (mask, updating, visited, over, n32))
        if not bool(over.get()[0]):
            break
    return {"cost": cost.get(), "iterations": np.array([launches], dtype=np.int32)}


@register
class BfsRodinia(Workload):
    name = "bfs_rodinia"
    suite = "tom"
    papers = ("TOM", "LLC-Compute")
    description = (
        "Rodinia BFS: Kernel (expand masked nodes over their edge lists) and Kernel2 (update masks), "
        "relaunched until no node is reached; Node structs, bool masks, 512-thread blocks"
    )
    deviations = (
        "Kernels written fresh after Rodinia's algorithm. The graph is generated as Rodinia's graph "
        "generator does (each node starts 2-4 undirected edges to uniform random nodes: average degree 6, "
        "like graph1MW_6) instead of reading graph1MW_6.txt; edge weights, unused by BFS, are omitted."
    )
    sources = ("bfs_rodinia.cu",)
    scales = {
        "tiny": {"nodes": 8192, "min_edges": 2, "max_edges": 4},
        # small: 256 blocks of 16 warps; tom-baseline's links then busy > 50% of the kernel time (docs/tom.md)
        "small": {"nodes": 1 << 17, "min_edges": 2, "max_edges": 4},
        "paper": {"nodes": 1_000_000, "min_edges": 2, "max_edges": 4},  # graph1MW_6
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        nodes, edges = rodinia_graph(p["nodes"], p["min_edges"], p["max_edges"], rng)
        return {"nodes": nodes, "edges": edges, "source": np.int32(0)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return run_rodinia_bfs(ctx, inp, p["nodes"], "bfs_kernel", "bfs_kernel2")

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        cost = bfs_cost(inp["nodes"], inp["edges"], int(inp["source"]))
        return {"cost": cost, "iterations": np.array([int(cost.max()) + 1], dtype=np.int32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"cost": spec(p["nodes"], np.int32), "iterations": spec(1, np.int32)}
