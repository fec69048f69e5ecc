"""RED: SHOC's Reduction (float sum) and the paper's global-memory variants RED-Global and RED-HybridN."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register

BLOCK = 256


def block_sums(data: np.ndarray, blocks: int) -> np.ndarray:
    """Each block's sum in the kernel's float32 order: per thread a running sum of in[i] + in[i + BLOCK] over
    the grid-stride loop, then the halving tree (v[t] = v[t] + v[t + s], s = BLOCK/2 .. 1)."""
    pairs = data.reshape(-1, blocks, 2, BLOCK)
    pair = pairs[:, :, 0, :] + pairs[:, :, 1, :]
    acc = np.zeros((blocks, BLOCK), dtype=np.float32)
    for step in pair:
        acc = acc + step
    s = BLOCK // 2
    while s > 0:
        acc[:, :s] = acc[:, :s] + acc[:, s : 2 * s]
        s //= 2
    return acc[:, 0].copy()


def host_total(partials: np.ndarray) -> np.ndarray:
    """SHOC adds the block sums on the host, in order, in the data type (float32)."""
    total = np.float32(0.0)
    for x in partials:
        total = np.float32(total + x)
    return np.array([total], dtype=np.float32)


@register
class Red(Workload):
    name = "llc_red"
    suite = "llc"
    papers = ("LLC-Compute", "Omni-Compute")
    description = (
        "SHOC Reduction (float sum): 64 blocks of 256 threads, each thread sums in[i] + in[i+256] over a "
        "grid-stride loop, the block reduces in shared memory, the host adds the 64 block sums"
    )
    kernel = "llc_red"
    deviations = (
        "Kernel written fresh after SHOC's reduce kernel (256 threads, 64 blocks, host-side final sum; paper "
        "scale: SHOC's largest standard size, 64 MiB = 16M floats). The thread sum is kept in a register "
        "instead of SHOC's volatile shared-memory slot, and the last warp's steps are separated by __syncwarp "
        "(SHOC's pre-Volta code is warp-synchronous); the arithmetic order is SHOC's. Inputs are seeded uniform "
        "[0, 1) floats (SHOC uses i % 3). The element count must be a multiple of 512."
    )
    sources = ("red.cu",)
    scales = {
        "tiny": {"n": 1 << 14, "blocks": 8},
        "small": {"n": 1 << 18, "blocks": 64},  # SHOC size class 1 (1 MiB)
        "paper": {"n": 1 << 24, "blocks": 64},  # SHOC size class 4 (64 MiB)
    }
    tolerance: dict = {}  # the reference reproduces the kernel's float32 order: exact

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"data": rng.random(p["n"], dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        data = ndpgpu.asarray(inp["data"])
        out = ndpgpu.zeros(p["blocks"], np.float32)
        scratch = ndpgpu.zeros(p["blocks"] * BLOCK, np.float32)
        ctx.module.get_function(self.kernel)(p["blocks"], BLOCK, (data, out, scratch, np.uint32(p["n"])))
        partials = out.get()
        return {"partials": partials, "total": host_total(partials)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        partials = block_sums(inp["data"], p["blocks"])
        return {"partials": partials, "total": host_total(partials)}


_VARIANT_NOTE = (
    " The paper describes the variants in one sentence ('the first N levels of reduction happen in global memory "
    "and then the following levels use shared memory'); read here as the block tree's levels, the thread sums "
    "being stored to a per-block global scratch array instead of shared memory. The sums equal llc_red's bit "
    "for bit."
)


def _describe(label: str, levels: str) -> str:
    return (
        f"{label} (paper Sec. 6.2): SHOC Reduction with {levels} of the block's 256-to-1 tree done on a per-block "
        "global-memory scratch array (scratch[t] = scratch[t] + scratch[t + s]: load-load-add-store chains)"
    )


@register
class RedHybrid1(Red):
    name = kernel = "llc_red_hybrid1"
    description = _describe("RED-Hybrid1", "the first level (stride 128)") + ", the rest in shared memory"
    deviations = Red.deviations + _VARIANT_NOTE


@register
class RedHybrid2(Red):
    name = kernel = "llc_red_hybrid2"
    description = (_describe("RED-Hybrid2", "the first 2 levels (strides 128, 64)")
                   + ", the rest in shared memory; the variant the paper's offload runs use")
    deviations = Red.deviations + _VARIANT_NOTE


@register
class RedHybrid3(Red):
    name = kernel = "llc_red_hybrid3"
    description = _describe("RED-Hybrid3", "the first 3 levels (strides 128, 64, 32)") + ", the rest in shared memory"
    deviations = Red.deviations + _VARIANT_NOTE


@register
class RedGlobal(Red):
    name = kernel = "llc_red_global"
    description = _describe("RED-Global", "all 8 levels") + ", no shared memory"
    deviations = Red.deviations + _VARIANT_NOTE
