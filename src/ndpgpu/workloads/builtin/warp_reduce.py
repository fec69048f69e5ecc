"""Warp-shuffle integer reduction with one atomicAdd per warp (exact)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec, wrap_int32


@register
class WarpReduce(Workload):
    name = "warp_reduce"
    suite = "builtin"
    description = "int sum: grid-stride partials, __shfl_down_sync within warps, atomicAdd of warp sums"
    sources = ("warp_reduce.cu",)
    scales = {
        "tiny": {"n": 50_000, "block": 256, "grid": 24},
        "small": {"n": 1 << 20, "block": 256, "grid": 120},
        "paper": {"n": 1 << 22, "block": 256, "grid": 480},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"x": rng.integers(-1000, 1001, size=p["n"], dtype=np.int32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        block, grid = p["block"], p["grid"]
        x = ndpgpu.asarray(inp["x"])
        warp_sums = ndpgpu.zeros(grid * block // 32, np.int32)
        total = ndpgpu.zeros(1, np.int32)
        ctx.module.get_function("warp_reduce")(grid, block, (x, warp_sums, total, np.int32(p["n"])))
        return {"warp_sums": warp_sums.get(), "total": total.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        threads = p["block"] * p["grid"]
        x = inp["x"].astype(np.int64)
        padded = np.zeros(ceil_div(x.size, threads) * threads, dtype=np.int64)
        padded[: x.size] = x
        per_thread = padded.reshape(-1, threads).sum(axis=0)  # thread t sums x[t], x[t+T], ...
        warp_sums = per_thread.reshape(-1, 32).sum(axis=1)
        return {"warp_sums": wrap_int32(warp_sums), "total": wrap_int32(np.array([x.sum()]))}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"warp_sums": spec(p["grid"] * p["block"] // 32, np.int32), "total": spec(1, np.int32)}
