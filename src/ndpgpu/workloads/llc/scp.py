"""SCP with split FMAs: the TOM suite's CUDA SDK scalarProd (the paper's SCP), compiled with -fmad=false."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ndpgpu.workloads.base import Tolerance, register
from ndpgpu.workloads.tom.scalarprod import ScalarProd, scalar_products


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
        return {"c": scalar_products(inp["a"], inp["b"], p["vector_n"], p["element_n"], fused=False)}
