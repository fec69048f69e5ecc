"""From precalculable read indexes to the preload table (seed 002, Sec. 3.1.1, Eqs. 2/3).

A table row (one ``cudaSetCTATracker`` call) holds an array's base, its type size and, for the minimum
and the maximum of the block's range, the products of ``blockIdx.x/y/z`` and an offset, in elements::

    min = base + typesize * (bx*minp.x + by*minp.y + bz*minp.z + minoff)      (Eq. 2)
    max = base + typesize * (bx*maxp.x + by*maxp.y + bz*maxp.z + maxoff)      (Eq. 3)

and the block preloads bytes ``[min, max + typesize)``. The coefficients come from the affine address by
interval arithmetic over the block's threads (``threadIdx`` in ``[0, blockDim-1]``); launch constants
(``blockDim``, ``gridDim``, scalar parameters) are evaluated for the launch (the paper's host-side call).

Beyond the paper's single contiguous range: when ``threadIdx.y`` (or ``.z``) strides past the x extent (a
2-D tile of a row-major array), one row per tile row is emitted (the extraction's gap G1), and rows of the
same array with the same block products whose ranges overlap or touch are merged (G5: a stencil's
neighbouring indexes share one row). Rows beyond the table's 64 entries are dropped and counted (G6).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from ...analysis.affine import Affine, Launch, cta_range
from .classify import ReadIndex

TABLE_ENTRIES = 64
LINE_BYTES = 128
MAX_SPLIT_ROWS = 64
_DIMS = ("x", "y", "z")


class RegionError(ValueError):
    """A read index or launch the preload table cannot describe."""


@dataclasses.dataclass(frozen=True)
class Region:
    """One preload-table row (Eqs. 2/3), coefficients in elements of ``typesize`` bytes."""

    array: str
    typesize: int
    minp: tuple[int, int, int]
    minoff: int
    maxp: tuple[int, int, int]
    maxoff: int
    reads: tuple[int, ...]  # the instructions whose indexes it covers
    tile_row: int | None = None  # the threadIdx.y (or .z) value of a split row

    def byte_range(self, base: int, ctaid: Sequence[int]) -> tuple[int, int]:
        """``[first, last]`` byte of the block ``ctaid`` (Eqs. 2/3, the last element included)."""
        lo = base + self.typesize * (sum(int(b) * p for b, p in zip(ctaid, self.minp, strict=True)) + self.minoff)
        hi = base + self.typesize * (sum(int(b) * p for b, p in zip(ctaid, self.maxp, strict=True)) + self.maxoff)
        return lo, hi + self.typesize - 1

    def lines(self, base: int, ctaid: Sequence[int], line_bytes: int = LINE_BYTES) -> range:
        """The line addresses the block preloads for this row, ascending (back to back)."""
        lo, hi = self.byte_range(base, ctaid)
        return range(lo // line_bytes * line_bytes, hi // line_bytes * line_bytes + 1, line_bytes)

    def api_args(self) -> tuple[int, ...]:
        """The call's eight trailing integers: min products x/y/z, min offset, max products, max offset."""
        return (*self.minp, self.minoff, *self.maxp, self.maxoff)


@dataclasses.dataclass
class PreloadTable:
    """The preload description of one kernel launch: rows in order, and what did not fit."""

    kernel: str
    regions: list[Region]
    dropped: int = 0  # rows beyond the table's capacity
    unresolved: list[tuple[int, str]] = dataclasses.field(default_factory=list)  # (instr, why) usable but no row

    def cta_lines(self, bases: Mapping[str, int], ctaid: Sequence[int]) -> list[int]:
        """Every line block ``ctaid`` requests, row after row (a line already requested is skipped)."""
        out: list[int] = []
        seen: set[int] = set()
        for r in self.regions:
            for ln in r.lines(bases[r.array], ctaid):
                if ln not in seen:
                    seen.add(ln)
                    out.append(ln)
        return out


