"""HW: heartwall-style tracking of points on a beating heart wall by template correlation, frame by frame."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec

THREADS = 256
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


def track_frame(
    frame: np.ndarray, templates: np.ndarray, tsum: np.ndarray, prow: np.ndarray, pcol: np.ndarray, search: int
) -> tuple[np.ndarray, np.ndarray]:
    """New positions of every point: the best normalised correlation over displacements in [-search, search]^2,
    the first candidate (row-major) on ties, with the kernel's exact integer sums and float32 score."""
    tsize = templates.shape[1]
    half, wsize, span = tsize // 2, 2 * search + tsize, 2 * search + 1
    rows, cols = frame.shape
    n = np.int64(tsize * tsize)
    new_r = np.empty_like(prow)
    new_c = np.empty_like(pcol)
    for p in range(prow.size):
        r0 = min(max(int(prow[p]) - search - half, 0), rows - wsize)
        c0 = min(max(int(pcol[p]) - search - half, 0), cols - wsize)
        win = frame[r0 : r0 + wsize, c0 : c0 + wsize].astype(np.float64)
        views = np.lib.stride_tricks.sliding_window_view(win, (tsize, tsize))  # (span, span, T, T)
        sft = np.rint(np.tensordot(views, templates[p].astype(np.float64), axes=([2, 3], [0, 1]))).astype(np.int64)
        sf = np.rint(views.sum(axis=(2, 3))).astype(np.int64)
        sff = np.rint((views * views).sum(axis=(2, 3))).astype(np.int64)
        num = n * sft - sf * np.int64(tsum[p])
        den = n * sff - sf * sf
        with np.errstate(invalid="ignore", divide="ignore"):
            score = np.where(den > 0, num.astype(np.float32) / np.sqrt(den.astype(np.float32)), np.float32(0.0))
        best = int(np.argmax(score.reshape(-1)))
        u, v = divmod(best, span)
        new_r[p] = r0 + u + half
        new_c[p] = c0 + v + half
    return new_r, new_c


@register
class Heartwall(Workload):
    name = "heartwall"
    suite = "tom"
    papers = ("TOM",)
    description = (
        "heartwall-style tracking: per frame one launch, one 256-thread block per point copies its search "
        "window to global scratch, scores every displacement by normalised correlation with the point's "
        "template, and a shared-memory argmax moves the point"
    )
    deviations = (
        "A simplified tracker, not Rodinia's heartwall kernel: Rodinia correlates by full convolution with "
        "cumulative sums and updates templates, here each displacement in [-search, search]^2 is scored "
        "directly with integer sums (exact, so positions match the reference) against the frame-0 template. "
        "Kept from Rodinia: 51 points (20 endo + 31 epi), one block per point, per-point working window in "
        "global memory, 51x51 templates (tSize 25), 609x590 frames, 20 frames; the displacement range +-10 "
        "is our choice. Frames are generated (a beating textured ring with speckle) instead of test.avi."
    )
    sources = ("heartwall.cu",)
    scales = {
        "tiny": {"frames": 3, "rows": 96, "cols": 96, "endo": 4, "epi": 6, "tsize": 7, "search": 4},
        "small": {"frames": 3, "rows": 304, "cols": 295, "endo": 20, "epi": 31, "tsize": 15, "search": 6},
        "paper": {"frames": 20, "rows": 609, "cols": 590, "endo": 20, "epi": 31, "tsize": 51, "search": 10},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        frames, prow, pcol = heart_frames(p["frames"], p["rows"], p["cols"], p["endo"], p["epi"], rng)
        templates = templates_at(frames[0], prow, pcol, p["tsize"])
        return {
            "frames": frames,
            "point_row": prow,
            "point_col": pcol,
            "templates": templates,
            "template_sum": templates.reshape(prow.size, -1).sum(axis=1).astype(np.int32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        npoints = inp["point_row"].size
        tracked = p["frames"] - 1
        wsize = 2 * p["search"] + p["tsize"]
        templates = ndpgpu.asarray(inp["templates"])
        tsum = ndpgpu.asarray(inp["template_sum"])
        prow = ndpgpu.asarray(inp["point_row"])
        pcol = ndpgpu.asarray(inp["point_col"])
        windows = ndpgpu.zeros(npoints * wsize * wsize, np.float32)
        track_row = ndpgpu.zeros((tracked, npoints), np.int32)
        track_col = ndpgpu.zeros((tracked, npoints), np.int32)
        frame = ndpgpu.empty((p["rows"], p["cols"]), np.float32)
        kernel = ctx.module.get_function("hw_track")
        for f in range(tracked):
            frame.set(inp["frames"][f + 1])  # Rodinia reads and copies one frame per iteration
            kernel(npoints, THREADS, (
                frame, np.int32(p["rows"]), np.int32(p["cols"]), templates, tsum, np.int32(p["tsize"]),
                np.int32(p["search"]), prow, pcol, windows, track_row, track_col, np.int32(f), np.int32(npoints),
            ))
        return {"track_row": track_row.get(), "track_col": track_col.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        prow, pcol = inp["point_row"].copy(), inp["point_col"].copy()
        rows, cols = [], []
        for f in range(1, p["frames"]):
            prow, pcol = track_frame(inp["frames"][f], inp["templates"], inp["template_sum"], prow, pcol, p["search"])
            rows.append(prow)
            cols.append(pcol)
        return {"track_row": np.stack(rows), "track_col": np.stack(cols)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        shape = (p["frames"] - 1, p["endo"] + p["epi"])
        return {"track_row": spec(shape, np.int32), "track_col": spec(shape, np.int32)}
