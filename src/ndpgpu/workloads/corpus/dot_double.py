"""Double-precision dot product with a shared-memory tree and ``atomicAdd(double)``."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

BLOCK = 256


@register
class DotDouble(Workload):
    name = "dot_double"
    suite = "corpus"
    description = "float64 dot product: grid-stride fma partials, shared tree, atomicAdd(double) per block"
    sources = ("dot_double.cu",)
    scales = {
        "tiny": {"n": 30_000, "grid": 16},
        "small": {"n": 1 << 20, "grid": 64},
        "paper": {"n": 1 << 22, "grid": 240},
    }
    # Non-negative terms: every partial is below the total, so any summation order is within
    # ~(n / threads + log2(threads) + grid) * 2^-53 relative of the exact value, << 1e-12.
    tolerance = {"result": Tolerance(rtol=1e-12), "block_sums": Tolerance(rtol=1e-12)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"a": rng.random(p["n"]), "b": rng.random(p["n"])}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        grid = p["grid"]
        a = ndpgpu.asarray(inp["a"])
        b = ndpgpu.asarray(inp["b"])
        result = ndpgpu.zeros(1, np.float64)
        block_sums = ndpgpu.zeros(grid, np.float64)
        ctx.module.get_function("dot_double")(grid, BLOCK, (a, b, result, block_sums, np.int32(p["n"])))
        return {"result": result.get(), "block_sums": block_sums.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        grid, n = p["grid"], p["n"]
        chunk = grid * BLOCK
        prods = np.zeros(ceil_div(n, chunk) * chunk)
        prods[:n] = inp["a"] * inp["b"]
        # element i goes to block (i % chunk) // BLOCK
        block_sums = prods.reshape(-1, grid, BLOCK).sum(axis=(0, 2))
        return {"result": np.array([prods.sum()]), "block_sums": block_sums}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"result": spec(1, np.float64), "block_sums": spec(p["grid"], np.float64)}
