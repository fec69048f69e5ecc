"""ConvSep (IP-NDP, Type 2): the CUDA SDK's separable convolution (row pass, then column pass, radius 8),
as the SDK's shared-memory scheme and as the paper's Guideline-4 L1 rewrite (the SDK kernels with every tap a
global load through the L1 instead of a shared-memory read, 8 outputs per thread as the SDK's), each baseline
and PACA; and, as a labelled variant, an earlier L1 rewrite with one thread per output pixel."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.builtin._common import OutputSpecs, set_global, spec

from ._common import BLOCK, IpndpWorkload, ceil_div, image_grid, num_sms_of, pa_block, pa_kernel, pa_scales

RADIUS = 8
TAPS = 2 * RADIUS + 1
ROWS_BLOCK, ROWS_STEPS = (16, 4), 8  # the SDK's row-pass tiling
COLS_BLOCK, COLS_STEPS = (16, 8), 8  # the SDK's column-pass tiling
RB_STEPS = 8  # outputs per thread of the register-blocked L1 kernels (CS_RB in convsep.cu: the SDK's steps)


def convolve_rows(image: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """out[y, x] = sum_j kernel[R - j] * image[y, x + j], zero outside the image (exact in int64)."""
    h, w = image.shape
    padded = np.pad(image.astype(np.int64), ((0, 0), (RADIUS, RADIUS)))
    k = kernel.astype(np.int64)
    return sum(k[RADIUS - j] * padded[:, RADIUS + j : RADIUS + j + w] for j in range(-RADIUS, RADIUS + 1))


def convsep_reference(image: np.ndarray, kernel: np.ndarray) -> dict[str, np.ndarray]:
    rows = convolve_rows(image, kernel)
    out = convolve_rows(rows.T, kernel).T
    return {"rows": rows.astype(np.float32), "out": out.astype(np.float32)}


class _ConvSep(IpndpWorkload):
    benchmark = "ConvSep"
    pattern = "row+column"
    sources = ("convsep.cu",)
    scales = {
        "tiny": {"width": 128, "height": 128},
        "small": {"width": 512, "height": 512},
        "paper": {"width": 3072, "height": 3072},  # the SDK sample's image
    }
    # Exact: image and kernel are integers 0..15 (the SDK's rand() % 16), so every partial sum is an integer
    # below 17 * 15 * 17 * 15 * 15 = 975,375 < 2^24 and float32 arithmetic is exact in any order.
    tolerance: dict = {}
    #: kernels: (row pass, column pass) and their launch geometry, per form
    row_kernel: str
    col_kernel: str

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {
            "image": rng.integers(0, 16, size=(p["height"], p["width"])).astype(np.float32),
            "kernel": rng.integers(0, 16, size=TAPS).astype(np.float32),
        }

    def geometry(self, ctx: RunContext, p: dict[str, Any]) -> tuple[tuple, tuple, tuple, tuple]:
        """(rows grid, rows block, columns grid, columns block)."""
        raise NotImplementedError

    def kernels(self, p: dict[str, Any]) -> tuple[str, str]:
        """(row pass, column pass) kernel names."""
        return self.row_kernel, self.col_kernel

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        w, h = p["width"], p["height"]
        set_global(ctx.module, "convsep_kernel", inp["kernel"])
        image = ndpgpu.asarray(inp["image"])
        rows = ndpgpu.zeros((h, w), np.float32)
        out = ndpgpu.zeros((h, w), np.float32)
        rg, rb, cg, cb = self.geometry(ctx, p)
        rk, ck = self.kernels(p)
        ctx.module.get_function(rk)(rg, rb, (image, rows, np.int32(w), np.int32(h)))
        ctx.module.get_function(ck)(cg, cb, (rows, out, np.int32(w), np.int32(h)))
        return {"rows": rows.get(), "out": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return convsep_reference(inp["image"], inp["kernel"])

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"rows": spec((p["height"], p["width"]), np.float32), "out": spec((p["height"], p["width"]), np.float32)}


_DEVIATIONS = (
    "Kernels written fresh after the CUDA SDK convolutionSeparable algorithm (radius 8, zero outside the image, "
    "integer image and taps in 0..15 as the SDK's rand() % 16, 3072x3072 at the paper scale as the SDK's "
    "default); the row pass's intermediate image is also checked. "
)
_SMEM = (
    "The baseline keeps the SDK's tiling (16x4 and 16x8 threads, 8 outputs per thread, one block-wide halo) "
    "and needs width % 128 == 0 and height % 64 == 0; the PACA form stages 32x8 pixels plus an 8-pixel halo "
    "per block step instead (the paper does not give its shared-memory PACA code)."
)
_L1 = (
    "Guideline 4's L1 rewrite (Sec. 3.4: staging through shared memory costs a load plus a shared-memory store "
    "and load; the L1 code loads each datum once, from global memory): the SDK kernels with the shared-memory "
    "staging taken out and nothing else changed, so each thread still computes 8 outputs (one block apart along "
    "the pass) and reads every tap with a global load through the L1. The baseline keeps the SDK's 16x4 and "
    "16x8 threads and grids; the PACA form (the paper's IP-NDP code) is 32x8 threads per SM walking a row band "
    "(row pass) or a column band (column pass), a block step being 8 outputs per thread, barrier per step."
)
_L1PX = (
    "An earlier L1 rewrite, kept as a labelled variant: one thread per output pixel (32x8 blocks; PACA: one "
    "output per thread per block step), so besides taking out the shared memory it gives up the SDK's 8 outputs "
    "per thread and the index work they share. In PTX every tap keeps its ld.const (SASS would fold it into the "
    "FFMA); at the paper scale the PACA form runs 9% fewer thread-instructions than the PACA shared-memory form "
    "(1.31e9 vs 1.45e9) and the baseline 2.4x more than the SDK-tiled one."
)


@register
class ConvSepSmem(_ConvSep):
    name = "ipndp_convsep_smem"
    description = (
        "IP-NDP ConvSep baseline, shared memory: SDK-style separable 17-tap convolution, row pass (16x4 threads, "
        "8 outputs each) then column pass (16x8 threads), shared tiles with halos"
    )
    deviations = _DEVIATIONS + _SMEM
    row_kernel, col_kernel = "convsep_rows_smem", "convsep_cols_smem"

    def geometry(self, ctx: RunContext, p: dict[str, Any]) -> tuple[tuple, tuple, tuple, tuple]:
        w, h = p["width"], p["height"]
        if w % (ROWS_BLOCK[0] * ROWS_STEPS) or h % (COLS_BLOCK[1] * COLS_STEPS):
            raise ValueError(f"{self.name}: the SDK tiling needs width % 128 == 0 and height % 64 == 0, got {w}x{h}")
        rows_grid = (w // (ROWS_BLOCK[0] * ROWS_STEPS), h // ROWS_BLOCK[1])
        cols_grid = (w // COLS_BLOCK[0], h // (COLS_BLOCK[1] * COLS_STEPS))
        return rows_grid, ROWS_BLOCK, cols_grid, COLS_BLOCK


@register
class ConvSepSmemPA(_ConvSep):
    name = "ipndp_convsep_smem_pa"
    description = (
        "IP-NDP ConvSep pattern-aware, shared memory: num_sms CTAs of 32x8 threads; the row pass walks row bands "
        "(row-major PACA), the column pass column bands (column-major), each block step staged with its halo in "
        "shared memory, barrier per step"
    )
    deviations = _DEVIATIONS + _SMEM
    pattern_aware = True
    scales = pa_scales(_ConvSep.scales)
    row_kernel, col_kernel = "convsep_rows_smem_pa", "convsep_cols_smem_pa"

    def geometry(self, ctx: RunContext, p: dict[str, Any]) -> tuple[tuple, tuple, tuple, tuple]:
        n = num_sms_of(ctx, p)
        return n, BLOCK, n, BLOCK


@register
class ConvSepL1(_ConvSep):
    name = "ipndp_convsep_l1"
    description = (
        "IP-NDP ConvSep baseline, L1 (Guideline 4): the SDK's row pass (16x4 threads) and column pass (16x8), 8 "
        "outputs per thread, every tap a global load through the L1 (no shared memory)"
    )
    deviations = _DEVIATIONS + _L1
    row_kernel, col_kernel = "convsep_rows_l1rb", "convsep_cols_l1rb"

    def geometry(self, ctx: RunContext, p: dict[str, Any]) -> tuple[tuple, tuple, tuple, tuple]:
        w, h = p["width"], p["height"]
        rows_grid = (ceil_div(w, ROWS_BLOCK[0] * RB_STEPS), ceil_div(h, ROWS_BLOCK[1]))
        cols_grid = (ceil_div(w, COLS_BLOCK[0]), ceil_div(h, COLS_BLOCK[1] * RB_STEPS))
        return rows_grid, ROWS_BLOCK, cols_grid, COLS_BLOCK


@register
class ConvSepL1PA(_ConvSep):
    name = "ipndp_convsep_l1_pa"
    description = (
        "IP-NDP ConvSep pattern-aware, L1 (the paper's IP-NDP code, Guidelines 1-4): num_sms CTAs of 32x8 threads; "
        "row pass over row bands, column pass over column bands, 8 outputs per thread per block step, every tap a "
        "global load through the L1, barrier per block step"
    )
    deviations = _DEVIATIONS + _L1
    pattern_aware = True
    scales = pa_scales(_ConvSep.scales)
    row_kernel, col_kernel = "convsep_rows_l1rb_pa", "convsep_cols_l1rb_pa"

    def kernels(self, p: dict[str, Any]) -> tuple[str, str]:
        return pa_kernel(self.row_kernel, p), pa_kernel(self.col_kernel, p)

    def geometry(self, ctx: RunContext, p: dict[str, Any]) -> tuple[tuple, tuple, tuple, tuple]:
        n = num_sms_of(ctx, p)
        return n, pa_block(p), n, pa_block(p)  # 32 wide: the row kernel's output spacing (PA_BX in convsep.cu)


@register
class ConvSepL1Pixel(_ConvSep):
    name = "ipndp_convsep_l1px"
    description = (
        "IP-NDP ConvSep baseline, L1 one thread per output (labelled variant): separable 17-tap convolution, row "
        "pass then column pass, each thread one output reading global memory directly, 32x8 blocks"
    )
    deviations = _DEVIATIONS + _L1PX
    row_kernel, col_kernel = "convsep_rows_l1", "convsep_cols_l1"

    def geometry(self, ctx: RunContext, p: dict[str, Any]) -> tuple[tuple, tuple, tuple, tuple]:
        g = image_grid(p["width"], p["height"])
        return g, BLOCK, g, BLOCK


@register
class ConvSepL1PixelPA(_ConvSep):
    name = "ipndp_convsep_l1px_pa"
    description = (
        "IP-NDP ConvSep pattern-aware, L1 one thread per output (labelled variant): num_sms CTAs of 32x8 threads; "
        "row pass over row bands, column pass over column bands, one output per thread per block step, barrier "
        "per block step"
    )
    deviations = _DEVIATIONS + _L1PX
    pattern_aware = True
    scales = pa_scales(_ConvSep.scales)
    row_kernel, col_kernel = "convsep_rows_l1_pa", "convsep_cols_l1_pa"

    def kernels(self, p: dict[str, Any]) -> tuple[str, str]:
        return pa_kernel(self.row_kernel, p), pa_kernel(self.col_kernel, p)

    def geometry(self, ctx: RunContext, p: dict[str, Any]) -> tuple[tuple, tuple, tuple, tuple]:
        n = num_sms_of(ctx, p)
        return n, pa_block(p), n, pa_block(p)
