"""Exclusive prefix sum: Blelloch scan per block in shared memory, block sums scanned recursively."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec, wrap_int32


def exclusive_scan(x: np.ndarray) -> np.ndarray:
    """Exclusive prefix sum with int32 wraparound."""
    out = np.zeros(x.size, dtype=np.int64)
    np.cumsum(x[:-1].astype(np.int64), out=out[1:])
    return wrap_int32(out)


@register
class ScanBlelloch(Workload):
    name = "scan_blelloch"
    suite = "corpus"
    description = "exclusive int scan: Blelloch up/down-sweep in padded shared memory, recursive block sums"
    sources = ("scan.cu",)
    scales = {
        "tiny": {"n": 20_000, "block": 128},
        "small": {"n": 1 << 18, "block": 256},
        "paper": {"n": 1 << 22, "block": 256},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"x": rng.integers(-50, 100, size=p["n"], dtype=np.int32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        block = p["block"]
        per_block = 2 * block
        scan_block = ctx.module.get_function("scan_block")
        add_offsets = ctx.module.get_function("add_offsets")
        shared = (per_block + per_block // 32) * 4
        first_sums: list[np.ndarray] = []

        def scan(d_in: Any, n: int) -> Any:
            blocks = ceil_div(n, per_block)
            d_out = ndpgpu.zeros(n, np.int32)
            d_sums = ndpgpu.zeros(blocks, np.int32)
            scan_block(blocks, block, (d_in, d_out, d_sums, np.int32(n)), shared_mem=shared)
            if not first_sums:
                first_sums.append(d_sums.get())
            if blocks > 1:
                d_offsets = scan(d_sums, blocks)
                add_offsets(ceil_div(n, 256), 256, (d_out, d_offsets, np.int32(n), np.int32(per_block)))
            return d_out

        out = scan(ndpgpu.asarray(inp["x"]), p["n"])
        return {"scan": out.get(), "block_sums": first_sums[0]}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        x = inp["x"]
        per_block = 2 * p["block"]
        blocks = ceil_div(x.size, per_block)
        padded = np.zeros(blocks * per_block, dtype=np.int64)
        padded[: x.size] = x
        return {
            "scan": exclusive_scan(x),
            "block_sums": wrap_int32(padded.reshape(blocks, per_block).sum(axis=1)),
        }

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {
            "scan": spec(p["n"], np.int32),
            "block_sums": spec(ceil_div(p["n"], 2 * p["block"]), np.int32),
        }
