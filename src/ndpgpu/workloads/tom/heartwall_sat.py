"""heartwall_sat: an earlier rewrite of Rodinia heartwall's tracker (summed-area tables, 128-thread blocks, a grid
that grows with the scale), kept as a labelled variant. TOM's HW is :mod:`.heartwall`, the port of Rodinia's kernel."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.tom import TOM_NVCC_OPTIONS

THREADS = 128  # HW_THREADS in heartwall_sat.cu
BLEND_OLD, BLEND_NEW = 87, 13  # HW_BLEND_OLD, HW_BLEND_NEW
PERIOD = 10.0  # frames per heartbeat


def heart_frames(
    frames: int, rows: int, cols: int, endo: int, epi: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A synthetic ultrasound-like sequence (stand-in for Rodinia's test.avi) and the initial points.

    A bright ring (the wall) around a darker pool contracts and expands with a period of 10 frames; its
    texture is attached to the moving tissue, and every frame adds speckle noise. Pixels are integers in
    0..255 stored as float32. ``endo`` points sit on the inner and ``epi`` on the outer boundary, as
    Rodinia's 20 + 31. Returns ``(frames, point_rows, point_cols)``.
    """
    cy, cx = (rows - 1) / 2.0, (cols - 1) / 2.0
    r_in, r_out = 0.18 * min(rows, cols), 0.30 * min(rows, cols)
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float64)
    radius = np.hypot(yy - cy, xx - cx)
    theta = np.arctan2(yy - cy, xx - cx)
    phase = rng.random(3) * 2 * np.pi
    out = np.empty((frames, rows, cols), dtype=np.float32)
    for f in range(frames):
        scale = 1.0 + 0.08 * np.sin(2 * np.pi * f / PERIOD)
        r = radius / scale  # tissue coordinate
        wall = (r > r_in) & (r < r_out)
        img = np.where(wall, 150.0, np.where(r <= r_in, 55.0, 35.0))
        img += 22.0 * np.sin(0.35 * r + 5 * theta + phase[0]) * np.cos(3 * theta + phase[1])
        img += 14.0 * np.sin(0.9 * r + 11 * theta + phase[2])
        img += 6.0 * rng.standard_normal((rows, cols))
        out[f] = np.clip(np.rint(img), 0, 255)
    angles = np.concatenate([np.arange(endo) * 2 * np.pi / endo, np.arange(epi) * 2 * np.pi / epi + 0.1])
    radii = np.concatenate([np.full(endo, r_in), np.full(epi, r_out)])
    prow = np.rint(cy + radii * np.sin(angles)).astype(np.int32)
    pcol = np.rint(cx + radii * np.cos(angles)).astype(np.int32)
    return out, prow, pcol


def templates_at(frame: np.ndarray, prow: np.ndarray, pcol: np.ndarray, tsize: int) -> np.ndarray:
    """The ``tsize x tsize`` patch of ``frame`` centred on every point (points must be inside)."""
    half = tsize // 2
    return np.stack([frame[r - half : r + half + 1, c - half : c + half + 1] for r, c in zip(prow, pcol, strict=True)])


def area_origin(anchor: int, search: int, size: int) -> int:
    """First row (or column) of a search area of side ``2 * search + 1`` centred on ``anchor``, kept inside."""
    return min(max(anchor - search, 0), size - (2 * search + 1))


