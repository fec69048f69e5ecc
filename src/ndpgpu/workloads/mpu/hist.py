"""HIST: CUB-style 256-bin even histogram of float32 values, per-block shared-memory counts, then a merge."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import THREADS

BINS = 256


@register
class MpuHist(Workload):
    name = "mpu_hist"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "HIST (CUB HistogramEven, privatised): 256 even bins over [0, 1) of n float32 values (bin = "
        "floor(v * 256)); each block counts a grid-stride range with shared-memory atomicAdd and writes its 256 "
        "counts, then a second kernel (one thread per bin) adds the per-block counts"
    )
    deviations = (
        "Kernels written fresh. The paper states no input; the size and launch follow MPU-Sim's histogram (2^24 "
        "values uniform in [0, 1), 128 x 128 threads, then a merge over the per-block counts). MPU-Sim bins by "
        "int(v * 255) (so bin 255 stays empty); this uses CUB's even bins, floor(v * 256), exact in float32."
    )
    sources = ("hist.cu",)
    scales = {
        "tiny": {"n": 1 << 15, "grid": 16},
        "small": {"n": 1 << 20, "grid": 128},
        "paper": {"n": 1 << 24, "grid": 128},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"data": rng.random(p["n"], dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        data = ndpgpu.asarray(inp["data"])
        partial = ndpgpu.zeros(p["grid"] * BINS, np.uint32)
        hist = ndpgpu.zeros(BINS, np.uint32)
        ctx.module.get_function("mpu_hist_block")(p["grid"], THREADS, (data, partial, np.int32(p["n"])))
        ctx.module.get_function("mpu_hist_merge")(BINS // THREADS, THREADS, (partial, hist, np.int32(p["grid"])))
        return {"hist": hist.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        bins = np.clip(np.floor(inp["data"].astype(np.float64) * BINS), 0, BINS - 1).astype(np.int64)
        return {"hist": np.bincount(bins, minlength=BINS).astype(np.uint32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"hist": spec(BINS, np.uint32)}
