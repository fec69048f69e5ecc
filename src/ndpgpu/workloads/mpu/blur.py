"""BLUR: Halide-style 3x3 box blur of every 32 x 32 tile of an image (sliced tile layout, shared-memory tile)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import (
    SLICE_ROWS,
    TILE,
    TILED_IMAGE_SCALES,
    U32,
    clamped_window,
    from_sliced,
    image_to_tiles,
    tiles_to_image,
    to_sliced,
)

SCALE = np.float32(1.0 / 9.0)


@register
class MpuBlur(Workload):
    name = "mpu_blur"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "BLUR (Halide 3x3 blur): out = (1/9) * sum of the 3 x 3 neighbourhood, float32, for every pixel of every "
        "32 x 32 tile of a rows x cols image, clamped to the tile's edge; sliced tile layout (see "
        "mpu/_common.py), one block of 32 x 4 threads per tile (grid-stride) through a shared-memory tile"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the size, launch, layout and tile-local clamping follow "
        "MPU-Sim's blur (4096 x 4096 uniform [0, 1) pixels, 512 blocks of 32 x 4 threads, each 32 x 32 tile "
        "blurred on its own so a block touches only its core's banks). Halide's blur is separable "
        "(3-tap in x, then in y) over the whole image; this is the single-pass 9-tap box filter, and pixels on a "
        "tile's edge repeat the edge instead of reading the neighbouring tile."
    )
    sources = ("blur.cu",)
    scales = TILED_IMAGE_SCALES
    # 8 adds of non-negative values and one product: within 10 unit roundoffs of the float64 value
    tolerance = {"out": Tolerance(rtol=10 * U32, atol=0.0)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"image": rng.random((p["rows"], p["cols"]), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows, cols = p["rows"], p["cols"]
        ntiles = rows * cols // (TILE * TILE)
        src = ndpgpu.asarray(to_sliced(inp["image"]))
        out = ndpgpu.zeros(rows * cols, np.float32)
        ctx.module.get_function("mpu_blur")(p["grid"], (TILE, SLICE_ROWS), (src, out, np.int32(ntiles), SCALE))
        return {"out": from_sliced(out.get(), rows, cols)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        window = clamped_window(image_to_tiles(inp["image"]).astype(np.float64))
        tiles = window.sum(axis=(0, 1)) * np.float64(SCALE)
        return {"out": tiles_to_image(tiles, p["rows"], p["cols"]).astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec((p["rows"], p["cols"]), np.float32)}
