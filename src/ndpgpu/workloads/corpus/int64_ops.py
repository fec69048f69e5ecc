"""Integer semantics of C/CUDA in 64 and 32 bits, checked exactly against a NumPy model."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

#: Row names of the kernel's three output matrices, in the kernel's order.
ROWS64 = ("mulhi", "mul_lo", "div", "rem", "shr", "shl", "mul_wide", "zext", "div7", "rem_m9")
ROWSU64 = ("umulhi", "shr_u", "udiv")
ROWS32 = ("div32", "rem32", "mulhi32", "umulhi32", "trunc32", "shr32", "shr_u32", "div_m3", "popc", "clz")

_MASK32 = np.uint64(0xFFFFFFFF)


def umulhi64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """High 64 bits of the 128-bit product of two uint64 arrays (by 32-bit halves)."""
    a = a.astype(np.uint64)
    b = b.astype(np.uint64)
    s32 = np.uint64(32)
    a_lo, a_hi = a & _MASK32, a >> s32
    b_lo, b_hi = b & _MASK32, b >> s32
    lo_lo = a_lo * b_lo
    lo_hi = a_lo * b_hi
    hi_lo = a_hi * b_lo
    mid = (lo_lo >> s32) + (lo_hi & _MASK32) + (hi_lo & _MASK32)
    return a_hi * b_hi + (lo_hi >> s32) + (hi_lo >> s32) + (mid >> s32)


def mulhi64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """High 64 bits of the signed 128-bit product of two int64 arrays."""
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    hi = umulhi64(ua, ub) - np.where(a < 0, ub, np.uint64(0)) - np.where(b < 0, ua, np.uint64(0))
    return hi.view(np.int64)


def cdiv(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """C division: the quotient truncated toward zero (operands must not overflow)."""
    a = np.asarray(a)
    b = np.asarray(b, dtype=a.dtype)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)


def crem(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """C remainder: ``a - (a / b) * b``, with the sign of the dividend."""
    a = np.asarray(a)
    b = np.asarray(b, dtype=a.dtype)
    return (a - cdiv(a, b) * b).astype(a.dtype)


def bit_length64(u: np.ndarray) -> np.ndarray:
    """Index of the highest set bit plus one (0 for 0) of a uint64 array."""
    u = u.astype(np.uint64)
    length = np.zeros(u.shape, dtype=np.int32)
    for step in (32, 16, 8, 4, 2, 1):
        big = (u >> np.uint64(step)) != 0
        length += np.where(big, step, 0).astype(np.int32)
        u = np.where(big, u >> np.uint64(step), u)
    return length + (u != 0).astype(np.int32)


def int_semantics(
    a: np.ndarray, b: np.ndarray, s: np.ndarray, x: np.ndarray, y: np.ndarray
) -> dict[str, np.ndarray]:
    """Every output of ``int64_ops``, by name."""
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    s64 = s.astype(np.int64)
    s32 = (s & 31).astype(np.int32)
    x64, y64 = x.astype(np.int64), y.astype(np.int64)
    out: dict[str, np.ndarray] = {
        "mulhi": mulhi64(a, b),
        "mul_lo": (ua * ub).view(np.int64),
        "div": cdiv(a, b),
        "rem": crem(a, b),
        "shr": a >> s64,
        "shl": (ua << s64.astype(np.uint64)).view(np.int64),
        "mul_wide": x64 * y64,
        "zext": x.view(np.uint32).astype(np.int64),
        "div7": cdiv(a, 7),
        "rem_m9": crem(a, -9),
        "umulhi": umulhi64(ua, ub),
        "shr_u": ua >> s64.astype(np.uint64),
        "udiv": ua // ((ub >> np.uint64(40)) | np.uint64(1)),
        "div32": cdiv(x, y),
        "rem32": crem(x, y),
        "mulhi32": ((x64 * y64) >> 32).astype(np.int32),
        "umulhi32": (
            (x.view(np.uint32).astype(np.uint64) * y.view(np.uint32).astype(np.uint64)) >> np.uint64(32)
        )
        .astype(np.uint32)
        .view(np.int32),
        "trunc32": a.astype(np.int32),
        "shr32": x >> s32,
        "shr_u32": (x.view(np.uint32) >> s32.astype(np.uint32)).view(np.int32),
        "div_m3": cdiv(x, -3),
        "popc": np.bitwise_count(ua).astype(np.int32),
        "clz": (64 - bit_length64(ua)).astype(np.int32),
    }
    return out


@register
class Int64Ops(Workload):
    name = "int64_ops"
    suite = "corpus"
    description = "int64/int32 semantics: mul.hi, wrapping mul, shifts, truncating div/rem, conversions, clz"
    sources = ("int64_ops.cu",)
    scales = {"tiny": {"n": 2000}, "small": {"n": 1 << 16}, "paper": {"n": 1 << 20}}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        big = np.iinfo(np.int64)

        # magnitudes spread over all bit widths, both signs; never INT64_MIN (its negation overflows)
        def wide() -> np.ndarray:
            bits = rng.integers(0, 63, size=n)
            mag = rng.integers(0, big.max, size=n, dtype=np.int64) >> (62 - bits)
            return np.where(rng.random(n) < 0.5, -mag, mag).astype(np.int64)

        a = wide()
        b = wide()
        b[b == 0] = -3
        x = rng.integers(np.iinfo(np.int32).min + 1, np.iinfo(np.int32).max, size=n, dtype=np.int32)
        x[: n // 4] = rng.integers(-100, 100, size=n // 4, dtype=np.int32)
        y = rng.integers(-70_000, 70_000, size=n, dtype=np.int32)
        y[y == 0] = 5
        y[n // 8 : n // 4] = rng.integers(-9, 10, size=n // 4 - n // 8, dtype=np.int32)
        y[y == 0] = -1
        s = rng.integers(0, 64, size=n, dtype=np.int32)
        return {"a": a, "b": b, "s": s, "x": x, "y": y}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        args = [ndpgpu.asarray(inp[k]) for k in ("a", "b", "s", "x", "y")]
        out64 = ndpgpu.zeros((len(ROWS64), n), np.int64)
        outu64 = ndpgpu.zeros((len(ROWSU64), n), np.uint64)
        out32 = ndpgpu.zeros((len(ROWS32), n), np.int32)
        ctx.module.get_function("int64_ops")(
            ceil_div(n, 128), 128, (*args, out64, outu64, out32, np.int32(n))
        )
        result: dict[str, np.ndarray] = {}
        for names, dev in ((ROWS64, out64), (ROWSU64, outu64), (ROWS32, out32)):
            host = dev.get()
            result.update({name: host[k].copy() for k, name in enumerate(names)})
        return result

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return int_semantics(inp["a"], inp["b"], inp["s"], inp["x"], inp["y"])

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        n = p["n"]
        specs = {name: spec(n, np.int64) for name in ROWS64}
        specs |= {name: spec(n, np.uint64) for name in ROWSU64}
        specs |= {name: spec(n, np.int32) for name in ROWS32}
        return specs
