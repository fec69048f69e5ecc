"""Host-side helpers shared by the IP-NDP workloads: launch geometry of the baseline and pattern-aware
(PACA) forms, the number of SMs a PACA launch is sized for, and a runner with parameter overrides."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ndpgpu.workloads.base import RunContext, Workload

#: SMs of the paper's reference NDP machines Base-8 and IP-8 (IP-16 has 16): the default grid of a PACA launch.
DEFAULT_NUM_SMS = 8
#: Threads of the one CTA per SM of a PACA launch (Guideline 3: 8 warps per IP-NDP SM).
PA_THREADS = 256
#: Block shape of the per-pixel kernels, baseline and PACA alike (256 threads: 32 pixels wide, 8 rows).
BLOCK = (32, 8)

PATTERNS = ("row", "column", "tile", "row+column")
#: Largest ``warps`` a PACA launch takes (a CTA holds at most 1,024 threads: 32 warps).
MAX_WARPS = 32


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def image_grid(width: int, height: int, block: tuple[int, int] = BLOCK) -> tuple[int, int]:
    """Baseline grid: one thread per pixel, blocks covering a width x height image."""
    return ceil_div(width, block[0]), ceil_div(height, block[1])


def tile_grid(num_sms: int) -> tuple[int, int]:
    """Tile-based PACA: num_sms tiles as tiles_x x tiles_y, near square, wider than tall (8 -> 4x2, 16 -> 4x4)."""
    tiles_y = max(d for d in range(1, math.isqrt(num_sms) + 1) if num_sms % d == 0)
    return num_sms // tiles_y, tiles_y


def num_sms_of(ctx: RunContext, p: dict[str, Any]) -> int:
    """The grid of a PACA launch: the scale's ``num_sms``, or the device's SM count where it is None."""
    n = p.get("num_sms", DEFAULT_NUM_SMS)
    n = ctx.num_sms if n is None else int(n)
    if n < 1:
        raise ValueError(f"num_sms must be positive, got {n}")
    return n


def pa_block(p: dict[str, Any]) -> tuple[int, int]:
    """Block of a per-pixel PACA launch: 32 pixels wide, one row per warp (``warps``, default 8: 32x8)."""
    warps = p.get("warps", BLOCK[1])
    if not isinstance(warps, int) or not 1 <= warps <= MAX_WARPS:
        raise ValueError(f"warps must be an integer in 1..{MAX_WARPS}, got {warps!r}")
    return BLOCK[0], warps


def pa_kernel(kernel: str, p: dict[str, Any]) -> str:
    """The PACA kernel ``kernel``, or its ``_nobar`` form (no barrier per block step) where ``barrier`` is False."""
    barrier = p.get("barrier", True)
    if not isinstance(barrier, bool):
        raise ValueError(f"barrier must be True or False, got {barrier!r}")
    return kernel if barrier else kernel + "_nobar"


def pa_scales(scales: dict[str, dict[str, Any]], num_sms: int | None = DEFAULT_NUM_SMS) -> dict[str, dict[str, Any]]:
    """The baseline scales with the PACA grid size added."""
    return {name: {**p, "num_sms": num_sms} for name, p in scales.items()}


class IpndpWorkload(Workload):
    """Common declarations of the IP-NDP workloads (not registered itself)."""

    suite = "ipndp"
    papers = ("IP-NDP",)
    #: the paper's benchmark name (Table 3) and its PACA scheme
    benchmark: ClassVar[str]
    pattern: ClassVar[str]
    #: True for the pattern-aware form (grid = num_sms, one 256-thread CTA per SM)
    pattern_aware: ClassVar[bool] = False


def run_ipndp(name: str, scale: str = "tiny", **overrides: Any) -> tuple[dict[str, np.ndarray], Any, dict[str, Any]]:
    """Run workload ``name`` at ``scale`` with some parameters replaced (e.g. ``num_sms=16``), unchecked.

    Returns ``(outputs, device, params)``; the device's ``launches`` record each launch's grid and block.
    Inputs come from the (overridden) parameters and the workload's seed, as in ``run_workload``.
    """
    import ndpgpu
    from ndpgpu.workloads.base import get_workload

    cls = get_workload(name)
    base = cls.params(scale)
    unknown = set(overrides) - set(base)
    if unknown:
        raise KeyError(f"{name}: no parameters {sorted(unknown)} at scale {scale!r}")
    params = {**base, **overrides}
    w = cls()
    inputs = w.inputs(params, np.random.default_rng(cls.seed))
    (source,) = cls.source_paths()
    module = ndpgpu.RawModule(path=str(source), options=cls.options)
    dev = ndpgpu.Device()
    with dev:
        outputs = w.launch(RunContext(module, dev, scale, params), inputs, params)
    return outputs, dev, params
