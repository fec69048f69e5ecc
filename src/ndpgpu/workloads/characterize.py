"""Characterize registered workloads from one traced functional run each (``ndpgpu workloads characterize``).

Every column comes from the launch traces (:mod:`ndpgpu.trace.format`) with vectorised NumPy, so traces
of tens of millions of records take seconds:

``launches``
    kernel launches of the run.
``warp_instructions`` / ``thread_instructions``
    dynamic warp-instructions (segment counts) and thread-instructions (active lanes of each segment,
    guard predicates not applied, as :meth:`KernelTrace.thread_instructions` counts them).
``simd_efficiency``
    ``thread_instructions / (32 * warp_instructions)``.
``mix.<group>``
    fraction of warp-instructions per operation group (the groups of :data:`MIX_GROUPS` over the trace's
    op classes; they sum to 1). ``mix_class.<class>`` in the JSON output has every op class.
``global_bytes_per_thread_instruction``
    bytes moved by the active lanes of global loads, stores and atomics (an atomic counted once, at its
    width) divided by thread-instructions; ``global_bytes_per_warp_instruction`` divides by
    warp-instructions.
``sectors_per_request`` / ``lines_per_request``
    the coalescing degree: distinct 32-B sectors and 128-B lines touched by the active lanes of a warp's
    global memory instruction (loads, stores and atomics), averaged over such instructions (1 line and 4
    sectors for a warp reading 32 consecutive floats; 32 and 32 for a stride of 32 floats).
``shared`` / ``local`` / ``atomic``
    warp-instructions that access shared memory, local memory, or are atomics (any space), with at least
    one lane accessing memory, as a fraction of all warp-instructions (counts in the JSON output).

With a machine (``--machine gtx480``) the traces are also measured along the one measuring path
(:mod:`ndpgpu.timing.measure`: the program's host copies in program order, as ``ndpgpu run`` and sweeps do;
``--no-copies``: kernels only, from cold caches),
adding ``cycles``, ``ipc`` (thread-instructions per core cycle), ``l1_hit_rate``, ``l2_hit_rate``, ``dram_utilisation``
(achieved DRAM bandwidth over the preset's peak) and ``tom_selected`` (utilisation above 50%, the
criterion TOM used to choose its workloads). The functional run then uses the machine's SM count (as
``ndpgpu run --machine`` does), since a few workloads size their grid by it.

``paper_time`` runs a workload at ``paper`` scale in functional mode (no trace), in a child process
with a time limit, and reports its wall time or "over limit".
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import re
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..trace.format import MEM_ATOMIC, MEM_LOAD, MEM_STORE, OP_CLASSES, SPACE, KernelTrace

SECTOR_BYTES = 32
LINE_BYTES = 128
DRAM_SELECTION_THRESHOLD = 0.5  # TOM selected the workloads above 50% DRAM bandwidth utilisation
BEGIN_MARKER = "<!-- characterization:begin -->"
END_MARKER = "<!-- characterization:end -->"
PAPER_BEGIN = "<!-- paper-times:begin -->"
PAPER_END = "<!-- paper-times:end -->"
PAPER_HEADING = "### Paper-scale functional run"

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
        aidx = sel["addr_index"].astype(np.int64)
        addr = sel["base"].astype(np.int64)[:, None] + sel["stride"].astype(np.int64)[:, None] * _LANES
        listed = aidx >= 0
        if listed.any():
            addr[listed] = lane_addrs[aidx[listed, None] + _LANES]
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
        else:  # affine lane addresses are monotone in the lane: only listed ones may need sorting
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
    from ..timing.measure import measure

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


# ------------------------------------------------------------------------------------------- per workload
def _workload_info(name: str) -> dict[str, Any]:
    from .base import get_workload

    try:
        cls = get_workload(name)
    except Exception as exc:  # noqa: BLE001 - reported in the row
        return {"name": name, "suite": "?", "papers": [], "scales": [], "error": f"{type(exc).__name__}: {exc}"}
    return {"name": name, "suite": cls.suite, "papers": list(cls.papers), "scales": list(cls.scales)}


def characterize_workload(name: str, scale: str = "small", machine: str | None = None,
                          copies: bool = True) -> dict[str, Any]:
    """One workload's row: registry info, the run's check, the characterization (and timing) metrics
    (``copies``: the timing replays the program's host copies too, see :func:`timing_columns`).

    Never raises for a failing workload: the row then carries ``error`` (and whatever was measured).
    """
    row = _workload_info(name)
    row["scale"] = scale
    if "error" in row:
        return row
    from ..api import Device
    from .runner import run_workload

    t0 = time.perf_counter()
    try:
        num_sms = None
        if machine:
            from ..timing import load_machine

            num_sms = int(load_machine(machine).core.num_sms)
        dev = Device(trace=True, num_sms=num_sms, echo_printf=False)
        run = run_workload(name, scale, device=dev)
        row["passed"] = bool(run.passed)
        row["failed_checks"] = [c.message for c in run.checks if not c.passed]
        row["functional_seconds"] = float(run.wall_seconds)
        traces = run.device.traces
        row.update(characterize_traces(traces))
    except Exception as exc:  # noqa: BLE001 - a failing workload is reported in its row
        row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        row["traceback"] = traceback.format_exc(limit=6)
        row["seconds"] = time.perf_counter() - t0
        return row
    if machine:
        try:
            if row.get("truncated_launches"):
                raise ValueError("a trace was truncated by its size cap")
            row["timing"] = timing_columns(traces, machine, run.device.copies if copies else None)
        except Exception as exc:  # noqa: BLE001
            row["timing_error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    del traces, run, dev
    row["seconds"] = time.perf_counter() - t0
    return row


def paper_time(name: str, scale: str = "paper") -> dict[str, Any]:
    """Run ``name`` at ``scale`` functionally (no trace), checked; the wall times of the run."""
    row = _workload_info(name)
    row["scale"] = scale
    if "error" in row:
        return row
    from ..api import Device
    from .runner import run_workload

    t0 = time.perf_counter()
    try:
        run = run_workload(name, scale, device=Device(trace=False, echo_printf=False))
    except Exception as exc:  # noqa: BLE001
        row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        row["wall_seconds"] = time.perf_counter() - t0
        return row
    row.update(passed=bool(run.passed), wall_seconds=time.perf_counter() - t0, launch_seconds=float(run.wall_seconds),
               launches=int(run.launches), thread_instructions=int(run.stats["thread_instructions"]),
               failed_checks=[c.message for c in run.checks if not c.passed])
    return row


# ------------------------------------------------------------------------------------------- isolation
def _child(conn: Any, fn_name: str, args: tuple) -> None:
    try:
        result = globals()[fn_name](*args)
    except BaseException as exc:  # noqa: BLE001 - whatever happens goes back to the parent
        result = {"name": args[0], "error": f"{type(exc).__name__}: {exc}"}
    conn.send(result)
    conn.close()


@dataclasses.dataclass
class _Job:
    name: str
    proc: Any
    conn: Any
    started: float


def run_isolated(fn_name: str, names: Sequence[str], extra: tuple = (), *, time_limit: float | None = None,
                 jobs: int = 1, on_result: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run ``fn_name(name, *extra)`` for each name in its own child process (at most ``jobs`` at once).

    A child that runs past ``time_limit`` seconds is killed and its row says ``over limit``; one that
    dies without an answer (a crash, memory) says how it ended. Rows come back in the order of ``names``.
    """
    ctx = multiprocessing.get_context("spawn")
    pending = list(names)
    running: list[_Job] = []
    results: dict[str, dict[str, Any]] = {}

    def finish(job: _Job, row: dict[str, Any]) -> None:
        job.conn.close()
        results[job.name] = row
        if on_result is not None:
            on_result(row)

    while pending or running:
        while pending and len(running) < max(1, jobs):
            name = pending.pop(0)
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(child, fn_name, (name, *extra)), daemon=True)
            proc.start()
            child.close()
            running.append(_Job(name, proc, parent, time.perf_counter()))
        time.sleep(0.05)
        for job in list(running):
            elapsed = time.perf_counter() - job.started
            if job.conn.poll():
                try:
                    row = job.conn.recv()
                except EOFError:
                    row = None
                job.proc.join(timeout=10)
                if row is None:
                    row = {**_workload_info(job.name), "error": f"child ended with exit code {job.proc.exitcode}"}
                running.remove(job)
                finish(job, row)
            elif not job.proc.is_alive():
                running.remove(job)
                finish(job, {**_workload_info(job.name),
                             "error": f"child ended without a result (exit code {job.proc.exitcode})"})
            elif time_limit is not None and elapsed > time_limit:
                job.proc.kill()
                job.proc.join(timeout=10)
                running.remove(job)
                finish(job, {**_workload_info(job.name), "over_limit": True, "time_limit": time_limit,
                             "wall_seconds": elapsed})
    return [results[n] for n in names]


