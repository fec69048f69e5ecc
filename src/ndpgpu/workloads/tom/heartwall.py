"""HW: Rodinia heartwall's tracking stage, ported in its kernel structure, block size, grid and sizes.

Structure and constants after Rodinia 3.1's CUDA heartwall (``cuda/heartwall/main.cu``, ``kernel.cu``,
``define.c``; e.g. github.com/yuhc/gpu-rodinia): 20 endocardium and 31 epicardium points at fixed starting
positions, one 256-thread block per point, one launch per frame, per-point working matrices in separate
allocations (column-major), tSize 25 (51 x 51 templates), sSize 40 (81 x 81 search areas), maxMove 10, alpha
0.87 and a template update every 10 frames; the run script processes 20 frames of ``test.avi`` (104 frames of
609 x 590 pixels). The video itself is not public source, so frames are generated (:func:`heart_video`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, set_global, spec
from ndpgpu.workloads.tom import TOM_NVCC_OPTIONS

THREADS = 256  # HW_THREADS: Rodinia's NUMBER_THREADS (define.c's default)
ENDO, EPI = 20, 31  # Rodinia's ENDO_POINTS, EPI_POINTS: one block each
POINTS = ENDO + EPI
MAX_TSIDE, MAX_CONV = 51, 131  # the kernel's shared arrays (HW_MAX_TSIDE, HW_MAX_CONV)
ALPHA = np.float32(0.87)  # template update weight (main.cu)
# Starting positions (1-based row, column) of the points in test.avi's first frame, as main.cu sets them
ENDO_ROWS = (369, 400, 429, 452, 476, 486, 479, 458, 433, 404, 374, 346, 318, 294, 277, 269, 275, 287, 311, 339)
ENDO_COLS = (408, 406, 397, 383, 354, 322, 294, 270, 250, 237, 235, 241, 254, 273, 300, 328, 356, 383, 401, 411)
EPI_ROWS = (390, 419, 448, 474, 501, 519, 535, 542, 543, 538, 528, 511, 491, 466, 438, 406, 376, 347, 318, 291,
            275, 259, 256, 252, 252, 257, 266, 283, 305, 331, 360)
EPI_COLS = (457, 454, 446, 431, 411, 388, 361, 331, 301, 273, 243, 218, 196, 178, 166, 157, 155, 165, 177, 197,
            218, 248, 276, 304, 333, 361, 391, 415, 434, 448, 455)
BEAT_PERIOD, BEAT_SCALE = 10.0, 0.03  # heart_video: frames per beat; relative contraction


# -- inputs -----------------------------------------------------------------------------------------------


def _contour_radius(theta: np.ndarray, pts: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """The radius of the closed contour through ``pts`` (rows, cols) at angles ``theta`` around ``centre``
    (periodic linear interpolation in angle)."""
    d = pts - centre
    ang, rad = np.arctan2(d[:, 0], d[:, 1]), np.hypot(d[:, 0], d[:, 1])
    order = np.argsort(ang)
    return np.interp(theta, ang[order], rad[order], period=2 * np.pi)


def _bilinear(img: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``img`` sampled at fractional (y, x), clamped at the edges."""
    y = np.clip(y, 0, img.shape[0] - 1.001)
    x = np.clip(x, 0, img.shape[1] - 1.001)
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    fy, fx = y - y0, x - x0
    top = img[y0, x0] * (1 - fx) + img[y0, x0 + 1] * fx
    bottom = img[y0 + 1, x0] * (1 - fx) + img[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def heart_video(frames: int, rows: int, cols: int, endo: np.ndarray, epi: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
    """A synthetic ultrasound-like sequence standing in for test.avi, ``(frames, rows, cols)`` float32.

    The heart wall is the band between the closed contours through the endocardium and epicardium points
    (0-based (row, col) arrays), bright tissue between a dark blood pool and a darker outside. A speckle texture
    (smoothed noise) is attached to the tissue, which contracts and expands about the epicardium's centre by
    ``BEAT_SCALE`` with a period of ``BEAT_PERIOD`` frames (at most 2.9 pixels a frame at the outer wall, inside
    the tracker's reach); each frame adds fresh noise. Pixels are integers in 16..240 (8-bit video, kept off 0 so
    the reference's float64 emulation of the kernel's float32 sums stays exact).
    """
    centre = epi.mean(axis=0)
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float64)
    texture = rng.standard_normal((rows, cols))
    for axis in (0, 1):  # a 5-pixel box blur, twice: speckle a few pixels across
        for _ in range(2):
            texture = sum(np.roll(texture, s, axis=axis) for s in range(-2, 3)) / 5.0
    texture *= 40.0 / texture.std()
    out = np.empty((frames, rows, cols), dtype=np.float32)
    for f in range(frames):
        scale = 1.0 + BEAT_SCALE * np.sin(2 * np.pi * f / BEAT_PERIOD)
        ty, tx = centre[0] + (yy - centre[0]) / scale, centre[1] + (xx - centre[1]) / scale  # tissue coordinates
        theta, r = np.arctan2(ty - centre[0], tx - centre[1]), np.hypot(ty - centre[0], tx - centre[1])
        inner, outer = _contour_radius(theta, endo, centre), _contour_radius(theta, epi, centre)
        img = np.where((r > inner) & (r < outer), 150.0, np.where(r <= inner, 70.0, 50.0))
        img += _bilinear(texture, ty, tx) + 6.0 * rng.standard_normal((rows, cols))
        out[f] = np.clip(np.rint(img), 16, 240)
    return out


# -- sizes ------------------------------------------------------------------------------------------------


def sizes(p: dict[str, Any]) -> dict[str, int | float]:
    """The kernel's ``hw_sizes`` (Rodinia's params_common): every matrix's extent from tSize, sSize and maxMove."""
    nt, na = 2 * p["t_half"] + 1, 2 * p["s_half"] + 1
    nc = nt + na - 1
    npad = na + 2 * nt
    m = p["max_move"]
    return {
        "t_half": p["t_half"], "s_half": p["s_half"], "max_move": m, "update_every": p["update_every"],
        "alpha": float(ALPHA), "video_frames": p["video_frames"], "frame_rows": p["rows"], "frame_cols": p["cols"],
        "tpl_side": nt, "tpl_elem": nt * nt, "area_side": na, "area_elem": na * na,
        "conv_side": nc, "conv_elem": nc * nc, "conv_off": 0,
        "pad_add": nt, "pad_side": npad, "pad_elem": npad * npad,
        "vsel_rows": nc, "vsel_elem": nc * npad, "vsel_row_lo": 1 + nt, "vsel_col_lo": 1,
        "vsel2_row_lo": 1, "vsel2_col_lo": 1,
        "hsel_rows": nc, "hsel_elem": nc * nc, "hsel_row_lo": 1, "hsel_col_lo": 1 + nt,
        "hsel2_row_lo": 1, "hsel2_col_lo": 1,
        "win_rows": nc, "win_elem": nc * nc,
        "mask_side": m, "mask_off": (m - 1) // 2 + (1 if (m - 1) % 2 else 0),
    }


SIZES_DTYPE = np.dtype([(k, np.float32 if k == "alpha" else np.int32) for k in (
    "t_half", "s_half", "max_move", "update_every", "alpha", "video_frames", "frame_rows", "frame_cols",
    "tpl_side", "tpl_elem", "area_side", "area_elem", "conv_side", "conv_elem", "conv_off",
    "pad_add", "pad_side", "pad_elem", "vsel_rows", "vsel_elem", "vsel_row_lo", "vsel_col_lo",
    "vsel2_row_lo", "vsel2_col_lo", "hsel_rows", "hsel_elem", "hsel_row_lo", "hsel_col_lo",
    "hsel2_row_lo", "hsel2_col_lo", "win_rows", "win_elem", "mask_side", "mask_off")], align=True)
FRAME_DTYPE = np.dtype([("frame", np.uint64), ("frame_no", np.int32)], align=True)
WORK = ("area", "conv", "pad", "vsel", "hsum", "hsel", "win", "area_sqr", "win_sqr", "tpl_sqr", "tmask", "masked")
POINT_DTYPE = np.dtype([*((k, np.uint64) for k in ("row", "col", "trow", "tcol", "tpl")),
                        ("index", np.int32), ("tpl_offset", np.int32), *((k, np.uint64) for k in WORK)], align=True)


def work_elems(s: dict[str, int | float]) -> dict[str, int]:
    """Elements of each per-point working matrix, in Rodinia's allocation order (main.cu)."""
    nc2 = int(s["conv_elem"])
    return {"area": int(s["area_elem"]), "conv": nc2, "pad": int(s["pad_elem"]), "vsel": int(s["vsel_elem"]),
            "hsum": int(s["vsel_elem"]), "hsel": nc2, "win": nc2, "area_sqr": int(s["area_elem"]),
            "win_sqr": nc2, "tpl_sqr": int(s["tpl_elem"]), "tmask": nc2, "masked": nc2}


# -- reference --------------------------------------------------------------------------------------------

F32, F64 = np.float32, np.float64


def _correlate(tpl: np.ndarray, area: np.ndarray) -> np.ndarray:
    """The kernel's full convolution of each area with its turned template, ``(P, nc, nc)`` [row, col]: the
    same fused multiply-adds in the same order (template columns then rows, last to first), each rounded to
    float32 (float64 holds every partial sum exactly: integer pixels, templates of at least 16)."""
    n, nt, na = tpl.shape[0], tpl.shape[1], area.shape[1]
    nc = nt + na - 1
    padded = np.zeros((n, na + 2 * (nt - 1), na + 2 * (nt - 1)), F64)
    padded[:, nt - 1 : nt - 1 + na, nt - 1 : nt - 1 + na] = area
    t64 = tpl.astype(F64)
    acc = np.zeros((n, nc, nc), F32)
    for v in range(nt - 1, -1, -1):
        for u in range(nt - 1, -1, -1):
            acc = (acc + t64[:, u, v, None, None] * padded[:, u : u + nc, v : v + nc]).astype(F32)
    return acc


def _window_sums(src: np.ndarray, nt: int) -> np.ndarray:
    """The kernel's sums of ``src`` under the template at every offset: zero padding, float32 cumulative sums
    down the columns, row selections, their difference, cumulative sums along the rows, column selections."""
    n, na = src.shape[0], src.shape[1]
    npad = na + 2 * nt
    pad = np.zeros((n, npad, npad), F32)
    pad[:, nt : nt + na, nt : nt + na] = src
    down = np.cumsum(pad, axis=1, dtype=F32)  # accumulate: sequential, as one thread per column adds
    rows = down[:, nt : npad - 1, :] - down[:, 0 : npad - nt - 1, :]
    across = np.cumsum(rows, axis=2, dtype=F32)
    return across[:, :, nt : npad - 1] - across[:, :, 0 : npad - nt - 1]


def _last_cumsum(a: np.ndarray, axis: int) -> np.ndarray:
    """Sequential float32 sum along ``axis`` (a loop of adds, not NumPy's pairwise sum)."""
    return np.take(np.cumsum(a, axis=axis, dtype=F32), -1, axis=axis)


def _hits(prev_r: np.ndarray, prev_c: np.ndarray, p: dict[str, Any], nc: int) -> np.ndarray:
    """The mask convolution's value at every offset, ``(P, nc, nc)``: 1 where the box of side max_move (at the
    convolution's offset) covers the one-hot element, else 0. ``prev_*``: previous position minus the anchor."""
    centre = p["s_half"] + p["t_half"] + 1
    m = p["max_move"]
    off = (m - 1) // 2 + (1 if (m - 1) % 2 else 0)
    at = (centre + prev_c - 1) * nc + (centre + prev_r - 1)  # the one-hot element's linear index
    inside = (at >= 0) & (at < nc * nc)
    hot_r, hot_c = at % nc + 1, at // nc + 1  # 1-based
    i = np.arange(nc) + 1 + off
    lo, hi = np.maximum(i + 1 - m, 1), np.minimum(i, nc)
    rows = (lo[None, :] <= hot_r[:, None]) & (hot_r[:, None] <= hi[None, :])
    cols = (lo[None, :] <= hot_c[:, None]) & (hot_c[:, None] <= hi[None, :])
    return (rows[:, :, None] & cols[:, None, :] & inside[:, None, None]).astype(F32)


def track(frames: np.ndarray, rows0: np.ndarray, cols0: np.ndarray, p: dict[str, Any]) -> dict[str, np.ndarray]:
    """What the launches compute, as float32 as the kernel: every point's position in every frame (frame 0:
    the start) and the final templates. ``rows0``/``cols0``: 1-based starting positions, endocardium first."""
    th, sh = p["t_half"], p["s_half"]
    nt, na = 2 * th + 1, 2 * sh + 1
    nc = nt + na - 1
    n = np.float32(nt * nt)
    npts = rows0.size
    anchor_r, anchor_c = rows0.astype(np.int64), cols0.astype(np.int64)
    track_r = np.zeros((frames.shape[0], npts), np.int32)
    track_c = np.zeros_like(track_r)
    track_r[0], track_c[0] = anchor_r, anchor_c

    def patches(frame: np.ndarray, r: np.ndarray, c: np.ndarray, half: int) -> np.ndarray:
        return np.stack([frame[y - half - 1 : y + half, x - half - 1 : x + half] for y, x in zip(r, c, strict=True)])

    tpl = patches(frames[0], anchor_r, anchor_c, th).astype(F32)
    for f in range(1, frames.shape[0]):
        area = patches(frames[f], anchor_r, anchor_c, sh).astype(F32)
        conv = _correlate(tpl, area)
        win = _window_sums(area, nt)
        win_sqr = _window_sums(area * area, nt)
        s_sum = _last_cumsum(_last_cumsum(tpl, axis=1), axis=1)  # column sums, then over the columns
        s_sum_sqr = _last_cumsum(_last_cumsum(tpl * tpl, axis=2), axis=1)  # row sums of squares, then over rows
        mean = s_sum / n
        var = s_sum_sqr / n - mean * mean
        dev_t = np.sqrt(n - np.float32(1)) * np.sqrt(var)
        with np.errstate(invalid="ignore", divide="ignore"):
            spread = win_sqr - (win * win) / n
            dev = np.sqrt(np.where(spread < 0, F32(0), spread)) * dev_t[:, None, None]
            corr = (conv - (win * s_sum[:, None, None]) / n) / dev
            masked = corr * _hits(track_r[f - 1] - anchor_r, track_c[f - 1] - anchor_c, p, nc)
            score = np.abs(masked)
        score = np.where(np.isnan(score), F32(0), score)
        at = np.argmax(score.transpose(0, 2, 1).reshape(npts, -1), axis=1)  # first largest, column-major
        track_r[f] = anchor_r + at % nc + 1 - nt - (sh - th)
        track_c[f] = anchor_c + at // nc + 1 - nt - (sh - th)
        if f % p["update_every"] == 0:
            anchor_r, anchor_c = track_r[f].astype(np.int64), track_c[f].astype(np.int64)
            new = patches(frames[f], anchor_r, anchor_c, th).astype(F64)
            tpl = ((ALPHA * tpl).astype(F64) + (1.0 - F64(ALPHA)) * new).astype(F32)
    return {"track_row": track_r, "track_col": track_c, "templates": tpl}


# -- the workload -----------------------------------------------------------------------------------------


@register
class Heartwall(Workload):
    name = "heartwall"
    suite = "tom"
    papers = ("TOM",)
    description = (
        "Rodinia heartwall's tracking stage in Rodinia's kernel structure: one launch per frame, one 256-thread "
        "block per point (20 endocardium + 31 epicardium), per-point matrices in global memory; frame 0 cuts the "
        "templates, later frames copy the search area, convolve it with the turned template (template in shared "
        "memory), build the window sums by padded cumulative sums down the columns and along the rows, normalise "
        "the correlation, mask it around the previous position, take the largest |value| and every 10 frames "
        "blend the template"
    )
    deviations = (
        "Written fresh after Rodinia 3.1's cuda/heartwall (main.cu, kernel.cu, define.c; TOM cites Rodinia 3.0): "
        "the same steps in the "
        "same order with the same loops (element loops strided by the block size, one thread per column or row "
        "for the cumulative sums, partial sums and the maximum search), the same matrix sizes, allocations and "
        "column-major layout, block size 256 (define.c's default), 51 blocks, tSize 25, sSize 40, maxMove 10, "
        "alpha 0.87, an update every 10 frames and main.cu's starting points. Differences: test.avi (104 frames "
        "of 609 x 590 pixels) is not public source, so the frames are generated (heart_video: a textured wall "
        "through main.cu's starting points, beating); a barrier is added between the second pass's subtraction "
        "and its sums along the rows (Rodinia has none there: a race); the kernel takes no parameters, as "
        "Rodinia's, but its structs are this port's own. Scales: paper runs the first 2 of the run script's 20 "
        "frames, since TOM's 2-billion-instruction window ends inside frame 1's launch (docs/tom.md); small keeps "
        "the 51 points and the frame but uses 17 x 17 templates and 33 x 33 areas for 4 frames; tiny 7 x 7 "
        "and 17 x 17 for 4 frames with an update every 2."
    )
    sources = ("heartwall.cu",)
    options = TOM_NVCC_OPTIONS  # the TOM workloads' compilation rule (workloads/tom/__init__.py)
    # t_half/s_half: Rodinia's tSize/sSize (template and search-area sides 2*t+1, 2*s+1); video_frames: the
    # video's length (the per-point position arrays' row length, test.avi: 104)
    scales = {
        "tiny": {"frames": 4, "video_frames": 4, "rows": 609, "cols": 590, "t_half": 3, "s_half": 8,
                 "max_move": 10, "update_every": 2},
        "small": {"frames": 4, "video_frames": 4, "rows": 609, "cols": 590, "t_half": 8, "s_half": 16,
                  "max_move": 10, "update_every": 10},
        "paper": {"frames": 2, "video_frames": 104, "rows": 609, "cols": 590, "t_half": 25, "s_half": 40,
                  "max_move": 10, "update_every": 10},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows0 = np.array(ENDO_ROWS + EPI_ROWS, np.int32)
        cols0 = np.array(ENDO_COLS + EPI_COLS, np.int32)
        pts = np.stack([rows0, cols0], axis=1).astype(np.float64) - 1.0  # 0-based centres
        frames = heart_video(p["frames"], p["rows"], p["cols"], pts[:ENDO], pts[ENDO:], rng)
        return {"frames": frames, "point_row": rows0, "point_col": cols0}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        from ndpgpu.functional.launch import BUDGET_ENV, launch_budget  # (here: listing workloads loads no engine)

        s = sizes(p)
        vf, telem = p["video_frames"], int(s["tpl_elem"])
        opts = ctx.device.options
        budget = opts.budget_warp_instructions  # restored after this workload's launches
        if opts.budget_warp_instructions is None and not os.environ.get(BUDGET_ENV, "").strip():
            # a tracking launch at `paper` runs 557 M warp-instructions, over the functional engine's default runaway
            # guard (2^28 for this grid): allow one per multiply-add of the launch's convolutions (870 M there)
            need = POINTS * telem * int(s["area_elem"])
            opts.budget_warp_instructions = max(launch_budget(opts, POINTS * THREADS // 32), need)
        frame = ndpgpu.empty(p["rows"] * p["cols"], np.float32)  # one column-major frame, refilled per launch
        contours = {}
        for name, lo, count in (("endo", 0, ENDO), ("epi", ENDO, EPI)):
            contours[name] = {
                "row": ndpgpu.asarray(inp["point_row"][lo : lo + count]),
                "col": ndpgpu.asarray(inp["point_col"][lo : lo + count]),
                "trow": ndpgpu.empty(count * vf, np.int32),
                "tcol": ndpgpu.empty(count * vf, np.int32),
            }
        for name, count in (("endo", ENDO), ("epi", EPI)):
            contours[name]["tpl"] = ndpgpu.empty(count * telem, np.float32)
        work = {k: [ndpgpu.empty(e, np.float32) for _ in range(POINTS)] for k, e in work_elems(s).items()}
        table = np.zeros(POINTS, POINT_DTYPE)
        for b in range(POINTS):
            con, index = (contours["endo"], b) if b < ENDO else (contours["epi"], b - ENDO)
            for k in ("row", "col", "trow", "tcol", "tpl"):
                table[k][b] = con[k].ptr
            table["index"][b], table["tpl_offset"][b] = index, index * telem
            for k in WORK:
                table[k][b] = work[k][b].ptr
        set_global(ctx.module, "c_hw", np.array([tuple(s[k] for k in SIZES_DTYPE.names)], SIZES_DTYPE))
        set_global(ctx.module, "c_pts", table)
        kernel = ctx.module.get_function("heartwall_kernel")
        try:
            for f in range(p["frames"]):
                frame.set(np.ascontiguousarray(inp["frames"][f].T).reshape(-1))  # column-major, as avimod converts
                set_global(ctx.module, "c_frame", np.array([(frame.ptr, f)], FRAME_DTYPE))
                kernel(POINTS, THREADS, ())
        finally:
            opts.budget_warp_instructions = budget
        trow = np.concatenate([contours[c]["trow"].get().reshape(-1, vf) for c in ("endo", "epi")])
        tcol = np.concatenate([contours[c]["tcol"].get().reshape(-1, vf) for c in ("endo", "epi")])
        nt = int(s["tpl_side"])
        tpl = np.concatenate([contours[c]["tpl"].get() for c in ("endo", "epi")]).reshape(POINTS, nt, nt)
        return {"track_row": np.ascontiguousarray(trow[:, : p["frames"]].T),
                "track_col": np.ascontiguousarray(tcol[:, : p["frames"]].T),
                "templates": np.ascontiguousarray(tpl.transpose(0, 2, 1))}  # [point, row, col]

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return track(inp["frames"], inp["point_row"], inp["point_col"], p)

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        nt = 2 * p["t_half"] + 1
        return {"track_row": spec((p["frames"], POINTS), np.int32), "track_col": spec((p["frames"], POINTS), np.int32),
                "templates": spec((POINTS, nt, nt), np.float32)}
