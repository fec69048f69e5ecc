"""256-bin byte histogram: global atomics and a shared-memory privatised variant."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec


@register
class Histogram(Workload):
    name = "histogram"
    suite = "builtin"
    description = (
        "256-bin histogram of skewed bytes: atomicAdd on global bins, and shared-memory private bins"
    )
    sources = ("histogram.cu",)
    scales = {
        "tiny": {"n": 1 << 15, "block": 256, "blocks_per_sm": 2},
        "small": {"n": 1 << 20, "block": 256, "blocks_per_sm": 4},
        "paper": {"n": 1 << 24, "block": 256, "blocks_per_sm": 8},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        # half uniform bytes, half concentrated on a few bins (contention on the atomics)
        uniform = rng.integers(0, 256, size=n, dtype=np.int64)
        skewed = rng.binomial(255, 0.3, size=n)
        data = np.where(rng.random(n) < 0.5, uniform, skewed).astype(np.uint8)
        return {"data": data}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n, block = p["n"], p["block"]
        grid = max(1, min(ceil_div(n, block), p["blocks_per_sm"] * ctx.num_sms))
        data = ndpgpu.asarray(inp["data"])
        out = {}
        for kernel in ("histogram_global", "histogram_shared"):
            bins = ndpgpu.zeros(256, np.uint32)
            ctx.module.get_function(kernel)(grid, block, (data, bins, np.int32(n)))
            out[kernel.replace("histogram", "bins")] = bins.get()
        return out

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        counts = np.bincount(inp["data"], minlength=256).astype(np.uint32)
        return {"bins_global": counts, "bins_shared": counts.copy()}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"bins_global": spec(256, np.uint32), "bins_shared": spec(256, np.uint32)}
