"""AXPY: cuBLAS-style saxpy, y = alpha * x + y in place, grid-stride (MPU Table I: "Vector add")."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import BLOCKS, THREADS, U32


@register
class MpuAxpy(Workload):
    name = "mpu_axpy"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "AXPY (cuBLAS saxpy): y = alpha * x + y over float32 vectors in place, one element per thread per step "
        "of a grid-stride loop (grid x 128 threads)"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the sizes and launch follow MPU-Sim's vectoradd "
        "(2^24 elements, 512 x 128 threads, inputs uniform in [0, 1)). MPU-Sim computes c = a + b into a third "
        "array; this keeps cuBLAS's in-place y = alpha * x + y (alpha = 1.5), the same 12 bytes per element."
    )
    sources = ("axpy.cu",)
    scales = {
        "tiny": {"n": 1 << 15, "grid": 64},
        "small": {"n": 1 << 20, "grid": BLOCKS},
        "paper": {"n": 1 << 24, "grid": BLOCKS},
    }
    # one fused multiply-add (or a rounded product and sum of non-negative terms): within 2 float32 ulp
    tolerance = {"y": Tolerance(rtol=4 * U32, atol=0.0)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {
            "alpha": np.float32(1.5),
            "x": rng.random(p["n"], dtype=np.float32),
            "y": rng.random(p["n"], dtype=np.float32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        x = ndpgpu.asarray(inp["x"])
        y = ndpgpu.asarray(inp["y"])
        ctx.module.get_function("mpu_axpy")(p["grid"], THREADS, (inp["alpha"], x, y, np.int32(p["n"])))
        return {"y": y.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        y = np.float64(inp["alpha"]) * inp["x"].astype(np.float64) + inp["y"].astype(np.float64)
        return {"y": y.astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"y": spec(p["n"], np.float32)}
