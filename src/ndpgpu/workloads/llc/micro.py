"""The LLC-Compute / Omni-Compute microbenchmarks (paper Table 3): COPY, VECADD (ALIGNED and STRIDED),
NORM, COMPARE and DENSITY, each one Table 1 offload pattern in its simplest per-thread form.

ALIGNED and STRIDED place the operands explicitly (``_common.placed_arrays``): ALIGNED puts element ``i``
of every operand in the same memory partition (LLC slice), STRIDED in a different partition per operand,
under the mapping ``partition = (addr // interleave_bytes) % partitions`` (defaults: the paper's 8 MCs and
128-byte partition chunk).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register

from ._common import INTERLEAVE_BYTES, PARTITIONS, ceil_div, placed_arrays, placement_shifts

PAPERS = ("LLC-Compute", "Omni-Compute")
MICRO_DEVIATIONS = (
    "Written fresh after the paper's one-line descriptions (the sources are not public). Input sizes are not "
    "given in the paper; the paper scale is 4M elements (16 MiB per float array, 4x the 4 MB LLC, so the "
    "stream misses in the LLC), one element per 256-thread-block thread."
)
PLACEMENT_NOTE = (
    " Operands are carved out of one allocation at offsets computed from the params partitions and "
    "interleave_bytes (default 8 and 128 B: Table 2's 8 MCs and 128-byte partition chunk, no address "
    "hashing assumed); the paper does not say how it placed them."
)


def _scales(extra: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    base = {"block": 256, "partitions": PARTITIONS, "interleave_bytes": INTERLEAVE_BYTES, **(extra or {})}
    return {
        "tiny": {"n": 4000, **base},  # not a multiple of the block: exercises the bounds guard
        "small": {"n": 1 << 20, **base},
        "paper": {"n": 1 << 22, **base},
    }


def _per_warp(hits: np.ndarray) -> np.ndarray:
    """The count of true elements in each group of 32 consecutive elements (one warp's word)."""
    pad = np.zeros(ceil_div(hits.size, 32) * 32, dtype=bool)
    pad[: hits.size] = hits
    return pad.reshape(-1, 32).sum(axis=1).astype(np.uint32)


class _Micro(Workload):
    suite = "llc"
    papers = PAPERS
    sources = ("micro.cu",)
    scales = _scales()
    placement: ClassVar[str] = "aligned"

    def _grid(self, p: dict[str, Any]) -> int:
        return ceil_div(p["n"], p["block"])

    def device_arrays(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, ndpgpu.DeviceArray]:
        """The kernel's operands, placed as ``placement`` says (used by ``launch`` and the placement test)."""
        names = self.operands
        hosts = [inp[k] if k in inp else np.zeros(p["n"], np.float32) for k in names]
        arrays = placed_arrays(hosts, placement_shifts(self.placement, len(names)), p["partitions"],
                               p["interleave_bytes"])
        return dict(zip(names, arrays, strict=True))


class _Copy(_Micro):
    description = "b[i] = a[i] over float arrays (Table 1 pattern 3: ld a; st c), one element per thread"
    operands = ("a", "b")

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"a": rng.standard_normal(p["n"], dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        d = self.device_arrays(inp, p)
        ctx.module.get_function("llc_copy")(self._grid(p), p["block"], (d["a"], d["b"], np.int32(p["n"])))
        return {"b": d["b"].get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"b": inp["a"].copy()}


@register
class CopyAligned(_Copy):
    name = "llc_copy_aligned"
    placement = "aligned"
    description = _Copy.description + "; a[i] and b[i] in the same memory partition (ALIGNED)"
    deviations = MICRO_DEVIATIONS + PLACEMENT_NOTE


@register
class CopyStrided(_Copy):
    name = "llc_copy_strided"
    placement = "strided"
    description = _Copy.description + "; a[i] and b[i] in different memory partitions (STRIDED)"
    deviations = MICRO_DEVIATIONS + PLACEMENT_NOTE


class _Vecadd(_Micro):
    description = "c[i] = a[i] + b[i] over float arrays (Table 1 pattern 1: ld a; ld b; add; st c)"
    operands = ("a", "b", "c")

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"a": rng.standard_normal(p["n"], dtype=np.float32), "b": rng.standard_normal(p["n"], dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        d = self.device_arrays(inp, p)
        ctx.module.get_function("llc_vecadd")(self._grid(p), p["block"], (d["a"], d["b"], d["c"], np.int32(p["n"])))
        return {"c": d["c"].get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"c": inp["a"] + inp["b"]}  # one float32 rounding, as add.f32: exact


@register
class VecaddAligned(_Vecadd):
    name = "llc_vecadd_aligned"
    placement = "aligned"
    description = _Vecadd.description + "; a[i], b[i], c[i] in the same memory partition (ALIGNED)"
    deviations = MICRO_DEVIATIONS + PLACEMENT_NOTE


@register
class VecaddStrided(_Vecadd):
    name = "llc_vecadd_strided"
    placement = "strided"
    description = _Vecadd.description + "; a[i], b[i], c[i] in three different memory partitions (STRIDED)"
    deviations = MICRO_DEVIATIONS + PLACEMENT_NOTE


@register
class Norm(_Micro):
    name = "llc_norm"
    placement = "aligned"
    description = (
        "Normalise a float array by a given value: b[i] = a[i] * (1/norm), the reciprocal computed on the "
        "host (Table 1 pattern 7: ld a; immediate; mul; st c); a and b ALIGNED"
    )
    deviations = MICRO_DEVIATIONS + PLACEMENT_NOTE + (
        " The division by the norm is a multiply by its host-computed float32 reciprocal, so the chain's ALU "
        "op is one simple FP32 op (a '/' would be a div.rn.f32, a long sequence on hardware). The input and "
        "output are ALIGNED, since the paper reports LLC-Compute offloading nearly all NORM chains."
    )
    operands = ("a", "b")

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        a = rng.standard_normal(p["n"], dtype=np.float32)
        return {"a": a, "scale": np.float32(1.0) / np.float32(np.abs(a).max())}  # normalise by the max norm

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        d = self.device_arrays(inp, p)
        ctx.module.get_function("llc_norm")(self._grid(p), p["block"],
                                            (d["a"], d["b"], inp["scale"], np.int32(p["n"])))
        return {"b": d["b"].get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"b": inp["a"] * inp["scale"]}  # one float32 rounding: exact


@register
class Compare(_Micro):
    name = "llc_compare"
    description = (
        "Point-wise comparison of two byte strings counting the differing positions: a[i] != b[i] per thread "
        "(Table 1 pattern 5: ld a; ld b; setp), the warp's vote popcounted and stored to the warp's own count word"
    )
    deviations = MICRO_DEVIATIONS + (
        " Strings are random bytes over a 4-letter alphabet with 10% of positions changed. The two strings are "
        "separate ordinary allocations (the paper says nothing of their placement). The paper says what is "
        "counted (Sec. 5), not how: each warp stores its own count (ballot + popc + one store to count[i/32]) "
        "and the host adds the words, so no global counter serialises the warps."
    )
    operands = ("a", "b")

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        letters = np.frombuffer(b"ACGT", dtype=np.uint8)
        a = letters[rng.integers(0, 4, p["n"])]
        b = a.copy()
        change = rng.random(p["n"]) < 0.1
        b[change] = letters[(np.searchsorted(letters, a[change]) + rng.integers(1, 4, int(change.sum()))) % 4]
        return {"a": a, "b": b}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        a, b = ndpgpu.asarray(inp["a"]), ndpgpu.asarray(inp["b"])
        count = ndpgpu.zeros(ceil_div(p["n"], 32), np.uint32)
        ctx.module.get_function("llc_compare")(self._grid(p), p["block"], (a, b, count, np.int32(p["n"])))
        return {"count": count.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"count": _per_warp(inp["a"] != inp["b"])}


@register
class Density(_Micro):
    name = "llc_density"
    description = (
        "Count the zeros of an int array: a[i] == 0 per thread (Table 1 pattern 6: ld a; immediate; setp), the "
        "warp's vote popcounted and stored to the warp's own count word"
    )
    deviations = MICRO_DEVIATIONS + (
        " About 30% of the elements are zero. The paper says what is counted (Sec. 5), not how: each warp "
        "stores its own count (ballot + popc + one store to count[i/32]) and the host adds the words."
    )
    operands = ("a",)

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        a = rng.integers(1, 1000, p["n"], dtype=np.int32)
        a[rng.random(p["n"]) < 0.3] = 0
        return {"a": a}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        a = ndpgpu.asarray(inp["a"])
        count = ndpgpu.zeros(ceil_div(p["n"], 32), np.uint32)
        ctx.module.get_function("llc_density")(self._grid(p), p["block"], (a, count, np.int32(p["n"])))
        return {"count": count.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"count": _per_warp(inp["a"] == 0)}
