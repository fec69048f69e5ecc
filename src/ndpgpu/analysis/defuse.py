"""Registers defined and used by each instruction, and reaching definitions.

Conventions (see :mod:`ndpgpu.frontend.ir`): ``operands[0]`` is the destination of a value-producing
instruction (a register, a ``PredPair`` or a ``Vec``); ``st``/``red``/``prefetch``/``cp.async`` start with
an address and define nothing; ``call`` is ``ArgList(returns), target, ArgList(args)``. The guard
``@%p`` is a use. A guarded instruction's definitions are *may*-definitions: they do not kill the old
value. Carry-flag arithmetic (``add.cc``/``addc``...) defines/uses the pseudo-register ``%cc``. The sink
``_`` is neither defined nor used.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from functools import cached_property

from ..frontend.ir import Addr, ArgList, Function, Instruction, Operand, PredPair, Reg, Sym, Vec
from .cfg import CFG

CARRY = "%cc"

# Instructions that never write a register, whatever their first operand.
NO_DEST = frozenset({
    "st", "red", "bra", "brx", "call", "ret", "exit", "trap", "membar", "fence", "prefetch", "prefetchu",
    "nop", "pmevent", "cp", "setmaxnreg", "griddepcontrol", "discard", "applypriority", "tensormap",
    "stmatrix", "brkpt",
})
CARRY_USERS = ("addc", "subc", "madc")


def regs_in(op: Operand | None) -> Iterator[str]:
    """Register names read when ``op`` is a source operand (every register the operand names)."""
    if op is None:
        return
    if isinstance(op, Reg):
        if op.name != "_":
            yield op.name
    elif isinstance(op, Addr):
        if isinstance(op.base, Reg) and op.base.name != "_":
            yield op.base.name
    elif isinstance(op, Vec):
        for it in op.items:
            yield from regs_in(it)
    elif isinstance(op, ArgList):
        for it in op.items:
            yield from regs_in(it)
    elif isinstance(op, PredPair):
        yield from regs_in(op.first)
        yield from regs_in(op.second)


def _dest_regs(op: Operand) -> Iterator[str]:
    if isinstance(op, Reg):
        if op.name != "_":
            yield op.name
    elif isinstance(op, PredPair):
        yield from _dest_regs(op.first)
        if op.second is not None:
            yield from _dest_regs(op.second)
    elif isinstance(op, Vec):
        for it in op.items:
            if isinstance(it, Reg) and it.name != "_":
                yield it.name


def has_destination(ins: Instruction) -> bool:
    """True when ``operands[0]`` is written by ``ins``."""
    if not ins.operands or ins.opcode in NO_DEST:
        return False
    if ins.opcode in ("bar", "barrier"):
        return "red" in ins.mods  # bar.red.popc.u32 d, ...
    if ins.opcode == "wmma" and "store" in ins.mods:
        return False
    if ins.opcode == "mbarrier" and isinstance(ins.operands[0], Addr):
        return False
    return isinstance(ins.operands[0], (Reg, PredPair, Vec))


def defs_of(ins: Instruction) -> tuple[str, ...]:
    """Registers ``ins`` writes (may-definitions when it is guarded)."""
    out: list[str] = []
    if ins.opcode == "call":
        lists = [(k, op) for k, op in enumerate(ins.operands) if isinstance(op, ArgList)]
        ops = ins.operands
        target = next((k for k, op in enumerate(ops) if not isinstance(op, ArgList)), len(ops))
        for k, op in lists:
            if k < target:  # the return list
                out.extend(r for r in regs_in(op))
        return tuple(dict.fromkeys(out))
    if has_destination(ins):
        out.extend(_dest_regs(ins.operands[0]))
    if "cc" in ins.mods and ins.opcode in ("add", "sub", "mad", "addc", "subc", "madc"):
        out.append(CARRY)
    return tuple(dict.fromkeys(out))


def uses_of(ins: Instruction) -> tuple[str, ...]:
    """Registers ``ins`` reads, the guard included."""
    out: list[str] = []
    if ins.guard is not None:
        out.append(ins.guard.name)
    ops = ins.operands
    if ins.opcode == "call":
        target = next((k for k, op in enumerate(ops) if not isinstance(op, ArgList)), len(ops))
        for k, op in enumerate(ops):
            if k < target and isinstance(op, ArgList):
                continue  # return list: written
            if isinstance(op, Sym):
                continue
            out.extend(regs_in(op))
        return tuple(dict.fromkeys(out))
    start = 1 if has_destination(ins) else 0
    for op in ops[start:]:
        out.extend(regs_in(op))
    if ins.opcode in CARRY_USERS:
        out.append(CARRY)
    return tuple(dict.fromkeys(r for r in out if r != "_"))


class DefUse:
    """Per-instruction definitions and uses of one function, with numbered definition sites.

    ``defs[i]`` / ``uses[i]``: register names; ``must[i]``: the definitions of instruction ``i`` always
    happen (unguarded). ``sites[d] = (i, reg)`` numbers every definition; ``def_ids[i]`` lists the ids of
    instruction ``i``. ``regs`` lists every register (declared or seen), ``reg_index`` numbers them.
    """

    def __init__(self, fn: Function):
        self.fn = fn
        body = fn.body
        self.defs: list[tuple[str, ...]] = [defs_of(ins) for ins in body]
        self.uses: list[tuple[str, ...]] = [uses_of(ins) for ins in body]
        self.must: list[bool] = [ins.guard is None for ins in body]
        names = dict.fromkeys(fn.regs)
        for ds, us in zip(self.defs, self.uses, strict=True):
            names.update(dict.fromkeys(ds))
            names.update(dict.fromkeys(us))
        self.regs: list[str] = list(names)
        self.reg_index: dict[str, int] = {r: k for k, r in enumerate(self.regs)}
        self.sites: list[tuple[int, str]] = []
        self.def_ids: list[tuple[int, ...]] = []
        for i, ds in enumerate(self.defs):
            ids = []
            for r in ds:
                ids.append(len(self.sites))
                self.sites.append((i, r))
            self.def_ids.append(tuple(ids))
        self.defs_of_reg: dict[str, list[int]] = {}
        for d, (_, r) in enumerate(self.sites):
            self.defs_of_reg.setdefault(r, []).append(d)

    @cached_property
    def reg_all_bits(self) -> dict[str, int]:
        """Per register, the bit set of its definition ids plus its pseudo-definition bit
        (``len(sites) + reg_index``), as :class:`ReachingDefs` numbers them."""
        ndefs = len(self.sites)
        out = {}
        for r, k in self.reg_index.items():
            ids = self.defs_of_reg.get(r, ())
            bits = 1 << (ndefs + k)
            if ids:
                flags = bytearray((ids[-1] >> 3) + 1)
                for d in ids:
                    flags[d >> 3] |= 1 << (d & 7)
                bits |= int.from_bytes(flags, "little")
            out[r] = bits
        return out

    def reg_bits(self, names: Collection[str]) -> int:
        """Bit set (by ``reg_index``) of ``names``."""
        bits = 0
        for r in names:
            bits |= 1 << self.reg_index[r]
        return bits

    def reg_names(self, bits: int) -> set[str]:
        """Register names of a bit set."""
        return {self.regs[k] for k in iter_bits(bits)}


def iter_bits(x: int) -> Iterator[int]:
    """Indices of the set bits of ``x``, lowest first."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


