"""SAXPY: ``y = a*x + y`` over float32 vectors."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec


@register
class Saxpy(Workload):
    name = "saxpy"
    suite = "builtin"
    description = "y = a*x + y over float32 vectors, one element per thread (256 threads per block)"
    sources = ("saxpy.cu",)
    scales = {"tiny": {"n": 10_000}, "small": {"n": 1 << 18}, "paper": {"n": 1 << 22}}
    # nvcc contracts a*x + y into one fma; the reference rounds twice: at most about 1 ulp apart.
    tolerance = {"y": Tolerance(rtol=1e-6, atol=1e-7)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        return {
            "a": np.float32(2.5),
            "x": rng.random(n, dtype=np.float32),
            "y": rng.random(n, dtype=np.float32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        x = ndpgpu.asarray(inp["x"])
        y = ndpgpu.asarray(inp["y"])
        ctx.module.get_function("saxpy")(ceil_div(n, 256), 256, (np.float32(inp["a"]), x, y, np.int32(n)))
        return {"y": y.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        y = np.float64(inp["a"]) * inp["x"].astype(np.float64) + inp["y"].astype(np.float64)
        return {"y": y.astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"y": spec(p["n"], np.float32)}
