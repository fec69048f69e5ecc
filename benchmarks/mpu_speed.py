"""MPU's speed beside MPU-Sim's, like for like: the whole-process CPU time of each simulator on the same PTX at
the same size.

Run: ``python benchmarks/mpu_speed.py --mpusim DIR --mpusim-python PY [--work DIR] [--repeat N]``.

``DIR`` is a checkout of MPU-Sim (the authors' simulator, github.com/GD06/MPU-Sim; never a dependency of
ndpgpu) and ``PY`` an interpreter with its requirements (simpy, numpy, networkx). For each case:

1. nvcc compiles the kernel source of MPU-Sim's benchmark to PTX with ``-Xcicc -O1`` (no loop unrolling: the
   unrolled loops of nvcc 13 use opcodes MPU-Sim's PTX reader lacks), and nvcc 13's ``$L__BB`` labels are
   renamed ``BB`` for MPU-Sim's reader (which takes labels that start with ``BB``); ndpgpu reads the same PTX.
2. MPU-Sim: ``program/ptx2exec_cli.py`` turns the PTX into its program (not timed, like our nvcc cache), then
   the benchmark's own ``*_sim.py`` runs it at the size; its CPU time (user + system of the process) is counted.
3. ndpgpu: a child of this script (``--ours``) imports ndpgpu, loads the PTX, runs the kernel functionally with
   tracing, attaches MPU's hardware (``mpu:annotation``) to a session on machine ``mpu`` and times every launch:
   the child's whole-process CPU time is counted (interpreter start, imports, functional run, set-up and
   timing). One child runs first to warm nvcc's and numba's on-disk caches; it is not counted. Best of
   ``--repeat``.

Both sides use MPU-Sim's launch (512 blocks of 128 threads, blocks to cores round robin) and random inputs.
Prints a markdown table: warp-instructions, cycles, CPU seconds and warp-instructions per CPU-second of each.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# case -> (MPU-Sim benchmark folder, its kernel file, the size's arguments to its *_sim.py, our launch's sizes)
CASES: dict[str, tuple[str, str, list[str], dict[str, int]]] = {
    "vectoradd 64K": ("vectoradd", "vectoradd_kernel.cu", ["--vector_length", "65536"], {"n": 65536}),
    "gemv 128 x 512": ("gemv", "gemv_kernel.cu", ["--num_rows", "128", "--num_cols", "512"],
                       {"rows": 128, "cols": 512}),
}
BLOCKS, THREADS = 512, 128


def child_cpu(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    """Run ``cmd``; (its CPU seconds, user + system, from the kernel's accounting of that process; its stdout)."""
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{out[-3000:]}")
    return usage.ru_utime + usage.ru_stime, out


def make_ptx(src: Path, work: Path) -> Path:
    """MPU-Sim's kernel source -> PTX both simulators read (see the module's step 1)."""
    raw = work / (src.stem + ".nvcc.ptx")
    subprocess.run(["nvcc", "-O2", "--ptx", "-Xcicc", "-O1", "-I", str(src.parent), "-o", str(raw), str(src)],
                   check=True)
    ptx = work / (src.stem + ".ptx")
    ptx.write_text(raw.read_text().replace("$L__BB", "BB"))
    return ptx


def ours(case: str, ptx: Path) -> None:
    """Child: the kernel through ndpgpu (functional with tracing, then MPU's timing); prints its counts as JSON."""
    import numpy as np

    import ndpgpu
    from ndpgpu.mechanisms.mpu.unit import MpuHardware
    from ndpgpu.timing.session import TimingSession

    text = ptx.read_text()
    module = ndpgpu.RawModule(ptx=text)
    (entry,) = re.findall(r"\.entry\s+(\w+)", text)
    fn = module.get_function(entry)
    size = CASES[case][3]
    rng = np.random.default_rng(1)
    with ndpgpu.Device(trace=True) as dev:
        if "n" in size:
            n = size["n"]
            a, b = (ndpgpu.asarray(rng.random(n, dtype=np.float32)) for _ in range(2))
            c = ndpgpu.zeros(n, np.float32)
            fn(BLOCKS, THREADS, (a, b, c, np.int32(n)))
            ok = bool(np.array_equal(c.get(), a.get() + b.get()))
        else:
            rows, cols = size["rows"], size["cols"]
            m = rng.random(rows * cols, dtype=np.float32)  # MPU-Sim's layout: 128-column panels, row-major within
            x = rng.random(cols, dtype=np.float32)
            y = ndpgpu.zeros(rows, np.float32)
            fn(BLOCKS, THREADS, (ndpgpu.asarray(m), ndpgpu.asarray(x), y, np.int32(rows), np.int32(cols)))
            dense = m.reshape(cols // THREADS, rows, THREADS).transpose(1, 0, 2).reshape(rows, cols)
            ok = bool(np.allclose(y.get(), dense.astype(np.float64) @ x, rtol=1e-4))
    session = TimingSession("mpu")
    session.attach(MpuHardware(module, "annotation"))
    stats = [session.run_launch(tr) for tr in dev.traces]
    print(json.dumps({"ok": ok, "warp_insts": int(sum(s.c("WARP_INSTS") for s in stats)),
                      "cycles": int(sum(s.cycles for s in stats))}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpusim", type=Path, help="a checkout of MPU-Sim (outside this repository)")
    ap.add_argument("--mpusim-python", default=sys.executable, help="an interpreter with simpy, numpy, networkx")
    ap.add_argument("--work", type=Path, default=None, help="folder for the PTX and MPU-Sim's programs")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", action="append", help="a case name (default: all)")
    ap.add_argument("--ours", nargs=2, metavar=("CASE", "PTX"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ours:
        ours(args.ours[0], Path(args.ours[1]))
        return
    if args.mpusim is None:
        ap.error("--mpusim DIR is required")
    unknown = [c for c in args.only or () if c not in CASES]
    if unknown:
        ap.error(f"--only {', '.join(map(repr, unknown))}: not a case; cases: {', '.join(map(repr, CASES))}")
    sim = args.mpusim.resolve()
    work = (args.work or Path(tempfile.mkdtemp(prefix="mpu-speed-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    sim_env = {**os.environ, "PYTHONPATH": str(sim)}
    our_env = dict(os.environ)
    rows = []
    for case, (folder, kernel, sim_args, _) in CASES.items():
        if args.only and case not in args.only:
            continue
        ptx = make_ptx(sim / "benchmark" / folder / kernel, work)
        subprocess.run([args.mpusim_python, str(sim / "program" / "ptx2exec_cli.py"), str(ptx)], env=sim_env,
                       cwd=work, check=True, stdout=subprocess.DEVNULL)
        prog = work / f"{ptx.stem}_0.prog"
        our_cmd = [sys.executable, str(Path(__file__).resolve()), "--ours", case, str(ptx)]
        child_cpu(our_cmd, our_env, work)  # warm nvcc's and numba's caches (not counted)
        best: tuple[float, dict[str, Any]] | None = None
        for _ in range(args.repeat):
            cpu, out = child_cpu(our_cmd, our_env, work)
            got = json.loads(out.strip().splitlines()[-1])
            if best is None or cpu < best[0]:
                best = (cpu, got)
        assert best is not None
        sim_cpu, sim_out = child_cpu([args.mpusim_python, str(sim / "benchmark" / folder / f"{folder}_sim.py"),
                                      str(prog), *sim_args], sim_env, work)
        m = re.search(r"Simulation finished: (\d+) cycles", sim_out)
        rows.append((case, best, sim_cpu, int(m.group(1)) if m else None))
    print(f"# {platform.node()}: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; ndpgpu on machine "
          f"mpu, mpu:annotation, caches warm (nvcc, numba), best of {args.repeat}; MPU-Sim its default config")
    print("| kernel | ndpgpu warp-instr | ndpgpu cycles | ndpgpu CPU-s (whole process) | ndpgpu warp-instr / CPU-s "
          "| MPU-Sim cycles | MPU-Sim CPU-s (whole process) | MPU-Sim warp-instr / CPU-s (ndpgpu's count) | "
          "CPU-time ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case, (cpu, got), sim_cpu, sim_cycles in rows:
        wi = got["warp_insts"]
        print(f"| {case}{'' if got['ok'] else ' (output WRONG)'} | {wi:,} | {got['cycles']:,} | {cpu:.2f} | "
              f"{wi / cpu:,.0f} | {sim_cycles if sim_cycles is not None else '-'} | {sim_cpu:.1f} | "
              f"{wi / sim_cpu:,.0f} | {sim_cpu / cpu:,.0f}x |")


if __name__ == "__main__":
    main()
