"""MPU's instruction offload engine and register track table, replayed over a functional trace (seed 003,
section IV-B): where each dynamic instruction runs and how many warp registers cross the TSVs.

For every warp, in program order, each instruction is placed by the offload engine's priority (the
extraction of the paper, section 3.2):

1. an opcode that only the far-bank pipeline has (memory, SFU, control: ``FAR_BANK_OPCODES``) runs far bank;
2. else the compiler's hint (``nb``/``fb``) under the location policy;
3. else the hardware default: near bank when every source register is valid near bank and no operand is an
   immediate, a parameter or a special register; far bank otherwise.

Operand locations then follow the hybrid LSU: a global load's address is read far and its destination
written near; a global store's address is read far and its value near; a shared-memory access reads and
writes near (with near-bank shared memory); every other instruction's operands are where it runs. A source
register not valid where it is read is moved across the TSVs (one 128-B warp register; afterwards valid on
both sides); a written register is valid only where it was written. The table starts empty: a register
read before any write (none in nvcc's code) moves nothing.

This is the reference the compiled processor model (:mod:`.hardware`) is checked against; on its own it gives each
policy's register moves and near-bank share (the paper's section V-B).
"""

from __future__ import annotations

import dataclasses

from ...analysis.defuse import CARRY, defs_of, uses_of
from ...analysis.memops import mem_op
from ...frontend.ir import Function, Imm, Instruction, Reg, Special, Sym
from .locations import POLICIES, LocationTable, near_capable

NEAR, FAR = 1, 2  # RTT valid bits
BOTH = NEAR | FAR


@dataclasses.dataclass(frozen=True)
class _Placement:
    near_capable: bool
    hint: str | None
    plain_operands: bool  # no immediate, parameter or special-register operand
    reads: tuple[tuple[str, int], ...]  # (register, side) for instructions whose operand sides are fixed
    writes: tuple[tuple[str, int], ...]
    srcs: tuple[str, ...]
    dsts: tuple[str, ...]


def _plain(ins: Instruction) -> bool:
    for op in ins.operands[1 if defs_of(ins) else 0:]:
        if isinstance(op, (Imm, Special, Sym)):
            return False
    return True


def _placement(ins: Instruction, hint: str | None, smem_side: int) -> _Placement:
    srcs = tuple(r for r in uses_of(ins) if r != CARRY)
    dsts = tuple(r for r in defs_of(ins) if r != CARRY)
    reads: tuple[tuple[str, int], ...] = ()
    writes: tuple[tuple[str, int], ...] = ()
    m = mem_op(ins)
    if m is not None:
        addr = set()
        base = getattr(m.addr, "base", None)
        if isinstance(base, Reg):
            addr.add(base.name)
        if m.space == "shared":
            reads = tuple((r, smem_side) for r in srcs)
            writes = tuple((r, smem_side) for r in dsts)
        elif m.space == "global" and m.kind in ("load", "store"):
            reads = tuple((r, FAR if r in addr else NEAR) for r in srcs)
            writes = tuple((r, NEAR) for r in dsts)
        else:
            reads = tuple((r, FAR) for r in srcs)
            writes = tuple((r, FAR) for r in dsts)
    elif not near_capable(ins):
        reads = tuple((r, FAR) for r in srcs)
        writes = tuple((r, FAR) for r in dsts)
    return _Placement(near_capable(ins) and m is None, hint, _plain(ins), reads, writes, srcs, dsts)


@dataclasses.dataclass
class RegisterTraffic:
    """What the offload engine did over a trace under one location policy."""

    policy: str
    warp_instructions: int = 0
    near: int = 0  # ALU warp-instructions run near bank
    far_alu: int = 0  # ALU warp-instructions run far bank
    moves_down: int = 0  # warp registers moved far -> near
    moves_up: int = 0  # near -> far

    @property
    def moves(self) -> int:
        return self.moves_down + self.moves_up

    @property
    def near_share(self) -> float:
        alu = self.near + self.far_alu
        return self.near / alu if alu else 0.0


def register_traffic(fn: Function, table: LocationTable, trace, policy: str = "annotation",
                     near_bank_smem: bool = True) -> RegisterTraffic:
    """Replay ``trace`` (a launch of ``fn``) through the offload engine and register track table."""
    if policy not in POLICIES:
        raise ValueError(f"unknown MPU location policy {policy!r}; policies: {', '.join(POLICIES)}")
    hints = table.hints_for(policy)
    smem_side = NEAR if near_bank_smem else FAR
    body = fn.body
    places = [_placement(ins, hints[i], smem_side) for i, ins in enumerate(body)]
    out = RegisterTraffic(policy)
    seg = trace.segments
    starts = trace.warp_seg_start
    for w in range(trace.num_warps):
        rtt: dict[str, int] = {}
        for s in range(int(starts[w]), int(starts[w + 1])):
            pc0, count = int(seg["pc"][s]), int(seg["count"][s])
            for pc in range(pc0, pc0 + count):
                if pc >= len(places):
                    continue  # a called function's body: not annotated here
                p = places[pc]
                out.warp_instructions += 1
                if p.near_capable:
                    if p.hint is not None:
                        side = NEAR if p.hint == "nb" else FAR
                    else:
                        near_ok = p.plain_operands and all(rtt.get(r, 0) & NEAR for r in p.srcs)
                        side = NEAR if near_ok else FAR
                    if side == NEAR:
                        out.near += 1
                    else:
                        out.far_alu += 1
                    reads = [(r, side) for r in p.srcs]
                    writes = [(r, side) for r in p.dsts]
                else:
                    reads, writes = list(p.reads), list(p.writes)
                for r, side in reads:
                    have = rtt.get(r, 0)
                    if have and not have & side:
                        if side == NEAR:
                            out.moves_down += 1
                        else:
                            out.moves_up += 1
                        rtt[r] = BOTH
                for r, side in writes:
                    rtt[r] = side
    return out


def traffic_by_policy(fn: Function, table: LocationTable, trace, near_bank_smem: bool = True
                      ) -> dict[str, RegisterTraffic]:
    """:func:`register_traffic` under each of :data:`POLICIES`."""
    return {p: register_traffic(fn, table, trace, p, near_bank_smem) for p in POLICIES}

