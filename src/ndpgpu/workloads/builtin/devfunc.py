"""Calls to ``__noinline__`` device functions: a polynomial over ``__constant__`` coefficients and a
data-dependent loop (Collatz steps) that diverges inside the callee."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, set_global, spec

MAX_COEFFS = 16


def collatz_steps(seeds: np.ndarray, limit: int) -> np.ndarray:
    """Steps to reach 1 (capped at ``limit``), with unsigned 32-bit wraparound as in the kernel."""
    v = seeds.astype(np.uint32).copy()
    steps = np.zeros(v.size, dtype=np.int32)
    for _ in range(limit):
        live = v != 1
        if not live.any():
            break
        odd = (v & 1) == 1
        v = np.where(live, np.where(odd, v * np.uint32(3) + np.uint32(1), v >> np.uint32(1)), v)
        steps += live.astype(np.int32)
    return steps


@register
class DevFunc(Workload):
    name = "devfunc"
    suite = "builtin"
    description = "__noinline__ device functions: Horner over __constant__ coefficients, Collatz loop"
    sources = ("devfunc.cu",)
    scales = {
        "tiny": {"n": 1024, "order": 8, "limit": 96, "max_seed": 1000},
        "small": {"n": 1 << 16, "order": 12, "limit": 200, "max_seed": 20_000},
        "paper": {"n": 1 << 20, "order": 15, "limit": 300, "max_seed": 100_000},
    }
    # Horner with |x| <= 1 and |c| <= 1: the kernel's fma chain and the reference's float64 evaluation
    # differ by a few float32 ulps of the partial sums (bounded by 2^-24 * order * sum|c|).
    tolerance = {"poly": Tolerance(rtol=1e-5, atol=1e-5)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        coeffs = np.zeros(MAX_COEFFS, dtype=np.float32)
        coeffs[: p["order"] + 1] = rng.uniform(-1, 1, size=p["order"] + 1).astype(np.float32)
        return {
            "coeffs": coeffs,
            "x": rng.uniform(-1, 1, size=n).astype(np.float32),
            "seeds": rng.integers(1, p["max_seed"], size=n, dtype=np.uint32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        set_global(ctx.module, "coeffs", inp["coeffs"])
        x = ndpgpu.asarray(inp["x"])
        seeds = ndpgpu.asarray(inp["seeds"])
        poly = ndpgpu.zeros(n, np.float32)
        steps = ndpgpu.zeros(n, np.int32)
        args = (x, seeds, poly, steps, np.int32(p["order"]), np.int32(p["limit"]), np.int32(n))
        ctx.module.get_function("devfunc")(ceil_div(n, 128), 128, args)
        return {"poly": poly.get(), "steps": steps.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        c = inp["coeffs"].astype(np.float64)
        x = inp["x"].astype(np.float64)
        r = np.full(x.size, c[p["order"]])
        for k in range(p["order"] - 1, -1, -1):
            r = r * x + c[k]
        return {"poly": r.astype(np.float32), "steps": collatz_steps(inp["seeds"], p["limit"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"poly": spec(p["n"], np.float32), "steps": spec(p["n"], np.int32)}
