"""The characterization columns computed from launch traces with vectorised NumPy: per-PC counts, coalescing,
the instruction mix, memory shares, and (with a machine) timing columns from the one measuring path."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ...trace.format import MEM_ATOMIC, MEM_LOAD, MEM_STORE, OP_CLASSES, SPACE, KernelTrace, lane_address_table

SECTOR_BYTES = 32
LINE_BYTES = 128
DRAM_SELECTION_THRESHOLD = 0.5  # TOM selected the workloads above 50% DRAM bandwidth utilisation

# Display groups of the trace's op classes (every class in exactly one group, so the mix sums to 1).
MIX_GROUPS: dict[str, tuple[str, ...]] = {
    "mem": ("load", "store", "atomic"),
    "int": ("int", "imul", "idiv", "mov", "cvt", "setp"),
    "fp": ("fp32", "fp64", "fp16", "fdiv"),
    "sfu": ("sfu",),
    "other": ("branch", "barrier", "fence", "shfl", "nop"),
}
assert sorted(c for g in MIX_GROUPS.values() for c in g) == sorted(OP_CLASSES), "MIX_GROUPS must cover OP_CLASSES"
_GROUP_OF_CLASS = np.array([next(i for i, g in enumerate(MIX_GROUPS.values()) if c in g) for c in OP_CLASSES])

_LANES = np.arange(32, dtype=np.int64)


# ------------------------------------------------------------------------------------------- trace counts
def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x.astype(np.uint32)).astype(np.int64)


def per_pc_counts(trace: KernelTrace) -> tuple[np.ndarray, np.ndarray]:
    """Dynamic (warp, thread) instruction counts per static PC, from the segments (a difference array)."""
    npc = len(trace.static)
    seg = trace.segments
    if len(seg) == 0:
        return np.zeros(npc, np.int64), np.zeros(npc, np.int64)
    pc = seg["pc"].astype(np.int64)
    end = pc + seg["count"].astype(np.int64)
    lanes = _popcount(seg["mask"]).astype(np.float64)
    warp = np.cumsum(np.bincount(pc, minlength=npc + 1) - np.bincount(end, minlength=npc + 1))[:npc]
    thread = np.cumsum(np.bincount(pc, lanes, minlength=npc + 1) - np.bincount(end, lanes, minlength=npc + 1))[:npc]
    return warp.astype(np.int64), np.rint(thread).astype(np.int64)


def coalescing(trace: KernelTrace, records: np.ndarray | None = None, *, sector_bytes: int = SECTOR_BYTES,
               line_bytes: int = LINE_BYTES, chunk: int = 1 << 16) -> tuple[np.ndarray, np.ndarray]:
    """Distinct sectors and lines touched by the active lanes of each selected memory record.

    ``records`` are indices into ``trace.mem`` (default: every record). Returns two int64 arrays (0 for
    a record without active lanes). Lane ``l`` touches bytes ``[a_l, a_l + size)``.
    """
    mem = trace.mem
    idx = np.arange(len(mem)) if records is None else np.asarray(records, np.int64)
    sectors = np.zeros(len(idx), np.int64)
    lines = np.zeros(len(idx), np.int64)
    sshift = int(sector_bytes).bit_length() - 1
    lshift = int(line_bytes).bit_length() - 1 - sshift
    if (1 << sshift) != sector_bytes or lshift < 0 or (1 << (lshift + sshift)) != line_bytes:
        raise ValueError("sector_bytes and line_bytes must be powers of two, line_bytes >= sector_bytes")
    lane_addrs = trace.lane_addrs.astype(np.int64, copy=False)
    for lo in range(0, len(idx), chunk):
        sel = mem[idx[lo : lo + chunk]]
        rows = np.nonzero(sel["mask"] != 0)[0]
        if not len(rows):
            continue
        sel = sel[rows]
        mask = sel["mask"].astype(np.int64)
        addr = lane_address_table(sel, lane_addrs)
        listed = (sel["addr_index"] >= 0) | (sel["row_lanes"] > 0)  # not monotone in the lane
        partial = np.nonzero(mask != 0xFFFFFFFF)[0]
        if len(partial):
            # inactive lanes repeat the previous active lane's address (leading ones the first active
            # lane's): duplicates do not change the distinct count, and monotone addresses stay monotone
            active = ((mask[partial, None] >> _LANES) & 1).astype(bool)
            fill = np.maximum.accumulate(np.where(active, _LANES, 0), axis=1)
            fill = np.maximum(fill, np.argmax(active, axis=1)[:, None])
            addr[partial] = np.take_along_axis(addr[partial], fill, axis=1)
        first = addr >> sshift
        last = (addr + sel["size"].astype(np.int64)[:, None] - 1) >> sshift
        extra = int((last - first).max())
        if extra:  # a lane spans several sectors: list them all, lane by lane
            s = np.stack([np.minimum(first + j, last) for j in range(extra + 1)], axis=2).reshape(len(rows), -1)
            check = np.arange(len(rows))
        else:  # affine lane addresses (one row) are monotone in the lane: only the others may need sorting
            s = first
            check = np.nonzero(listed)[0]
        if len(check):
            dc = np.diff(s[check], axis=1)
            unsorted = check[~((dc >= 0).all(axis=1) | (dc <= 0).all(axis=1))]
            if len(unsorted):
                s[unsorted] = np.sort(s[unsorted], axis=1)
        # the distinct values of a monotone row: one plus its non-zero steps
        out = lo + rows
        sectors[out] = (np.diff(s, axis=1) != 0).sum(axis=1) + 1
        lines[out] = (np.diff(s >> lshift, axis=1) != 0).sum(axis=1) + 1
    return sectors, lines


def trace_counts(trace: KernelTrace) -> dict[str, Any]:
    """The additive counts of one launch (summed over launches by :func:`summarize`)."""
    warp_pc, thread_pc = per_pc_counts(trace)
    op = trace.static["op_class"].astype(np.int64)
    by_class = np.bincount(op, warp_pc, minlength=len(OP_CLASSES))[: len(OP_CLASSES)]
    thread_by_class = np.bincount(op, thread_pc, minlength=len(OP_CLASSES))[: len(OP_CLASSES)]
    mem = trace.mem
    lanes = _popcount(mem["mask"])
    live = lanes > 0
    space = mem["space"].astype(np.int64)
    flags = mem["flags"].astype(np.int64)
    nbytes = lanes * mem["size"].astype(np.int64)
    glob = live & (space == SPACE["global"])
    atomic = live & ((flags & MEM_ATOMIC) != 0)
    gsel = np.nonzero(glob)[0]
    sectors, lines = coalescing(trace, gsel)
    return {
        "launches": 1,
        "warp_instructions": int(warp_pc.sum()),
        "thread_instructions": int(thread_pc.sum()),
        "warp_by_class": np.rint(by_class).astype(np.int64),
        "thread_by_class": np.rint(thread_by_class).astype(np.int64),
        "mem_instructions": int(live.sum()),
        "mem_by_space": np.bincount(space[live], minlength=len(SPACE))[: len(SPACE)],
        "atomic_instructions": int(atomic.sum()),
        "atomic_by_space": np.bincount(space[atomic], minlength=len(SPACE))[: len(SPACE)],
        "global_requests": int(glob.sum()),
        "global_load_requests": int((glob & ((flags & MEM_LOAD) != 0) & ((flags & MEM_ATOMIC) == 0)).sum()),
        "global_store_requests": int((glob & ((flags & MEM_STORE) != 0) & ((flags & MEM_ATOMIC) == 0)).sum()),
        "global_bytes": int(nbytes[glob].sum()),
        "global_sectors": int(sectors.sum()),
        "global_lines": int(lines.sum()),
        "shared_bytes": int(nbytes[live & (space == SPACE["shared"])].sum()),
        "local_bytes": int(nbytes[live & (space == SPACE["local"])].sum()),
        "truncated": int(bool(trace.truncated)),
    }


def summarize(counts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Sum per-launch counts and derive the characterization metrics (see the module docstring)."""
    tot: dict[str, Any] = {}
    for c in counts:
        for k, v in c.items():
            tot[k] = tot[k] + v if k in tot else (v.copy() if isinstance(v, np.ndarray) else v)
    if not tot:
        tot = trace_counts_empty()
    wi, ti = tot["warp_instructions"], tot["thread_instructions"]

    def ratio(a: float, b: float) -> float:
        return float(a) / b if b else 0.0

    by_class = tot["warp_by_class"]
    mix_class = {name: ratio(by_class[i], wi) for i, name in enumerate(OP_CLASSES)}
    mix = {g: ratio(np.bincount(_GROUP_OF_CLASS, by_class, minlength=len(MIX_GROUPS))[i], wi)
           for i, g in enumerate(MIX_GROUPS)}
    mbs, abs_ = tot["mem_by_space"], tot["atomic_by_space"]
    shared, local = int(mbs[SPACE["shared"]]), int(mbs[SPACE["local"]])
    return {
        "launches": int(tot["launches"]),
        "warp_instructions": int(wi),
        "thread_instructions": int(ti),
        "simd_efficiency": ratio(ti, 32 * wi),
        "mix": mix,
        "mix_class": mix_class,
        "thread_mix_class": {name: ratio(tot["thread_by_class"][i], ti) for i, name in enumerate(OP_CLASSES)},
        "global_bytes": int(tot["global_bytes"]),
        "global_bytes_per_thread_instruction": ratio(tot["global_bytes"], ti),
        "global_bytes_per_warp_instruction": ratio(tot["global_bytes"], wi),
        "global_requests": int(tot["global_requests"]),
        "global_load_requests": int(tot["global_load_requests"]),
        "global_store_requests": int(tot["global_store_requests"]),
        "sectors_per_request": ratio(tot["global_sectors"], tot["global_requests"]),
        "lines_per_request": ratio(tot["global_lines"], tot["global_requests"]),
        "shared_instructions": shared,
        "local_instructions": local,
        "atomic_instructions": int(tot["atomic_instructions"]),
        "atomic_global_instructions": int(abs_[SPACE["global"]]),
        "atomic_shared_instructions": int(abs_[SPACE["shared"]]),
        "shared": ratio(shared, wi),
        "local": ratio(local, wi),
        "atomic": ratio(tot["atomic_instructions"], wi),
        "shared_bytes": int(tot["shared_bytes"]),
        "local_bytes": int(tot["local_bytes"]),
        "truncated_launches": int(tot["truncated"]),
    }


