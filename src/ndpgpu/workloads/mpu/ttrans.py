"""TTRANS: tensor transposition, every 32 x 32 matrix of a (T, 32, 32) tensor transposed (sliced layout)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import (
    SLICE_ROWS,
    TILE,
    TILED_IMAGE_SCALES,
    from_sliced,
    image_to_tiles,
    tiles_to_image,
    to_sliced,
)


@register
class MpuTtrans(Workload):
    name = "mpu_ttrans"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "TTRANS (cuBLAS-style tensor transposition): out[t][j][i] = in[t][i][j] for the T = rows*cols/1024 "
        "32 x 32 tiles of a float32 tensor in the sliced tile layout; one block of 32 x 4 threads per tile "
        "(grid-stride) through a padded shared-memory tile, coalesced loads and stores"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the size, launch and sliced layout follow MPU-Sim's "
        "matrixtrans (4096 x 4096 floats as 16384 tiles of 32 x 32, each transposed in place, 512 blocks of "
        "32 x 4 threads), which keeps every block's data in its own core's banks. A full-matrix transpose would "
        "also move tiles across the matrix; this one transposes the two inner axes only."
    )
    sources = ("ttrans.cu",)
    scales = TILED_IMAGE_SCALES

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"tensor": rng.random((p["rows"], p["cols"]), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows, cols = p["rows"], p["cols"]
        ntiles = rows * cols // (TILE * TILE)
        src = ndpgpu.asarray(to_sliced(inp["tensor"]))
        out = ndpgpu.zeros(rows * cols, np.float32)
        ctx.module.get_function("mpu_ttrans")(p["grid"], (TILE, SLICE_ROWS), (src, out, np.int32(ntiles)))
        return {"out": from_sliced(out.get(), rows, cols)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        tiles = image_to_tiles(inp["tensor"]).transpose(0, 2, 1)
        return {"out": np.ascontiguousarray(tiles_to_image(np.ascontiguousarray(tiles), p["rows"], p["cols"]))}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec((p["rows"], p["cols"]), np.float32)}
