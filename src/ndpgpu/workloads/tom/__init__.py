"""TOM's ten memory-intensive workloads (seed 000, Table 2), written in CUDA C after the public algorithms.

Registry names are the benchmarks' own names (TOM's copies of the five shared with other papers end in
``_nounroll``); :data:`TOM_WORKLOADS` maps the paper's abbreviations to them.
"""

from __future__ import annotations

TOM_WORKLOADS: dict[str, str] = {
    "BP": "backprop_nounroll",
    "BFS": "bfs_rodinia_nounroll",
    "KM": "kmeans_nounroll",
    "CFD": "cfd",
    "HW": "heartwall",
    "LIB": "libor",
    "RAY": "ray",
    "FWT": "fastwalsh_nounroll",
    "SP": "scalarprod_nounroll",
    "RD": "reduction",
}
"""The paper's abbreviation of each workload -> its registry name (``ndpgpu.workloads.get_workload``). The five
TOM shares with TELEPORT and LLC-Compute are their ``*_nounroll`` copies (:mod:`.nounroll`), compiled with
:data:`TOM_NVCC_OPTIONS` as the other five are; the plain names keep nvcc's default compile."""

TOM_VARIANTS: dict[str, str] = {"heartwall_sat": "HW"}
"""Labelled variants in the suite that the reproduction does not run -> the abbreviation of the workload they stand
beside: ``heartwall_sat`` is an earlier rewrite of HW (summed-area tables, 128-thread blocks, a grid that grows
with the scale), kept for comparison with :mod:`.heartwall`, the port of Rodinia's kernel."""

TOM_NVCC_OPTIONS: tuple[str, ...] = ("-Xcicc", "--Xopt", "-Xcicc", "-unroll-count=1")
"""The one compilation rule of every TOM workload (issue 43, item 1): NVVM's optimiser unrolls no loop (LLVM's
``-unroll-count=1``, passed to cicc's optimiser; ``#pragma unroll`` included), so each source loop stays one
PTX loop with the source's loads and stores per trip, as the paper's candidates are drawn (section 3.1.3-3.1.5:
Fig. 4's loops have "one load, and one store" per iteration and save from four iterations on), and arrays a
loop indexes stay in local memory. nvcc 13's default unrolls by 4 with a remainder loop and fully unrolls
constant-count loops, which moves the trip counts TOM's conditions test (SP: one 4x trip against ``tmin`` 2)
and, with every index constant, promotes per-thread arrays to registers (LIB: 202 live registers in the
forward sweep). Everything else is nvcc's default; the kernels' sources are unchanged."""
