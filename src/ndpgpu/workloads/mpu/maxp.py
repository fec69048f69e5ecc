"""MAXP: TensorFlow-style 2x2 max-pooling (stride 2) of a float32 image stored in MPU-Sim's four-plane layout."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import BLOCKS, THREADS, to_quad_planes


@register
class MpuMaxp(Workload):
    name = "mpu_maxp"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "MAXP (TensorFlow max_pool, 2x2 window, stride 2, VALID, 1 channel): out[r][c] = max of "
        "in[2r..2r+1][2c..2c+1], float32; the input in MPU-Sim's four-plane layout (a block's 128 threads read "
        "128 contiguous floats from each plane at their own outputs' offsets and exchange them through shared "
        "memory), the output row-major; one output pixel per thread per step of a grid-stride loop"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the size and launch follow MPU-Sim's maxpool "
        "(1024 x 1024 outputs from 2048 x 2048 uniform [0, 1) inputs, 512 x 128 threads), and so does the data "
        "layout: the input pre-shuffled into MPU-Sim's four planes (its maxpool_sim.py host code), exchanged "
        "through shared memory, so that with blocks on cores round robin every access is to the block's own "
        "core's banks. The tiny scale is 128 x 128 outputs on 128 blocks (each plane a multiple of 64 KB, so that "
        "it stays local too). The window's maximum is fmaxf (MPU-Sim compares from 0.0, the same on inputs in "
        "[0, 1))."
    )
    sources = ("maxp.cu",)
    scales = {
        "tiny": {"out_rows": 128, "out_cols": 128, "grid": 128},
        "small": {"out_rows": 512, "out_cols": 512, "grid": BLOCKS},
        "paper": {"out_rows": 1024, "out_cols": 1024, "grid": BLOCKS},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"image": rng.random((2 * p["out_rows"], 2 * p["out_cols"]), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        src = ndpgpu.asarray(to_quad_planes(inp["image"]))
        out = ndpgpu.zeros((p["out_rows"], p["out_cols"]), np.float32)
        ctx.module.get_function("mpu_maxpool")(
            p["grid"], THREADS, (src, out, np.int32(p["out_rows"]), np.int32(p["out_cols"]))
        )
        return {"out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        img = inp["image"]
        return {"out": img.reshape(p["out_rows"], 2, p["out_cols"], 2).max(axis=(1, 3))}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec((p["out_rows"], p["out_cols"]), np.float32)}
