"""``ndpgpu analyze tom SOURCE``: TOM's offload candidates of every kernel of a .cu/.ptx file or workload.

Per kernel it prints the metadata table: each candidate's PC range (and PTX lines), live-in/live-out
registers (count, 32-bit units, names), N_LD/N_ST (``fixed+iterT`` when a loop count is symbolic), trip
kind/count/tmin, BW_TX, BW_RX, their total and the tag, and the table's size in bits. ``--all`` adds every
region that was considered and why it is not a candidate. ``--uniform`` prices the warp-uniform live-ins
(the 'in' column's ``U`` units) once per warp, a refinement the paper's model does not have.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
from typing import Any

from ..analyze import kernel_programs
from ..analyze import load_module as _load_module
from .candidates import METADATA_BITS_PER_ENTRY, CandidateTable, find_candidates
from .cost import DEFAULT_PARAMS, CostParams


def add_parser(subparsers: Any) -> None:
    """Add ``tom`` to the ``analyze`` subcommands."""
    p = subparsers.add_parser(
        "tom", help="TOM's offload candidates (static bandwidth cost model)",
        description="TOM's offload-candidate pass: per kernel, the blocks whose offloading to the memory "
                    "stacks is estimated to save off-chip bandwidth (seed 000, section 3.1).")
    p.add_argument("source", metavar="SOURCE", help="a .cu or .ptx file, or a registered workload (or TOM's "
                   "abbreviation such as LIB)")
    p.add_argument("--kernel", action="append", default=[], help="only this kernel (repeatable; mangled or C++ name)")
    p.add_argument("--scale", help="a workload's scale (checked; its PTX is the same at every scale)")
    p.add_argument("--options", action="append", default=[], metavar="OPTS",
                   help="extra nvcc options for a .cu file or workload, e.g. --options='-DN=64 -lineinfo'")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--all", action="store_true", help="also list every region that is not a candidate, and why")
    p.add_argument("--max-live-regs", type=int, default=32, help="live-register cap of a candidate (default 32)")
    p.add_argument("--uniform", action="store_true",
                   help="count warp-uniform live-ins (launch constants, %%ctaid, parameters) once per warp: a "
                        "refinement the paper's cost model does not have")
    p.set_defaults(func=analyze_tom_main)


def load_module(source: str, options: tuple[str, ...] = (), scale: str | None = None):
    """(``RawModule``, a description) for a .cu/.ptx path, a workload, or TOM's abbreviation of one."""
    from ...workloads.tom import TOM_WORKLOADS

    return _load_module(source, options, scale, TOM_WORKLOADS)


def analyze_module(module, kernels: list[str] | None = None, max_live_regs: int = 32,
                   params: CostParams = DEFAULT_PARAMS) -> list[CandidateTable]:
    """The candidate table of each kernel of ``module`` (all kernels, or ``kernels`` by any name)."""
    return [find_candidates(module.ir.functions[k], program, params, max_live_regs)
            for k, program in kernel_programs(module, kernels)]


def _lines(fn, begin: int, end: int) -> str:
    body = fn.body
    return f"{body[begin].line}-{body[end - 1].line}" if end > begin else "-"


def _count(fixed: int, per_iter: int) -> str:
    return f"{fixed}+{per_iter}T" if per_iter else str(fixed)


def _trip(row: dict) -> str:
    if row["trip"] == "static":
        return f"static {row['trip_count']}"
    return row["trip"]


def _g(x: float) -> str:
    return f"{x:g}"


