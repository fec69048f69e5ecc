"""TOM's ten memory-intensive workloads (seed 000, Table 2), written in CUDA C after the public algorithms.

Registry names are the benchmarks' own names; :data:`TOM_WORKLOADS` maps the paper's abbreviations to them.
"""

from __future__ import annotations

TOM_WORKLOADS: dict[str, str] = {
    "BP": "backprop",
    "BFS": "bfs_rodinia",
    "KM": "kmeans",
    "CFD": "cfd",
    "HW": "heartwall",
    "LIB": "libor",
    "RAY": "ray",
    "FWT": "fastwalsh",
    "SP": "scalarprod",
    "RD": "reduction",
}
"""The paper's abbreviation of each workload -> its registry name (``ndpgpu.workloads.get_workload``)."""