def trace_counts_empty() -> dict[str, Any]:
    return {"launches": 0, "warp_instructions": 0, "thread_instructions": 0,
            "warp_by_class": np.zeros(len(OP_CLASSES), np.int64),
            "thread_by_class": np.zeros(len(OP_CLASSES), np.int64),
            "mem_instructions": 0, "mem_by_space": np.zeros(len(SPACE), np.int64), "atomic_instructions": 0,
            "atomic_by_space": np.zeros(len(SPACE), np.int64), "global_requests": 0, "global_load_requests": 0,
            "global_store_requests": 0, "global_bytes": 0, "global_sectors": 0, "global_lines": 0,
            "shared_bytes": 0, "local_bytes": 0, "truncated": 0}


def characterize_traces(traces: Sequence[KernelTrace]) -> dict[str, Any]:
    """The characterization metrics of a run's launch traces."""
    return summarize(trace_counts(t) for t in traces)


def timing_columns(traces: Sequence[KernelTrace], machine: str,
                   copies: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Measure the traces on ``machine`` along the one measuring path (:func:`ndpgpu.timing.measure.measure`):
    with ``copies`` (``Device.copies``) the program's host copies in program order, as ``ndpgpu run`` and sweeps
    time them; ``copies=None``: kernels only, from cold caches (``--no-copies``)."""
    from ...timing.measure import measure

    t0 = time.perf_counter()
    tot = measure(machine, traces, copies or [], with_copies=copies is not None).totals()
    peak = float(tot.get("dram", "peak_bandwidth", 0.0) or 0.0)
    bw = float(tot.get("dram", "bandwidth", 0.0) or 0.0)
    util = bw / peak if peak else 0.0
    return {
        "machine": machine,
        "copies": copies is not None,
        "cycles": int(tot.cycles),
        "ipc": float(tot.get("kernel", "ipc_thread", 0.0)),
        "ipc_warp": float(tot.get("kernel", "ipc_warp", 0.0)),
        "l1_hit_rate": float(tot.get("l1d", "hit_rate", 0.0)),
        "l2_hit_rate": float(tot.get("l2", "hit_rate", 0.0)),
        "dram_bandwidth_gbs": bw,
        "dram_peak_gbs": peak,
        "dram_utilisation": util,
        "tom_selected": util > DRAM_SELECTION_THRESHOLD,
        "capped": bool(tot.get("kernel", "capped", 0)),
        "timing_seconds": time.perf_counter() - t0,
    }