# ------------------------------------------------------------------------------------------- rendering
def _si(v: float) -> str:
    v = float(v)
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.3g}{suf}"
    return f"{v:.0f}"


def _pct(v: float) -> str:
    return f"{100 * v:.1f}" if v >= 0.001 or v == 0 else f"{100 * v:.2g}"


def _short(text: str, n: int = 90) -> str:
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= n else text[: n - 1] + "…"


def char_columns(machine: bool) -> list[str]:
    cols = ["workload", "suite", "papers", "scales", "launches", "warp instr", "thread instr", "SIMD eff",
            "mem %", "int %", "fp %", "sfu %", "other %", "glob B/thr-instr", "sectors/req", "lines/req",
            "shared %", "local %", "atomic %"]
    if machine:
        cols += ["cycles", "IPC", "L1 hit", "L2 hit", "DRAM util", ">50% DRAM"]
    return cols + ["notes"]


def char_cells(row: dict[str, Any], machine: bool) -> list[str]:
    cells = [row["name"], row.get("suite", "?"), ",".join(row.get("papers", [])) or "-",
             ",".join(row.get("scales", []))]
    ncols = len(char_columns(machine))
    if "warp_instructions" not in row:
        note = "FAILED: " + _short(row.get("error", "no result")) if not row.get("over_limit") else \
            f"over limit ({row.get('time_limit', 0):.0f} s)"
        return cells + ["-"] * (ncols - len(cells) - 1) + [note]
    mix = row["mix"]
    cells += [str(row["launches"]), _si(row["warp_instructions"]), _si(row["thread_instructions"]),
              f"{row['simd_efficiency']:.2f}", *(_pct(mix[g]) for g in MIX_GROUPS),
              f"{row['global_bytes_per_thread_instruction']:.3g}",
              f"{row['sectors_per_request']:.2f}" if row["global_requests"] else "-",
              f"{row['lines_per_request']:.2f}" if row["global_requests"] else "-",
              _pct(row["shared"]), _pct(row["local"]), _pct(row["atomic"])]
    notes = []
    if row.get("passed") is False:
        notes.append("check FAILED: " + _short("; ".join(row.get("failed_checks", [])), 60))
    if row.get("truncated_launches"):
        notes.append(f"{row['truncated_launches']} truncated trace(s)")
    if machine:
        t = row.get("timing")
        if t:
            cells += [_si(t["cycles"]), f"{t['ipc']:.1f}", f"{t['l1_hit_rate']:.2f}", f"{t['l2_hit_rate']:.2f}",
                      f"{t['dram_utilisation']:.2f}", "**yes**" if t["tom_selected"] else "no"]
            if t.get("capped"):
                notes.append("timing capped")
        else:
            cells += ["-"] * 6
            notes.append("timing FAILED: " + _short(row.get("timing_error", "?"), 60))
    return cells + ["; ".join(notes)]