def best_candidate(
    area: np.ndarray, template: np.ndarray, pu: int, pv: int, max_move: int
) -> tuple[int, int]:
    """Top-left corner in ``area`` of the best normalised correlation with ``template`` among the corners
    within ``max_move`` rows and columns of ``(pu, pv)`` (kept inside the area): the first one, row-major, on
    ties. Integer sums and a float32 score, as the kernel computes them."""
    t = template.shape[0]
    w = area.shape[0]
    u_lo, u_hi = max(pu - max_move, 0), min(pu + max_move, w - t)
    v_lo, v_hi = max(pv - max_move, 0), min(pv + max_move, w - t)
    a = area.astype(np.int64)
    views = np.lib.stride_tricks.sliding_window_view(a, (t, t))[u_lo : u_hi + 1, v_lo : v_hi + 1]
    tpl = template.astype(np.int64)
    n = np.int64(t * t)
    sft = np.einsum("ijyx,yx->ij", views, tpl)
    sf = views.sum(axis=(2, 3))
    sff = (views * views).sum(axis=(2, 3))
    num = n * sft - sf * tpl.sum()
    den = n * sff - sf * sf
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(den > 0, num.astype(np.float32) / np.sqrt(den.astype(np.float32)), np.float32(0.0))
    u, v = divmod(int(np.argmax(score.reshape(-1))), v_hi - v_lo + 1)
    return u_lo + u, v_lo + v


