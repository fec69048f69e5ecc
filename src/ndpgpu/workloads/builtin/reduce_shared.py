"""Shared-memory tree reduction of float32, relaunched on the partial sums until one value is left."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec


def _block_sums(x: np.ndarray, block: int) -> np.ndarray:
    """One pass of ``reduce_sum`` in float32, adding in exactly the kernel's order."""
    per_block = 2 * block
    blocks = ceil_div(x.size, per_block)
    padded = np.zeros(blocks * per_block, dtype=np.float32)
    padded[: x.size] = x
    pairs = padded.reshape(blocks, 2, block)
    s = pairs[:, 0, :] + pairs[:, 1, :]  # adding a padding zero to a non-negative float is exact
    width = block // 2
    while width > 0:
        s[:, :width] = s[:, :width] + s[:, width : 2 * width]
        width //= 2
    return s[:, 0].copy()


@register
class ReduceShared(Workload):
    name = "reduce_shared"
    suite = "builtin"
    description = "sum of float32 by a shared-memory tree per block (dynamic shared memory), multi-pass"
    sources = ("reduce_shared.cu",)
    scales = {
        "tiny": {"n": 20_000, "block": 256},
        "small": {"n": 1 << 18, "block": 256},
        "paper": {"n": 1 << 22, "block": 256},
    }
    # The reference adds in the kernel's exact order in float32 (no fma is possible in a pure sum), so
    # the results are bit-exact.

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"x": rng.random(p["n"], dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        block = p["block"]
        fn = ctx.module.get_function("reduce_sum")
        cur = ndpgpu.asarray(inp["x"])
        m = p["n"]
        partials = None
        while True:
            blocks = ceil_div(m, 2 * block)
            out = ndpgpu.zeros(blocks, np.float32)
            fn(blocks, block, (cur, out, np.uint32(m)), shared_mem=block * 4)
            if partials is None:
                partials = out.get()
            if blocks == 1:
                break
            cur, m = out, blocks
        return {"partials": partials, "total": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        partials = _block_sums(inp["x"], p["block"])
        cur = partials
        while cur.size > 1:
            cur = _block_sums(cur, p["block"])
        return {"partials": partials, "total": cur}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"partials": spec(ceil_div(p["n"], 2 * p["block"]), np.float32), "total": spec(1, np.float32)}
