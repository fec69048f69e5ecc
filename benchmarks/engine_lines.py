"""Where the timing engine's time goes, per source line: Linux ``perf`` samples mapped to the engine's lines.

Run: ``python benchmarks/engine_lines.py [--cases 0,2,4] [--rounds 1] [--top 60]`` (needs ``perf``, ``nm`` and
``readelf``; ``perf_event_paranoid`` at most 2). The cases are those of ``benchmarks/timing.py``.

How: the script copies this checkout's ``src/ndpgpu`` to a temporary directory and compiles the copy's timing
engine with line tables only (numba's ``debug=True`` with its directives-only mode: no bounds checks, no
extended lifetimes and, unlike full debug info, no ``noinline``, so the code is the engine's own). A child
process records each case's traces, times them ``--rounds`` times after a warm-up under ``perf record``, and at
exit writes every compiled library's object code and its functions' load addresses. Each sample's address is
then mapped to a function and an offset in its object, and the offset to a source line through the object's
line table (``readelf --debug-dump=decodedline``). Lines of functions inlined into others are attributed to
the inlined function's own file and line; the entry and argument handling of a call show on the line of the
call and on the callee's first lines. The package itself is not changed.

Printed: the share of the engine's samples per source line (the top ``--top``), and per file.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
LAYOUT = Path("ndpgpu/timing/engine/layout.py")
ENGINE_NAME = re.compile(r"ndpgpu(6timing|10mechanisms)")  # mangled package paths of the functions counted

LINE_TABLES = '''
from numba.core import cpu as _lines_cpu

_lines_finalize = _lines_cpu.CPUTargetOptions.finalize


def _lines_only(self, flags, options):
    """engine_lines.py's copy only: debug line tables without full debug info's noinline."""
    _lines_finalize(self, flags, options)
    flags.dbg_directives_only = True


_lines_cpu.CPUTargetOptions.finalize = _lines_only
_LINES = dict(debug=True, boundscheck=False, _dbg_extend_lifetimes=False)
'''


def instrument(dst: Path) -> None:
    """Copy ``src/ndpgpu`` under ``dst`` (without numba caches) and compile its timing engine with line tables."""
    shutil.copytree(ROOT / "src" / "ndpgpu", dst / "ndpgpu", ignore=shutil.ignore_patterns("__pycache__"))
    f = dst / LAYOUT
    text = f.read_text()
    first = "njit = nb.njit("
    if text.count(first) != 1:
        raise SystemExit(f"engine_lines: {LAYOUT} no longer defines 'njit = nb.njit(' once; update instrument()")
    text = text.replace(first, LINE_TABLES + "\n" + first)
    text, n = re.subn(r"= nb\.njit\(cache=True, ", "= nb.njit(cache=True, **_LINES, ", text)
    if n < 2:
        raise SystemExit(f"engine_lines: {LAYOUT}: expected the engine's njit decorators, found {n}")
    f.write_text(text)


def child(cases: list[int], rounds: int, out: Path) -> None:
    """In the copy, under perf: time the cases, then write each compiled library's object and symbol addresses."""
    import gc

    import numba

    sys.path.insert(0, str(HERE.parent))
    from timing import CASES, record  # benchmarks/timing.py

    from ndpgpu.mechanisms.policy import make_policy
    from ndpgpu.timing import TimingSession

    for i in cases:
        name, params, machine, _, *pol = CASES[i]
        _p, _m, dev, _fs = record(name, params)
        for _round in range(rounds + 1):  # the first loads the engine and touches memory
            session = TimingSession(machine)
            if pol:
                allocs = [{"addr": a.address, "bytes": a.size} for a in dev.memory.allocations]
                make_policy(pol[0]).prepare(session, SimpleNamespace(workload=name, allocations=allocs), dev.traces)
            for trace in dev.traces:
                session.run_launch(trace)
    libs = {}
    for o in gc.get_objects():
        if isinstance(o, numba.core.dispatcher.Dispatcher):
            for cres in o.overloads.values():
                libs[id(cres.library)] = cres.library
    symbols = []
    for n, lib in enumerate(libs.values()):
        try:
            obj = lib._get_compiled_object()
        except Exception:  # noqa: BLE001  (a library not finalized: nothing of it ran)
            continue
        path = out / f"lib{n}.o"
        path.write_bytes(obj)
        for line in subprocess.run(["nm", "-S", "--defined-only", str(path)], capture_output=True,
                                   text=True).stdout.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "tT":
                addr = lib.get_pointer_to_function(parts[3])
                if addr:
                    symbols.append([addr, int(parts[1], 16), n, int(parts[0], 16), parts[3]])
    (out / "symbols.json").write_text(json.dumps(symbols))


