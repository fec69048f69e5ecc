"""Run workloads of our registry under a GPGPU-Sim 4.0 installation the user provides, and tabulate its counters.

For each kernel of the list (``kernels.py``) the workload runs functionally on ndpgpu and its host side is
captured (``capture.py``): the same PTX (our nvcc, ``sm_75``; debug line information removed), inputs, sizes,
copies and launches. ``player.cpp``, a generic host program linked against GPGPU-Sim's ``libcudart``, replays
them under GPGPU-Sim with a shipped configuration, unmodified. GPGPU-Sim takes the module's PTX from
``$CUDA_INSTALL_PATH/bin/cuobjdump`` and register counts from ``ptxas``: this script points
``CUDA_INSTALL_PATH`` at a folder of two small stand-ins of its own, a ``cuobjdump`` that hands over the
captured PTX and a ``ptxas`` that runs the given ptxas for ``sm_75`` (the target our timing takes its register
counts from; a current ptxas has no ``sm_20``).

    python benchmarks/gpgpusim/run_gpgpusim.py --gpgpusim-root /path/to/gpgpu-sim_distribution \
        --config SM2_GTX480 --ptxas /usr/local/cuda/bin/ptxas --work /tmp/gs --out benchmarks/gpgpusim/reference.csv

Nothing of GPGPU-Sim is built or copied here; see README.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from capture import capture, write_capture  # noqa: E402
from kernels import Kernel, select, write_rows  # noqa: E402
from parse_log import failure, field_order, parse  # noqa: E402

NUM_SMS = {"SM2_GTX480": 15, "SM7_QV100": 80}  # -gpgpu_n_clusters x -gpgpu_n_cores_per_cluster

# ``--values 3.2.2``: GPGPU-Sim 4.0 given, on SM2_GTX480, every value in which GPGPU-Sim 3.2.2's GTX480
# configuration (configs/GTX480/gpgpusim.config at commit 24f29469, "version 3.2.2") differs from 4.0's and which
# 4.0 has an option for: the L1D and L2 geometry, policies and MSHRs (3.2.2's lines 50 and 58: a linear set index,
# no sectors, the L2's write-allocate 'W'), no L1 latency queue beyond one cycle and 3-cycle shared loads (3.2.2
# has no such options; 4.0's defaults), 3.2.2's default partition queues (8:8:8:8), no copies into the L2, its
# FR-FCFS queue (line 94), its L1I and constant-cache MSHRs ('A', lines 61 and 63) and its bank groups (the bank
# index's high bits, dram.cc:75). What 4.0 changed without an option cannot be set back.
VALUES = {
    "3.2.2": [
        "-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:L,A:32:8,8",
        "-gpgpu_l1_latency 1",
        "-gpgpu_smem_latency 3",
        "-gpgpu_cache:dl2 N:64:128:8,L:B:m:W:L,A:32:4,4:0,32",
        "-gpgpu_dram_partition_queues 8:8:8:8",
        "-gpgpu_perf_sim_memcpy 0",
        "-gpgpu_frfcfs_dram_sched_queue_size 16",
        "-gpgpu_cache:il1 N:4:128:4,L:R:f:N:L,A:2:32,4",
        "-gpgpu_const_cache:l1 N:64:64:2,L:R:f:N:L,A:2:32,4",
        "-dram_bnkgrp_indexing_policy 0",
    ],
}

CUOBJDUMP_SHIM = """#!/bin/sh
# stand-in for cuobjdump: lists and extracts the one PTX file captured for this run ($NDPGPU_GS_PTX)
case "$1" in
  -lptx) echo "PTX file    1: ndpgpu.1.sm_75.ptx"; exit 0;;
  -xptx) cp "$NDPGPU_GS_PTX" "$2"; exit $?;;
  *) echo "cuobjdump stand-in: unsupported $*" >&2; exit 1;;
esac
"""

PTXAS_SHIM = """#!/bin/sh
# stand-in for ptxas: the given ptxas ($NDPGPU_GS_PTXAS) for sm_75, its -v report in the older format
args=""
for a in "$@"; do
  case "$a" in
    --gpu-name=sm_*) args="$args --gpu-name=sm_75";;
    *) args="$args $a";;
  esac
