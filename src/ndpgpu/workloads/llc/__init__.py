"""LLC-Compute / Omni-Compute (seed 001, "Opportunistic Computing in GPU Architectures", Table 3): the
microbenchmarks and the nine workloads, written in CUDA C after the public algorithms.

Names are prefixed ``llc_`` unless the kernel already exists in the registry (BFS, KMN and SCP reuse
the TOM suite's ``bfs_rodinia``, ``kmeans`` and ``scalarprod``). :data:`LLC_WORKLOADS` maps the paper's
abbreviations to registry names; :data:`LLC_OFFLOAD_VARIANTS` gives, per workload, the source variant the
paper's offload runs use (RED-Hybrid2, split FMAs), while its baseline runs use :data:`LLC_WORKLOADS`.
"""

from __future__ import annotations

LLC_WORKLOADS: dict[str, str] = {
    # microbenchmarks
    "COMPARE": "llc_compare",
    "COPY-ALIGNED": "llc_copy_aligned",
    "COPY-STRIDED": "llc_copy_strided",
    "DENSITY": "llc_density",
    "VECADD-ALIGNED": "llc_vecadd_aligned",
    "VECADD-STRIDED": "llc_vecadd_strided",
    "NORM": "llc_norm",
    # workloads (unmodified sources: the paper's baseline runs)
    "BFS": "bfs_rodinia",
    "FDTD": "llc_fdtd",
    "KMN": "kmeans",
    "MVT": "llc_mvt",
    "RED": "llc_red",
    "SCP": "scalarprod",
    "SRAD": "llc_srad",
    "STREAM": "llc_streamcluster",
    "TRIAD": "llc_triad",
    # the RED variants of Sec. 6.2 / Fig. 17
    "RED-Global": "llc_red_global",
    "RED-Hybrid1": "llc_red_hybrid1",
    "RED-Hybrid2": "llc_red_hybrid2",
    "RED-Hybrid3": "llc_red_hybrid3",
}
"""The paper's abbreviation of each benchmark (and RED variant) -> its registry name."""

LLC_OFFLOAD_VARIANTS: dict[str, str] = {
    "FDTD": "llc_fdtd_splitfma",
    "MVT": "llc_mvt_splitfma",
    "RED": "llc_red_hybrid2",
    "SCP": "llc_scp_splitfma",
    "SRAD": "llc_srad_splitfma",
    "STREAM": "llc_streamcluster_splitfma",
    "TRIAD": "llc_triad_splitfma",
}
"""Workloads whose offload runs use modified sources (Sec. 5): RED-Hybrid2 and split FMAs. KMN needs no
variant: ``kmeans`` already rounds the product before accumulating (``__fmul_rn``), i.e. its FMA is split."""
