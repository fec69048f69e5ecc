"""Vector add, exactly as GPGPU-Sim ran it for the reference figures (2^20 floats, 256 threads/block)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec


@register
class VecAdd(Workload):
    name = "vecadd"
    suite = "builtin"
    description = "c = a + b (the GPGPU-Sim reference kernel; a[i]=(i%1000)*0.5, b[i]=(i%777)*0.25)"
    sources = ("vecadd.cu",)
    scales = {
        "tiny": {"n": 10_000, "block": 256},
        "small": {"n": 1 << 16, "block": 256},
        "paper": {"n": 1 << 20, "block": 256},
    }
    # a and b are multiples of 1/4 below 2^9: every sum is exact in float32, so the check is exact.

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        i = np.arange(p["n"], dtype=np.int64)
        return {"a": ((i % 1000) * 0.5).astype(np.float32), "b": ((i % 777) * 0.25).astype(np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n, block = p["n"], p["block"]
        a = ndpgpu.asarray(inp["a"])
        b = ndpgpu.asarray(inp["b"])
        c = ndpgpu.zeros(n, np.float32)
        ctx.module.get_function("vec_add")(ceil_div(n, block), block, (a, b, c, np.int32(n)))
        return {"c": c.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"c": inp["a"] + inp["b"]}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"c": spec(p["n"], np.float32)}
