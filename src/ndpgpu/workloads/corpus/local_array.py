"""A per-thread array indexed dynamically (local memory), with unsigned wraparound."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

LEN = 16


@register
class LocalArray(Workload):
    name = "local_array"
    suite = "corpus"
    description = "unsigned buf[16] per thread, read and written at data-dependent indices (local memory)"
    sources = ("local_array.cu",)
    scales = {
        "tiny": {"n": 2000, "rounds": 24},
        "small": {"n": 1 << 16, "rounds": 48},
        "paper": {"n": 1 << 20, "rounds": 64},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"seeds": rng.integers(0, 1 << 32, size=p["n"], dtype=np.uint32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        seeds = ndpgpu.asarray(inp["seeds"])
        out = ndpgpu.zeros(n, np.uint32)
        ctx.module.get_function("local_array")(
            ceil_div(n, 128), 128, (seeds, out, np.int32(p["rounds"]), np.int32(n))
        )
        return {"out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        u32 = np.uint32
        v = inp["seeds"].astype(u32)
        k = np.arange(LEN, dtype=u32)
        buf = (v[:, None] * (k + u32(1))[None, :]) ^ (k << u32(3))[None, :]
        acc = np.zeros_like(v)
        state = v.copy()
        rows = np.arange(v.size)
        for _ in range(p["rounds"]):
            state = state * u32(1103515245) + u32(12345)
            j = ((state >> u32(16)) & u32(LEN - 1)).astype(np.intp)
            acc = acc + buf[rows, j]
            t = (j + 5) & (LEN - 1)
            buf[rows, t] ^= acc
        return {"out": acc ^ buf[rows, (v & u32(LEN - 1)).astype(np.intp)]}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec(p["n"], np.uint32)}
