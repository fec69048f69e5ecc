"""Grid-stride loop over a long array with unsigned wraparound and signed truncating division."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec, wrap_int32
from ndpgpu.workloads.corpus.int64_ops import cdiv, crem


@register
class GridStride(Workload):
    name = "grid_stride"
    suite = "corpus"
    description = "grid-stride loop (grid of 2 blocks per SM): u32 wraparound, signed / and % (truncation)"
    sources = ("grid_stride.cu",)
    scales = {
        "tiny": {"n": 20_000, "block": 64},
        "small": {"n": 1 << 18, "block": 128},
        "paper": {"n": 1 << 22, "block": 256},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        d = rng.integers(-1000, 1000, size=n, dtype=np.int32)
        d[d == 0] = 13
        d[d == -1] = -2  # INT_MIN / -1 would overflow
        return {"x": rng.integers(0, 1 << 32, size=n, dtype=np.uint32), "d": d}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        x = ndpgpu.asarray(inp["x"])
        d = ndpgpu.asarray(inp["d"])
        hsh = ndpgpu.zeros(n, np.uint32)
        quot = ndpgpu.zeros(n, np.int32)
        rem = ndpgpu.zeros(n, np.int32)
        grid = 2 * ctx.num_sms
        ctx.module.get_function("grid_stride")(grid, p["block"], (x, d, hsh, quot, rem, np.int32(n)))
        return {"hash": hsh.get(), "quot": quot.get(), "rem": rem.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        v = inp["x"]
        s = v.view(np.int32)
        d = inp["d"]
        hsh = v * v + np.uint32(3) * v + np.uint32(0x9E3779B9)
        quot = wrap_int32(cdiv(s, 7).astype(np.int64) + cdiv(s, d).astype(np.int64))
        return {"hash": hsh, "quot": quot, "rem": crem(s, d)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        n = p["n"]
        return {"hash": spec(n, np.uint32), "quot": spec(n, np.int32), "rem": spec(n, np.int32)}
