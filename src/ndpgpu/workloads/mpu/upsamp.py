"""UPSAMP: Halide-style 2x nearest-neighbour upsampling of a float32 image into MPU-Sim's four-plane layout."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import BLOCKS, THREADS, to_quad_planes


@register
class MpuUpsamp(Workload):
    name = "mpu_upsamp"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "UPSAMP (Halide 2x upsample, nearest neighbour): out[y][x] = in[y/2][x/2], float32; the input row-major, "
        "the output in MPU-Sim's four-plane layout (a block stages its 128 contiguous input pixels in shared "
        "memory and writes 128 contiguous floats into each plane at its own inputs' offsets); one input pixel per "
        "thread per step of a grid-stride loop"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the size, launch and nearest-neighbour rule follow "
        "MPU-Sim's upsample (1024 x 1024 uniform [0, 1) inputs to 2048 x 2048, 512 x 128 threads), and so does "
        "the data layout: the output in MPU-Sim's four planes (its upsample_sim.py host code checks that layout), the "
        "staged pixels exchanged through shared memory, so that with blocks on cores round robin every access is "
        "to the block's own core's banks. The tiny scale is 128 x 128 inputs on 128 blocks (each plane a multiple "
        "of 64 KB, so that it stays local too). Halide's pyramid-style upsampling interpolates; this "
        "replicates."
    )
    sources = ("upsamp.cu",)
    scales = {
        "tiny": {"in_rows": 128, "in_cols": 128, "grid": 128},
        "small": {"in_rows": 512, "in_cols": 512, "grid": BLOCKS},
        "paper": {"in_rows": 1024, "in_cols": 1024, "grid": BLOCKS},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"image": rng.random((p["in_rows"], p["in_cols"]), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        src = ndpgpu.asarray(inp["image"])
        out = ndpgpu.zeros(4 * p["in_rows"] * p["in_cols"], np.float32)
        ctx.module.get_function("mpu_upsample")(
            p["grid"], THREADS, (src, out, np.int32(p["in_rows"]), np.int32(p["in_cols"]))
        )
        return {"out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        """The planes of the upsampled image (``from_quad_planes`` gives the image back)."""
        return {"out": to_quad_planes(np.repeat(np.repeat(inp["image"], 2, axis=0), 2, axis=1))}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec(4 * p["in_rows"] * p["in_cols"], np.float32)}
