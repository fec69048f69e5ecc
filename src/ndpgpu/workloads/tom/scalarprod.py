"""SP: CUDA SDK scalarProd, dot products of many vector pairs with a per-block shared-memory tree."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec

ACCUM_N = 1024


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 fused multiply-add evaluated in float64 (exact product; the final double rounding can
    differ from the hardware's single rounding by one ulp in rare halfway cases)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


def scalar_products(a: np.ndarray, b: np.ndarray, vector_n: int, element_n: int, fused: bool = True) -> np.ndarray:
    """Every vector's dot product in the kernel's order: interleaved accumulators, then the tree.

    ``fused``: the accumulate is an fma (one rounding); otherwise the product is rounded before the add
    (the kernel compiled with ``-fmad=false``).
    """
    av = a.reshape(vector_n, element_n)
    bv = b.reshape(vector_n, element_n)
    accum = np.zeros((vector_n, ACCUM_N), dtype=np.float32)
    for start in range(0, element_n, ACCUM_N):
        width = min(ACCUM_N, element_n - start)
        x, y = av[:, start : start + width], bv[:, start : start + width]
        acc = accum[:, :width]
        accum[:, :width] = fma32(x, y, acc) if fused else acc + x * y
    stride = ACCUM_N // 2
    while stride > 0:
        accum[:, :stride] = accum[:, :stride] + accum[:, stride : 2 * stride]
        stride //= 2
    return accum[:, 0].copy()


@register
class ScalarProd(Workload):
    name = "scalarprod"
    suite = "tom"
    papers = ("TOM", "LLC-Compute")
    description = (
        "CUDA SDK scalarProd: vector_n dot products of element_n floats; per block 1024 interleaved "
        "accumulators in shared memory reduced by a tree"
    )
    deviations = (
        "Kernel written fresh after the SDK sample's algorithm (same ACCUM_N=1024, 128x256 launch at the "
        "paper scale, inputs uniform in [0, 1) as the SDK's RandFloat(0, 1)); smaller scales shrink the grid."
    )
    sources = ("scalarprod.cu",)
    scales = {
        "tiny": {"vector_n": 16, "element_n": 2048, "grid": 16, "block": 256},
        "small": {"vector_n": 128, "element_n": 4096, "grid": 128, "block": 256},
        "paper": {"vector_n": 256, "element_n": 4096, "grid": 128, "block": 256},  # SDK defaults
    }
    tolerance = {"c": Tolerance(rtol=1e-6, atol=0.0)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        total = p["vector_n"] * p["element_n"]
        return {"a": rng.random(total, dtype=np.float32), "b": rng.random(total, dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        a = ndpgpu.asarray(inp["a"])
        b = ndpgpu.asarray(inp["b"])
        c = ndpgpu.zeros(p["vector_n"], np.float32)
        ctx.module.get_function("scalar_prod")(
            p["grid"], p["block"], (c, a, b, np.int32(p["vector_n"]), np.int32(p["element_n"]))
        )
        return {"c": c.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"c": scalar_products(inp["a"], inp["b"], p["vector_n"], p["element_n"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"c": spec(p["vector_n"], np.float32)}
