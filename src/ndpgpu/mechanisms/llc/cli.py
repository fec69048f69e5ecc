"""``ndpgpu analyze llc SOURCE``: LLC-Compute / Omni-Compute offload chains of a .cu/.ptx file or workload.

Per kernel it lists every tagged chain (Table 1 pattern, reply, tags with PTX lines, hoisted address
computations) and whether Omni-Compute may offload it (shared memory). For a workload it also runs the
workload functionally at ``--scale`` (default tiny) and prints the share of dynamic warp-instructions and
of global memory requests the chains cover (Table 3's columns). ``--all`` adds the rejected candidates.
"""

from __future__ import annotations

import argparse
import json
import shlex
from typing import Any

from ..analyze import kernel_programs, load_module
from .chains import DEFAULT_SQ_BYTES, SHARED_MEMORY_BYTES, ChainTable, Coverage, chain_coverage, find_chains


def add_parser(subparsers: Any) -> None:
    """Add ``llc`` to the ``analyze`` subcommands."""
    p = subparsers.add_parser(
        "llc", help="LLC-Compute / Omni-Compute offload chains (Table 1 patterns)",
        description="LLC-Compute / Omni-Compute's compiler pass: per kernel, the load-compute-store offload "
                    "chains of Table 1 and their 01/10/11 tags (seed 001, Sec. 4.1-4.2); for a workload also "
                    "the share of dynamic instructions and memory requests they cover.")
    p.add_argument("source", metavar="SOURCE", help="a .cu or .ptx file, or a registered workload (or the "
                   "paper's abbreviation such as TRIAD or VECADD-ALIGNED)")
    p.add_argument("--kernel", action="append", default=[], help="only this kernel (repeatable)")
    p.add_argument("--scale", help="a workload's scale for the dynamic shares (default tiny)")
    p.add_argument("--offload-variant", action="store_true",
                   help="use the source variant of the paper's offload runs (split FMAs, RED-Hybrid2)")
    p.add_argument("--no-run", action="store_true", help="a workload: skip the functional run (static only)")
    p.add_argument("--options", action="append", default=[], metavar="OPTS",
                   help="extra nvcc options for a .cu file or workload")
    p.add_argument("--sq-bytes", type=int, default=DEFAULT_SQ_BYTES,
                   help=f"shared memory the Omni-Compute service queue needs (default {DEFAULT_SQ_BYTES})")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--all", action="store_true", help="also list the rejected candidates and why")
    p.set_defaults(func=analyze_llc_main)


def resolve(source: str, offload_variant: bool = False) -> str:
    """The registry name of an LLC abbreviation (``TRIAD`` -> ``llc_triad``); other sources unchanged."""
    from ...workloads.llc import LLC_OFFLOAD_VARIANTS, LLC_WORKLOADS

    if offload_variant and source in LLC_OFFLOAD_VARIANTS:
        return LLC_OFFLOAD_VARIANTS[source]
    name = LLC_WORKLOADS.get(source, source)
    if offload_variant:
        inverse = {v: k for k, v in LLC_WORKLOADS.items()}
        name = LLC_OFFLOAD_VARIANTS.get(inverse.get(name, ""), name)
    return name


def analyze_module(module, kernels: list[str] | None = None, sq_bytes: int = DEFAULT_SQ_BYTES) -> list[ChainTable]:
    """The chain table of each kernel of ``module`` (all kernels, or ``kernels`` by any name)."""
    return [find_chains(module.ir.functions[k], program, sq_bytes) for k, program in kernel_programs(module, kernels)]


