"""Dynamic instances of TOM's candidate blocks in a launch's trace.

An *instance* is one warp running one candidate block once: its PC enters the block at ``begin_pc`` and
stays in ``[begin_pc, end_pc)`` until it leaves (candidates are single-entry, and every branch inside
stays inside or goes to ``end_pc``). Positions are ``(segment, offset)`` pairs of the warp's trace stream,
as the timing engine's block offload uses them (``ndpgpu.mechanisms.tom.unit.OFFLOAD_INSTANCE_FIELDS``).

Per instance: where it starts, where the offload controller decides (the block's first global or local
memory instruction: what comes before it runs on the GPU, G6), where the warp continues, its memory
records, its trip count (executions of the candidate loop's header, the value the hardware reads at loop
entry: G10) and its instructions; per instance also the lines it touches in access order (the memory map
analyzer's input) and the lines it writes (the acknowledgement's list).
"""

from __future__ import annotations

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import dataclasses

import numba as nb
import numpy as np

from ...trace.coalesce import Coalesced, coalesce_trace
from ...trace.format import MEM_STORE, SPACE, KernelTrace
from .candidates import Candidate

# columns of ``BlockInstances.table``
(I_WARP, I_CAND, I_SEG0, I_OFF0, I_DSEG, I_DOFF, I_SEG1, I_OFF1, I_REC0, I_DREC, I_REC1, I_TRIPS, I_INSTR,
 I_ORDINAL) = range(14)
NCOL = 14


@nb.njit(cache=True)
def _scan(seg_pc, seg_cnt, wseg, rec_pc, rec_mem, wrec, cand_of_pc, begin_pc, header_pc, out):
    """Fill ``out`` (rows of ``NCOL`` columns) with every complete instance; returns how many."""
    n = 0
    for w in range(len(wseg) - 1):
        ri = wrec[w]
        rend = wrec[w + 1]
        cur = -1
        ordinal = 0
        for si in range(wseg[w], wseg[w + 1]):
            p0 = seg_pc[si]
            for off in range(seg_cnt[si]):
                pc = p0 + off
                c = cand_of_pc[pc] if pc < len(cand_of_pc) else -1
                if cur >= 0 and c != cur:  # left the block
                    out[n, I_SEG1] = si
                    out[n, I_OFF1] = off
                    out[n, I_REC1] = ri
                    n += 1
                    cur = -1
                if cur < 0 and c >= 0 and pc == begin_pc[c]:
                    cur = c
                    out[n, I_WARP] = w
                    out[n, I_CAND] = c
                    out[n, I_SEG0] = si
                    out[n, I_OFF0] = off
                    out[n, I_DSEG] = -1
                    out[n, I_DREC] = -1
                    out[n, I_REC0] = ri
                    out[n, I_TRIPS] = 0
                    out[n, I_INSTR] = 0
                    out[n, I_ORDINAL] = ordinal
                    ordinal += 1
                if cur >= 0:
                    out[n, I_INSTR] += 1
                    if pc == header_pc[cur]:
                        out[n, I_TRIPS] += 1
                if ri < rend and rec_pc[ri] == pc:
                    if cur >= 0 and out[n, I_DSEG] < 0 and rec_mem[ri] != 0:
                        out[n, I_DSEG] = si
                        out[n, I_DOFF] = off
                        out[n, I_DREC] = ri
                    ri += 1
        # a warp that ends inside a block leaves no complete instance (a block never holds the exit)
    return n


@dataclasses.dataclass
class BlockInstances:
    """The candidate-block instances of one launch (sorted by warp, then stream position)."""

    table: np.ndarray  # int64 (n, NCOL)
    first_line: np.ndarray  # int64 per instance: the line of its first access (-1: none)
    lines_start: np.ndarray  # CSR over ``lines``: the lines instance i touches, in access order
    lines: np.ndarray  # int64 line addresses
    written_start: np.ndarray  # CSR over ``written``: the distinct lines instance i stores to
    written: np.ndarray

    def __len__(self) -> int:
        return len(self.table)