done
"$NDPGPU_GS_PTXAS" $args 2>&1 1>/dev/null | sed -E -e 's/, used [0-9]+ barriers//' -e '/Compile time/d' >&2
"""


def find_lib(root: Path) -> Path:
    libs = sorted(root.glob("lib/*/*/release/libcudart.so*")) + sorted(root.glob("lib/**/libcudart.so*"))
    if not libs:
        raise SystemExit(f"no libcudart.so under {root}/lib: build GPGPU-Sim first (see README.md)")
    return libs[0].parent


def prepare_tools(work: Path, ptxas: str) -> Path:
    tools = work / "tools"
    (tools / "bin").mkdir(parents=True, exist_ok=True)
    for name, text in (("cuobjdump", CUOBJDUMP_SHIM), ("ptxas", PTXAS_SHIM)):
        p = tools / "bin" / name
        p.write_text(text)
        p.chmod(0o755)
    if not Path(ptxas).exists():
        raise SystemExit(f"--ptxas {ptxas} does not exist")
    return tools


def build_player(work: Path, libdir: Path, link_cudart: str) -> Path:
    """Compile the host program as a CUDA application is: linked against the CUDA runtime's
    ``libcudart.so.11.0`` (GPGPU-Sim reads the application's CUDA major version from that name), and run
    with GPGPU-Sim's library of the same name found first (its ``lib`` folder on the run path)."""
    exe = work / "player"
    src = HERE / "player.cpp"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        subprocess.run(["g++", "-O2", "-std=c++17", str(src), "-o", str(exe), link_cudart,
                        f"-Wl,-rpath,{libdir}"], check=True)
    return exe


def run_one(k: Kernel, args: argparse.Namespace, libdir: Path, tools: Path, player: Path) -> dict:
    rundir = Path(args.work) / (args.config + (f"+{args.tag}" if args.tag else "")) / k.key
    if rundir.exists():
        shutil.rmtree(rundir)
    c = capture(k.workload, k.scale, k.params, num_sms=NUM_SMS.get(args.config, 15))
    write_capture(c, rundir)
    cfg = Path(args.gpgpusim_root) / "configs" / "tested-cfgs" / args.config
    for f in cfg.iterdir():
        shutil.copy(f, rundir / f.name)
    extra = ([] if args.power else ["-power_simulation_enabled 0"]) + VALUES.get(args.values, []) + list(args.option)
    if extra:  # GPUWattch observes the run and changes no timing (its set-up crashes on some hosts)
        with (rundir / "gpgpusim.config").open("a") as f:
            f.write("\n" + "\n".join(extra) + "\n")
    env = dict(os.environ, CUDA_INSTALL_PATH=str(tools), PTXAS_CUDA_INSTALL_PATH=str(tools),
               NDPGPU_GS_PTX=str(rundir / "kernel.ptx"), NDPGPU_GS_PTXAS=args.ptxas,
               LD_LIBRARY_PATH=f"{libdir}:{os.environ.get('LD_LIBRARY_PATH', '')}")
    # the values GPGPU-Sim's own environment script sets for CUDA 6 and later (PTX files listed by cuobjdump)
    env.update(PTX_SIM_USE_PTX_FILE="1.ptx", PTX_SIM_KERNELFILE="_1.ptx", CUOBJDUMP_SIM_FILE="jj")
    t0 = time.time()
    with open(rundir / "gpgpusim.log", "w") as log:
        proc = subprocess.run([str(player), "script.txt", "data.bin"], cwd=rundir, env=env, stdout=log,
                              stderr=subprocess.STDOUT, timeout=args.timeout)
    wall = time.time() - t0
    text = (rundir / "gpgpusim.log").read_text(errors="replace")
    row = {"key": k.key, "workload": k.workload, "scale": k.scale, "params": json.dumps(k.params or {}),
           "category": k.category, "set": k.set, "launches": c.launches, "ndpgpu_thread_insn": c.thread_instructions,
           "rc": proc.returncode, "wall_s": round(wall, 1), "gpgpusim": args.version,
           "config": f"configs/tested-cfgs/{args.config}/gpgpusim.config"
                     + ("".join(f" + {o}" for o in extra) if extra else " (unmodified)"),
           "command": "player script.txt data.bin (benchmarks/gpgpusim/run_gpgpusim.py)"}
    row.update(parse(text))
    if proc.returncode != 0 or "player: " not in text:
        row["error"] = failure(text, proc.returncode)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpgpusim-root", required=True, help="a built gpgpu-sim_distribution checkout")
    ap.add_argument("--config", default="SM2_GTX480", help="a folder of configs/tested-cfgs")
    ap.add_argument("--version", default="GPGPU-Sim 4.0.1", help="recorded in each row")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--link-cudart", required=True,
                    help="the CUDA 11 runtime's libcudart.so.11.0 to link against (e.g. from the "
                         "nvidia-cuda-runtime-cu11 wheel); GPGPU-Sim's library replaces it at run time")
    ap.add_argument("--work", default="/tmp/ndpgpu-gpgpusim")
    ap.add_argument("--out", default=str(HERE / "reference.csv"))
    ap.add_argument("--only", nargs="*", help="kernel keys (default: the list for --config)")
    ap.add_argument("--power", action="store_true", help="keep GPUWattch on where the config turns it on")
    ap.add_argument("--option", action="append", default=[],
                    help="a GPGPU-Sim option line appended to the config (a diagnostic run; recorded per row)")
    ap.add_argument("--values", choices=sorted(VALUES), help="another version's configuration values, given to "
                    "GPGPU-Sim 4.0 as options (see VALUES); --option lines come after them")
    ap.add_argument("--tag", default="", help="names the work folder of a diagnostic run")
    ap.add_argument("--shard", help="i/n: run every n-th kernel from the i-th (several processes)")
    ap.add_argument("--timeout", type=int, default=1800)
    args = ap.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    libdir = find_lib(Path(args.gpgpusim_root))
    tools = prepare_tools(work, args.ptxas)
    player = build_player(work, libdir, args.link_cudart)
    out = Path(args.out)
    rows: dict[str, dict] = {}
    if out.exists():
        with out.open() as f:
            rows = {r["key"]: r for r in csv.DictReader(f)}
    for k in select(args.config, args.only, args.shard):
        print(f"[{time.strftime('%H:%M:%S')}] {args.config} {k.key} ...", flush=True)
        try:
            row = run_one(k, args, libdir, tools, player)
        except Exception as exc:  # one kernel's failure is a row, not the end of the table
            row = {"key": k.key, "workload": k.workload, "scale": k.scale, "error": repr(exc)[:200]}
        print(f"    cycles={row.get('cycles')} insn={row.get('thread_insn')} wall={row.get('wall_s')} "
              f"{row.get('error', '')}", flush=True)
        rows[k.key] = row
        write_rows(out, rows, sorted({f for r in rows.values() for f in r}, key=field_order))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
