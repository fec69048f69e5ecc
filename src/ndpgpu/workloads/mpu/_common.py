"""Helpers shared by the MPU workloads: launch shape, float32 error bounds and the sliced tile layout.

**Sliced tile layout** (BLUR, CONV, TTRANS; after MPU-Sim's benchmarks). An image of ``rows x cols`` float32
pixels is cut into ``T = rows * cols / 1024`` tiles of 32 x 32 (tile ``t`` = tile row ``t // (cols / 32)``,
tile column ``t % (cols / 32)``). A tile is 8 slices of 4 rows x 32 columns (512 B), and slice ``s`` of every
tile is stored before slice ``s + 1`` of any tile::

    address(t, r, c) = ((r // 4) * T + t) * 128 + (r % 4) * 32 + c        (in floats)

so with MPU's 512 B-per-core address interleave and block ``t`` on core ``t mod 128`` every 512 B slice a
block touches lies in its own core's banks. A block of 32 x 4 threads moves one slice per step.
"""

from __future__ import annotations

import numpy as np

TILE = 32  # tile edge (pixels)
SLICE_ROWS = 4  # rows of a tile per slice (blockDim.y)
THREADS = 128  # threads per block of the one-dimensional kernels (MPU-Sim's default)
BLOCKS = 512  # blocks of the grid-stride kernels at the paper scale (MPU-Sim's default)
# the tiled-image workloads (blur, conv, ttrans): MPU-Sim's 4096 x 4096 image at the paper scale
TILED_IMAGE_SCALES = {
    "tiny": {"rows": 128, "cols": 256, "grid": 32},
    "small": {"rows": 1024, "cols": 1024, "grid": BLOCKS},
    "paper": {"rows": 4096, "cols": 4096, "grid": BLOCKS},
}
U32 = float(np.finfo(np.float32).eps) / 2  # unit roundoff of float32 (2^-24)


def image_to_tiles(image: np.ndarray) -> np.ndarray:
    """(rows, cols) -> (T, 32, 32): the image's 32 x 32 tiles in row-major tile order."""
    rows, cols = image.shape
    return image.reshape(rows // TILE, TILE, cols // TILE, TILE).transpose(0, 2, 1, 3).reshape(-1, TILE, TILE)


def tiles_to_image(tiles: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(T, 32, 32) -> (rows, cols), the inverse of :func:`image_to_tiles`."""
    return tiles.reshape(rows // TILE, cols // TILE, TILE, TILE).transpose(0, 2, 1, 3).reshape(rows, cols)


def to_sliced(image: np.ndarray) -> np.ndarray:
    """An image in the sliced tile layout (flat float array, see the module docstring)."""
    tiles = image_to_tiles(image)  # (T, 32, 32) = (T, slice, row in slice, col)
    t = tiles.shape[0]
    return np.ascontiguousarray(
        tiles.reshape(t, TILE // SLICE_ROWS, SLICE_ROWS, TILE).transpose(1, 0, 2, 3)
    ).reshape(-1)


def from_sliced(flat: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The image stored in ``flat`` in the sliced tile layout, the inverse of :func:`to_sliced`."""
    t = rows * cols // (TILE * TILE)
    tiles = flat.reshape(TILE // SLICE_ROWS, t, SLICE_ROWS, TILE).transpose(1, 0, 2, 3).reshape(t, TILE, TILE)
    return tiles_to_image(tiles, rows, cols)


def clamped_window(tiles: np.ndarray) -> np.ndarray:
    """(T, 32, 32) -> (3, 3, T, 32, 32): the 3 x 3 neighbourhood of every pixel, clamped to its tile."""
    padded = np.pad(tiles, ((0, 0), (1, 1), (1, 1)), mode="edge")
    return np.stack(
        [np.stack([padded[:, dy : dy + TILE, dx : dx + TILE] for dx in range(3)]) for dy in range(3)]
    )


def to_quad_planes(image: np.ndarray, threads: int = THREADS) -> np.ndarray:
    """An image of ``2R x 2C`` pixels in MPU-Sim's four-plane layout (its maxpool input, its upsample output).

    Plane ``2 * kx + ky`` holds ``R * C`` floats; for a chunk of ``threads`` columns starting at ``cb`` (a
    multiple of ``threads``)::

        plane[2 * kx + ky][r * C + cb + t] = image[2 * r + kx, 2 * cb + threads * ky + t]

    so the block whose threads own outputs ``r * C + cb .. + threads - 1`` reads (or writes) one contiguous run of
    ``threads`` floats in each plane, all at the same offset as its own outputs (local to its core when each
    plane is a multiple of 128 cores x 512 B). Returned flat (``4 * R * C`` floats)."""
    rows2, cols2 = image.shape
    r, c = rows2 // 2, cols2 // 2
    x = image.reshape(r, 2, c // threads, 2, threads)  # [r, kx, chunk, ky, t]
    return np.ascontiguousarray(x.transpose(1, 3, 0, 2, 4)).reshape(-1)


def from_quad_planes(flat: np.ndarray, rows: int, cols: int, threads: int = THREADS) -> np.ndarray:
    """The ``rows x cols`` image stored in ``flat`` in the four-plane layout, the inverse of
    :func:`to_quad_planes`."""
    r, c = rows // 2, cols // 2
    x = flat.reshape(2, 2, r, c // threads, threads)  # [kx, ky, r, chunk, t]
    return np.ascontiguousarray(x.transpose(2, 0, 3, 1, 4)).reshape(rows, cols)