def find_instances(trace: KernelTrace, candidates: list[Candidate], coalesced: Coalesced | None = None,
                   line_bytes: int = 128) -> BlockInstances:
    """Every instance of ``candidates`` (trace-PC ranges of ``trace``'s kernel) in ``trace``."""
    npc = len(trace.static)
    cand_of_pc = np.full(npc, -1, np.int64)
    begin = np.zeros(max(len(candidates), 1), np.int64)
    header = np.full(max(len(candidates), 1), -1, np.int64)
    for i, c in enumerate(candidates):
        if c.end_pc > npc:
            raise ValueError(f"candidate {c.index} of {c.kernel} ends at PC {c.end_pc}, past the trace's {npc} PCs")
        if (cand_of_pc[c.begin_pc:c.end_pc] >= 0).any():
            raise ValueError(f"candidates of {c.kernel} overlap at PCs {c.begin_pc}..{c.end_pc}")
        cand_of_pc[c.begin_pc:c.end_pc] = i
        begin[i] = c.begin_pc
        header[i] = c.header_pc if c.header_pc is not None else -1
    seg, mem = trace.segments, trace.mem
    space = mem["space"].astype(np.int64)
    counted = np.isin(space, [SPACE["global"], SPACE["local"], SPACE["generic"], SPACE["const"]])
    counted &= mem["mask"] != 0
    # at most one instance per execution of a begin PC
    out = np.zeros((max(1, _count_entries(seg, begin[: len(candidates)])), NCOL), np.int64)
    n = _scan(seg["pc"].astype(np.int64), seg["count"].astype(np.int64), np.asarray(trace.warp_seg_start, np.int64),
              mem["pc"].astype(np.int64), counted.astype(np.int64), np.asarray(trace.warp_mem_start, np.int64),
              cand_of_pc, begin, header, out) if candidates else 0
    table = out[:n].copy()
    co = coalesced if coalesced is not None else coalesce_trace(trace, line_bytes)
    return _attach_lines(table, co, counted, (mem["flags"] & MEM_STORE) != 0)


def _count_entries(seg: np.ndarray, begin: np.ndarray) -> int:
    """How many times a warp's stream passes one of the ``begin`` PCs (segments may start before them)."""
    if len(begin) == 0 or len(seg) == 0:
        return 0
    pc0 = seg["pc"].astype(np.int64)
    pc1 = pc0 + seg["count"].astype(np.int64)
    total = 0
    for b in begin:
        total += int(((pc0 <= b) & (b < pc1)).sum())
    return total


def _attach_lines(table: np.ndarray, co: Coalesced, counted: np.ndarray, store: np.ndarray) -> BlockInstances:
    n = len(table)
    first_line = np.full(n, -1, np.int64)
    has = table[:, I_DREC] >= 0
    first_line[has] = co.tx_line[co.rec_tx_start[table[has, I_DREC]]]
    # every memory record of every instance (instances never share a record), then their transactions
    r0, r1 = table[:, I_REC0], table[:, I_REC1]
    recs = _ranges(r0, r1 - r0)
    owner = np.repeat(np.arange(n, dtype=np.int64), r1 - r0)
    keep = counted[recs]
    recs, owner = recs[keep], owner[keep]
    ntx = co.rec_ntx[recs].astype(np.int64)
    lines = co.tx_line[_ranges(co.rec_tx_start[recs].astype(np.int64), ntx)]
    line_owner = np.repeat(owner, ntx)
    lines_start = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(line_owner, minlength=n), out=lines_start[1:])
    # the distinct lines each instance stores to
    st = np.repeat(store[recs], ntx)
    pairs = np.unique(np.stack([line_owner[st], lines[st]], axis=1), axis=0) if st.any() else np.zeros((0, 2), np.int64)
    written_start = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(pairs[:, 0], minlength=n), out=written_start[1:])
    return BlockInstances(table, first_line, lines_start, lines.astype(np.int64), written_start,
                          pairs[:, 1].astype(np.int64).copy())


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, s + c)`` for each (s, c)."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(total, dtype=np.int64)
