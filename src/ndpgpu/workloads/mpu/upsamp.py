"""UPSAMP: Halide-style 2x nearest-neighbour upsampling of a row-major float32 image."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import BLOCKS, THREADS


@register
class MpuUpsamp(Workload):
    name = "mpu_upsamp"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "UPSAMP (Halide 2x upsample, nearest neighbour): out[y][x] = in[y/2][x/2], float32, row-major; one input "
        "pixel per thread per step of a grid-stride loop, written as one float2 into each of its two output rows"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the size, launch and nearest-neighbour rule follow "
        "MPU-Sim's upsample (1024 x 1024 uniform [0, 1) inputs to 2048 x 2048, 512 x 128 threads). MPU-Sim "
        "writes a planar, pre-shuffled output layout; this writes the plain row-major image. Halide's "
        "pyramid-style upsampling interpolates; this replicates."
    )
    sources = ("upsamp.cu",)
    scales = {
        "tiny": {"in_rows": 64, "in_cols": 128, "grid": 64},
        "small": {"in_rows": 512, "in_cols": 512, "grid": BLOCKS},
        "paper": {"in_rows": 1024, "in_cols": 1024, "grid": BLOCKS},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"image": rng.random((p["in_rows"], p["in_cols"]), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        src = ndpgpu.asarray(inp["image"])
        out = ndpgpu.zeros((2 * p["in_rows"], 2 * p["in_cols"]), np.float32)
        ctx.module.get_function("mpu_upsample")(
            p["grid"], THREADS, (src, out, np.int32(p["in_rows"]), np.int32(p["in_cols"]))
        )
        return {"out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"out": np.repeat(np.repeat(inp["image"], 2, axis=0), 2, axis=1)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec((2 * p["in_rows"], 2 * p["in_cols"]), np.float32)}
