"""BFS: Rodinia's breadth-first search in the exact shape of TELEPORT's Listing 2 (seven global read indexes).

TOM's ``bfs_rodinia`` runs the same algorithm but hoists the edge-loop bound into locals (six source-level
reads, ``nodes[tid]`` loaded once per node); TELEPORT classifies Rodinia's form, whose loop condition re-reads
``nodes[tid]`` every trip. So this workload keeps Rodinia's loop, and reuses ``bfs_rodinia``'s graph
generator and reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import TeleportWorkload
from ndpgpu.workloads.tom.bfs_rodinia import BfsRodinia, run_rodinia_bfs


@register
class Bfs(TeleportWorkload, BfsRodinia):
    name = "tp_bfs"
    kernel = "bfs_expand"
    description = (
        "TELEPORT BFS, Rodinia's Kernel/Kernel2 breadth-first search as in the paper's Listing 2: one thread "
        "per node (512-thread blocks), the edge loop bound re-reading nodes[tid] every trip; relaunched until "
        "no node is reached; Node structs and bool masks"
    )
    deviations = (
        "Kernels written fresh after Rodinia's algorithm, keeping its source shape (the seven read indexes of "
        "the paper's Table 1). The graph is generated as Rodinia's generator does (2-4 undirected edges per "
        "node to uniform random nodes: average degree 6, like graph1MW_6; bfs_rodinia's generator) instead of "
        "reading graph1MW_6.txt; edge weights, unused by BFS, are omitted. Paper scale: 1M nodes."
    )
    sources = ("bfs.cu",)
    # inputs, reference and outputs are bfs_rodinia's: the same graphs and answers. The small graph stays at
    # 65536 nodes, bfs_rodinia's small before TOM's grew to 2^17 to load TOM's links (docs/tom.md)
    scales = {**BfsRodinia.scales, "small": {"nodes": 1 << 16, "min_edges": 2, "max_edges": 4}}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return run_rodinia_bfs(ctx, inp, p["nodes"], "bfs_expand", "bfs_update")
