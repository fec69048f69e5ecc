"""Warp votes: ballot (full and divergent), any, all, popc and lane ranks."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

THRESHOLD = 50


def _pack_bits(bits: np.ndarray) -> np.ndarray:
    """Rows of 32 booleans (lane 0 first) to uint32 masks."""
    weights = (np.uint64(1) << np.arange(32, dtype=np.uint64)).astype(np.uint64)
    return (bits.astype(np.uint64) * weights).sum(axis=1).astype(np.uint32)


@register
class Vote(Workload):
    name = "vote"
    suite = "corpus"
    description = "__ballot_sync/__any_sync/__all_sync/__popc, lane ranks, ballot in a divergent branch"
    sources = ("vote.cu",)
    scales = {"tiny": {"n": 3000}, "small": {"n": 1 << 16}, "paper": {"n": 1 << 20}}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        x = rng.integers(0, 100, size=n, dtype=np.int32)
        warps = ceil_div(n, 32)
        kind = rng.integers(0, 4, size=warps)  # some warps all above, some all below the threshold
        lane_kind = np.repeat(kind, 32)[:n]
        x[lane_kind == 0] = 99
        x[lane_kind == 1] = 0
        return {"x": x}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        warps = ceil_div(n, 32)
        block = 128
        grid = ceil_div(warps * 32, block)
        slots = grid * block // 32
        x = ndpgpu.asarray(inp["x"])
        ballots = ndpgpu.zeros(slots, np.uint32)
        counts = ndpgpu.zeros(slots, np.int32)
        any_out = ndpgpu.zeros(slots, np.int32)
        all_out = ndpgpu.zeros(slots, np.int32)
        odd = ndpgpu.zeros(slots, np.uint32)
        rank = ndpgpu.zeros(n, np.int32)
        args = (x, np.int32(THRESHOLD), ballots, counts, any_out, all_out, odd, rank, np.int32(n))
        ctx.module.get_function("vote")(grid, block, args)
        out = {"ballots": ballots, "counts": counts, "any": any_out, "all": all_out, "odd_ballots": odd}
        return {k: v.get()[:warps] for k, v in out.items()} | {"rank": rank.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        warps = ceil_div(n, 32)
        pred = np.zeros(warps * 32, dtype=bool)
        pred[:n] = inp["x"] > THRESHOLD
        bits = pred.reshape(warps, 32)
        odd_bits = bits & (np.arange(32) % 2 == 1)
        before = np.cumsum(bits, axis=1) - bits  # voting lanes below each lane
        rank = np.where(bits, before, -1).reshape(-1)[:n].astype(np.int32)
        return {
            "ballots": _pack_bits(bits),
            "counts": bits.sum(axis=1).astype(np.int32),
            "any": bits.any(axis=1).astype(np.int32),
            "all": bits.all(axis=1).astype(np.int32),
            "odd_ballots": _pack_bits(odd_bits),
            "rank": rank,
        }

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        warps = ceil_div(p["n"], 32)
        specs = {k: spec(warps, np.int32) for k in ("counts", "any", "all")}
        return specs | {
            "ballots": spec(warps, np.uint32),
            "odd_ballots": spec(warps, np.uint32),
            "rank": spec(p["n"], np.int32),
        }
