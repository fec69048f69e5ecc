"""RD: CUDA SDK parallel reduction (kernel 6: grid-stride loads, shared-memory tree), multi-pass."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec, wrap_int32
from ndpgpu.workloads.tom import TOM_NVCC_OPTIONS

MAX_THREADS = 256
MAX_BLOCKS = 64  # the SDK's default maxBlocks (tiny and paper); `small` fills the GPU (see ``scales``)
CPU_FINAL_THRESHOLD = 1


def _next_pow2(x: int) -> int:
    return 1 << max(0, (x - 1).bit_length())


def blocks_and_threads(n: int, max_blocks: int = MAX_BLOCKS) -> tuple[int, int]:
    """The SDK's getNumBlocksAndThreads for kernel 6 (two elements per thread per step)."""
    threads = _next_pow2((n + 1) // 2) if n < MAX_THREADS * 2 else MAX_THREADS
    blocks = (n + threads * 2 - 1) // (threads * 2)
    return min(max_blocks, blocks), threads


def block_sums(x: np.ndarray, blocks: int, threads: int) -> np.ndarray:
    """What each block of one pass writes: the sum (mod 2**32) of the elements its grid-stride loop reads."""
    per_step = blocks * threads * 2
    padded = np.zeros(-(-x.size // per_step) * per_step, dtype=np.int64)
    padded[: x.size] = x
    return wrap_int32(padded.reshape(-1, blocks, threads * 2).sum(axis=(0, 2)))


def passes(n: int, max_blocks: int = MAX_BLOCKS) -> list[tuple[int, int, int]]:
    """``(size, blocks, threads)`` of every launch of the SDK's GPU-only multi-pass schedule."""
    out = []
    blocks, threads = blocks_and_threads(n, max_blocks)
    out.append((n, blocks, threads))
    s = blocks
    while s > CPU_FINAL_THRESHOLD:
        blocks, threads = blocks_and_threads(s, max_blocks)
        out.append((s, blocks, threads))
        s = (s + threads * 2 - 1) // (threads * 2)
    return out


@register
class Reduction(Workload):
    name = "reduction"
    suite = "tom"
    papers = ("TOM",)
    description = (
        "CUDA SDK reduction, kernel 6: each thread sums a grid-stride range (two loads per step), the block "
        "reduces in shared memory; relaunched on the partial sums until one value is left (int32)"
    )
    deviations = (
        "Kernel written fresh after the SDK sample's algorithm (whichKernel=6, maxThreads=256, GPU-only final "
        "passes, ints in 0..255, SDK's default 2^24 elements at the paper scale). maxBlocks (the sample's "
        "-maxblocks option, default 64) is the default at tiny and paper, as the paper runs the SDK's defaults, and "
        "408 at small: 6 blocks of 8 warps on each of the 68 SMs, one full wave (64 blocks leave 4 SMs idle and "
        "the others at 8 of 48 warps; both use the links more than half of the time). The last "
        "warp separates its shared-memory steps with __syncwarp(), which the SDK's pre-Volta "
        "warp-synchronous code omitted; one kernel per block size replaces the template dispatch and "
        "always bounds-checks the second load (the SDK's nIsPow2=false instance). The device-to-device "
        "copy of the partial sums between passes goes through the host."
    )
    sources = ("reduction.cu",)
    options = TOM_NVCC_OPTIONS  # the TOM workloads' compilation rule (workloads/tom/__init__.py)
    scales = {
        "tiny": {"n": 1 << 15, "max_blocks": 64},
        "small": {"n": 1 << 21, "max_blocks": 408},  # 68 SMs x 6 blocks of 256 threads (48 warps per SM)
        "paper": {"n": 1 << 24, "max_blocks": MAX_BLOCKS},  # the SDK sample's defaults, as the paper runs it
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"data": rng.integers(0, 256, size=p["n"], dtype=np.int32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        schedule = passes(p["n"], p["max_blocks"])
        d_in = ndpgpu.asarray(inp["data"])
        d_out = ndpgpu.zeros(schedule[0][1], np.int32)
        first = None
        for k, (size, blocks, threads) in enumerate(schedule):
            if k > 0:
                d_in = ndpgpu.asarray(d_out.get()[:size])  # the SDK's copy into d_intermediateSums
            smem = (2 * threads if threads <= 32 else threads) * 4
            ctx.module.get_function(f"reduce6_{threads}")(blocks, threads, (d_in, d_out, np.uint32(size)),
                                                           shared_mem=smem)
            if first is None:
                first = d_out.get()
        assert first is not None
        return {"partials": first, "total": d_out.get()[:1]}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        schedule = passes(p["n"], p["max_blocks"])
        cur = inp["data"]
        first = None
        for size, blocks, threads in schedule:
            cur = block_sums(cur[:size], blocks, threads)
            if first is None:
                first = cur
        assert first is not None
        return {"partials": first, "total": cur[:1]}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"partials": spec(passes(p["n"], p["max_blocks"])[0][1], np.int32), "total": spec(1, np.int32)}