START = -1  # the pseudo-definition "value at the start of the analysed region"


class ReachingDefs:
    """Reaching definitions over a CFG or a single-entry part of it.

    By default the whole function, where :data:`START` stands for "no definition: the value the register
    had when the function started" (uninitialised for a kernel). With ``blocks`` and ``start`` (a loop's
    body and header, ``back_edges=False``) it is one iteration: :data:`START` then means "the value at the
    header at the start of this iteration", and edges back to the header are ignored.
    """

    def __init__(self, cfg: CFG, du: DefUse, blocks: Collection[int] | None = None, start: int = 0,
                 back_edges: bool = True):
        self.cfg = cfg
        self.du = du
        nblocks = len(cfg.blocks)
        self.region = frozenset(range(nblocks)) if blocks is None else frozenset(blocks)
        self.start = start
        ndefs = len(du.sites)
        self._pseudo_base = ndefs
        self._reg_all = du.reg_all_bits  # all bits (definitions + pseudo) of each register
        # per-block definitions in order: reg -> list of (instr, def id, must)
        self._block_defs: dict[int, dict[str, list[tuple[int, int, bool]]]] = {}
        gen: dict[int, int] = {}
        kill: dict[int, int] = {}
        for b in self.region:
            blk = cfg.blocks[b]
            g = 0
            kl = 0
            bd: dict[str, list[tuple[int, int, bool]]] = {}
            for i in range(blk.start, blk.end):
                must = du.must[i]
                for d in du.def_ids[i]:
                    r = du.sites[d][1]
                    bd.setdefault(r, []).append((i, d, must))
                    if must:
                        allr = self._reg_all[r]
                        g = (g & ~allr) | (1 << d)
                        kl |= allr
                    else:
                        g |= 1 << d
            gen[b], kill[b] = g, kl
            self._block_defs[b] = bd
        start_bits = ((1 << len(du.regs)) - 1) << ndefs
        order = self._rpo()
        self.reached = set(order)
        self.in_: dict[int, int] = {b: 0 for b in self.region}
        self.out: dict[int, int] = {b: gen[b] for b in self.region}
        preds = {b: [p for p in cfg.blocks[b].preds if p in self.region and (back_edges or b != start)]
                 for b in self.region}
        changed = True
        while changed:
            changed = False
            for b in order:
                x = start_bits if b == start else 0
                for p in preds[b]:
                    x |= self.out[p]
                if x != self.in_[b] or b == start:
                    self.in_[b] = x
                    o = gen[b] | (x & ~kill[b])
                    if o != self.out[b]:
                        self.out[b] = o
                        changed = True

    def _rpo(self) -> list[int]:
        seen = {self.start}
        order: list[int] = []
        stack = [(self.start, iter(self.cfg.blocks[self.start].succs))]
        while stack:
            node, it = stack[-1]
            for s in it:
                if s in self.region and s not in seen and s != self.cfg.exit:
                    seen.add(s)
                    stack.append((s, iter(self.cfg.blocks[s].succs)))
                    break
            else:
                order.append(node)
                stack.pop()
        order.reverse()
        return order

    def _decode(self, bits: int) -> tuple[int, ...]:
        out = []
        for k in iter_bits(bits):
            out.append(START if k >= self._pseudo_base else k)
        return tuple(sorted(set(out)))

    def at(self, reg: str, block: int, pos: int) -> tuple[int, ...]:
        """Definition ids of ``reg`` reaching the point before instruction ``pos`` of ``block``
        (``pos == block end`` is the end of the block); :data:`START` when the start value may reach.
        Empty for a point the region's start cannot reach."""
        if block not in self.reached or reg not in self._reg_all:
            return () if block not in self.reached else (START,)
        found: list[int] = []
        for i, d, must in reversed(self._block_defs[block].get(reg, ())):
            if i >= pos:
                continue
            found.append(d)
            if must:
                return tuple(sorted(found))
        bits = self.in_[block] & self._reg_all[reg]
        return tuple(sorted(set(found) | set(self._decode(bits))))

    def at_block_end(self, reg: str, block: int) -> tuple[int, ...]:
        """Definition ids of ``reg`` reaching the end of ``block``."""
        return self.at(reg, block, self.cfg.blocks[block].end)
