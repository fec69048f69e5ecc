"""``ndpgpu analyze teleport SOURCE``: TELEPORT's precalculability analysis of every kernel of a .cu/.ptx file
or workload (or the paper's abbreviation of one, e.g. BFS).

Per kernel: each global read (PTX line, array, class, ``blockIdx`` degree, address), the counts per class,
and each precalculable index's per-block bounds with ``threadIdx`` at its extremes. With ``--grid`` and
``--block`` (and ``--param name=value`` for scalar arguments) it also prints the preload table the launch
would get: one row per region with the ``cudaSetCTATracker`` arguments (Eqs. 2/3), emitted automatically.
With ``--source``: the reads by CUDA source line, in the form of the paper's Table 1 (:mod:`.source`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ...analysis.affine import Affine, Launch
from ..analyze import AnalyzeError, kernel_programs
from ..analyze import load_module as _load_module
from .classify import ReadIndex, classify_reads, count_classes
from .regions import build_table


def add_parser(subparsers: Any) -> None:
    """Add ``teleport`` to the ``analyze`` subcommands."""
    p = subparsers.add_parser(
        "teleport", help="TELEPORT's precalculability analysis (global read indexes, preload table)",
        description="TELEPORT's static analysis (seed 002, Sec. 2.1/3.1): classify every global read's index "
                    "and emit the preload table of Eqs. 2/3.")
    p.add_argument("source", metavar="SOURCE", help="a .cu or .ptx file, or a registered workload (or TELEPORT's "
                   "abbreviation such as BFS)")
    p.add_argument("--kernel", action="append", default=[], help="only this kernel (repeatable)")
    p.add_argument("--grid", help="launch grid for the preload table, e.g. 64 or 8,8")
    p.add_argument("--block", help="launch block for the preload table, e.g. 512 or 16,16")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a scalar argument's value (PTX name or its index: 3=1024)")
    p.add_argument("--source", dest="source_view", action="store_true",
                   help="the reads by CUDA source line (from -lineinfo's .loc directives), as the paper's Table 1")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=analyze_teleport_main)


def load_module(source: str):
    from ...workloads.teleport import TELEPORT_WORKLOADS

    return _load_module(source, (), None, TELEPORT_WORKLOADS)


def _dims(text: str | None, what: str) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        dims = tuple(int(x) for x in text.split(","))
    except ValueError as exc:
        raise AnalyzeError(f"--{what} {text!r}: expected integers separated by commas, e.g. 16,16") from exc
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise AnalyzeError(f"--{what} {text!r}: one to three positive integers")
    return dims


def per_block_bounds(r: ReadIndex) -> tuple[Affine, Affine] | None:
    """``(min, max)`` offsets of a precalculable index for one block, symbolic in blockDim: ``threadIdx``
    at 0 and at ``blockDim - 1`` (for positive coefficients)."""
    off = r.offset
    if off is None or not r.usable:
        return None
    lo = off.substitute({f"%tid.{d}": 0 for d in "xyz"})
    hi = off.substitute({f"%tid.{d}": Affine.atom(f"%ntid.{d}") - 1 for d in "xyz"})
    return (lo, hi) if lo is not None and hi is not None else None


def _launch(fn, args: argparse.Namespace) -> Launch | None:
    grid, block = _dims(args.grid, "grid"), _dims(args.block, "block")
    if grid is None and block is None:
        return None
    if grid is None or block is None:
        raise AnalyzeError("--grid and --block go together")
    params: dict[str, int] = {}
    names = [p.name for p in fn.params]
    for text in args.param:
        key, eq, value = text.partition("=")
        if not eq:
            raise AnalyzeError(f"--param {text!r}: expected NAME=VALUE")
        name = names[int(key)] if key.isdigit() and int(key) < len(names) else key
        if name not in names:
            raise AnalyzeError(f"--param {key!r}: {fn.name} has parameters {', '.join(names)}")
        try:
            params[name] = int(value, 0)
        except ValueError as exc:
            raise AnalyzeError(f"--param {text!r}: {value!r} is not an integer") from exc
    return Launch.of(grid, block, params)


def analyze(module, args: argparse.Namespace) -> list[dict]:
    out = []
    for k, _prog in kernel_programs(module, args.kernel or None):
        fn = module.ir.functions[k]
        reads = classify_reads(fn)
        entry: dict[str, Any] = {"kernel": k, "counts": count_classes(reads), "reads": []}
        for r in reads:
            b = per_block_bounds(r)
            entry["reads"].append({"ptx_line": r.line, "array": r.array, "class": r.cls, "degree": r.degree,
                                   "usable": r.usable, "bytes": r.width,
                                   "address": str(r.expr) if r.expr is not None else None, "why": r.detail,
                                   "block_min": str(b[0]) if b else None, "block_max": str(b[1]) if b else None})
        launch = _launch(fn, args)
        if launch is not None:
            t = build_table(k, reads, launch)
            entry["table"] = [{"array": g.array, "typesize": g.typesize, "args": list(g.api_args()),
                               "tile_row": g.tile_row, "ptx_lines": [fn.body[i].line for i in g.reads]}
                              for g in t.regions]
            entry["table_dropped"] = t.dropped
            entry["unresolved"] = [{"ptx_line": fn.body[i].line, "why": w} for i, w in t.unresolved]
        out.append(entry)
    return out


def format_table(kernels: list[dict]) -> str:
    lines: list[str] = []
    for e in kernels:
        c = e["counts"]
        n = sum(c.values())
        lines.append("")
        lines.append(f"{e['kernel']}: {n} global read(s); " + ", ".join(f"{k} {v}" for k, v in c.items() if v))
        for r in e["reads"]:
            deg = f" degree {r['degree']}" if r["degree"] >= 0 else ""
            what = r["address"] if r["address"] else r["why"]
            lines.append(f"  PTX {r['ptx_line']:>5}  {r['class']:<12}{deg:<9} {r['array'] or '-':<22} {what}")
            if r["block_min"]:
                lines.append(f"  {'':>10}  per block: [{r['block_min']}, {r['block_max']}] (+ {r['bytes']} B)")
        if "table" in e:
            lines.append(f"  preload table ({len(e['table'])} row(s), {e['table_dropped']} dropped): "
                         f"cudaSetCTATracker(base, typesize, minp.x, minp.y, minp.z, minoff, maxp.x, maxp.y, "
                         f"maxp.z, maxoff)")
            for row in e["table"]:
                tr = f"  [tile row {row['tile_row']}]" if row["tile_row"] is not None else ""
                lines.append(f"    ({row['array']}, {row['typesize']}, {', '.join(map(str, row['args']))}){tr}")
            for u in e["unresolved"]:
                lines.append(f"    not emitted: PTX {u['ptx_line']}: {u['why']}")
    return "\n".join(lines)


def analyze_teleport_main(args: argparse.Namespace) -> int:
    """Run ``ndpgpu analyze teleport``."""
    if getattr(args, "source_view", False):
        import dataclasses

        from .source import format_source, load_with_lines, source_reads

        module, what = load_with_lines(args.source)
        rows = source_reads(module, args.kernel or None)
        if args.format == "json":
            print(json.dumps({"source": what, "reads": [dataclasses.asdict(r) for r in rows]}, indent=1))
        else:
            print(format_source(rows, what))
        return 0
    module, what = load_module(args.source)
    kernels = analyze(module, args)
    if args.format == "json":
        print(json.dumps({"source": what, "kernels": kernels}, indent=1))
    else:
        print(f"{what}: {len(kernels)} kernel(s)")
        print(format_table(kernels))
    return 0
