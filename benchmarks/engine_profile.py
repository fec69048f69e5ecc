"""Where the timing engine's time goes, per component: a profile taken with the CPU's cycle counter.

Run: ``python benchmarks/engine_profile.py [--cases 0,2,4] [--keep DIR]``. The cases are those of
``benchmarks/timing.py`` (its ``CASES``, by index). The script copies this checkout's ``src/ndpgpu`` to a
temporary directory (numba's caches and the files' times with it, so only the patched files recompile), adds
cycle-counter reads around every component's tick in the copy, runs the cases there in a child process (each
launch timed twice, the second counted) and prints one table row per case. The package itself is not changed: the
counters are a developer's tool, and reading them costs cycles of its own (about 25 per read).

The figures are CPU reference cycles (``llvm.readcyclecounter``, the TSC on x86) between the reads:

* **loop**: the composing loop's own work (the earliest wake-up over all components, time-series samples);
* **dispatch**, **SM**, **L2**, **network**, **DRAM**: each component's ticks, measured at their call in the loop
  (one call per cycle ticks every due SM, slice or channel), so the call itself (numba passes every array
  argument as several scalars) is counted in it;
* the SM tick's parts, measured inside it: **fills** (replies from the network into the L1, and the mechanism's
  ``sm_tick`` hook), **fetch**, **schedulers** (warp selection and issue), **LD/ST** (the L1 transactions of the
  memory instruction in the LD/ST unit) and **rest** (CTA preloads, the mechanism's ``core_service``, retiring
  warps, the next wake-up); **entry** is the SM ticks less their parts: the call, the loop over the SMs and the
  skipped-cycle stall accounting.

Shares are of the loop plus the components; "cycles/tick" divides a component's cycles by its ticks.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
ENGINE = Path("ndpgpu/timing/engine")

# the comment line before the SM tick's LD/ST section, where the scheduler's share of the tick ends
_LDST_NOTE = ("    # LD/ST unit: the oldest instruction waiting for it (core.mem_queue), then the transactions of its "
              "current\n")
COUNTERS = "PR_LOOP PR_DISP PR_SM PR_L2 PR_NET PR_DRAM PR_FILL PR_FETCH PR_SCHED PR_LDST PR_REST"

RDTSC = '''

from llvmlite import ir as _prof_ir
from numba import types as _prof_types
from numba.core import cgutils as _prof_cg
from numba.extending import intrinsic as _prof_intrinsic


@_prof_intrinsic
def rdtsc(typingctx):
    """The CPU's cycle counter (engine_profile.py's copy only)."""
    def codegen(context, builder, signature, args):
        fnty = _prof_ir.FunctionType(_prof_ir.IntType(64), [])
        return builder.call(_prof_cg.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter"), [])
    return _prof_types.int64(), codegen
'''


def _around(call_start: str, call_end: str, counter: str, indent: str) -> tuple[str, str]:
    """A patch that reads the counter before the call starting ``call_start`` and adds to ``counter`` after
    the line ending ``call_end``."""
    before = (call_start, f"{indent}_a = rdtsc()\n{call_start}")
    return before, (call_end, f"{call_end}\n{indent}g[G_{counter}] += rdtsc() - _a")


def patches() -> list[tuple[str, str, str]]:
    """(file, old text, new text): each old text must occur exactly once in its file."""
    loop = str(ENGINE / "loop.py")
    issue = str(ENGINE / "issue.py")
    layout = str(ENGINE / "layout.py")
    p12 = " " * 12
    p20 = " " * 20
    out: list[tuple[str, str, str]] = [
        (layout, "IT_TRY IT_TX SAMPLE_AT L2_WHY SAMPLE_INSTS L2_OWN FILL_OUT L2_SLEEPERS\n",
         f"IT_TRY IT_TX SAMPLE_AT L2_WHY SAMPLE_INSTS L2_OWN FILL_OUT L2_SLEEPERS {COUNTERS}\n"),
        (layout, 'NG = len(G_NAMES)\n', 'NG = len(G_NAMES)\n' + RDTSC),
        (loop, "    cap = g[G_CAP]\n    while True:\n", "    cap = g[G_CAP]\n    _tl = rdtsc()\n    while True:\n"),
        (loop, "        now = tn\n", "        now = tn\n        g[G_PR_LOOP] += rdtsc() - _tl\n"),
        (loop, "                return ST_CAP\n", "                return ST_CAP\n        _tl = rdtsc()\n"),
    ]
    for (a, b), (c, d) in (
        _around(p12 + "dram_ticks(now", "hitpend, mx)", "PR_DRAM", p12),
        _around(p12 + "l2_ticks(now", "ptype, mx, ufree)", "PR_L2", p12),
        _around(p20 + "if mcfg[MC_ON] != 0:\n", "netd, pbusy, wake, g, nst, kst)", "PR_NET", p20),
        _around(" " * 16 + "dispatch_tick(now", "ctr, smst, pre_start, mx)", "PR_DISP", " " * 16),
    ):
        out += [(loop, a, b), (loop, c, d)]
    out += [
        (loop, p12 + "if cfg[C_CORE_MODEL] != 0:  #", p12 + "_a = rdtsc()\n" + p12 + "if cfg[C_CORE_MODEL] != 0:  #"),
        (loop, "mem, stats)\n            if g[",
         "mem, stats)\n" + p12 + "g[G_PR_SM] += rdtsc() - _a\n            if g["),
        (issue, "    progress = False\n    arrival = INF\n    if cfg[C_HK_SM_TICK] != 0:  # a mechanism may start",
         "    progress = False\n    _p0 = rdtsc()\n    arrival = INF\n    if cfg[C_HK_SM_TICK] != 0:  # a mechanism "
         "may start"),
        (issue, "    if cfg[C_IBUF] > 0 and smt[sm, S_FETCH_WANT] != 0 and fetch_stage(sm, now, k, cfg, clk, seg, pct, "
         "wt, smt, subt,", "    _p1 = rdtsc()\n    g[G_PR_FILL] += _p1 - _p0\n    if cfg[C_IBUF] > 0 and smt[sm, "
         "S_FETCH_WANT] != 0 and fetch_stage(sm, now, k, cfg, clk, seg, pct, wt, smt, subt,"),
        (issue, "    xt = (txl, txs, l1t, mapd, mrange, 0)\n",
         "    _p2 = rdtsc()\n    g[G_PR_FETCH] += _p2 - _p1\n    xt = (txl, txs, l1t, mapd, mrange, 0)\n"),
        (issue, _LDST_NOTE, "    _p3 = rdtsc()\n    g[G_PR_SCHED] += _p3 - _p2\n" + _LDST_NOTE),
        (issue, "    # CTA preloads (one line per cycle)\n",
         "    _p4 = rdtsc()\n    g[G_PR_LDST] += _p4 - _p3\n    # CTA preloads (one line per cycle)\n"),
        (issue, "        g[G_LAST_PROGRESS] = now\n    wake[sm] = w\n\n\n@njit\ndef core_model_tick",
         "        g[G_LAST_PROGRESS] = now\n    wake[sm] = w\n    g[G_PR_REST] += rdtsc() - _p4\n\n\n"
         "@njit\ndef core_model_tick"),
    ]
    return out


def instrument(dst: Path) -> None:
    """Copy ``src/ndpgpu`` (caches and file times kept) under ``dst`` and apply :func:`patches` to the copy."""
    shutil.copytree(ROOT / "src" / "ndpgpu", dst / "ndpgpu", copy_function=shutil.copy2)
    for rel, old, new in patches():
        f = dst / rel
        text = f.read_text()
        n = text.count(old)
        if n != 1:
            raise SystemExit(f"engine_profile: {rel}: the text to patch occurs {n} times, not once "
                             f"(the engine changed; update patches()):\n{old}")
        f.write_text(text.replace(old, new))


def child(cases: list[int]) -> None:
    """Run in the instrumented copy: time each case and print its counters as one JSON line."""
    sys.path.insert(0, str(HERE.parent))
    from timing import CASES, record  # benchmarks/timing.py

    from ndpgpu.mechanisms.policy import make_policy
    from ndpgpu.timing import TimingSession
    from ndpgpu.timing.engine import layout as L

    names = ["IT_LOOP", "IT_SM", "IT_L2", "IT_DRAM", "IT_NET", *COUNTERS.split()]
    out = {}
    for i in cases:
        name, params, machine, _, *pol = CASES[i]
        _p, _m, dev, _fs = record(name, params)
        for _round in range(2):  # the first loads the engine and touches memory
            session = TimingSession(machine)
            if pol:
                allocs = [{"addr": a.address, "bytes": a.size} for a in dev.memory.allocations]
                make_policy(pol[0]).prepare(session, SimpleNamespace(workload=name, allocations=allocs), dev.traces)
            g = session.state.g
            before = {n: int(g[getattr(L, "G_" + n)]) for n in names}
            t0 = time.process_time()
            for trace in dev.traces:
                session.run_launch(trace)
            cpu = time.process_time() - t0
        tot = session.totals()
        out[i] = {"label": f"{name} {machine}" + (f" {pol[0]}" if pol else ""), "cpu_s": cpu,
                  "warp_instructions": int(tot.c("WARP_INSTS")), "cycles": int(tot.cycles),
                  **{n: int(g[getattr(L, "G_" + n)]) - before[n] for n in names}}
    print(json.dumps(out))


def table(rows: dict[str, dict]) -> str:
    """The markdown table of the children's rows."""
    head = ("| case | CPU s | warp-instr/s | loop | dispatch | SM (entry / fills / fetch / schedulers / LD/ST / rest) "
            "| L2 | network | DRAM | cycles/tick SM, L2, net, DRAM |")
    lines = [head, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows.values():
        total = sum(r[k] for k in ("PR_LOOP", "PR_DISP", "PR_SM", "PR_L2", "PR_NET", "PR_DRAM")) or 1
        parts = [r[k] for k in ("PR_FILL", "PR_FETCH", "PR_SCHED", "PR_LDST", "PR_REST")]
        entry = r["PR_SM"] - sum(parts)

        def pct(x: int, total: int = total) -> str:
            return f"{100 * x / total:.1f}%"

        sm = f"{pct(r['PR_SM'])} ({' / '.join(pct(x) for x in [entry, *parts])})"
        per = ", ".join(f"{r[c] / r[i]:,.0f}" if r[i] else "-" for c, i in
                        (("PR_SM", "IT_SM"), ("PR_L2", "IT_L2"), ("PR_NET", "IT_NET"), ("PR_DRAM", "IT_DRAM")))
        lines.append(f"| {r['label']} | {r['cpu_s']:.2f} | {r['warp_instructions'] / r['cpu_s']:,.0f} | "
                     f"{pct(r['PR_LOOP'])} | {pct(r['PR_DISP'])} | {sm} | {pct(r['PR_L2'])} | {pct(r['PR_NET'])} | "
                     f"{pct(r['PR_DRAM'])} | {per} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="0,1,2,4,7,11,17", help="indices into benchmarks/timing.py's CASES")
    ap.add_argument("--keep", type=Path, help="instrument into this directory and keep it (a second run reuses its "
                    "compiled engine)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    cases = [int(x) for x in args.cases.split(",")]
    if args.child:
        return child(cases)
    tmp = None
    if args.keep is not None:
        dst = args.keep
        if not (dst / "ndpgpu").exists():
            instrument(dst)
    else:
        tmp = tempfile.TemporaryDirectory()
        dst = Path(tmp.name)
        instrument(dst)
    try:
        env = dict(os.environ, PYTHONPATH=str(dst))
        res = subprocess.run([sys.executable, str(HERE), "--child", "--cases", args.cases], env=env,
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit(res.stderr[-4000:])
        print(table(json.loads(res.stdout.strip().splitlines()[-1])))
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    main()
