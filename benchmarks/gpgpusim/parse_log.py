"""Parse the counters a GPGPU-Sim 4.0 run prints on stdout into one flat row.

GPGPU-Sim prints its statistics after every kernel; the ``gpu_tot_*`` values and the cache, DRAM and stall
totals are cumulative over the run, so the last printing holds the whole program's numbers.
"""

from __future__ import annotations

import csv
import re
import sys

_LAST = {
    "cycles": r"^gpu_tot_sim_cycle = (\d+)",
    "thread_insn": r"^gpu_tot_sim_insn = (\d+)",
    "occupancy_pct": r"^gpu_tot_occupancy = ([\d.]+)%",
    "l1d_accesses": r"^\s*L1D_total_cache_accesses = (\d+)",
    "l1d_misses": r"^\s*L1D_total_cache_misses = (\d+)",
    "l1d_pending_hits": r"^\s*L1D_total_cache_pending_hits = (\d+)",
    "l1d_res_fails": r"^\s*L1D_total_cache_reservation_fails = (\d+)",
    "l1i_accesses": r"^\s*L1I_total_cache_accesses = (\d+)",
    "l1i_misses": r"^\s*L1I_total_cache_misses = (\d+)",
    "l1i_res_fails": r"^\s*L1I_total_cache_reservation_fails = (\d+)",
    "l1c_accesses": r"^\s*L1C_total_cache_accesses = (\d+)",
    "l1c_misses": r"^\s*L1C_total_cache_misses = (\d+)",
    "l2_accesses": r"^L2_total_cache_accesses = (\d+)",
    "l2_misses": r"^L2_total_cache_misses = (\d+)",
    "l2_pending_hits": r"^L2_total_cache_pending_hits = (\d+)",
    "dram_reads": r"^total dram reads = (\d+)",
    "dram_writes": r"^total dram writes = (\d+)",
    "avg_mem_latency": r"^averagemflatency = (\d+)",
    "stall_dramfull": r"^gpu_stall_dramfull = (\d+)",
    "stall_icnt2sh": r"^gpu_stall_icnt2sh\s*= (\d+)",
    "n_stall_shd_mem": r"^gpgpu_n_stall_shd_mem = (\d+)",
    "sim_seconds": r"^gpgpu_simulation_time = .*\((\d+) sec\)",
}
_STALL = re.compile(r"^Stall:(\d+)\s+W0_Idle:(\d+)\s+W0_Scoreboard:(\d+)(.*)$")


_FAIL = re.compile(r"(Parse error.*|.*Assertion .*failed.*|double free or corruption.*|.*ERROR \*\*.*"
                   r"|.*GPGPU-Sim uArch: DEADLOCK.*)")


def failure(text: str, returncode: int) -> str:
    """Why a run gave no counters: GPGPU-Sim's own message, else the signal that ended it."""
    for line in text.splitlines():
        if line.startswith("-"):  # the option listing
            continue
        m = _FAIL.search(line.strip())
        if m:
            return m.group(1).strip()[:200]
    if returncode < 0:
        return f"ended by signal {-returncode}" + (" (segmentation fault)" if returncode == -11 else "")
    return (text.strip().splitlines() or ["no output"])[-1][:200]


def parse(text: str) -> dict[str, float]:
    """The run's totals: cycles and thread-instructions summed over its kernels, cache, DRAM and stall counts."""
    row: dict[str, float] = {}
    for key, pattern in _LAST.items():
        found = re.findall(pattern, text, flags=re.MULTILINE)
        if found:
            row[key] = float(found[-1])
    row["kernels"] = float(len(re.findall(r"^gpu_sim_cycle = ", text, flags=re.MULTILINE)))
    stalls = [m for m in (_STALL.match(line) for line in text.splitlines()) if m]
    if stalls:
        m = stalls[-1]
        row["sched_stall"] = float(m.group(1))
        row["sched_idle"] = float(m.group(2))
        row["sched_scoreboard"] = float(m.group(3))
        issued = re.findall(r"\tW(\d+):(\d+)", m.group(4))
        row["sched_issue_cycles"] = float(sum(int(c) for w, c in issued if int(w) > 0))
    return row


_ORDER = ["key", "workload", "scale", "params", "category", "set", "launches", "kernels", "cycles", "thread_insn",
          "ndpgpu_thread_insn", "occupancy_pct", "l1d_accesses", "l1d_misses", "l2_accesses", "l2_misses",
          "dram_reads", "dram_writes"]


def field_order(f: str) -> tuple[int, str]:
    """The column order of the reference tables: identity, cycles and the main counters first."""
    return (_ORDER.index(f) if f in _ORDER else len(_ORDER), f)


def merge(sources: list[str], dest: str) -> int:
    """Join reference tables (a sharded run's parts) into one, later files winning per kernel."""
    rows: dict[str, dict] = {}
    for src in sources:
        with open(src) as f:
            for r in csv.DictReader(f):
                rows[r["key"]] = r
    fields = sorted({k for r in rows.values() for k in r}, key=field_order)
    with open(dest, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows.values():
            w.writerow(r)
    return len(rows)


if __name__ == "__main__":  # python parse_log.py DEST.csv PART.csv ...: merge a sharded run's tables
    print(merge(sys.argv[2:], sys.argv[1]))
