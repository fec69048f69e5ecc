"""Compiled helpers that turn the engine's trace chunks into warp-major trace tables in one pass.

The engine emits segment and memory rows in execution order (warps interleave), in chunks; the trace format
wants them grouped by warp, each warp's rows in execution order. A counting sort by warp gives every
row its destination in O(n), and one loop per chunk writes the fields of the structured output through views.
"""

from __future__ import annotations

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import numba as nb
import numpy as np

njit = nb.njit(cache=True)


def warp_major_destinations(chunks: list[np.ndarray], num_warps: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Stable counting sort by warp (column 0) over rows in ``chunks`` (in execution order): each chunk's rows'
    indices in the grouped table, and each warp's first row. The chunks are never concatenated."""
    counts = np.zeros(num_warps, np.int64)
    for c in chunks:
        counts += np.bincount(c[:, 0], minlength=num_warps)[:num_warps]
    start = np.zeros(num_warps + 1, np.int64)
    np.cumsum(counts, out=start[1:])
    fill = start[:-1].copy()
    return [_destinations(np.ascontiguousarray(c[:, 0]), fill) for c in chunks], start


@njit
def _destinations(warps: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """Each row's index in the grouped table: its warp's next free row (``fill``, advanced)."""
    dest = np.empty(warps.shape[0], np.int64)
    for i in range(warps.shape[0]):
        w = warps[i]
        dest[i] = fill[w]
        fill[w] += 1
    return dest


@njit
def scatter_segments(rows, dest, warp, pc, count, mask):
    for i in range(rows.shape[0]):
        d = dest[i]
        warp[d] = rows[i, 0]
        pc[d] = rows[i, 1]
        count[d] = rows[i, 2]
        mask[d] = rows[i, 3]


@njit
def scatter_mem(rows, dest, warp, pc, mask, space, flags, size, base, stride, addr_index, row_stride, row_lanes):
    for i in range(rows.shape[0]):
        d = dest[i]
        warp[d] = rows[i, 0]
        pc[d] = rows[i, 1]
        mask[d] = rows[i, 2]
        space[d] = rows[i, 3]
        flags[d] = rows[i, 4]
        size[d] = rows[i, 5]
        base[d] = np.uint64(rows[i, 6])
        stride[d] = rows[i, 7]
        addr_index[d] = rows[i, 8]
        row_stride[d] = rows[i, 9]
        row_lanes[d] = rows[i, 10]