def paper_columns() -> list[str]:
    return ["workload", "suite", "status", "wall s", "launch s", "launches", "thread instr", "M thr-instr/s",
            "notes"]


def paper_cells(row: dict[str, Any]) -> list[str]:
    cells = [row["name"], row.get("suite", "?")]
    if row.get("over_limit"):
        return cells + ["over limit", f"> {row['time_limit']:.0f}", "-", "-", "-", "-",
                        f"killed after {row['time_limit']:.0f} s (the next standard scale down is small)"]
    if "thread_instructions" not in row:
        return cells + ["error", "-", "-", "-", "-", "-", "FAILED: " + _short(row.get("error", "no result"))]
    rate = row["thread_instructions"] / max(row["launch_seconds"], 1e-9) / 1e6
    return cells + ["PASS" if row["passed"] else "FAIL", f"{row['wall_seconds']:.1f}", f"{row['launch_seconds']:.1f}",
                    str(row["launches"]), _si(row["thread_instructions"]), f"{rate:.1f}",
                    _short("; ".join(row.get("failed_checks", [])), 80)]


def markdown_table(columns: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def parse_markdown_table(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """The header and the rows (by first cell) of the first Markdown table in ``text``."""
    header: list[str] = []
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            if header:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not header:
            header = cells
        elif all(set(c) <= set("-: ") for c in cells):
            continue
        else:
            rows[cells[0]] = cells
    return header, rows


def merge_rows(columns: list[str], new: dict[str, list[str]], old_text: str, order: Sequence[str]) -> list[list[str]]:
    """New rows, plus the old table's rows for still-registered workloads not re-run (same columns only)."""
    header, old = parse_markdown_table(old_text)
    merged = dict(old) if header == columns else {}
    merged = {k: v for k, v in merged.items() if k in order}
    merged.update(new)
    pos = {n: i for i, n in enumerate(order)}
    return [merged[k] for k in sorted(merged, key=lambda k: pos.get(k, len(pos)))]


def _between(text: str, begin: str, end: str) -> str | None:
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        return None
    return text[i + len(begin) : j]


def replace_marked_block(text: str, body: str, begin: str = BEGIN_MARKER, end: str = END_MARKER) -> str:
    """``text`` with everything between the markers replaced by ``body`` (markers kept)."""
    i = text.find(begin)
    j = text.find(end, i + len(begin)) if i >= 0 else -1
    if i < 0 or j < 0:
        raise ValueError(f"the markers {begin} ... {end} are missing")
    return text[: i + len(begin)] + "\n" + body.strip("\n") + "\n" + text[j:]


def write_docs(path: str | Path, render: Callable[[str], str]) -> None:
    """Replace the marked block of ``path`` by ``render(old_block)``; nothing else of the file changes.

    The file is read and written back at once (other writers may append to it meanwhile).
    """
    path = Path(path)
    text = path.read_text()
    old = _between(text, BEGIN_MARKER, END_MARKER)
    if old is None:
        raise ValueError(f"{path}: the markers {BEGIN_MARKER} ... {END_MARKER} are missing")
    body = render(old)
    text = path.read_text()  # re-read just before writing: keep what others appended meanwhile
    path.write_text(replace_marked_block(text, body))


DOC_HEADER = """\
## Characterization (generated)

Generated by `ndpgpu workloads characterize --scale small --format markdown --write-docs docs/workloads.md`
(add `--machine gtx480` for timing columns; `--paper-times` re-measures the paper-scale table below;
workload names limit either pass to those workloads and keep the other rows; `--jobs 2 --timeout 900` runs
each workload in its own process; `--no-characterize` only re-renders). Only the text between the
`characterization` markers is rewritten; a workload that fails shows its error in its row.

Columns, from one traced functional run at `{scale}`: launches; dynamic warp- and thread-instructions;
SIMD efficiency (thread / (32 x warp) instructions); instruction mix as % of warp-instructions (mem =
load/store/atomic, int = integer, move, convert, compare, fp = fp32/fp64/fp16/divide, sfu = special
functions, other = branch, barrier, fence, shuffle/vote, nop); global bytes per thread-instruction (bytes
accessed by the active lanes of global loads, stores and atomics); coalescing degree (distinct 32-B
sectors and 128-B lines per warp global memory instruction); shared %, local % and atomic %
(warp-instructions accessing shared or local memory, or atomic in any space, as % of warp-instructions).
With `--machine`: cycles, IPC (thread-instructions per core cycle), L1/L2 hit rates, DRAM utilisation
(achieved DRAM bandwidth / the preset's peak; kernels only) and whether it exceeds 50% (TOM's selection
criterion). Definitions: `src/ndpgpu/workloads/characterize.py`.
"""


def render_block(old_block: str, char_rows: dict[str, list[str]] | None, paper_rows: dict[str, list[str]] | None,
                 *, scale: str, machine: str | None, order: Sequence[str], time_limit: float) -> str:
    """The whole marked block: header, the characterization table, the paper-scale table (merged)."""
    old_paper = _between(old_block, PAPER_BEGIN, PAPER_END) or ""
    old_char = old_block.split(PAPER_BEGIN)[0].split(PAPER_HEADING)[0]
    cols = char_columns(bool(machine))
    out = [DOC_HEADER.format(scale=scale)]
    if char_rows is not None:
        rows = merge_rows(cols, char_rows, old_char, order)
        out.append(f"Scale `{scale}`" + (f", timed on `{machine}`" if machine else "")
                   + f"; {len(rows)} workloads, generated {time.strftime('%Y-%m-%d')}.\n")
        out.append(markdown_table(cols, rows))
    else:
        i = old_char.find("Scale `")
        out.append(old_char[i:].strip() if i >= 0 else "(not generated yet)")
    out.append("\n" + PAPER_HEADING + "\n")
    out.append(PAPER_BEGIN)
    if paper_rows is not None:
        pcols = paper_columns()
        rows = merge_rows(pcols, paper_rows, old_paper, order)
        out.append(f"Each workload at `paper` in functional mode (no trace), checked against its reference, in "
                   f"its own process with a per-workload limit (`--time-limit`, default 600 s; this update: "
                   f"{time_limit:.0f} s); wall s includes inputs, compilation and the check, launch s only the "
                   f"kernels. Updated {time.strftime('%Y-%m-%d')}.\n")
        out.append(markdown_table(pcols, rows))
    else:
        out.append(old_paper.strip() or "(not measured yet: `ndpgpu workloads characterize --paper-times`)")
    out.append(PAPER_END)
    return "\n".join(out) + "\n"


def _rich_table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    from ..clitable import print_table

    print_table(columns, [[re.sub(r"\*\*(.*?)\*\*", r"\1", c) for c in r] for r in rows], title)


def _jsonable(o: Any) -> Any:
    if isinstance(o, dict):
        return {k: _jsonable(v) for k, v in o.items() if k != "traceback"}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, np.generic):
        return o.item()
    return o


# ------------------------------------------------------------------------------------------- CLI
def _select(names: Sequence[str], suite: str | None) -> list[str]:
    from .base import all_workloads

    registry = all_workloads()
    if names:
        return list(names)  # unknown names become failed rows
    return [n for n, c in registry.items() if not suite or c.suite == suite]


def timing_mode(copies: bool) -> str:
    """What the timing columns replay, shown with them."""
    if copies:
        return ("kernels and the program's host copies, in program order (the one measuring path: as `ndpgpu run` "
                "and sweeps time them)")
    return "kernels only, from cold caches (--no-copies: no host copies timed, none warms the L2)"


def characterize_main(args: Any) -> int:
    """``ndpgpu workloads characterize``: see :func:`ndpgpu.cli.build_parser` for the options."""
    from .base import all_workloads

    fmt = "json" if getattr(args, "json", False) else (getattr(args, "format", None) or "table")
    names = _select(getattr(args, "names", []) or [], getattr(args, "suite", None))
    scale = args.scale
    machine = getattr(args, "machine", None)
    jobs = int(getattr(args, "jobs", 1) or 1)
    timeout = getattr(args, "timeout", None)
    time_limit = float(getattr(args, "time_limit", 600.0) or 600.0)
    do_char = not getattr(args, "no_characterize", False)
    do_paper = bool(getattr(args, "paper_times", False))
    copies = not bool(getattr(args, "no_copies", False))
    quiet = fmt == "json"

    def progress(row: dict[str, Any]) -> None:
        if quiet:
            return
        status = "ok" if "error" not in row and not row.get("over_limit") else (
            "over limit" if row.get("over_limit") else "FAILED " + row["error"][:100])
        secs = row.get("seconds", row.get("wall_seconds", 0.0)) or 0.0
        print(f"  {row['name']:<22} {status}  {secs:.1f} s", flush=True)

    t0 = time.perf_counter()
    char: list[dict[str, Any]] = []
    if do_char:
        if not quiet:
            print(f"characterizing {len(names)} workloads at {scale!r}" + (f" on {machine}" if machine else ""),
                  flush=True)
            if machine:
                print("  timing: " + timing_mode(copies), flush=True)
        if jobs > 1 or timeout:
            char = run_isolated("characterize_workload", names, (scale, machine, copies), time_limit=timeout, jobs=jobs,
                                on_result=progress)
        else:
            for n in names:
                row = characterize_workload(n, scale, machine, copies)
                progress(row)
                char.append(row)
    paper: list[dict[str, Any]] = []
    if do_paper:
        if not quiet:
            print(f"paper-scale functional runs of {len(names)} workloads (limit {time_limit:.0f} s each)", flush=True)
        paper = run_isolated("paper_time", names, ("paper",), time_limit=time_limit, jobs=1, on_result=progress)
    elapsed = time.perf_counter() - t0

    has_machine = bool(machine)
    char_rows = {r["name"]: char_cells(r, has_machine) for r in char}
    paper_rows = {r["name"]: paper_cells(r) for r in paper}
    if fmt == "json":
        print(json.dumps(_jsonable({"scale": scale, "machine": machine, "copies": copies,
                                    "timing_mode": timing_mode(copies) if machine else None,
                                    "seconds": elapsed, "workloads": char,
                                    "paper_times": paper}), indent=1))
    elif fmt == "markdown":
        text = ""
        if do_char:
            text += markdown_table(char_columns(has_machine), list(char_rows.values())) + "\n"
        if do_paper:
            text += "\n" + markdown_table(paper_columns(), list(paper_rows.values())) + "\n"
        print(text)
    else:
        if do_char:
            _rich_table(f"{len(char)} workloads at {scale}"
                        + (f" on {machine} (timing: {timing_mode(copies)})" if machine else ""),
                        char_columns(has_machine), list(char_rows.values()))
        if do_paper:
            _rich_table(f"paper-scale functional run (limit {time_limit:.0f} s)", paper_columns(),
                        list(paper_rows.values()))
    out = getattr(args, "out", None)
    if out:
        parts = []
        if do_char:
            parts.append(markdown_table(char_columns(has_machine), list(char_rows.values())))
        if do_paper:
            parts.append(markdown_table(paper_columns(), list(paper_rows.values())))
        Path(out).write_text("\n\n".join(parts) + "\n")
    docs = getattr(args, "write_docs", None)
    if docs:
        order = list(all_workloads())
        write_docs(docs, lambda old: render_block(old, char_rows if do_char else None, paper_rows if do_paper else None,
                                                  scale=scale, machine=machine, order=order, time_limit=time_limit))
        if not quiet:
            print(f"wrote the characterization block of {docs}")
    if not quiet:
        failed = [r["name"] for r in char + paper if "error" in r or r.get("over_limit")]
        print(f"{len(char)} characterized, {len(paper)} paper runs in {elapsed:.1f} s"
              + (f"; failed or over limit: {', '.join(failed)}" if failed else ""))
    return 0