def _split(off: Affine, launch: Launch, width: int) -> list[tuple[Affine, int | None]]:
    """Pieces of ``off`` (launch constants substituted): one per tile row when threadIdx.y/z strides past
    the x extent, else the whole expression."""
    pieces: list[tuple[Affine, int | None]] = [(off, None)]
    span_x = abs(off.coef("%tid.x")) * (launch.block[0] - 1) + width
    for k, d in ((1, "y"), (2, "z")):
        atom = f"%tid.{d}"
        c = off.coef(atom)
        n = launch.block[k]
        if c == 0 or n <= 1 or abs(c) < span_x or n > MAX_SPLIT_ROWS:
            continue
        out: list[tuple[Affine, int | None]] = []
        for p, row in pieces:
            for v in range(n):
                q = p.substitute({atom: v})
                if q is not None:
                    out.append((q, v if row is None else row * n + v))
        pieces = out
        span_x = span_x  # rows in z stride past a whole y-tile as well
    return pieces


def _typesize(values: Sequence[int]) -> int:
    for ts in (8, 4, 2, 1):
        if all(v % ts == 0 for v in values):
            return ts
    return 1


def build_table(kernel: str, reads: Sequence[ReadIndex], launch: Launch, *, split_rows: bool = True,
                merge: bool = True, capacity: int = TABLE_ENTRIES) -> PreloadTable:
    """The preload table of ``kernel``'s usable read indexes for ``launch`` (scalar parameters in
    ``launch.params``; pointer parameters stay symbolic: their values are the rows' bases)."""
    consts = launch.constants()
    # raw intervals in bytes: key (array, minp, maxp) -> [(lo_off, hi_excl_off, reads, tile_row)]
    groups: dict[tuple, list[list]] = {}
    order: list[tuple] = []
    unresolved: list[tuple[int, str]] = []
    for rd in reads:
        if not rd.usable:
            continue
        off = rd.offset
        assert off is not None
        e = off.substitute({k: v for k, v in consts.items() if k != rd.array})
        if e is None:
            unresolved.append((rd.instr, "too large a product"))
            continue
        bad = [a for a in e.atoms() if not a.startswith(("%tid", "%ctaid"))]
        if bad:
            unresolved.append((rd.instr, f"not a launch constant: {', '.join(sorted(bad))}"))
            continue
        pieces = _split(e, launch, rd.width) if split_rows else [(e, None)]
        for piece, row in pieces:
            r = cta_range(piece, launch)
            if r is None:
                unresolved.append((rd.instr, "a term multiplies blockIdx by threadIdx"))
                break
            lo, hi = r
            if any(not a.startswith("%ctaid") for a in lo.atoms() | hi.atoms()):
                unresolved.append((rd.instr, "bounds depend on more than blockIdx"))
                break
            minp = tuple(lo.coef(f"%ctaid.{d}") for d in _DIMS)
            maxp = tuple(hi.coef(f"%ctaid.{d}") for d in _DIMS)
            key = (rd.array, minp, maxp)
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append([lo.constant, hi.constant + rd.width, {rd.instr}, row,
                                abs(e.coef("%tid.x")) or rd.width])
    regions: list[Region] = []
    for key in order:
        array, minp, maxp = key
        ivs = sorted(groups[key], key=lambda t: (t[0], t[1]))
        stride = min(iv[4] for iv in ivs)  # the element: threadIdx.x's stride (sizeof(Node) for nodes[tid].f)
        merged: list[list] = []
        for iv in ivs:
            if merge and merged and iv[0] <= merged[-1][1]:
                m = merged[-1]
                m[1] = max(m[1], iv[1])
                m[2] |= iv[2]
                if m[3] != iv[3]:
                    m[3] = None
            elif not merge and merged and iv[0] == merged[-1][0] and iv[1] == merged[-1][1]:
                merged[-1][2] |= iv[2]  # the same index twice is one row ("one call per unique index")
            else:
                merged.append([iv[0], iv[1], set(iv[2]), iv[3]])
        for lo, hi_x, instrs, row in merged:
            vals = [*minp, *maxp, lo, hi_x]
            ts = stride if stride <= 255 and all(v % stride == 0 for v in vals) else _typesize(vals)
            regions.append(Region(array, ts, tuple(v // ts for v in minp), lo // ts,  # type: ignore[arg-type]
                                  tuple(v // ts for v in maxp), hi_x // ts - 1,  # type: ignore[arg-type]
                                  tuple(sorted(instrs)), row))
    dropped = max(0, len(regions) - capacity)
    return PreloadTable(kernel, regions[:capacity], dropped, unresolved)
