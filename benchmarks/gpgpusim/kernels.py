"""The kernels of the correlation: workloads of our registry, the scale each runs at, and what each exercises.

``set`` says how a kernel is used: ``fit`` kernels may inform a change of the ``gpgpusim`` overlay, ``held`` are
kept out of any such change (their error is reported apart), ``third`` are third-party codes (CUDA SDK,
Rodinia ports in our registry), the unseen check. Sizes keep a GPGPU-Sim run to a minute or two on a loaded
core (it simulated 150 SM2_GTX480 cycles a second here); both simulators run the same scale.
"""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class Kernel:
    workload: str
    scale: str
    category: str
    set: str = "fit"
    params: dict[str, Any] | None = None
    v100: bool = False  # also in the SM7_QV100 list

    @property
    def key(self) -> str:
        extra = "".join(f"-{k}{v}" for k, v in sorted((self.params or {}).items()))
        return f"{self.workload}@{self.scale}{extra}"


KERNELS: list[Kernel] = [
    # memory-bound, streaming
    Kernel("vecadd", "small", "memory", v100=True),
    Kernel("saxpy", "tiny", "memory", v100=True),
    Kernel("llc_triad", "tiny", "memory", "held", v100=True),
    Kernel("llc_copy_aligned", "tiny", "memory"),
    Kernel("llc_vecadd_strided", "tiny", "memory-uncoalesced", "held"),
    Kernel("transpose_naive", "tiny", "memory-uncoalesced", v100=True),
    Kernel("matvec_row", "tiny", "memory-uncoalesced"),
    Kernel("matvec_col", "tiny", "memory"),
    Kernel("mpu_axpy", "tiny", "memory"),
    Kernel("mpu_upsamp", "tiny", "memory", v100=True),
    Kernel("tp_matadd", "tiny", "memory", v100=True),
    Kernel("ipndp_downsample", "tiny", "memory"),
    # compute-bound
    Kernel("math_funcs", "tiny", "compute", v100=True),
    Kernel("sgemm_naive", "tiny", "compute", params={"n": 64}, v100=True),
    Kernel("ipndp_denoising", "tiny", "compute"),
    Kernel("mpu_knn", "tiny", "compute", "held"),
    Kernel("devfunc", "tiny", "compute"),
    Kernel("int64_ops", "tiny", "compute"),
    # shared memory and barriers
    Kernel("sgemm_tiled", "tiny", "shared", v100=True),
    Kernel("transpose_shared", "tiny", "shared", v100=True),
    Kernel("reduce_shared", "tiny", "shared", v100=True),
    Kernel("stencil1d", "tiny", "shared", v100=True),
    Kernel("bitonic_sort", "tiny", "shared", "held"),
    Kernel("scan_blelloch", "tiny", "shared"),
    Kernel("pyramid", "tiny", "shared"),
    Kernel("ipndp_matmul", "tiny", "shared"),
    Kernel("ipndp_dct8x8", "tiny", "shared"),
    # atomics
    Kernel("histogram", "tiny", "atomics", v100=True),
    Kernel("warp_reduce", "tiny", "atomics", v100=True),
    Kernel("mpu_hist", "tiny", "atomics"),
    Kernel("dot_double", "tiny", "atomics-fp64"),
    # divergent, irregular
    Kernel("bfs", "tiny", "divergent"),
    Kernel("spmv_csr", "tiny", "divergent"),
    Kernel("vote", "small", "divergent"),
    Kernel("local_array", "tiny", "divergent-local"),
    Kernel("grid_stride", "tiny", "divergent", "held"),
    # stencils
    Kernel("conv3x3", "tiny", "stencil-const", v100=True),
    Kernel("jacobi2d", "tiny", "stencil"),
    Kernel("stencil3d", "tiny", "stencil"),
    Kernel("mpu_blur", "tiny", "stencil"),
    # third-party codes in our registry (CUDA SDK, Rodinia): the unseen check
    Kernel("backprop", "tiny", "third-rodinia", "third"),
    Kernel("tp_pathfinder", "tiny", "third-rodinia", "third"),
    Kernel("llc_scp_splitfma", "tiny", "third-sdk", "third"),
    Kernel("tp_reduction", "tiny", "third-sdk", "third"),
]

# Probes run only when named (``--only``): not in either correlation list. A 3x3 stencil whose image rows are
# 4 KB apart (1,024 floats) puts a warp's three rows, and a CTA's ten, in one set of a 32-set L1 indexed linearly
# (GPGPU-Sim 3.2.2's), and the 1,000-float control does not: the L1 set-index dependence of TELEPORT's result
# (docs/teleport.md), measured in GPGPU-Sim itself.
PROBES: list[Kernel] = [
    Kernel("ipndp_conv2d", "tiny", "probe-l1-sets", "probe", params={"width": 1024, "height": 64}),
    Kernel("ipndp_conv2d", "tiny", "probe-l1-sets", "probe", params={"width": 1000, "height": 64}),
]

# The same codes at `small`, run only when named (``--only``): kernels of 17,000-68,000 GPGPU-Sim cycles, up to 15
# times the `tiny` ones, to see whether the correlation of the lists above holds at a larger size (more waves of
# CTAs, more DRAM traffic). Not in either correlation list and never used to change an overlay.
SCALE: list[Kernel] = [
    Kernel("saxpy", "small", "memory", "scale"),
    Kernel("reduce_shared", "small", "shared", "scale"),
    Kernel("stencil1d", "small", "shared", "scale"),
    Kernel("transpose_shared", "small", "shared", "scale"),
    Kernel("conv3x3", "small", "stencil-const", "scale"),
    Kernel("backprop", "small", "third-rodinia", "scale"),
    Kernel("transpose_naive", "small", "memory-uncoalesced", "scale"),
    # added after core.branch_refetch was taken (stop 87): held out of that change
    Kernel("scan_blelloch", "small", "shared", "scale-held"),
    Kernel("tp_pathfinder", "small", "third-rodinia", "scale-held"),
    Kernel("jacobi2d", "small", "stencil", "scale-held"),
    Kernel("sgemm_tiled", "small", "shared", "scale-held"),
]


def select(config: str, only: list[str] | None, shard: str | None = None) -> list[Kernel]:
    """The kernels for ``config`` (SM7_QV100: the ``v100`` ones), or those named in ``only``; ``shard`` "i/n"
    keeps every n-th from the i-th (0-based), to run the list in n processes."""
    ks = [k for k in KERNELS if config != "SM7_QV100" or k.v100]
    if only:
        ks = [k for k in KERNELS + PROBES + SCALE
              if k.key in only or (k.workload in only and k.set not in ("probe", "scale", "scale-held"))]
    if shard:
        i, n = (int(x) for x in shard.split("/"))
        ks = ks[i::n]
    return ks


def write_rows(out: Any, rows: dict[str, dict[str, Any]], fields: list[str]) -> None:
    """Write every row so far to the CSV ``out`` (a path), columns ``fields``: rewritten after each kernel, so an
    interrupted run keeps what it measured."""
    import csv

    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows.values():
            w.writerow(r)