def line_table(obj: Path) -> tuple[list[int], list[str]]:
    """(sorted offsets, their 'file:line') from an object's decoded line table."""
    rows = []
    txt = subprocess.run(["readelf", "-W", "--debug-dump=decodedline", str(obj)], capture_output=True,
                         text=True).stdout
    for row in txt.splitlines():
        m = re.match(r"^(\S+\.py)\s+(\d+)\s+(0x[0-9a-f]+|0)\s", row)
        if m:
            rows.append((int(m.group(3), 16), f"{m.group(1)}:{m.group(2)}"))
    rows.sort()
    return [r[0] for r in rows], [r[1] for r in rows]


def analyse(work: Path, src: Path, top: int) -> None:
    symbols = sorted(json.loads((work / "symbols.json").read_text()))
    starts = [s[0] for s in symbols]
    ips = subprocess.run(["perf", "script", "-i", str(work / "perf.data"), "-F", "ip"], capture_output=True,
                         text=True).stdout.split()
    per_lib: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    n_jit = 0
    n_other = 0  # compiled code outside the timing engine and the mechanisms (the functional recording)
    for x in ips:
        ip = int(x, 16)
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip < symbols[i][0] + symbols[i][1]:
            addr, _size, lib, offset, name = symbols[i]
            if ENGINE_NAME.search(name) is None:
                n_other += 1
                continue
            per_lib[lib][offset + ip - addr] += 1
            n_jit += 1
    lines: collections.Counter = collections.Counter()
    for lib, offsets in per_lib.items():
        at, names = line_table(work / f"lib{lib}.o")
        for off, k in offsets.items():
            j = bisect.bisect_right(at, off) - 1
            lines[names[j] if j >= 0 else "?"] += k
    print(f"{len(ips):,} samples: {n_jit:,} in the compiled timing engine and mechanisms (the shares below), "
          f"{n_other:,} in other compiled code (the cases' functional recording)")
    print("| share | line | source |\n| --- | --- | --- |")
    engine = src / "ndpgpu" / "timing" / "engine"
    for where, k in lines.most_common(top):
        fname, _, ln = where.partition(":")
        text = ""
        f = engine / fname
        if f.exists() and ln.isdigit() and int(ln) > 0:
            text = f.read_text().splitlines()[int(ln) - 1].strip()
        print(f"| {100 * k / max(n_jit, 1):.1f}% | {where} | `{text[:100]}` |")
    files: collections.Counter = collections.Counter()
    for where, k in lines.items():
        files[where.partition(":")[0]] += k
    print("\nper file: " + ", ".join(f"{f} {100 * k / max(n_jit, 1):.1f}%" for f, k in files.most_common()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="0,2,4,11,17", help="benchmarks/timing.py case indices")
    ap.add_argument("--rounds", type=int, default=1, help="timed rounds per case after a warm-up")
    ap.add_argument("--top", type=int, default=60, help="lines to print")
    ap.add_argument("--keep", type=Path, help="keep the copy, the samples and the objects here")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args()
    cases = [int(c) for c in a.cases.split(",")]
    if a.child is not None:
        child(cases, a.rounds, a.child)
        return
    for tool in ("perf", "nm", "readelf"):
        if shutil.which(tool) is None:
            raise SystemExit(f"engine_lines: needs {tool!r} on the PATH")
    work = a.keep or Path(tempfile.mkdtemp(prefix="engine-lines-"))
    work.mkdir(parents=True, exist_ok=True)
    src = work / "src"
    if src.exists():
        shutil.rmtree(src)
    instrument(src)
    env = dict(os.environ, PYTHONPATH=str(src))
    cmd = ["perf", "record", "-q", "-F", "2000", "-o", str(work / "perf.data"), sys.executable, str(HERE),
           "--cases", a.cases, "--rounds", str(a.rounds), "--child", str(work)]
    subprocess.run(cmd, env=env, check=True)
    analyse(work, src, a.top)
    if a.keep is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
