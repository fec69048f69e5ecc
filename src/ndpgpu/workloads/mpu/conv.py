"""CONV: TensorFlow-style 3x3 single-channel convolution of every 32 x 32 tile of an image (sliced layout)."""

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


@register
class MpuConv(Workload):
    name = "mpu_conv"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "CONV (TensorFlow 3x3 conv2d, 1 channel in and out, stride 1): out = sum_{dy,dx} w[dy][dx] * "
        "in[r+dy-1][c+dx-1] (cross-correlation), float32, for every pixel of every 32 x 32 tile, clamped to the "
        "tile's edge; sliced tile layout, one block of 32 x 4 threads per tile via a shared-memory tile; the 9 "
        "weights in global memory"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the size, launch, layout, tile-local clamping and "
        "the non-negative weights follow MPU-Sim's conv (4096 x 4096 uniform [0, 1) pixels, 9 uniform [0, 1) "
        "weights, 512 blocks of 32 x 4 threads). TensorFlow convolves whole NHWC tensors with many channels and "
        "zero ('SAME') padding; this is one channel, each tile on its own, edges repeated. Each block stages "
        "the 9 weights in shared memory first, as MPU-Sim's conv does."
    )
    sources = ("conv.cu",)
    scales = TILED_IMAGE_SCALES
    # 9 products accumulated by fma, all terms non-negative: within 10 unit roundoffs of the float64 value
    tolerance = {"out": Tolerance(rtol=10 * U32, atol=0.0)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {
            "image": rng.random((p["rows"], p["cols"]), dtype=np.float32),
            "weight": rng.random((3, 3), dtype=np.float32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows, cols = p["rows"], p["cols"]
        ntiles = rows * cols // (TILE * TILE)
        src = ndpgpu.asarray(to_sliced(inp["image"]))
        weight = ndpgpu.asarray(inp["weight"].reshape(-1))
        out = ndpgpu.zeros(rows * cols, np.float32)
        ctx.module.get_function("mpu_conv")(p["grid"], (TILE, SLICE_ROWS), (src, weight, out, np.int32(ntiles)))
        return {"out": from_sliced(out.get(), rows, cols)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        window = clamped_window(image_to_tiles(inp["image"]).astype(np.float64))
        tiles = np.einsum("yx,yxtij->tij", inp["weight"].astype(np.float64), window)
        return {"out": tiles_to_image(tiles, p["rows"], p["cols"]).astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec((p["rows"], p["cols"]), np.float32)}