def workload_coverage(name: str, scale: str, tables: list[ChainTable]) -> dict[str, Coverage]:
    """Run workload ``name`` functionally with tracing; the chains' coverage per kernel (launches summed),
    with key ``"*"`` for the whole run."""
    from ...workloads.runner import run_workload

    run = run_workload(name, scale, trace=True, check=False)
    by_kernel = {t.kernel: t for t in tables}
    out: dict[str, Coverage] = {}
    for tr in run.device.traces:
        k = tr.launch.kernel
        chains = by_kernel[k].chains if k in by_kernel else []
        cov = chain_coverage(tr, chains)
        out[k] = out[k] + cov if k in out else cov
    total = Coverage("*", 0, 0, 0, 0)
    for cov in out.values():
        total = total + cov
    out["*"] = total
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_table(tables: list[ChainTable], module, show_all: bool = False,
                 coverage: dict[str, Coverage] | None = None) -> str:
    """The human-readable report."""
    out: list[str] = []
    for t in tables:
        fn = module.ir.functions[t.kernel]
        omni = "allowed" if t.omni_allowed else "DISABLED"
        out.append("")
        out.append(f"{t.kernel}: {len(t.chains)} chain(s), patterns {t.patterns() or '-'}; shared memory "
                   f"{t.smem_bytes} B + SQ {t.sq_bytes} B of {SHARED_MEMORY_BYTES} B: Omni-Compute {omni}")
        for n, c in enumerate(t.chains):
            hoist = (f"; hoisted above it: lines {', '.join(str(fn.body[h].line) for h in c.hoisted)}"
                     if c.hoisted else "")
            split = "; split FMA (the add stays at the core)" if c.split_fma else ""
            scalar = f"; i = {c.scalar}" if c.scalar is not None else ""
            out.append(f"  chain {n}: pattern {c.pattern} {c.reply} ({c.reply_flits} flit"
                       f"{'s' if c.reply_flits > 1 else ''}){scalar}{split}{hoist}")
            for tag, pc, line, text in zip(c.tags, c.pcs, c.lines, c.ptx, strict=True):
                out.append(f"    [{tag}] PC {pc:4d}  line {line:5d}  {text}")
        if coverage is not None and t.kernel in coverage:
            cv = coverage[t.kernel]
            out.append(f"  dynamic: {cv.chain_instructions}/{cv.instructions} warp-instructions "
                       f"({_pct(cv.instruction_share)}), {cv.chain_mem_requests}/{cv.mem_requests} global memory "
                       f"requests ({_pct(cv.mem_share)})")
        if show_all and t.rejected:
            out.append("  rejected:")
            for r in t.rejected:
                pat = f" (pattern {r.pattern})" if r.pattern is not None else ""
                out.append(f"    line {r.line}{pat}: {r.reason}")
    if coverage is not None and "*" in coverage:
        cv = coverage["*"]
        out.append("")
        out.append(f"all launches: {_pct(cv.instruction_share)} of dynamic warp-instructions and "
                   f"{_pct(cv.mem_share)} of global memory requests are in chains")
    return "\n".join(out)


def to_json(tables: list[ChainTable], source: str, coverage: dict[str, Coverage] | None = None,
            show_all: bool = False) -> dict:
    kernels = []
    for t in tables:
        entry: dict[str, Any] = {"kernel": t.kernel, "patterns": t.patterns(), "smem_bytes": t.smem_bytes,
                                 "sq_bytes": t.sq_bytes, "omni_allowed": t.omni_allowed,
                                 "chains": [c.row() for c in t.chains], "n_rejected": len(t.rejected)}
        if show_all:
            entry["rejected"] = [vars(r) for r in t.rejected]
        kernels.append(entry)
    cov = None
    if coverage is not None:
        cov = {k: dict(vars(c), instruction_share=c.instruction_share, mem_share=c.mem_share)
               for k, c in coverage.items()}
    return {"source": source, "kernels": kernels, "coverage": cov}


def analyze_llc_main(args: argparse.Namespace) -> int:
    """Run ``ndpgpu analyze llc``."""
    options = tuple(o for text in args.options for o in shlex.split(text))
    source = resolve(args.source, args.offload_variant)
    module, what = load_module(source, options, args.scale)
    tables = analyze_module(module, args.kernel or None, args.sq_bytes)
    coverage = None
    if what.startswith("workload ") and not args.no_run:
        coverage = workload_coverage(source, args.scale or "tiny", tables)
    if args.format == "json":
        print(json.dumps(to_json(tables, what, coverage, args.all), indent=1))
    else:
        print(f"{what}: {len(tables)} kernel(s); LLC-Compute / Omni-Compute offload chains (Table 1)")
        print(format_table(tables, module, args.all, coverage))
    return 0
