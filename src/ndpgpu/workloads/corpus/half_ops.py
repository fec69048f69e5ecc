"""Half precision (``cuda_fp16.h``): conversions and ``__half`` arithmetic, checked bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

_HALF_OUTPUTS = ("h_sum", "h_prod", "h_fma", "h_conv")


def conversion_inputs(n: int, rng: np.random.Generator) -> np.ndarray:
    """float32 values that stress float->half: subnormals, underflow, overflow, exact ties, inf, NaN."""
    mags = np.exp2(rng.uniform(-30, 17, size=n))
    f = np.where(rng.random(n) < 0.5, -mags, mags).astype(np.float32)
    special = np.array(
        [
            65504,
            65519,
            65520,
            -65520,
            1e9,
            2.0**-24,
            2.0**-25,
            3 * 2.0**-26,
            2.0**-26,
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            1 + 2.0**-11,
            1 + 3 * 2.0**-11,
            2048 + 1,
            2048 + 3,
        ],
        dtype=np.float32,
    )
    k = min(n, special.size)
    f[:k] = special[:k]
    return f


@register
class HalfOps(Workload):
    name = "half_ops"
    suite = "corpus"
    description = "cuda_fp16: __float2half (RNE, subnormal, overflow), __hadd/__hmul/__hsub/__hfma, __hlt"
    sources = ("half_ops.cu",)
    scales = {"tiny": {"n": 3000}, "small": {"n": 1 << 16}, "paper": {"n": 1 << 20}}
    # Compared bit for bit (outputs are the raw bits: uint16 for __half, uint32 for float), so signed
    # zeros, infinities and NaNs are checked too; NVIDIA GPUs write the canonical NaN (0x7fff for f16,
    # 0x7fffffff for f32: seen on an H100), which the reference uses. numpy's float16 add/mul go
    # through float32, wide enough (24 >= 2*11 + 2) for the double rounding to be innocuous; the fma is
    # exact in float64 for |a|, |b|, |c| < 4 (halves are multiples of 2^-24, so a*b + c spans at most
    # 53 bits) and float64 -> float16 rounds once.

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        abc = {k: rng.uniform(-4, 4, size=n).astype(np.float32) for k in ("a", "b", "c")}
        return abc | {"f": conversion_inputs(n, rng)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        ins = [ndpgpu.asarray(inp[k]) for k in ("a", "b", "c", "f")]
        halves = [ndpgpu.zeros(n, np.uint16) for _ in _HALF_OUTPUTS]  # raw __half bits
        back = ndpgpu.zeros(n, np.float32)
        less = ndpgpu.zeros(n, np.int32)
        ctx.module.get_function("half_ops")(ceil_div(n, 128), 128, (*ins, *halves, back, less, np.int32(n)))
        out = {name: h.get() for name, h in zip(_HALF_OUTPUTS, halves, strict=True)}
        return out | {"back": back.get().view(np.uint32), "less": less.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        with np.errstate(over="ignore", invalid="ignore"):
            ha, hb, hc = (inp[k].astype(np.float16) for k in ("a", "b", "c"))
            conv = inp["f"].astype(np.float16)
            fma = (ha.astype(np.float64) * hb.astype(np.float64) + hc.astype(np.float64)).astype(np.float16)
            back = (ha - hc).astype(np.float32) * np.float32(2) + conv.astype(np.float32)
        halves = {"h_sum": ha + hb, "h_prod": ha * hb, "h_fma": fma, "h_conv": conv}
        out = {k: np.where(np.isnan(v), np.uint16(0x7FFF), v.view(np.uint16)) for k, v in halves.items()}
        out["back"] = np.where(np.isnan(back), np.uint32(0x7FFFFFFF), back.view(np.uint32))
        out["less"] = (ha < hb).astype(np.int32)
        return out

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        n = p["n"]
        specs = {name: spec(n, np.uint16) for name in _HALF_OUTPUTS}
        return specs | {"back": spec(n, np.uint32), "less": spec(n, np.int32)}
