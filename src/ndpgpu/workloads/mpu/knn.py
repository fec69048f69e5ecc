"""KNN: Rodinia nn's distance kernel, the Euclidean distance of every record to one query point."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import BLOCKS, THREADS, U32


@register
class MpuKnn(Workload):
    name = "mpu_knn"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "KNN (Rodinia nn): dist[i] = sqrt((x[i] - qx)^2 + (y[i] - qy)^2) for n records in two float32 arrays, "
        "one record per thread per step of a grid-stride loop; the k nearest are picked on the host (not run)"
    )
    deviations = (
        "Kernel written fresh after Rodinia nn. The paper states no input; the size and launch follow MPU-Sim's "
        "knn (2^24 records uniform in the unit square, query (0.5, 0.5), 512 x 128 threads, coordinates as two "
        "arrays). Rodinia keeps (lat, lng) records as an array of structs; MPU-Sim stores squared distances "
        "while this keeps Rodinia's sqrtf. The host-side k selection is not part of the workload."
    )
    sources = ("knn.cu",)
    scales = {
        "tiny": {"n": 1 << 15, "grid": 64},
        "small": {"n": 1 << 20, "grid": BLOCKS},
        "paper": {"n": 1 << 24, "grid": BLOCKS},
    }
    # exact differences squared: a product, an fma (or two roundings) and a correctly rounded sqrt of a sum of
    # non-negative terms, against the float64 value rounded once: within 3 float32 ulp
    tolerance = {"dist": Tolerance(rtol=6 * U32, atol=0.0)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {
            "x": rng.random(p["n"], dtype=np.float32),
            "y": rng.random(p["n"], dtype=np.float32),
            "qx": np.float32(0.5),
            "qy": np.float32(0.5),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        x = ndpgpu.asarray(inp["x"])
        y = ndpgpu.asarray(inp["y"])
        dist = ndpgpu.zeros(p["n"], np.float32)
        ctx.module.get_function("mpu_knn_dist")(
            p["grid"], THREADS, (x, y, dist, np.int32(p["n"]), inp["qx"], inp["qy"])
        )
        return {"dist": dist.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        dx = inp["x"].astype(np.float64) - np.float64(inp["qx"])
        dy = inp["y"].astype(np.float64) - np.float64(inp["qy"])
        return {"dist": np.sqrt(dx * dx + dy * dy).astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"dist": spec(p["n"], np.float32)}
