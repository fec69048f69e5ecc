"""MPU's location-annotation pass (seed 003, section IV-D "Compiler", Algorithm 1, Fig. 7).

MPU splits a SIMT core: fetch, decode, issue, the LSU and control stay on the base die (*far bank*), while a
second register file and ALUs sit beside the DRAM banks (*near bank*). The compiler labels every virtual
register N (near bank), F (far bank), B (both) or U (unknown), and hints each ALU instruction to run where its
destination lives, so value chains stay near the banks and address and control chains stay far.

**Seeds** (program order, a later seed overwrites an earlier one): a branch's predicate is F; ``ld.global``'s
address registers are F and its destination N; ``st.global``'s address registers are F and its value N;
``ld.shared``/``st.shared``/``atom.shared``/``red.shared`` registers are S (N with near-bank shared memory,
the paper's design; F with far-bank shared memory).

**Propagation**, until no register changes: for every instruction that may run near the banks (an ALU op,
:func:`near_capable`) and has a destination, in reverse program order, each source register (the guard
included) takes ``join(L(dst), L(src))``: an unknown side takes the other's label, equal labels stay, and
different ones give B. An instruction with several destinations joins them first.

**Hints**: an ALU instruction whose destination is F gets the hint ``fb``, N gets ``nb``; B and U get none
(the hardware's register-track-table policy decides at run time). Every other instruction (memory, SFU,
control, synchronisation: :data:`FAR_BANK_OPCODES`) always runs far bank, with its memory datapath.

The paper's literal Algorithm 1 has two defects (its loop condition, and marking B when the destination is
still U); the semantics above are those of the authors' released simulator, as the extraction of the paper
records them.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from ...analysis.defuse import CARRY, defs_of, regs_in, uses_of
from ...analysis.memops import mem_op
from ...frontend.ir import Function, Instruction

U, N, F, B = "U", "N", "F", "B"
LABELS = (N, F, B, U)

FAR_BANK_OPCODES = frozenset({
    # memory (every space), synchronisation and control
    "ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "cp", "bar", "barrier", "membar", "fence",
    "bra", "brx", "call", "ret", "exit", "trap", "vote", "shfl", "match", "activemask", "redux",
    "tex", "tld4", "suld", "sust", "txq", "nanosleep", "pmevent",
    # special-function unit
    "sqrt", "rsqrt", "rcp", "sin", "cos", "ex2", "lg2", "tanh",
})
"""Opcodes that always run far bank (the extraction's gap 8: only ALU operations can run near the banks)."""

POLICIES = ("annotation", "hardware", "all-near", "all-far")

FIG7_BODY = """
    ld.global.f32 %f1, [%rd9];
    ld.global.f32 %f2, [%rd8];
    add.f32 %f3, %f2, %f1;
    add.s64 %rd10, %rd1, %rd7;
    st.global.f32 [%rd10], %f3;
    ret;
"""
"""The paper's Fig. 7 example (two loads, a float add of their values, an address add, a store of the sum) as
the body of a PTX kernel whose registers %f<n> and %rd<n> are declared."""
"""Where ALU instructions run: the compiler's hints, the hardware default (the register track table
decides), every ALU op near bank, every ALU op far bank (section V-B, Fig. 14)."""


def join(d: str, old: str) -> str:
    """A source register's label after a consumer whose destination is labelled ``d``."""
    if d == U:
        return old
    if old == U:
        return d
    return d if d == old else B


def near_capable(ins: Instruction) -> bool:
    """True when ``ins`` may run at a near-bank unit: an ALU operation (arithmetic, logic, shift, compare,
    select, move, convert, divide)."""
    return ins.opcode not in FAR_BANK_OPCODES


def _regs(op: Any) -> list[str]:
    return list(regs_in(op))


@dataclasses.dataclass(frozen=True)
class LocationTable:
    """The pass's result for one kernel: each register's label, each instruction's location and hint."""

    kernel: str
    registers: dict[str, str]  # register -> N, F, B or U
    locations: tuple[str, ...]  # per instruction: "far" (always far bank), or N/F/B/U of its destination
    hints: tuple[str | None, ...]  # per instruction: "nb", "fb" or None
    iterations: int  # propagation sweeps until nothing changed (the last changed nothing)
    near_bank_smem: bool = True

    def split(self) -> dict[str, float]:
        """Shares of the kernel's registers labelled N, F, B and U (the paper's register split, Fig. 13)."""
        counts = Counter(self.registers.values())
        total = sum(counts.values()) or 1
        return {label: counts.get(label, 0) / total for label in LABELS}

    def hints_for(self, policy: str) -> tuple[str | None, ...]:
        """The hint of every instruction under a location policy of :data:`POLICIES`."""
        if policy == "annotation":
            return self.hints
        if policy not in POLICIES:
            raise ValueError(f"unknown MPU location policy {policy!r}; policies: {', '.join(POLICIES)}")
        fixed = {"hardware": None, "all-near": "nb", "all-far": "fb"}[policy]
        return tuple(None if loc == "far" else fixed for loc in self.locations)


def _seed(body: list[Instruction], smem: str) -> dict[str, str]:
    labels: dict[str, str] = {}
    for ins in body:
        if ins.opcode in ("bra", "brx") and ins.guard is not None:
            labels[ins.guard.name] = F
            continue
        m = mem_op(ins)
        if m is None:
            continue
        addr = _regs(m.addr)
        values = [r for k, op in enumerate(ins.operands) if k != m.addr_operand for r in _regs(op)]
        if m.space == "global" and m.kind == "load":
            labels.update(dict.fromkeys(addr, F))
            labels.update(dict.fromkeys(values, N))
        elif m.space == "global" and m.kind == "store":
            labels.update(dict.fromkeys(addr, F))
            labels.update(dict.fromkeys(values, N))
        elif m.space == "shared":
            labels.update(dict.fromkeys(addr + values, smem))
    return labels


def annotate(fn: Function, near_bank_smem: bool = True, max_iterations: int = 1000) -> LocationTable:
    """Algorithm 1 on kernel ``fn`` (see the module docstring)."""
    body = fn.body
    labels = _seed(body, N if near_bank_smem else F)
    for ins in body:
        for r in (*defs_of(ins), *uses_of(ins)):
            labels.setdefault(r, U)
    order = [ins for ins in reversed(body) if near_capable(ins) and defs_of(ins)]
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 - the count is reported
        changed = False
        for ins in order:
            d = U
            for r in defs_of(ins):
                d = join(labels[r], d)
            for r in uses_of(ins):
                new = join(d, labels[r])
                if new != labels[r]:
                    labels[r] = new
                    changed = True
        if not changed:
            break
    else:
        raise RuntimeError(f"{fn.name}: location annotation did not converge in {max_iterations} sweeps")
    locations, hints = [], []
    for ins in body:
        if not near_capable(ins) or not defs_of(ins):
            locations.append("far" if not near_capable(ins) else U)
            hints.append(None)
            continue
        d = U
        for r in defs_of(ins):
            d = join(labels[r], d)
        locations.append(d)
        hints.append({N: "nb", F: "fb"}.get(d))
    regs = {r: v for r, v in labels.items() if r != CARRY}
    return LocationTable(fn.name, regs, tuple(locations), tuple(hints), iterations, near_bank_smem)
