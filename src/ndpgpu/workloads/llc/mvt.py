"""MVT: PolyBench/GPU matrix-vector product and transpose, x1 += A y1 and x2 += A^T y2."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register

from ._common import ceil_div, fma32


def mvt_reference(a: np.ndarray, x: np.ndarray, y: np.ndarray, split: bool) -> np.ndarray:
    """x[i] accumulated in float32 over j in order, a[i, j] * y[j] fused (FMA) or rounded first (split)."""
    x = x.copy()
    for j in range(a.shape[1]):
        x = (x + a[:, j] * y[j]) if split else fma32(a[:, j], y[j], x)
    return x


@register
class Mvt(Workload):
    name = "llc_mvt"
    suite = "llc"
    papers = ("LLC-Compute", "Omni-Compute")
    description = (
        "PolyBench/GPU MVT: kernel 1 x1[i] += A[i][j]*y1[j] (one thread per row), kernel 2 x2[i] += "
        "A[j][i]*y2[j] (one thread per column); the accumulators are read and written in global memory each step"
    )
    deviations = (
        "Kernels written fresh after PolyBench/GPU's mvt.cu (same one-thread-per-row/column structure, 256-thread "
        "blocks, N=4096 at the paper scale); inputs are seeded uniform [0, 1) floats instead of PolyBench's "
        "i*j/N initialisation. Compiled as is, nvcc fuses each multiply-add into an FMA; llc_mvt_splitfma is the "
        "split form the offload runs use."
    )
    sources = ("mvt.cu",)
    scales = {
        "tiny": {"n": 256, "block": 256},
        "small": {"n": 1024, "block": 256},
        "paper": {"n": 4096, "block": 256},  # PolyBench/GPU standard size
    }
    # the reference emulates the kernel's float32 order; FMA emulation can double-round (rare 1-ulp steps)
    tolerance = {"x1": Tolerance(rtol=1e-5), "x2": Tolerance(rtol=1e-5)}
    split_fma = False

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        return {k: rng.random(n * n if k == "a" else n, dtype=np.float32) for k in ("a", "x1", "x2", "y1", "y2")}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        a, x1, x2, y1, y2 = (ndpgpu.asarray(inp[k]) for k in ("a", "x1", "x2", "y1", "y2"))
        grid = ceil_div(n, p["block"])
        ctx.module.get_function("llc_mvt_kernel1")(grid, p["block"], (a, x1, y1, np.int32(n)))
        ctx.module.get_function("llc_mvt_kernel2")(grid, p["block"], (a, x2, y2, np.int32(n)))
        return {"x1": x1.get(), "x2": x2.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        a = inp["a"].reshape(p["n"], p["n"])
        return {"x1": mvt_reference(a, inp["x1"], inp["y1"], self.split_fma),
                "x2": mvt_reference(np.ascontiguousarray(a.T), inp["x2"], inp["y2"], self.split_fma)}


@register
class MvtSplitFma(Mvt):
    name = "llc_mvt_splitfma"
    description = Mvt.description + "; split FMA (separate mul and add, as in the paper's offload runs)"
    deviations = Mvt.deviations + " This variant compiles with -fmad=false, so each FMA becomes mul.rn + add.rn."
    options = ("-fmad=false",)
    split_fma = True
