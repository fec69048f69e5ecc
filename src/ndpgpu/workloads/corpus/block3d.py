"""A 2D grid of 3D (8, 4, 3) blocks: geometry ids and a per-channel image update."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

BLOCK = (8, 4, 3)  # x, y, z: z is the channel


@register
class Block3D(Workload):
    name = "block3d"
    suite = "corpus"
    description = "2D grid of (8, 4, 3) blocks: threadIdx.z picks the channel; ids check launch geometry"
    sources = ("block3d.cu",)
    scales = {
        "tiny": {"width": 30, "height": 21},
        "small": {"width": 640, "height": 480},
        "paper": {"width": 2048, "height": 2048},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        shape = (p["height"], p["width"], BLOCK[2])
        return {"image": rng.integers(-10_000, 10_000, size=shape, dtype=np.int32)}

    def _grid(self, p: dict[str, Any]) -> tuple[int, int]:
        return ceil_div(p["width"], BLOCK[0]), ceil_div(p["height"], BLOCK[1])

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        gx, gy = self._grid(p)
        img = ndpgpu.asarray(inp["image"])
        out = ndpgpu.zeros(inp["image"].shape, np.int32)
        ids = ndpgpu.zeros((gy, gx, BLOCK[2], BLOCK[1], BLOCK[0]), np.int32)
        args = (img, out, ids, np.int32(p["width"]), np.int32(p["height"]))
        ctx.module.get_function("block3d")((gx, gy), BLOCK, args)
        return {"out": out.get(), "ids": ids.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        gx, gy = self._grid(p)
        h, w, c = inp["image"].shape
        y, x, ch = np.meshgrid(np.arange(h), np.arange(w), np.arange(c), indexing="ij")
        out = inp["image"].astype(np.int64) * (ch + 1) + y - x + gx * gy
        by, bx, tz, ty, tx = np.meshgrid(
            np.arange(gy),
            np.arange(gx),
            np.arange(BLOCK[2]),
            np.arange(BLOCK[1]),
            np.arange(BLOCK[0]),
            indexing="ij",
        )
        ids = ((by * 1000 + bx) * 10 + tz) * 100 + ty * 10 + tx
        return {"out": out.astype(np.int32), "ids": ids.astype(np.int32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        gx, gy = self._grid(p)
        return {
            "out": spec((p["height"], p["width"], BLOCK[2]), np.int32),
            "ids": spec((gy, gx, BLOCK[2], BLOCK[1], BLOCK[0]), np.int32),
        }
