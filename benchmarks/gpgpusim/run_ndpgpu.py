"""Run the correlation's kernels through ndpgpu's timing and write our side of the table.

Each kernel runs as ``ndpgpu run`` runs it: the workload's host copies replayed in program order before its
launches on a ``Device(machine=...)``, so copied-in inputs sit in the L2 as the machine declares
(``pcie.place_in_l2``: true on gtx480 and v100, following GPGPU-Sim's ``-gpgpu_perf_sim_memcpy 1``).

    python benchmarks/gpgpusim/run_ndpgpu.py --machine gtx480+gpgpusim --out benchmarks/gpgpusim/ndpgpu_gtx480.csv
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import yaml  # noqa: E402
from kernels import Kernel, select, write_rows  # noqa: E402

from ndpgpu.workloads.base import get_workload  # noqa: E402
from ndpgpu.workloads.runner import run_workload  # noqa: E402

METRICS = {
    "cycles": "kernel.cycles",
    "thread_insn": "kernel.thread_instructions",
    "warp_insn": "kernel.warp_instructions",
    "occupancy": "core.occupancy_active",  # as GPGPU-Sim counts it: over the SM-cycles with warps
    "l1d_accesses": "l1d.accesses",
    "l1d_misses": "l1d.misses",
    "l1d_stores": "l1d.stores",
    "l1d_store_hits": "l1d.store_hits",
    "l2_accesses": "l2.accesses",
    "l2_misses": "l2.misses",
    "dram_reads": "dram.reads",
    "dram_writes": "dram.writes",
    "dram_read_bytes": "dram.read_bytes",
    "dram_write_bytes": "dram.write_bytes",
    "l1c_accesses": "l1c.accesses",
    "const_accesses": "const.accesses",
    "const_misses": "const.misses",
    "l1i_accesses": "l1i.accesses",
    "l1i_misses": "l1i.misses",
    "stall_memory": "core.stalls.memory",
    "stall_scoreboard": "core.stalls.scoreboard",
    "stall_idle": "core.stalls.idle",
    "stall_barrier": "core.stalls.barrier",
    "issue_cycles": "core.issue.issue_cycles",
    "scheduler_cycles": "core.issue.scheduler_cycles",
    "avg_mem_latency": "latency.average",
}


def _workload_class(k: Kernel) -> type:
    cls = get_workload(k.workload)
    if not k.params:
        return cls
    merged = {**cls.params(k.scale), **k.params}
    return type(cls.__name__, (cls,), {"scales": {**cls.scales, k.scale: merged}, "__module__": cls.__module__})


def run_one(k: Kernel, machine: str, overrides: dict | None = None) -> dict:
    t0 = time.time()
    run = run_workload(_workload_class(k), k.scale, machine=machine, overrides=overrides or None)
    tot = run.device.totals()
    row: dict = {"key": k.key, "workload": k.workload, "scale": k.scale, "params": json.dumps(k.params or {}),
                 "machine": machine, "overrides": json.dumps(overrides or {}), "passed": run.passed,
                 "launches": run.launches}
    for name, path in METRICS.items():
        try:
            row[name] = float(tot[path])
        except (KeyError, TypeError, ValueError):
            row[name] = ""
    row["wall_s"] = round(time.time() - t0, 1)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--machine", default="gtx480+gpgpusim")
    ap.add_argument("--config", default=None, help="the GPGPU-Sim config whose kernel list to run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a machine field to override (an experiment; recorded per row)")
    args = ap.parse_args(argv)
    overrides = {}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = yaml.safe_load(value)
    config = args.config or ("SM7_QV100" if args.machine.startswith("v100") else "SM2_GTX480")
    out = Path(args.out)
    rows: dict[str, dict] = {}
    if out.exists():
        with out.open() as f:
            rows = {r["key"]: r for r in csv.DictReader(f)}
    for k in select(config, args.only):
        print(f"[{time.strftime('%H:%M:%S')}] {args.machine} {k.key} ...", flush=True)
        try:
            row = run_one(k, args.machine, overrides)
        except Exception as exc:
            row = {"key": k.key, "workload": k.workload, "scale": k.scale, "machine": args.machine,
                   "error": repr(exc)[:200]}
        print(f"    cycles={row.get('cycles')} wall={row.get('wall_s')} {row.get('error', '')}", flush=True)
        rows[k.key] = row
        write_rows(out, rows, list(dict.fromkeys(f for r in rows.values() for f in r)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
