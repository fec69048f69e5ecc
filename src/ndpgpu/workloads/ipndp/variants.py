"""Variants of the per-pixel pattern-aware kernels for two of the paper's studies:

* the warp sweep (Fig. 10): ``ipndp_<bench>_pa_w<n>`` runs the 8-SM PACA kernel with CTAs of 32 x n threads
  (n warps per SM; the regions stay whole blocks of n rows, so every size partitions the image exactly);
* the barrier ablation (Fig. 8): ``ipndp_<bench>_pa_nobar`` and ``ipndp_<bench>_pa16_nobar`` run the same
  kernels without Guideline 2's barrier per block step.

Only the six kernels whose block shape is free take part (Conv2D, Jacobi2D, ConvSep's L1 form, DownSample,
Concat, Denoising): Dct8x8's steps are 8x8 DCT blocks staged in shared memory and MatMul's are 16x16 tiles,
so their CTA shape is fixed by the algorithm, and their barriers also guard the shared arrays.
"""

from __future__ import annotations

from typing import Any

from ndpgpu.workloads.base import register

from .concat import ConcatPA
from .conv2d import Conv2DPA
from .convsep import ConvSepL1PA
from .denoising import DenoisingPA
from .downsample import DownSamplePA
from .jacobi2d import Jacobi2DPA
from .pa16 import PA16

#: the paper's benchmark -> its free-shaped pattern-aware class (ConvSep: the L1 form, as IP-NDP ran it)
FREE_SHAPE: dict[str, type] = {"Conv2D": Conv2DPA, "Jacobi2D": Jacobi2DPA, "ConvSep": ConvSepL1PA,
                               "DownSample": DownSamplePA, "Concat": ConcatPA, "Denoising": DenoisingPA}
#: warps per SM of the sweep besides the default 8 (the paper's Fig. 10: 1, 2, 4, 8, 16)
SWEEP_WARPS = (1, 2, 4, 16)


def _variant(cls: type, suffix: str, extra: dict[str, Any], what: str) -> type:
    sub = type(cls.__name__ + suffix.title().replace("_", ""), (cls,), {
        "__module__": __name__,
        "name": cls.name + suffix,
        "description": cls.description + f" ({what})",
        "scales": {k: {**p, **extra} for k, p in cls.scales.items()},
    })
    return register(sub)


WARP_FORMS: dict[tuple[str, int], type] = {
    (bench, w): _variant(cls, f"_w{w}", {"warps": w}, f"{w} warp{'s' if w > 1 else ''} per CTA: 32x{w} threads")
    for bench, cls in FREE_SHAPE.items() for w in SWEEP_WARPS
}
"""(benchmark, warps per SM) -> the 8-SM PACA workload with that CTA size (8 warps: the PACA form itself)."""

NOBAR_FORMS: dict[str, type] = {
    c.name: _variant(c, "_nobar", {"barrier": False}, "without the barrier per block step")
    for cls in FREE_SHAPE.values() for c in (cls, PA16[cls.name])
}
"""PACA registry name (8 or 16 SMs) -> its form without the per-step barrier."""


def warp_form(bench: str, warps: int) -> str:
    """Registry name of benchmark ``bench``'s 8-SM PACA kernel with ``warps`` warps per SM."""
    if warps == 8:
        return FREE_SHAPE[bench].name
    if (bench, warps) not in WARP_FORMS:
        raise KeyError(f"no warp-sweep form of {bench!r} with {warps} warps (benchmarks {sorted(FREE_SHAPE)}, "
                       f"warps {sorted({8, *SWEEP_WARPS})})")
    return WARP_FORMS[bench, warps].name