def format_table(tables: list[CandidateTable], module, show_all: bool = False) -> str:
    """The human-readable report of :func:`analyze_module`'s tables."""
    out: list[str] = []
    p = tables[0].params if tables else DEFAULT_PARAMS
    out.append(f"TOM offload candidates (S_W={p.warp_size}, S_C={_g(p.line_over_addr)}, Coal_LD={_g(p.coal_ld)}, "
               f"Coal_ST={_g(p.coal_st)}, Miss_LD={_g(p.miss_ld)}; BW in 4-byte units per warp, negative saves"
               + ("; warp-uniform live-ins (the 'in' column's 'U') counted once per warp, not the paper's model)"
                  if p.uniform_live_ins else ")"))
    head = ("#", "PC [b,e)", "PTX lines", "in", "out", "N_LD", "N_ST", "trip", "tmin", "BW_TX", "BW_RX", "total", "tag")
    for table in tables:
        fn = module.ir.functions[table.kernel]
        out.append("")
        out.append(f"{table.kernel}: {len(table.candidates)} candidate(s), metadata table {table.metadata_bits()} "
                   f"bits ({METADATA_BITS_PER_ENTRY} per entry); {len(table.rejected)} region(s) rejected")
        rows = table.rows()
        if rows:
            cells = [head]
            for r in rows:
                live_in = f"{len(r['live_in'])} ({r['reg_tx']}u, {r['reg_tx_uniform']}U)"
                cells.append((str(r["index"]), f"[{r['begin_pc']},{r['end_pc']})", _lines(fn, r["begin"], r["end"]),
                              live_in, f"{len(r['live_out'])} ({r['reg_rx']}u)",
                              _count(r["n_ld_fixed"], r["n_ld_iter"]), _count(r["n_st_fixed"], r["n_st_iter"]),
                              _trip(r), "-" if r["tmin"] is None else str(r["tmin"]), _g(r["bw_tx"]),
                              _g(r["bw_rx"]), _g(r["bw_total"]), r["tag"]))
            widths = [max(len(c[k]) for c in cells) for k in range(len(head))]
            for c in cells:
                out.append("  " + "  ".join(v.rjust(w) for v, w in zip(c, widths, strict=True)))
            for r in rows:
                cond = f"; offload if {r['condition']}" if r["condition"] else ""
                out.append(f"  #{r['index']} live-in: {' '.join(r['live_in']) or '-'}; "
                           f"live-out: {' '.join(r['live_out']) or '-'}{cond}")
        if show_all and table.rejected:
            out.append("  not candidates:")
            for x in table.rejected:
                bw = "" if x.bw_tx is None else f" [BW_TX {_g(x.bw_tx)}, BW_RX {_g(x.bw_rx)}]"  # type: ignore[arg-type]
                out.append(f"    PC [{x.begin_pc},{x.end_pc}) (PTX lines {_lines(fn, x.begin, x.end)}) {x.origin}: "
                           f"{x.reason}{bw}")
    return "\n".join(out)


def to_json(tables: list[CandidateTable], module, source: str, show_all: bool = False) -> dict:
    """The report as a JSON-ready dict."""
    kernels = []
    for table in tables:
        fn = module.ir.functions[table.kernel]
        rows = table.rows()
        for r in rows:
            r["ptx_lines"] = [fn.body[r["begin"]].line, fn.body[r["end"] - 1].line]
        entry: dict[str, Any] = {"kernel": table.kernel, "metadata_bits": table.metadata_bits(),
                                 "candidates": rows, "n_rejected": len(table.rejected)}
        if show_all:
            entry["rejected"] = [dict(vars(x), ptx_lines=[fn.body[x.begin].line, fn.body[x.end - 1].line])
                                 for x in table.rejected]
        kernels.append(entry)
    params = tables[0].params if tables else DEFAULT_PARAMS
    return {"source": source, "nvcc_version": getattr(module, "nvcc_version", ""), "arch": module.arch,
            "cost_params": params.as_dict(), "metadata_bits_per_entry": METADATA_BITS_PER_ENTRY,
            "kernels": kernels}


def analyze_tom_main(args: argparse.Namespace) -> int:
    """Run ``ndpgpu analyze tom``."""
    options = tuple(o for text in args.options for o in shlex.split(text))
    module, what = load_module(args.source, options, args.scale)
    params = dataclasses.replace(DEFAULT_PARAMS, uniform_live_ins=args.uniform)
    tables = analyze_module(module, args.kernel or None, args.max_live_regs, params)
    if args.format == "json":
        print(json.dumps(to_json(tables, module, what, args.all), indent=1))
    else:
        print(f"{what}: {len(tables)} kernel(s)")
        print(format_table(tables, module, args.all))
    return 0
