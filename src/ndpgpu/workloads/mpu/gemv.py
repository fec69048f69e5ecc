"""GEMV: cuBLAS-style y = A x, one block per row, A in 128-column panels, shared-memory tree per row."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import BLOCKS, THREADS, U32

PANEL = THREADS  # columns per panel = threads per block


def to_panels(a: np.ndarray) -> np.ndarray:
    """(nrows, ncols) row-major -> the kernel's panel layout: A[r][p * 128 + k] at (p * nrows + r) * 128 + k."""
    nrows, ncols = a.shape
    return np.ascontiguousarray(a.reshape(nrows, ncols // PANEL, PANEL).transpose(1, 0, 2)).reshape(-1)


@register
class MpuGemv(Workload):
    name = "mpu_gemv"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "GEMV (cuBLAS sgemv): y = A x, float32, one block of 128 threads per row (grid-stride over rows); A in "
        "panels of 128 columns (A[r][p*128+k] at (p*nrows + r)*128 + k), thread k accumulates column k of every "
        "panel, then a shared-memory tree"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the size, launch and the panel layout of A (which keeps "
        "each row's 512 B chunks in one MPU core's banks) follow MPU-Sim's gemv (4096 x 4096, 512 x 128 threads, "
        "values uniform in [0, 1)). cuBLAS takes a plain column-major A."
    )
    sources = ("gemv.cu",)
    scales = {
        "tiny": {"nrows": 256, "ncols": 512, "grid": 64},
        "small": {"nrows": 1024, "ncols": 2048, "grid": BLOCKS},
        "paper": {"nrows": 4096, "ncols": 4096, "grid": BLOCKS},
    }
    # non-negative terms: ncols/128 = 32 sequential adds (fma) per thread + 7 tree levels, one unit roundoff each
    tolerance = {"y": Tolerance(rtol=(4096 // PANEL + 7 + 1) * U32, atol=0.0)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {
            "A": rng.random((p["nrows"], p["ncols"]), dtype=np.float32),
            "x": rng.random(p["ncols"], dtype=np.float32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        a = ndpgpu.asarray(to_panels(inp["A"]))
        x = ndpgpu.asarray(inp["x"])
        y = ndpgpu.zeros(p["nrows"], np.float32)
        ctx.module.get_function("mpu_gemv")(
            p["grid"], THREADS, (a, x, y, np.int32(p["nrows"]), np.int32(p["ncols"]))
        )
        return {"y": y.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"y": (inp["A"].astype(np.float64) @ inp["x"].astype(np.float64)).astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"y": spec(p["nrows"], np.float32)}
