"""Matrix transpose: naive (strided writes) and through padded shared-memory tiles."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

_SCALES = {
    "tiny": {"rows": 70, "cols": 100},
    "small": {"rows": 1000, "cols": 600},
    "paper": {"rows": 4096, "cols": 4096},
}


class _Transpose(Workload):
    sources = ("transpose.cu",)
    scales = _SCALES

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"a": rng.standard_normal((p["rows"], p["cols"])).astype(np.float32)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"t": np.ascontiguousarray(inp["a"].T)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"t": spec((p["cols"], p["rows"]), np.float32)}


@register
class TransposeNaive(_Transpose):
    name = "transpose_naive"
    suite = "corpus"
    description = "naive transpose, 16x16 threads, one element each (C++ kernel name)"

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows, cols = p["rows"], p["cols"]
        a = ndpgpu.asarray(inp["a"])
        t = ndpgpu.zeros((cols, rows), np.float32)
        grid = (ceil_div(cols, 16), ceil_div(rows, 16))
        ctx.module.get_function("transpose_naive")(grid, (16, 16), (a, t, np.int32(rows), np.int32(cols)))
        return {"t": t.get()}


@register
class TransposeShared(_Transpose):
    name = "transpose_shared"
    suite = "corpus"
    description = "transpose through 32x33 (padded) shared tiles, 32x8 threads moving 4 elements each"

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows, cols = p["rows"], p["cols"]
        a = ndpgpu.asarray(inp["a"])
        t = ndpgpu.zeros((cols, rows), np.float32)
        grid = (ceil_div(cols, 32), ceil_div(rows, 32))
        ctx.module.get_function("transpose_shared")(grid, (32, 8), (a, t, np.int32(rows), np.int32(cols)))
        return {"t": t.get()}
