"""MPU's timing speed beside MPU-Sim's: warp-instructions simulated per CPU-second, warm.

Run: ``python benchmarks/mpu_speed.py [--repeat N] [--policy mpu:annotation]``. Each kernel runs on machine
``mpu`` at the size MPU-Sim's examples use (vector add of 64K elements, GEMV of 128 x 512; BLUR at our
`tiny` image, MPU-Sim's size for it not being recorded here). A first round compiles (nvcc, both numba engines)
and is reported apart; then each kernel is run ``--repeat`` times (functional run with tracing, then timing)
and the best timing round counts. The figure is warp-instructions / CPU-seconds of the timing part (the
functional run is reported beside it).

MPU-Sim's figures were measured on this kind of machine (2 cores, warm, Python 3.8): vector add 64K, 31,232
warp-instructions in 116 CPU-s; GEMV 128 x 512, 51,200 in 246 CPU-s; that is 210-350 warp-instructions per
CPU-second.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import run_case  # noqa: E402  (the shared benchmark round)

CASES = [
    # (our workload, its parameters, MPU-Sim's kernel, MPU-Sim's warp-instructions, MPU-Sim's CPU-seconds)
    ("mpu_axpy", {"n": 1 << 16, "grid": 512}, "vectoradd 64K", 31_232, 116.0),
    ("mpu_gemv", {"nrows": 128, "ncols": 512, "grid": 128}, "gemv 128x512", 51_200, 246.0),
    ("mpu_blur", "tiny", "blur (size not recorded)", None, None),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--policy", default="mpu:annotation")
    args = ap.parse_args()
    t0 = time.perf_counter()
    for name, params, *_ in CASES:
        run_case(name, params, "mpu", args.policy)
    warm = time.perf_counter() - t0
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}; machine mpu, "
          f"{args.policy}; first round (nvcc and numba compilation included) {warm:.1f} s; best of {args.repeat}")
    print("| kernel | ours: warp-instr | functional s | timing CPU-s | warp-instr / CPU-s | MPU-Sim kernel | "
          "MPU-Sim warp-instr | MPU-Sim CPU-s | MPU-Sim warp-instr / CPU-s | ours / MPU-Sim |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, params, sim_name, sim_wi, sim_s in CASES:
        best = min((run_case(name, params, "mpu", args.policy) for _ in range(args.repeat)),
                   key=lambda r: r["timing_cpu_s"])
        rate = best["warp_instructions"] / best["timing_cpu_s"]
        sim_rate = sim_wi / sim_s if sim_wi and sim_s else None
        size = params if isinstance(params, str) else ", ".join(f"{k}={v}" for k, v in params.items())
        print(f"| {name} ({size}) | {best['warp_instructions']:,} | {best['functional_s']:.3f} | "
              f"{best['timing_cpu_s']:.3f} | {rate:,.0f} | {sim_name} | {sim_wi or '-'} | {sim_s or '-'} | "
              f"{sim_rate and f'{sim_rate:.0f}' or '-'} | {sim_rate and f'{rate / sim_rate:,.0f}x' or '-'} |")


if __name__ == "__main__":
    main()
