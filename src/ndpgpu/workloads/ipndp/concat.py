"""Concat (IP-NDP, Type 2): two images placed side by side, baseline and row-major PACA forms."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec

from ._common import BLOCK, IpndpWorkload, image_grid, num_sms_of, pa_block, pa_kernel, pa_scales


class _Concat(IpndpWorkload):
    benchmark = "Concat"
    pattern = "row"
    sources = ("concat.cu",)
    scales = {
        "tiny": {"width_a": 96, "width_b": 160, "height": 128},
        "small": {"width_a": 512, "width_b": 512, "height": 512},
        "paper": {"width_a": 2048, "width_b": 2048, "height": 2048},
    }
    tolerance: dict = {}  # a copy: exact

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        h = p["height"]
        return {
            "a": rng.random((h, p["width_a"]), dtype=np.float32),
            "b": rng.random((h, p["width_b"]), dtype=np.float32),
        }

    def _run(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any], kernel: str, grid, block) -> dict:
        wa, wb, h = p["width_a"], p["width_b"], p["height"]
        a = ndpgpu.asarray(inp["a"])
        b = ndpgpu.asarray(inp["b"])
        out = ndpgpu.zeros((h, wa + wb), np.float32)
        ctx.module.get_function(kernel)(grid, block, (a, b, out, np.int32(wa), np.int32(wb), np.int32(h)))
        return {"out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"out": np.concatenate([inp["a"], inp["b"]], axis=1)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec((p["height"], p["width_a"] + p["width_b"]), np.float32)}


_DEVIATIONS = (
    "Kernel written fresh; the paper names Concat but not its source, axis or sizes: we place two float32 "
    "images side by side (width concatenation, one output pixel per thread reading from one of the two inputs, "
    "32x8 blocks), two 2048x2048 images at the paper scale (our choice); the tiny scale uses unequal widths that "
    "are not multiples of 32."
)


@register
class Concat(_Concat):
    name = "ipndp_concat"
    description = "IP-NDP Concat baseline: out = [a | b] (side by side), one thread per output pixel, 32x8 blocks"
    deviations = _DEVIATIONS

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        grid = image_grid(p["width_a"] + p["width_b"], p["height"])
        return self._run(ctx, inp, p, "concat_base", grid, BLOCK)


@register
class ConcatPA(_Concat):
    name = "ipndp_concat_pa"
    description = (
        "IP-NDP Concat pattern-aware: num_sms CTAs of 32x8 threads, each walking a band of full-width output rows "
        "block by block (row-major PACA) with a barrier per block"
    )
    deviations = _DEVIATIONS
    pattern_aware = True
    scales = pa_scales(_Concat.scales)

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return self._run(ctx, inp, p, pa_kernel("concat_pa", p), num_sms_of(ctx, p), pa_block(p))
