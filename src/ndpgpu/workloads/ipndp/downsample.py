"""DownSample (IP-NDP, Type 2): 2x2 box downsampling of an 8-bit-valued image, baseline and row-major PACA."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec

from ._common import BLOCK, IpndpWorkload, image_grid, num_sms_of, pa_block, pa_kernel, pa_scales


def downsample_reference(image: np.ndarray) -> np.ndarray:
    """Mean of each 2x2 block (float64, exact for these inputs)."""
    h, w = image.shape
    return image.astype(np.float64).reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3)).astype(np.float32)


class _DownSample(IpndpWorkload):
    benchmark = "DownSample"
    pattern = "row"
    sources = ("downsample.cu",)
    # sizes of the input image; the output is half as wide and half as tall
    scales = {
        "tiny": {"width": 256, "height": 256},
        "small": {"width": 1024, "height": 1024},
        "paper": {"width": 4096, "height": 4096},
    }
    # Exact: pixels are integers 0..255, so the sum of four (<= 1020) and its quarter are exact in float32.
    tolerance: dict = {}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        if p["width"] % 2 or p["height"] % 2:
            raise ValueError("DownSample needs even image sizes")
        return {"image": rng.integers(0, 256, size=(p["height"], p["width"])).astype(np.float32)}

    def _run(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any], kernel: str, grid, block) -> dict:
        ow, oh = p["width"] // 2, p["height"] // 2
        image = ndpgpu.asarray(inp["image"])
        out = ndpgpu.zeros((oh, ow), np.float32)
        ctx.module.get_function(kernel)(grid, block, (image, out, np.int32(ow), np.int32(oh)))
        return {"out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"out": downsample_reference(inp["image"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"out": spec((p["height"] // 2, p["width"] // 2), np.float32)}


_DEVIATIONS = (
    "Kernel written fresh; the paper names DownSample but not its source, filter or sizes: we use a 2x2 box "
    "average (one output pixel per thread, 32x8 blocks) of a float32 image holding 8-bit values, 4096x4096 -> "
    "2048x2048 at the paper scale (our choice)."
)


@register
class DownSample(_DownSample):
    name = "ipndp_downsample"
    description = "IP-NDP DownSample baseline: 2x2 box average to half size, one thread per output pixel, 32x8 blocks"
    deviations = _DEVIATIONS

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return self._run(ctx, inp, p, "downsample_base", image_grid(p["width"] // 2, p["height"] // 2), BLOCK)


@register
class DownSamplePA(_DownSample):
    name = "ipndp_downsample_pa"
    description = (
        "IP-NDP DownSample pattern-aware: num_sms CTAs of 32x8 threads, each walking a band of full-width output "
        "rows block by block (row-major PACA) with a barrier per block"
    )
    deviations = _DEVIATIONS
    pattern_aware = True
    scales = pa_scales(_DownSample.scales)

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return self._run(ctx, inp, p, pa_kernel("downsample_pa", p), num_sms_of(ctx, p), pa_block(p))
