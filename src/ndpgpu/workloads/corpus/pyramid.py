"""Multi-level 2x2 downsampling of 32x32 tiles inside one block, with barriers between levels."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec

TILE = 32
LEVELS_PER_TILE = 341  # 16^2 + 8^2 + 4^2 + 2^2 + 1


def pyramid_levels(img: np.ndarray) -> np.ndarray:
    """Per 32x32 tile, the 16x16 .. 1x1 averages in float32, in the kernel's order of additions."""
    h, w = img.shape
    tiles = img.reshape(h // TILE, TILE, w // TILE, TILE).transpose(0, 2, 1, 3)  # (ty, tx, 32, 32)
    out = []
    level = tiles
    while level.shape[-1] > 1:
        a = level[..., 0::2, 0::2]
        b = level[..., 0::2, 1::2]
        c = level[..., 1::2, 0::2]
        d = level[..., 1::2, 1::2]
        level = np.float32(0.25) * (((a + b) + c) + d)
        out.append(level.reshape(level.shape[0], level.shape[1], -1))
    return np.concatenate(out, axis=-1)


@register
class Pyramid(Workload):
    name = "pyramid"
    suite = "corpus"
    description = "shared-memory image pyramid: 32x32 tile to 1x1 by 2x2 averages, barrier per level"
    sources = ("pyramid.cu",)
    scales = {
        "tiny": {"tiles_x": 4, "tiles_y": 3},
        "small": {"tiles_x": 16, "tiles_y": 16},
        "paper": {"tiles_x": 64, "tiles_y": 64},
    }
    # Same float32 additions in the same order, and the multiply by 0.25 is exact: bit-exact.

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"image": rng.random((p["tiles_y"] * TILE, p["tiles_x"] * TILE), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        tx, ty = p["tiles_x"], p["tiles_y"]
        img = ndpgpu.asarray(inp["image"])
        levels = ndpgpu.zeros((ty, tx, LEVELS_PER_TILE), np.float32)
        ctx.module.get_function("pyramid")((tx, ty), (16, 16), (img, levels, np.int32(tx * TILE)))
        return {"levels": levels.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"levels": pyramid_levels(inp["image"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"levels": spec((p["tiles_y"], p["tiles_x"], LEVELS_PER_TILE), np.float32)}
