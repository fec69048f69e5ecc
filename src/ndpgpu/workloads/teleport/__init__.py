"""TELEPORT's benchmark set (seed 002, Table 3), written in CUDA C after the public algorithms.

Registry names carry a ``tp_`` prefix; two benchmarks reuse the TOM suite's kernels, which have the same
shape (BKP -> ``backprop``, FWL -> ``fastwalsh``). :data:`TELEPORT_WORKLOADS` maps the paper's abbreviations
to the registry names of the Baseline/TELEPORT kernels (the code Baseline and TELEPORT both run);
:data:`TELEPORT_HANDWRITTEN` maps the five benchmarks with a hand-written shared-memory comparison to that
version. FLD, FWL, LPS and MUM are in the paper's precalculability analysis only (:data:`ANALYSIS_ONLY`).
"""

from __future__ import annotations

TELEPORT_WORKLOADS: dict[str, str] = {
    "BFS": "tp_bfs",
    "BKP": "backprop",
    "BPT": "tp_bptree",
    "EDS": "tp_sobel",
    "FLD": "tp_fluidanimate",
    "FWL": "fastwalsh",
    "HSP": "tp_hotspot",
    "JAC": "tp_jacobi",
    "LPS": "tp_laplace3d",
    "MMA": "tp_matadd",
    "MUM": "tp_mummer",
    "NNC": "tp_nn",
    "NN": "tp_neuralnet",
    "PTF": "tp_pathfinder",
    "RDC": "tp_reduction",
    "SRD": "tp_srad",
}
"""The paper's abbreviation of each of the 16 benchmarks -> its registry name (Baseline/TELEPORT code)."""

TELEPORT_HANDWRITTEN: dict[str, str] = {
    "EDS": "tp_sobel_shared",
    "HSP": "tp_hotspot_shared",
    "JAC": "tp_jacobi_shared",
    "MMA": "tp_matadd_shared",
    "PTF": "tp_pathfinder_shared",
}
"""The five benchmarks of Sec. 5.1.1 -> the registry name of their hand-written shared-memory version."""

ANALYSIS_ONLY: tuple[str, ...] = ("FLD", "FWL", "LPS", "MUM")
"""Analysed for precalculability (Sec. 2.2) but left out of the TELEPORT simulations."""

SIMULATED: tuple[str, ...] = tuple(a for a in TELEPORT_WORKLOADS if a not in ANALYSIS_ONLY)
"""The 12 benchmarks the paper simulates."""
