"""Coalescing: turn each warp memory access of a trace into cache-line transactions (and bank conflicts).

A global, local or constant access becomes one transaction per distinct ``line_bytes`` line touched by
its active lanes, in the order lanes first touch them; each transaction carries a mask of the 32-byte
atoms (sectors) it touches. What a transaction costs is the cache's business: a Fermi L1 with 128-B
unsectored lines fetches the whole line on a miss (one 128-B request per line, as compute capability
2.x coalesces L1-cached loads), a Volta L1/L2 with 32-B sectors fetches only the touched sectors. A
shared-memory access becomes a bank-conflict degree: the largest number of distinct words any bank
must serve (lanes reading the same word are broadcast).

:func:`coalesce_trace` does every record of a trace at once (compiled); :func:`coalesce_lanes` and
:func:`bank_conflicts` are the plain-Python references of the same rules, used by the tests and by
mechanisms that look at single accesses.
"""

from __future__ import annotations

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import dataclasses

import numba as nb
import numpy as np

from .format import SPACE, KernelTrace, lane_address_table

ATOM = 32  # bytes per sector / atom
SP_SHARED = SPACE["shared"]
SP_PARAM = SPACE["param"]


@dataclasses.dataclass
class Coalesced:
    """Per-record transactions of a trace (``rec_tx_start[i] : rec_tx_start[i] + rec_ntx[i]``)."""

    rec_tx_start: np.ndarray  # int64 per mem record
    rec_ntx: np.ndarray  # int64 per mem record: transactions (0 for shared)
    rec_conflict: np.ndarray  # int64 per mem record: bank-conflict degree (shared), else 0
    rec_bytes: np.ndarray  # int64 per mem record: bytes accessed by active lanes
    tx_line: np.ndarray  # int64 line address (byte address of the line)
    tx_sectors: np.ndarray  # int64 mask of touched 32-B atoms within the line
    tx_partial: np.ndarray | None = None  # int64 mask of the touched atoms whose 32 bytes the access covers only
    # in part (``coalesce_trace(..., partial=True)``; else None)