def blend(template: np.ndarray, patch: np.ndarray) -> np.ndarray:
    """Rodinia's template update ``0.87 * old + 0.13 * new``, in integers: ``(87 * old + 13 * new + 50) // 100``."""
    old, new = template.astype(np.int64), patch.astype(np.int64)
    return ((BLEND_OLD * old + BLEND_NEW * new + 50) // 100).astype(np.float32)


def track(frames: np.ndarray, prow: np.ndarray, pcol: np.ndarray, p: dict[str, Any]) -> dict[str, np.ndarray]:
    """What the launches compute: the tracked positions of every point in frames 1.. and the final templates."""
    t, s, m, every = p["tsize"], p["search"], p["max_move"], p["update_every"]
    half, w = t // 2, 2 * s + 1
    _, rows, cols = frames.shape
    templates = templates_at(frames[0], prow, pcol, t).astype(np.float32)
    anchor_r, anchor_c = prow.astype(np.int64), pcol.astype(np.int64)
    cur_r, cur_c = prow.astype(np.int64), pcol.astype(np.int64)
    out_r = np.empty((frames.shape[0] - 1, prow.size), dtype=np.int32)
    out_c = np.empty_like(out_r)
    for f in range(1, frames.shape[0]):
        frame = frames[f]
        for k in range(prow.size):
            r0, c0 = area_origin(int(anchor_r[k]), s, rows), area_origin(int(anchor_c[k]), s, cols)
            area = frame[r0 : r0 + w, c0 : c0 + w]
            u, v = best_candidate(area, templates[k], int(cur_r[k]) - half - r0, int(cur_c[k]) - half - c0, m)
            cur_r[k], cur_c[k] = r0 + u + half, c0 + v + half
            if f % every == 0:
                anchor_r[k], anchor_c[k] = cur_r[k], cur_c[k]
                patch = frame[cur_r[k] - half : cur_r[k] + half + 1, cur_c[k] - half : cur_c[k] + half + 1]
                templates[k] = blend(templates[k], patch)
        out_r[f - 1], out_c[f - 1] = cur_r, cur_c
    return {"track_row": out_r, "track_col": out_c, "templates": templates}


@register
class HeartwallSat(Workload):
    name = "heartwall_sat"
    suite = "tom"
    papers = ("TOM",)
    description = (
        "Labelled variant, not TOM's HW (that is heartwall): an earlier rewrite of Rodinia heartwall's tracker: one "
        "launch per frame, one 128-thread block per sample point (endocardium "
        "and epicardium); frame 0 cuts the templates, later frames copy each point's search area to global "
        "memory, build its integral images, score the template at every position within max_move of the "
        "previous one by normalised correlation, take the best and every update_every frames blend the template"
    )
    deviations = (
        "Written fresh after the structure of Rodinia's heartwall kernel (one launch per frame, one block per "
        "point, per-point working arrays in global memory, template in shared memory, frame-0 template "
        "extraction, search area 2*sSize+1 around an anchor that moves with the template update, candidates "
        "within maxMove of the previous position, maximum by partial maxima and one final reduction, template "
        "update alpha=0.87 every 10 frames). Differences: the correlation is evaluated at the candidate "
        "positions only (Rodinia computes the full convolution of the area with the template and masks it "
        "afterwards) and only where the template lies wholly inside the area, with a symmetric candidate box of "
        "+-max_move (Rodinia's mask is maxMove=10 wide: paper uses +-5); window sums come from summed-area "
        "tables (one pass down the columns, one across the rows) instead of Rodinia's padded cumulative sums "
        "with their selection and subtraction passes; scores are integer sums turned into a float32 normalised "
        "correlation (exact, so positions match the reference) and the largest score wins, not the largest "
        "absolute value; the template update is the integer blend (87*old + 13*new + 50) // 100. 128 threads "
        "per block. Frames are generated (a beating textured ring with speckle) instead of test.avi. The grid "
        "grows with the number of sample points: paper keeps Rodinia's 20 + 31 points, sSize 40, tSize 25 "
        "(51x51 templates), 609x590 frames and 20 frames; smaller scales sample both contours more densely "
        "(small: 4 points per SM) with smaller templates and areas."
    )
    sources = ("heartwall_sat.cu",)
    options = TOM_NVCC_OPTIONS  # the TOM workloads' compilation rule (workloads/tom/__init__.py)
    # tsize: template side; search: half side of the search area; max_move: candidate box half side
    scales = {
        "tiny": {"frames": 4, "rows": 96, "cols": 96, "endo": 4, "epi": 6, "tsize": 7, "search": 8,
                 "max_move": 3, "update_every": 2},
        "small": {"frames": 3, "rows": 304, "cols": 295, "endo": 112, "epi": 160, "tsize": 11, "search": 16,
                  "max_move": 5, "update_every": 2},
        "paper": {"frames": 20, "rows": 609, "cols": 590, "endo": 20, "epi": 31, "tsize": 51, "search": 40,
                  "max_move": 5, "update_every": 10},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        frames, prow, pcol = heart_frames(p["frames"], p["rows"], p["cols"], p["endo"], p["epi"], rng)
        return {"frames": frames, "point_row": prow, "point_col": pcol}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        npoints = inp["point_row"].size
        t, w = p["tsize"], 2 * p["search"] + 1
        span = 2 * p["max_move"] + 1
        templates = ndpgpu.zeros(npoints * t * t, np.float32)
        anchor_row = ndpgpu.asarray(inp["point_row"])
        anchor_col = ndpgpu.asarray(inp["point_col"])
        point_row = ndpgpu.asarray(inp["point_row"])
        point_col = ndpgpu.asarray(inp["point_col"])
        area = ndpgpu.zeros(npoints * w * w, np.float32)
        sat = ndpgpu.zeros(npoints * (w + 1) * (w + 1), np.int32)
        sat_sqr = ndpgpu.zeros(npoints * (w + 1) * (w + 1), np.int32)
        scores = ndpgpu.zeros(npoints * span * span, np.float32)
        track_row = ndpgpu.zeros((p["frames"] - 1, npoints), np.int32)
        track_col = ndpgpu.zeros((p["frames"] - 1, npoints), np.int32)
        frame = ndpgpu.empty((p["rows"], p["cols"]), np.float32)
        kernel = ctx.module.get_function("hw_frame")
        shape = [np.int32(p[k]) for k in ("rows", "cols", "tsize", "search", "max_move", "update_every")]
        for f in range(p["frames"]):
            frame.set(inp["frames"][f])  # Rodinia reads and copies one frame per iteration
            kernel(npoints, THREADS, (
                frame, *shape, np.int32(npoints), np.int32(f), templates, anchor_row, anchor_col, point_row,
                point_col, area, sat, sat_sqr, scores, track_row, track_col,
            ))
        return {"track_row": track_row.get(), "track_col": track_col.get(),
                "templates": templates.get().reshape(npoints, t, t)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return track(inp["frames"], inp["point_row"], inp["point_col"], p)

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        shape = (p["frames"] - 1, p["endo"] + p["epi"])
        return {"track_row": spec(shape, np.int32), "track_col": spec(shape, np.int32),
                "templates": spec((p["endo"] + p["epi"], p["tsize"], p["tsize"]), np.float32)}
