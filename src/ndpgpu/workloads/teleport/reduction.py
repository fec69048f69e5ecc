"""RDC: CUDA SDK-style int sum reduction in two kernels: a grid-stride pass and a pairwise final pass."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, spec


@register
class Reduction(TeleportWorkload):
    name = "tp_reduction"
    kernel = "reduce_stride"
    description = (
        "TELEPORT RDC, CUDA SDK reduction of n ints: reduce_stride (SDK kernel 6's grid-stride loop over "
        "element pairs, `blocks` blocks of `threads`, shared-memory tree) leaves one partial sum per block; "
        "reduce_pairs (SDK kernel 3's two loads per thread at blockIdx-affine indexes) folds them into one"
    )
    deviations = (
        "Written after the SDK sample's kernels 3 and 6; the SDK runs kernel 6 for every pass, while here the "
        "final pass is kernel 3's shape, so that, as the paper reports for RDC, one kernel's read indexes are "
        "all loop-dependent and the other's all precalculable (50% overall) and the precalculable kernel is a "
        "small part of the run. The warp-synchronous unrolled tail is replaced by the plain __syncthreads tree. "
        "Paper scale: the SDK defaults (2^24 ints, 256 threads, at most 64 blocks); values uniform in 0..255."
    )
    sources = ("reduction.cu",)
    scales = {
        "tiny": {"n": 50_000, "threads": 128, "blocks": 16},
        "small": {"n": 1 << 20, "threads": 256, "blocks": 64},
        "paper": {"n": 1 << 24, "threads": 256, "blocks": 64},  # SDK reduction defaults
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"data": rng.integers(0, 256, size=p["n"], dtype=np.int32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        t, b = p["threads"], p["blocks"]
        data = ndpgpu.asarray(inp["data"])
        partial = ndpgpu.zeros(b, np.int32)
        total = ndpgpu.zeros(1, np.int32)
        ctx.module.get_function("reduce_stride")(b, t, (data, partial, np.uint32(p["n"])), shared_mem=4 * t)
        final_threads = max(1, b // 2)
        ctx.module.get_function("reduce_pairs")(1, final_threads, (partial, total, np.uint32(b)),
                                                shared_mem=4 * final_threads)
        return {"partial": partial.get(), "total": total.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        t, b, n = p["threads"], p["blocks"], p["n"]
        data = inp["data"].astype(np.int64)
        # element i goes to block (i // t // 2) % b: pairs of t-element chunks are dealt out grid-stride
        owner = (np.arange(n) // (2 * t)) % b
        partial = np.bincount(owner, weights=data, minlength=b).astype(np.int64)
        total = np.array([partial.sum()], dtype=np.int64).astype(np.int32)  # int32 wraps like the kernel
        return {"partial": partial.astype(np.int32), "total": total}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"partial": spec(p["blocks"], np.int32), "total": spec(1, np.int32)}
