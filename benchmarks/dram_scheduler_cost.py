"""CPU cost of GPGPU-Sim's per-bank DRAM scheduler (``dram.scheduler.impl: frfcfs_bank``) against the pooled FR-FCFS
on the 3.x machine: each workload's whole point (functional run with tracing, then timing) in one warm process, the
two schedulers alternately, best of ``--rounds``; prints CPU seconds, simulated cycles and their ratio.

    python benchmarks/dram_scheduler_cost.py --rounds 3
"""

from __future__ import annotations

import argparse
import time

from ndpgpu.workloads.base import get_workload
from ndpgpu.workloads.runner import run_workload

CASES = [("vecadd", "small"), ("sgemm_naive", "small"), ("tp_jacobi", "small"), ("llc_triad", "small")]
MACHINE = "gtx480-gpgpusim3"
IMPLS = ("frfcfs_bank", "frfcfs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    best: dict[tuple[str, str], tuple[float, int]] = {}
    for workload, scale in CASES:
        for _ in range(args.rounds):
            for impl in IMPLS:
                t0 = time.process_time()
                run = run_workload(get_workload(workload), scale, machine=MACHINE,
                                   overrides={"dram.scheduler.impl": impl})
                cpu = time.process_time() - t0
                cycles = int(run.device.totals().get("kernel", "cycles"))
                if (workload, impl) not in best or cpu < best[(workload, impl)][0]:
                    best[(workload, impl)] = (cpu, cycles)
    print("| workload | per-bank CPU-s | cycles | pooled CPU-s | cycles | CPU ratio | cycle ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for workload, _scale in CASES:
        (a, ca), (b, cb) = best[(workload, IMPLS[0])], best[(workload, IMPLS[1])]
        print(f"| {workload} | {a:.2f} | {ca:,} | {b:.2f} | {cb:,} | {a / b:.2f} | {ca / cb:.2f} |")


if __name__ == "__main__":
    main()
