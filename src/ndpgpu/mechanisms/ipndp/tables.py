"""The prefetch information table, filled at kernel launch from launch parameters only.

An entry describes one image array (start address, size, row pitch) and the traversal a PACA kernel makes of
it: the scan axis (``row``: blocks step along x, then down a row block; ``column``: along y, then right), the
region extent along that axis (a full-width band, or a tile's side), and the block step (``blockDim`` scaled by
the array's pixels per output pixel, e.g. 2 for DownSample's input). From these the *base* stride (one block
step) and the *modified* stride (from a row block's last block to the next row block's first) follow:

* row scan, exact:   ``base - region_w + pitch * step_rows`` (bytes), paper-literal: ``base + pitch * step_rows``
  (the paper's ``base + image_width x blockDim.y``, one image row further than the exact jump);
* column scan, exact: ``step_x - (region_h - step_rows) * pitch``, paper-literal: ``base + step_x`` (the mirror).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import hardware as H


class TableError(ValueError):
    """A prefetch-table description that cannot describe an image traversal."""


def band(extent: int, step: int, regions: int) -> int:
    """The region side of a PACA band (as the kernels' ``ipndp_band``): whole steps, ceil-divided."""
    return -(-extent // (regions * step)) * step


@dataclasses.dataclass(frozen=True)
class ImageArray:
    """One image in device memory: ``height`` rows of ``width`` elements of ``elem`` bytes from ``start``."""

    start: int
    width: int
    height: int
    elem: int = 4
    scale_x: int = 1  # array pixels per output pixel along x (DownSample's input: 2)
    scale_y: int = 1

    def __post_init__(self) -> None:
        for f in ("width", "height", "elem", "scale_x", "scale_y"):
            if getattr(self, f) < 1:
                raise TableError(f"image array at {self.start:#x}: {f} must be positive, got {getattr(self, f)}")

    @property
    def pitch(self) -> int:
        return self.width * self.elem

    @property
    def end(self) -> int:
        return self.start + self.pitch * self.height


@dataclasses.dataclass(frozen=True)
class Traversal:
    """How each CTA walks its region: ``scan`` row | column | tile, block ``bx`` x ``by`` output pixels, over
    ``regions`` CTAs (gridDim.x); ``tiles`` = (tiles_x, tiles_y) for tile scans; ``width``/``height`` of the
    output image the regions partition."""

    scan: str
    bx: int
    by: int
    regions: int
    width: int
    height: int
    tiles: tuple[int, int] = (1, 1)

    def __post_init__(self) -> None:
        if self.scan not in ("row", "column", "tile"):
            raise TableError(f"scan must be row, column or tile, not {self.scan!r}")
        if min(self.bx, self.by, self.regions, self.width, self.height) < 1:
            raise TableError(f"traversal {self}: block, regions and image must be positive")


def entry(arr: ImageArray, tr: Traversal, literal: bool = False) -> np.ndarray:
    """The table entry (``hardware.E_*``) of ``arr`` walked as ``tr``."""
    step_x = tr.bx * arr.scale_x * arr.elem  # bytes per block step along x
    step_rows = tr.by * arr.scale_y  # rows per block step along y
    e = np.zeros(H.NE, np.int64)
    e[H.E_LO], e[H.E_HI], e[H.E_PITCH] = arr.start, arr.end, arr.pitch
    if tr.scan in ("row", "tile"):
        if tr.scan == "row":
            region_w = arr.pitch
        else:
            region_w = min(band(tr.width, tr.bx, tr.tiles[0]) * arr.scale_x * arr.elem, arr.pitch)
        e[H.E_AXIS], e[H.E_REGION], e[H.E_STEP] = H.AXIS_ROW, region_w, step_x
        e[H.E_BASE] = step_x
        e[H.E_MOD] = step_x + arr.pitch * step_rows if literal else step_x - region_w + arr.pitch * step_rows
    else:
        region_h = min(tr.height, band(tr.height, tr.by, 1)) * arr.scale_y
        e[H.E_AXIS], e[H.E_REGION], e[H.E_STEP] = H.AXIS_COL, region_h, step_rows
        e[H.E_BASE] = step_rows * arr.pitch
        e[H.E_MOD] = e[H.E_BASE] + step_x if literal else step_x - (region_h - step_rows) * arr.pitch
    return e


def table(arrays: list[ImageArray], tr: Traversal, literal: bool = False) -> np.ndarray:
    """The entries of every array, flattened (``hardware.NE`` int64 each)."""
    if not arrays:
        return np.zeros(0, np.int64)
    return np.concatenate([entry(a, tr, literal) for a in arrays])
