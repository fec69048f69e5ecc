"""TRIAD: SHOC's Triad, C = A + s*B, with the operands STRIDED over the memory partitions."""

from __future__ import annotations

from typing import Any

import numpy as np

from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register

from ._common import INTERLEAVE_BYTES, PARTITIONS, ceil_div, fma32, placed_arrays, placement_shifts

_BASE = {"block": 256, "partitions": PARTITIONS, "interleave_bytes": INTERLEAVE_BYTES}


@register
class Triad(Workload):
    name = "llc_triad"
    suite = "llc"
    papers = ("LLC-Compute", "Omni-Compute")
    description = (
        "SHOC Triad: C[i] = A[i] + s*B[i] over float arrays, one element per thread (Table 1 pattern 9); "
        "A[i], B[i], C[i] in three different memory partitions"
    )
    deviations = (
        "Kernel written fresh after SHOC's triad kernel; SHOC's host loop over block and transfer sizes with "
        "streams is replaced by one launch over the whole array (paper scale: SHOC's largest size, 16 MiB per "
        "array = 4M floats). The operands are placed STRIDED (params partitions=8, interleave_bytes=128, as "
        "Table 2's 8 MCs and 128-byte partition chunk): the paper reports that no TRIAD chain can be computed "
        "at an LLC, i.e. its operands sit in different partitions. Compiled as is, nvcc fuses s*B + A into one "
        "FMA; llc_triad_splitfma is the split form the offload runs use."
    )
    sources = ("triad.cu",)
    scales = {
        "tiny": {"n": 4000, **_BASE},
        "small": {"n": 1 << 20, **_BASE},
        "paper": {"n": 1 << 22, **_BASE},
    }
    # exact emulation; the FMA emulation in float64 can double-round: one ulp of the result
    tolerance = {"C": Tolerance(rtol=2.0**-23, atol=0.0)}
    split_fma = False

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"A": rng.random(p["n"], dtype=np.float32), "B": rng.random(p["n"], dtype=np.float32),
                "s": np.float32(1.75)}

    def device_arrays(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        hosts = [inp["A"], inp["B"], np.zeros(p["n"], np.float32)]
        arrays = placed_arrays(hosts, placement_shifts("strided", 3), p["partitions"], p["interleave_bytes"])
        return dict(zip(("A", "B", "C"), arrays, strict=True))

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        d = self.device_arrays(inp, p)
        ctx.module.get_function("llc_triad")(ceil_div(p["n"], p["block"]), p["block"],
                                             (d["A"], d["B"], d["C"], inp["s"], np.int32(p["n"])))
        return {"C": d["C"].get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        if self.split_fma:
            return {"C": inp["A"] + inp["s"] * inp["B"]}
        return {"C": fma32(inp["s"], inp["B"], inp["A"])}


@register
class TriadSplitFma(Triad):
    name = "llc_triad_splitfma"
    description = Triad.description + "; split FMA (separate mul and add, as in the paper's offload runs)"
    deviations = Triad.deviations + " This variant compiles with -fmad=false, so the FMA becomes mul.rn + add.rn."
    options = ("-fmad=false",)
    split_fma = True
