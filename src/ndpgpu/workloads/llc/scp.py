"""SCP with split FMAs: the TOM suite's CUDA SDK scalarProd (the paper's SCP), compiled with -fmad=false."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ndpgpu.workloads.base import Tolerance, register
from ndpgpu.workloads.tom.scalarprod import ACCUM_N, ScalarProd


def scalar_products_split(a: np.ndarray, b: np.ndarray, vector_n: int, element_n: int) -> np.ndarray:
    """The kernel's order with the product rounded before the add (mul.rn then add.rn, all float32)."""
    av = a.reshape(vector_n, element_n)
    bv = b.reshape(vector_n, element_n)
    accum = np.zeros((vector_n, ACCUM_N), dtype=np.float32)
    for start in range(0, element_n, ACCUM_N):
        width = min(ACCUM_N, element_n - start)
        accum[:, :width] = accum[:, :width] + av[:, start : start + width] * bv[:, start : start + width]
    stride = ACCUM_N // 2
    while stride > 0:
        accum[:, :stride] = accum[:, :stride] + accum[:, stride : 2 * stride]
        stride //= 2
    return accum[:, 0].copy()


@register
class ScalarProdSplitFma(ScalarProd):
    name = "llc_scp_splitfma"
    suite = "llc"
    papers = ("LLC-Compute", "Omni-Compute")
    description = ScalarProd.description + "; split FMA (separate mul and add, as in the paper's offload runs)"
    deviations = (
        "The paper's SCP is the CUDA SDK scalarProd, registered as 'scalarprod' (TOM suite); this variant runs "
        "its source unchanged, compiled with -fmad=false so the accumulate's FMA becomes mul.rn + add.rn (the "
        "paper splits FMAs in the source for its offload runs). " + ScalarProd.deviations
    )
    options = ("-fmad=false",)
    tolerance = {"c": Tolerance(rtol=0.0, atol=0.0)}  # all float32 operations in the kernel's order: exact

    @classmethod
    def directory(cls) -> Path:
        return ScalarProd.directory()

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"c": scalar_products_split(inp["a"], inp["b"], p["vector_n"], p["element_n"])}
