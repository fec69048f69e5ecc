"""PR: CUB-style parallel reduction (device sum) of float32, grid-stride partials, shared tree, two passes."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import BLOCKS, THREADS, U32


def error_bound(n: int, grid: int) -> float:
    """Relative error bound of the kernel's float32 sum of non-negative values: each thread adds
    ceil(n / (grid * 128)) values in sequence, a 7-level tree per block, then one block adds
    ceil(grid / 128) block sums per thread and a 7-level tree (each add at most one unit roundoff)."""
    per_thread = -(-n // (grid * THREADS))
    second = -(-grid // THREADS)
    return (per_thread + 7 + second + 7) * U32


@register
class MpuPr(Workload):
    name = "mpu_pr"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "PR (CUB device sum): sum of n float32; each thread adds a grid-stride range, each block of 128 reduces "
        "in shared memory and writes one partial; the same kernel then reduces the partials in one block"
    )
    deviations = (
        "Kernel written fresh. The paper states no input; the size and launch follow MPU-Sim's vectorsum "
        "(2^24 values uniform in [0, 1), 512 x 128 threads, then 1 x 128 over the 512 partials). CUB itself "
        "uses warp shuffles and a tuned tile size; this is the plain shared-memory tree."
    )
    sources = ("pr.cu",)
    scales = {
        "tiny": {"n": 1 << 15, "grid": 64},
        "small": {"n": 1 << 20, "grid": BLOCKS},
        "paper": {"n": 1 << 24, "grid": BLOCKS},
    }
    # the float64 sum within the kernel's float32 error bound at the paper scale (1.6e-5 relative)
    tolerance = {"sum": Tolerance(rtol=error_bound(1 << 24, BLOCKS), atol=0.0)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"data": rng.random(p["n"], dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        fn = ctx.module.get_function("mpu_sum")
        data = ndpgpu.asarray(inp["data"])
        partial = ndpgpu.zeros(p["grid"], np.float32)
        total = ndpgpu.zeros(1, np.float32)
        fn(p["grid"], THREADS, (data, partial, np.int32(p["n"])))
        fn(1, THREADS, (partial, total, np.int32(p["grid"])))
        return {"sum": total.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"sum": np.array([inp["data"].astype(np.float64).sum()], dtype=np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"sum": spec(1, np.float32)}
