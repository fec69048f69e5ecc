"""3x3 convolution with weights in ``__constant__`` memory (set through ``get_global``)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, set_global, spec


@register
class Conv3x3(Workload):
    name = "conv3x3"
    suite = "corpus"
    description = "3x3 image convolution, clamp-to-edge, __constant__ weights, 16x16 blocks"
    sources = ("conv2d.cu",)
    scales = {
        "tiny": {"width": 100, "height": 75},
        "small": {"width": 640, "height": 480},
        "paper": {"width": 2048, "height": 2048},
    }
    # Nine fma-rounded terms of magnitude <= 1: a few ulps of values below ~5.
    tolerance = {"out": Tolerance(rtol=1e-5, atol=2e-6)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        w = np.array([[-0.0625, -0.125, -0.0625], [-0.125, 1.75, -0.125], [-0.0625, -0.125, -0.0625]])
        w = w + rng.uniform(-0.05, 0.05, size=(3, 3))  # a sharpening kernel with some noise
        return {
            "image": rng.random((p["height"], p["width"]), dtype=np.float32),
            "weights": w.astype(np.float32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        w, h = p["width"], p["height"]
        set_global(ctx.module, "weights", inp["weights"])
        image = ndpgpu.asarray(inp["image"])
        out = ndpgpu.zeros((h, w), np.float32)
        grid = (ceil_div(w, 16), ceil_div(h, 16))
        ctx.module.get_function("conv3x3")(grid, (16, 16), (image, out, np.int32(w), np.int32(h)))
        return {"out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        h, w = p["height"], p["width"]
        padded = np.pad(inp["image"].astype(np.float64), 1, mode="edge")
        wts = inp["weights"].astype(np.float64)
        acc = np.zeros((h, w), dtype=np.float64)
        for dy in range(3):
            for dx in range(3):
                acc += wts[dy, dx] * padded[dy : dy + h, dx : dx + w]
        return {"out": acc.astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec((p["height"], p["width"]), np.float32)}
