"""Bitonic sort of fixed-size segments in shared memory (one block per segment)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec


@register
class BitonicSort(Workload):
    name = "bitonic_sort"
    suite = "corpus"
    description = "per-block bitonic sort of int segments in shared memory (compare-exchange + barriers)"
    sources = ("bitonic.cu",)
    scales = {
        "tiny": {"n": 3000, "block": 256},
        "small": {"n": 1 << 16, "block": 512},
        "paper": {"n": 1 << 20, "block": 1024},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # a narrow range gives duplicates; INT_MAX itself never occurs
        return {"keys": rng.integers(-5000, 5000, size=p["n"], dtype=np.int32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n, block = p["n"], p["block"]
        keys = ndpgpu.asarray(inp["keys"])
        ctx.module.get_function("bitonic_sort_block")(
            ceil_div(n, block), block, (keys, np.int32(n)), shared_mem=block * 4
        )
        return {"keys": keys.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        keys = inp["keys"]
        block = p["block"]
        full = keys.size // block * block
        out = keys.copy()
        out[:full] = np.sort(keys[:full].reshape(-1, block), axis=1).reshape(-1)
        out[full:] = np.sort(keys[full:])  # the padding (INT_MAX) sorts after every real key
        return {"keys": out}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"keys": spec(p["n"], np.int32)}
