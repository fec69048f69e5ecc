"""Device ``printf`` (``%d``, ``%f``) from a few threads; ``out`` gives the numeric check and
:meth:`PrintfHello.expected_lines` the text a test compares with the captured output."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec


@register
class PrintfHello(Workload):
    name = "printf_hello"
    suite = "builtin"
    description = "device printf with %d and %f from every 16th thread of the first two blocks"
    sources = ("printf_hello.cu",)
    scales = {
        "tiny": {"n": 128, "block": 64},
        "small": {"n": 4096, "block": 128},
        "paper": {"n": 1 << 16, "block": 256},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # deterministic without the rng (the printed text depends only on the scale); multiples of 1/8
        # print exactly with %f
        i = np.arange(p["n"], dtype=np.int64)
        return {"x": ((i * 37) % 201 - 100).astype(np.float32) / np.float32(8)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n, block = p["n"], p["block"]
        x = ndpgpu.asarray(inp["x"])
        out = ndpgpu.zeros(n, np.int32)
        ctx.module.get_function("printf_hello")(ceil_div(n, block), block, (x, out, np.int32(n)))
        return {"out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"out": (2 * np.arange(p["n"], dtype=np.int64) + 1).astype(np.int32)}

    def expected_lines(self, p: dict[str, Any]) -> list[str]:
        """The lines the kernel prints, in thread order (the device may interleave them differently)."""
        inp = self.inputs(p, np.random.default_rng(0))
        lines = []
        for b in range(min(2, ceil_div(p["n"], p["block"]))):
            for t in range(0, p["block"], 16):
                i = b * p["block"] + t
                if i < p["n"]:
                    lines.append(f"hello from block {b} thread {t}: x={float(inp['x'][i]):f}")
        return lines

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec(p["n"], np.int32)}