def coalesce_lanes(addrs: np.ndarray | list[int], mask: int, size: int, line_bytes: int = 128) -> list[tuple[int, int]]:
    """Reference: ``[(line_address, atom_mask), ...]`` for one warp access, in first-touch lane order."""
    out: dict[int, int] = {}
    for lane in range(32):
        if not (mask >> lane) & 1:
            continue
        a = int(addrs[lane])
        for atom in range(a // ATOM, (a + size - 1) // ATOM + 1):
            line = atom * ATOM // line_bytes * line_bytes
            bit = 1 << ((atom * ATOM - line) // ATOM)
            out[line] = out.get(line, 0) | bit
    return list(out.items())


def bank_conflicts(addrs: np.ndarray | list[int], mask: int, size: int, banks: int = 32, bank_bytes: int = 4) -> int:
    """Reference: passes a shared-memory access needs (max distinct words per bank; 0 if no lane active)."""
    words: dict[int, set[int]] = {}
    for lane in range(32):
        if not (mask >> lane) & 1:
            continue
        a = int(addrs[lane])
        for w in range(a // bank_bytes, (a + size - 1) // bank_bytes + 1):
            words.setdefault(w % banks, set()).add(w)
    return max((len(s) for s in words.values()), default=0)


def atomic_segment(size: int, segment_bytes: int) -> int:
    """GPGPU-Sim's atomic segment for ``size``-byte lanes: 32 B for bytes, 64 B for halves, else
    ``segment_bytes`` (never more than it)."""
    return min(segment_bytes, {1: 32, 2: 64}.get(size, 128))


def coalesce_atomic_lanes(addrs: np.ndarray | list[int], mask: int, size: int, segment_bytes: int,
                          warp_parts: int = 1, line_bytes: int = 128) -> list[tuple[int, int]]:
    """Reference: GPGPU-Sim's transactions of one warp's global atomic, ``[(line_address, atom_mask), ...]``.

    Each part of the warp (``warp_parts`` equal lane ranges) is coalesced on its own; its lanes are grouped by
    :func:`atomic_segment`-byte segment, and each lane joins the first transaction of its segment that does not
    yet hold its bytes, else opens one: lanes to the same word go in separate transactions. (GPGPU-Sim 3.2.2
    ``warp_inst_t::memory_coalescing_arch_13_atomic``; 4.0 ``memory_coalescing_arch_atomic``.)"""
    seg = atomic_segment(size, segment_bytes)
    out: list[tuple[int, int]] = []
    per = 32 // warp_parts
    for part in range(warp_parts):
        txs: list[list] = []  # [segment, bytes held (a set), atom mask]
        for lane in range(part * per, (part + 1) * per):
            if not (mask >> lane) & 1:
                continue
            a = int(addrs[lane])
            mine = set(range(a, a + size))
            for t in txs:
                if t[0] == a // seg and not (t[1] & mine):
                    break
            else:
                t = [a // seg, set(), 0]
                txs.append(t)
            t[1] |= mine
            t[2] |= 1 << ((a % line_bytes) // ATOM)
        out += [(t[0] * seg // line_bytes * line_bytes, t[2]) for t in txs]
    return out


@nb.njit(cache=True)
def _lane_addr(base, stride, aidx, row_stride, rows, lane_addrs, lane):
    """Lane ``lane``'s address: listed at ``aidx``, or affine (by rows of ``rows`` lanes when ``rows``)."""
    if aidx >= 0:
        return lane_addrs[aidx + lane]
    if rows == 0:
        return base + stride * lane
    return base + (lane % rows) * stride + (lane // rows) * row_stride


@nb.njit(cache=True)
def _log2(n):
    """log2 of ``n`` if it is a power of two (at least 1), else -1."""
    if n < 1 or n & (n - 1):
        return -1
    k = 0
    while (1 << k) < n:
        k += 1
    return k


@nb.njit(cache=True)
def _conflict_degree(base, stride, aidx, row_stride, rows, mask, size, lane_addrs, banks, bank_bytes, bank_shift,
                     bank_mask, bank_n, bank_words):
    """Bank-conflict degree of one shared-memory record: the most distinct words any bank holds. ``bank_n``
    (zeros on entry, left zeroed) counts each bank's distinct words, listed in the bank's row of
    ``bank_words``, so a word is looked for only among its own bank's. ``bank_shift``/``bank_mask``: log2 of
    ``bank_bytes`` and ``banks - 1`` where those are powers of two, else -1."""
    best = 0
    for lane in range(32):
        if (mask >> lane) & 1:
            a = _lane_addr(base, stride, aidx, row_stride, rows, lane_addrs, lane)
            if bank_shift >= 0:  # powers of two (every machine's): shifts and masks, not divisions
                w0, w1 = a >> bank_shift, (a + size - 1) >> bank_shift
            else:
                w0, w1 = a // bank_bytes, (a + size - 1) // bank_bytes
            for w in range(w0, w1 + 1):
                b = w & bank_mask if bank_mask >= 0 else w % banks
                n = bank_n[b]
                dup = False
                for k in range(n):
                    if bank_words[b, k] == w:
                        dup = True
                        break
                if not dup:
                    bank_words[b, n] = w
                    n += 1
                    bank_n[b] = n
                    if n > best:
                        best = n
    for b in range(banks):
        bank_n[b] = 0
    return best


@nb.njit(cache=True)
def _line_pass(base, stride, aidx, row_stride, rows, mask, size, lane_addrs, line_shift, lines, sects, want_partial,
               held, parts):
    """Transactions of one global, local or constant record: its lines in first-touch lane order, each with
    its mask of touched atoms, in ``lines``/``sects``; returns how many. With ``want_partial``, ``parts`` gets
    each transaction's mask of touched atoms not wholly covered (``held[k, atom]``: the bytes of the atom the
    lanes cover, a 32-bit mask; rows are cleared here before use)."""
    n = 0
    for lane in range(32):
        if (mask >> lane) & 1:
            a = _lane_addr(base, stride, aidx, row_stride, rows, lane_addrs, lane)
            for atom in range(a // ATOM, (a + size - 1) // ATOM + 1):
                byte = atom * ATOM
                line = (byte >> line_shift) << line_shift
                ai = (byte - line) // ATOM
                bit = np.int64(1) << ai
                found = -1
                for k in range(n - 1, -1, -1):
                    if lines[k] == line:
                        found = k
                        break
                if found >= 0:
                    sects[found] |= bit
                else:
                    lines[n] = line
                    sects[n] = bit
                    if want_partial:
                        for j in range(held.shape[1]):
                            held[n, j] = 0
                    found = n
                    n += 1
                if want_partial:
                    lo = max(a, byte) - byte
                    hi = min(a + size, byte + ATOM) - byte
                    held[found, ai] |= ((np.int64(1) << (hi - lo)) - 1) << lo
    if want_partial:
        full = (np.int64(1) << ATOM) - 1
        for k in range(n):
            p = np.int64(0)
            for j in range(held.shape[1]):
                if (sects[k] >> j) & 1 and held[k, j] != full:
                    p |= np.int64(1) << j
            parts[k] = p
    return n


@nb.njit(cache=True)
def _coalesce_all(base, stride, aidx, row_stride, rows, mask, size, space, lane_addrs, line_shift, banks,
                  bank_bytes, words_per_bank, want_partial):
    """Every record in one pass; the transaction arrays grow (to the total the records so far project, at
    least double) and are trimmed at the end."""
    nrec = base.shape[0]
    start = np.zeros(nrec, np.int64)
    ntx = np.zeros(nrec, np.int64)
    conflict = np.zeros(nrec, np.int64)
    nbytes = np.zeros(nrec, np.int64)
    lines = np.zeros(512, np.int64)
    sects = np.zeros(512, np.int64)
    parts = np.zeros(512, np.int64)
    held = np.zeros((512 if want_partial else 1, (1 << line_shift) // ATOM), np.int64)
    bank_n = np.zeros(banks, np.int64)
    bank_shift = _log2(bank_bytes)
    bank_mask = banks - 1 if _log2(banks) >= 0 else -1
    bank_words = np.zeros((banks, words_per_bank), np.int64)
    cap = max(nrec, 64)
    tx_line = np.empty(cap, np.int64)
    tx_sect = np.empty(cap, np.int64)
    tx_part = np.zeros(cap if want_partial else 1, np.int64)
    pos = 0
    for i in range(nrec):
        m = mask[i]
        cnt = 0
        for lane in range(32):
            if (m >> lane) & 1:
                cnt += 1
        nbytes[i] = cnt * size[i]
        start[i] = pos
        sp = space[i]
        if sp == SP_PARAM:
            continue
        if sp == SP_SHARED:
            conflict[i] = _conflict_degree(base[i], stride[i], aidx[i], row_stride[i], rows[i], m, size[i],
                                           lane_addrs, banks, bank_bytes, bank_shift, bank_mask, bank_n,
                                           bank_words)
            continue
        r = _line_pass(base[i], stride[i], aidx[i], row_stride[i], rows[i], m, size[i], lane_addrs, line_shift,
                       lines, sects, want_partial, held, parts)
        if pos + r > cap:
            cap = max(2 * cap, pos + r, (pos + r) * nrec // (i + 1) * 21 // 20)  # the rate so far, +5%
            grown = np.empty(cap, np.int64)
            grown[:pos] = tx_line[:pos]
            tx_line = grown
            grown = np.empty(cap, np.int64)
            grown[:pos] = tx_sect[:pos]
            tx_sect = grown
            if want_partial:
                grown = np.zeros(cap, np.int64)
                grown[:pos] = tx_part[:pos]
                tx_part = grown
        for k in range(r):
            tx_line[pos + k] = lines[k]
            tx_sect[pos + k] = sects[k]
            if want_partial:
                tx_part[pos + k] = parts[k]
        ntx[i] = r
        pos += r
    return (start, ntx, conflict, nbytes, tx_line[:pos].copy(), tx_sect[:pos].copy(),
            tx_part[:pos].copy() if want_partial else tx_part[:0].copy())


def _as_int64(a: np.ndarray) -> np.ndarray:
    """``a`` as int64: a view of the same bytes for a contiguous 64-bit array (the lane addresses run to hundreds
    of megabytes; addresses stay below 2**63, so the bits read the same), a converted copy otherwise."""
    if a.dtype.itemsize == 8 and a.dtype.kind in "iu" and a.flags.c_contiguous:
        return a.view(np.int64)
    return a.astype(np.int64)


def coalesce_trace(trace: KernelTrace, line_bytes: int = 128, banks: int = 32, bank_bytes: int = 4,
                   records: np.ndarray | None = None, partial: bool = False) -> Coalesced:
    """Transactions and bank conflicts of every memory record of ``trace``, or of the records at the indexes
    ``records`` only (the arrays then follow that selection). ``partial``: also each transaction's atoms that
    its lanes cover only in part (``tx_partial``)."""
    if line_bytes & (line_bytes - 1) or line_bytes < ATOM or line_bytes > 8 * ATOM:
        raise ValueError(f"line_bytes={line_bytes}: a power of two between {ATOM} and {8 * ATOM}")
    mem = trace.mem if records is None else trace.mem[np.asarray(records, np.int64)]
    size = mem["size"].astype(np.int64)
    # a lane's access spans at most size / bank_bytes + 1 words, each in one bank
    words_per_bank = 32 * (int(size.max(initial=0)) // int(bank_bytes) + 2)
    start, ntx, conflict, nbytes, tx_line, tx_sect, tx_part = _coalesce_all(
        mem["base"].astype(np.int64), mem["stride"].astype(np.int64), mem["addr_index"].astype(np.int64),
        mem["row_stride"].astype(np.int64), mem["row_lanes"].astype(np.int64), mem["mask"].astype(np.int64),
        size, mem["space"].astype(np.int64),
        _as_int64(trace.lane_addrs), int(line_bytes).bit_length() - 1, int(banks), int(bank_bytes), words_per_bank,
        bool(partial))
    return Coalesced(start, ntx, conflict, nbytes, tx_line, tx_sect, tx_part if partial else None)


@nb.njit(cache=True)
def _atomic_all(addrs, mask, size, segment_bytes, warp_parts, line_shift):
    """Every atomic record's transactions (``coalesce_atomics``): lane ``l`` of a record joins transaction number
    (how many earlier lanes of its part hit its word) of its segment, which is what taking the first transaction
    without its bytes gives when lanes' accesses are aligned and of one size, as an atomic's are."""
    nrec = addrs.shape[0]
    start = np.zeros(nrec, np.int64)
    ntx = np.zeros(nrec, np.int64)
    tx_line = np.empty(nrec * 32, np.int64)
    tx_sect = np.empty(nrec * 32, np.int64)
    seg_of = np.empty(32, np.int64)
    rank_of = np.empty(32, np.int64)
    pos = 0
    per = 32 // warp_parts
    for i in range(nrec):
        sz = size[i]
        seg = segment_bytes
        if sz == 1:
            seg = min(seg, 32)
        elif sz == 2:
            seg = min(seg, 64)
        start[i] = pos
        for part in range(warp_parts):
            first = pos
            for lane in range(part * per, (part + 1) * per):
                if not (mask[i] >> lane) & 1:
                    continue
                a = addrs[i, lane]
                rank = 0
                for j in range(part * per, lane):
                    if (mask[i] >> j) & 1 and addrs[i, j] == a:
                        rank += 1
                s = a // seg
                bit = np.int64(1) << ((a & ((1 << line_shift) - 1)) // ATOM)
                found = -1
                for k in range(first, pos):
                    if seg_of[k - first] == s and rank_of[k - first] == rank:
                        found = k
                        break
                if found >= 0:
                    tx_sect[found] |= bit
                else:
                    seg_of[pos - first] = s
                    rank_of[pos - first] = rank
                    tx_line[pos] = ((s * seg) >> line_shift) << line_shift
                    tx_sect[pos] = bit
                    pos += 1
        ntx[i] = pos - start[i]
    return start, ntx, tx_line[:pos].copy(), tx_sect[:pos].copy()


def coalesce_atomics(trace: KernelTrace, records: np.ndarray, segment_bytes: int, warp_parts: int = 1,
                     line_bytes: int = 128) -> Coalesced:
    """GPGPU-Sim's transactions (:func:`coalesce_atomic_lanes`) of the atomic records of ``trace`` at the indexes
    ``records`` (the arrays follow that selection; no bank conflicts)."""
    if warp_parts not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"warp_parts={warp_parts}: a power of two that divides 32")
    mem = trace.mem[np.asarray(records, np.int64)]
    addrs = lane_address_table(mem, trace.lane_addrs)
    start, ntx, tx_line, tx_sect = _atomic_all(addrs, mem["mask"].astype(np.int64), mem["size"].astype(np.int64),
                                               int(segment_bytes), int(warp_parts), int(line_bytes).bit_length() - 1)
    lanes = np.unpackbits(mem["mask"].astype(">u4").view(np.uint8)).reshape(-1, 32).sum(axis=1)
    nbytes = lanes.astype(np.int64) * mem["size"].astype(np.int64)
    return Coalesced(start, ntx, np.zeros(len(mem), np.int64), nbytes, tx_line, tx_sect)
