"""``ndpgpu analyze mpu SOURCE``: MPU's location annotation of a .cu/.ptx file or workload.

Per kernel it prints every instruction with its location (far bank for memory, SFU and control; else the
label of its destination) and the hint the compiler gives it, then the register split (shares of N, F, B
and U registers) and how many sweeps the pass took.
"""

from __future__ import annotations

import argparse
import json
import shlex
from typing import Any

from ..analyze import kernel_programs, load_module
from .locations import LABELS, POLICIES, B, F, LocationTable, N, U, annotate


def add_parser(subparsers: Any) -> None:
    """Add ``mpu`` to the ``analyze`` subcommands."""
    p = subparsers.add_parser(
        "mpu", help="MPU's location annotation (Algorithm 1): near- or far-bank registers and instructions",
        description="MPU's compiler pass (seed 003, Algorithm 1): each register near bank (N), far bank (F), "
                    "both (B) or unknown (U), each ALU instruction's hint, and the register split.")
    p.add_argument("source", metavar="SOURCE", help="a .cu or .ptx file, or a registered workload")
    p.add_argument("--kernel", action="append", default=[], help="only this kernel (repeatable)")
    p.add_argument("--options", action="append", default=[], metavar="OPTS",
                   help="extra nvcc options for a .cu file or workload")
    p.add_argument("--far-bank-smem", action="store_true",
                   help="shared memory on the base die (the paper's design keeps it near bank)")
    p.add_argument("--policy", choices=POLICIES, default="annotation",
                   help="show the hints of this location policy (default: the compiler's annotation)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=analyze_mpu_main)


def analyze_module(module: Any, kernels: list[str] | None = None, near_bank_smem: bool = True) -> list[LocationTable]:
    """The location table of each kernel of ``module`` (all kernels, or ``kernels`` by any name)."""
    return [annotate(module.ir.functions[k], near_bank_smem) for k, _ in kernel_programs(module, kernels)]


def _text(module: Any, ins: Any) -> str:
    """The instruction as the PTX writes it (its source line), else its opcode."""
    lines = getattr(module, "ptx", "").splitlines()
    if 0 < ins.line <= len(lines):
        return lines[ins.line - 1].strip().rstrip(";")
    return str(ins)


def to_json(tables: list[LocationTable], module: Any, what: str, policy: str) -> dict:
    out = []
    for t in tables:
        body = module.ir.functions[t.kernel].body
        out.append({
            "kernel": t.kernel, "iterations": t.iterations, "split": t.split(), "registers": t.registers,
            "instructions": [{"pc": i, "line": ins.line, "text": _text(module, ins), "location": loc, "hint": hint}
                             for i, (ins, loc, hint) in enumerate(zip(body, t.locations, t.hints_for(policy),
                                                                      strict=True))],
        })
    return {"source": what, "policy": policy, "kernels": out}


def format_table(tables: list[LocationTable], module: Any, policy: str) -> str:
    lines = []
    for t in tables:
        body = module.ir.functions[t.kernel].body
        split = t.split()
        lines.append("")
        lines.append(f"{t.kernel}: {len(t.registers)} registers, split " +
                     " / ".join(f"{k} {split[k]:.1%}" for k in LABELS) + f"; converged in {t.iterations} sweep(s)")
        lines.append(f"  {'pc':>4s} {'line':>5s}  {'loc':4s} {'hint':4s}  instruction")
        for i, (ins, loc, hint) in enumerate(zip(body, t.locations, t.hints_for(policy), strict=True)):
            lines.append(f"  {i:4d} {ins.line:5d}  {loc:4s} {hint or '-':4s}  {_text(module, ins)}")
        for label in (N, F, B, U):
            regs = sorted((r for r, v in t.registers.items() if v == label), key=_reg_key)
            if regs:
                lines.append(f"  {label}: {' '.join(regs)}")
    return "\n".join(lines)


def _reg_key(name: str) -> tuple[str, int]:
    stem = name.rstrip("0123456789")
    digits = name[len(stem):]
    return stem, int(digits) if digits else -1


def analyze_mpu_main(args: argparse.Namespace) -> int:
    """Run ``ndpgpu analyze mpu``."""
    options = tuple(o for text in args.options for o in shlex.split(text))
    module, what = load_module(args.source, options)
    tables = analyze_module(module, args.kernel or None, not args.far_bank_smem)
    if args.format == "json":
        print(json.dumps(to_json(tables, module, what, args.policy), indent=1))
    else:
        smem = "far-bank" if args.far_bank_smem else "near-bank"
        print(f"{what}: {len(tables)} kernel(s); MPU location annotation ({smem} shared memory, policy "
              f"{args.policy})")
        print(format_table(tables, module, args.policy))
    return 0
