"""LLC-Compute / Omni-Compute's compiler pass: Table 1 offload chains (seed 001, sections 4.1-4.2).

For each kernel, :func:`find_chains` looks in every basic block for short *load-compute-store* chains of
the paper's nine patterns and tags them ``01`` (first instruction), ``10`` (middle), ``11`` (last).

**Patterns** (Table 1; ``L`` a global load, ``i`` an immediate or a warp-uniform scalar, ``f``/``g`` an
arithmetic op, ``h`` a compare):

=== ===================== ========================================= =============
 #  HLL                   chain                                     reply
=== ===================== ========================================= =============
 1  c = f(a, b)           ld a; ld b; f; st c                       ack, 1 flit
 2  c = f(a, b, c)        ld a; ld b; f -> register                 data, 5 flits
 3  c = a                 ld a; st c                                ack, 1 flit
 4  c = f(a, c)           ld a; unary f; st c                       ack, 1 flit
 5  h(a, b)               ld a; ld b; setp                          bitmap, 1 flit
 6  h(a, i)               ld a; setp with i                         bitmap, 1 flit
 7  c = f(a, i)           ld a; f with i; st c                      ack, 1 flit
 8  d = f(a, d, g(b, i))  ld b; ld a; g(b, i); f(a, .) -> register  data, 5 flits
 9  c = f(a, g(b, i))     ld b; ld a; g(b, i); f(a, .); st c        ack, 1 flit
=== ===================== ========================================= =============

**Rules.** A chain lies in one basic block and is a tree rooted at its last instruction (a global store,
a ``setp``, or an ALU op whose result stays in a register) with at most 2 global-load leaves, at most one
``i`` leaf and at most 2 ALU ops. Loads are ``ld.global`` (``.nc`` included) of at most 32 bits, scalar
(no vectors). An ``i`` leaf is an immediate, or a register whose every reaching definition is an
``ld.param``/``ld.const`` or a ``mov`` of an immediate; a parameter never counts as a load. ALU ops are
INT/FP32 ``add sub mul min max and or xor shl shr`` (pattern 4 also ``neg abs not cvt``), ``setp``
compares, and ``fma``/``mad``; no SFU op (``sqrt rsqrt rcp sin cos ex2 lg2 tanh div rem``), nothing of 64
bits (f64 in particular), no carry chains, no guarded instruction.

*FMA.* ``fma(x, y, z)`` is ``mul`` + ``add``. When the addend ``z`` is a chain load, both ops are in the
chain (TRIAD's ``fma(b, s, a)`` is pattern 9). When ``z`` is not a chain value (an accumulator held at
the core) only the mul is offloaded and the chain ends at the fma with a data reply: ``fma(a, b, acc)``
is pattern 2, ``fma(a, g(b, i), acc)`` pattern 8 (the paper's split-FMA rule).

*No register reuse.* Every register a chain defines (its loads' destinations, intermediate results, and
for an ack pattern the stored value) is read by no instruction outside the chain and is dead after the
chain's last instruction (:class:`ndpgpu.analysis.Liveness`); the data/bitmap result of patterns 2, 5, 6
and 8 is what the reply returns.

*Contiguity.* Instructions between a chain's first and last instruction that are not in the chain are
hoisted above it (Fig. 6 hoists the address computations); each must be free of side effects (no memory
access other than ``ld.param``/``ld.const``, no barrier, fence, atomic or call), must not read a value the
chain computed before it, and must not overwrite a register the chain used or defined before it.
Otherwise the chain is rejected: a barrier/fence/atomic/store/shared access inside, or a dependence.

When several chains overlap, the one with more instructions is taken (pattern 1 over the pattern 2 of
its add), then the earlier. Everything rejected is kept with its reason.

**Omni-Compute.** The service queue of a core buffers operands in its shared memory, so a kernel whose
shared memory leaves no room for it is not offloaded under Omni-Compute (:func:`omni_allowed`).
"""

from __future__ import annotations

import dataclasses
from functools import cached_property

import numpy as np

from ...analysis import Analyses, analyze
from ...analysis.defuse import START, defs_of, uses_of
from ...analysis.memops import mem_op
from ...frontend.ir import Addr, Function, Imm, Instruction, Reg, Vec
from ...trace.format import SPACE, KernelTrace
from ..tom.candidates import pc_map

SHARED_MEMORY_BYTES = 48 * 1024
"""Shared memory per core (Table 2: 48 KB), shared by the kernel and Omni-Compute's service queue."""

DEFAULT_SQ_BYTES = 2458
"""Shared-memory bytes the Omni-Compute service queue needs: the paper's SQ size, "approximately 2.4kB"
with all its register/buffer overheads (Sec. 6.4, hardware overheads), taken as 2.4 x 1024 rounded up. The
paper does not say how much of it lives in shared memory; this is the conservative whole."""

REPLY = {1: ("ack", 1), 2: ("data", 5), 3: ("ack", 1), 4: ("ack", 1), 5: ("bitmap", 1), 6: ("bitmap", 1),
         7: ("ack", 1), 8: ("data", 5), 9: ("ack", 1)}
"""Table 1's response packet per pattern: (kind, flits)."""

PATTERN_HLL = {1: "c=f(a,b)", 2: "c=f(a,b,c)", 3: "c=a", 4: "c=f(a,c)", 5: "h(a,b)", 6: "h(a,i)",
               7: "c=f(a,i)", 8: "d=f(a,d,g(b,i))", 9: "c=f(a,g(b,i))"}

TAG_FIRST, TAG_MIDDLE, TAG_LAST = "01", "10", "11"

BINARY_OPS = frozenset({"add", "sub", "mul", "min", "max", "and", "or", "xor", "shl", "shr"})
UNARY_OPS = frozenset({"neg", "abs", "not", "cvt"})
FMA_OPS = frozenset({"fma", "mad"})
SFU_OPS = frozenset({"sqrt", "rsqrt", "rcp", "sin", "cos", "ex2", "lg2", "tanh", "div", "rem"})
_SYNC_OPS = {"bar": "barrier", "barrier": "barrier", "mbarrier": "barrier", "membar": "memory fence",
             "fence": "memory fence", "atom": "atomic", "red": "atomic reduction", "call": "call",
             "ret": "return", "exit": "exit", "trap": "trap", "bra": "branch", "brx": "branch",
             "vote": "warp vote", "shfl": "warp shuffle", "activemask": "warp vote"}


def reply_of(pattern: int) -> tuple[str, int]:
    """(reply kind, flits) of a Table 1 pattern: ack 1 / data 5 / bitmap 1."""
    if pattern not in REPLY:
        raise ValueError(f"no Table 1 pattern {pattern} (1..9)")
    return REPLY[pattern]


def omni_allowed(smem_bytes: int, sq_bytes: int = DEFAULT_SQ_BYTES, budget: int = SHARED_MEMORY_BYTES) -> bool:
    """True when a kernel using ``smem_bytes`` of shared memory per CTA leaves room in the core's
    ``budget`` (48 KB) for Omni-Compute's service queue (``sq_bytes``); else Omni offloading is off."""
    if smem_bytes < 0 or sq_bytes < 0:
        raise ValueError("shared-memory sizes must be >= 0")
    return smem_bytes + sq_bytes <= budget


# ---------------------------------------------------------------------------------------------------------
# Results


@dataclasses.dataclass(frozen=True)
class Chain:
    """One tagged offload chain."""

    kernel: str
    pattern: int  # Table 1 pattern, 1..9
    block: int  # basic block index
    instrs: tuple[int, ...]  # chain instructions (fn.body indices), in program order
    pcs: tuple[int, ...]  # their trace PCs
    lines: tuple[int, ...]  # their PTX lines
    ptx: tuple[str, ...]  # their PTX text
    tags: tuple[str, ...]  # "01", "10"..., "11"
    loads: tuple[int, ...]  # the global loads (fn.body indices)
    store: int | None  # the global store, or None
    scalar: str | None  # the "i" operand (an immediate or a parameter register), if any
    hoisted: tuple[int, ...]  # instructions moved above the chain to make it contiguous
    split_fma: bool  # the chain ends at an fma/mad whose add stays at the core

    @property
    def reply(self) -> str:
        return REPLY[self.pattern][0]

    @property
    def reply_flits(self) -> int:
        return REPLY[self.pattern][1]

    @property
    def hoisting_needed(self) -> bool:
        return bool(self.hoisted)

    @property
    def memory_pcs(self) -> tuple[int, ...]:
        """Trace PCs of the chain's loads and store."""
        mem = set(self.loads) | ({self.store} if self.store is not None else set())
        return tuple(pc for i, pc in zip(self.instrs, self.pcs, strict=True) if i in mem)

    def row(self) -> dict:
        """JSON-ready description."""
        d = dataclasses.asdict(self)
        d.update(reply=self.reply, reply_flits=self.reply_flits, hoisting_needed=self.hoisting_needed,
                 hll=PATTERN_HLL[self.pattern])
        return d


@dataclasses.dataclass(frozen=True)
class RejectedChain:
    """A chain-shaped candidate that is not tagged, and why."""

    kernel: str
    root: int  # its last instruction (fn.body index)
    line: int
    pattern: int | None  # the pattern it would have had, when its shape matched
    reason: str


@dataclasses.dataclass
class ChainTable:
    """The offload chains of one kernel."""

    kernel: str
    chains: list[Chain]
    rejected: list[RejectedChain]
    smem_bytes: int  # static shared memory per CTA (dynamic shared memory is a launch parameter)
    sq_bytes: int = DEFAULT_SQ_BYTES

    @property
    def omni_allowed(self) -> bool:
        return omni_allowed(self.smem_bytes, self.sq_bytes)

    def tags(self, scheme: str = "llc") -> dict[int, str]:
        """fn.body index -> tag for ``scheme`` "llc" (LLC-Compute) or "omni" (Omni-Compute: no tags when
        the shared memory leaves no room for the service queue)."""
        if scheme not in ("llc", "omni"):
            raise ValueError(f"scheme must be 'llc' or 'omni', not {scheme!r}")
        if scheme == "omni" and not self.omni_allowed:
            return {}
        return {i: t for c in self.chains for i, t in zip(c.instrs, c.tags, strict=True)}

    def patterns(self) -> list[int]:
        """The distinct patterns found, sorted."""
        return sorted({c.pattern for c in self.chains})

# ---------------------------------------------------------------------------------------------------------
# Expression trees


@dataclasses.dataclass(frozen=True)
class _Node:
    kind: str  # "L" chain load, "I" scalar, "R" other register, "X" non-offloadable op, "op" ALU op
    instr: int = -1
    kids: tuple[_Node, ...] = ()
    text: str = ""

    def loads(self) -> list[int]:
        if self.kind == "L":
            return [self.instr]
        return [j for k in self.kids for j in k.loads()]

    def ops(self) -> list[int]:
        out = [self.instr] if self.kind == "op" else []
        return out + [j for k in self.kids for j in k.ops()]

    def bad(self) -> _Node | None:
        if self.kind == "X":
            return self
        return next((b for k in self.kids if (b := k.bad()) is not None), None)

    def scalars(self) -> list[str]:
        if self.kind == "I":
            return [self.text]
        return [s for k in self.kids for s in k.scalars()]


def _kinds(nodes) -> list[str]:
    return sorted(n.kind for n in nodes)


def _is_g_bi(n: _Node, fn: Function) -> bool:
    """``n`` is a binary op of one load and one scalar: g(b, i)."""
    return n.kind == "op" and fn.body[n.instr].opcode in BINARY_OPS and _kinds(n.kids) == ["I", "L"]


def _binary_pattern(kids: tuple[_Node, ...], fn: Function, store: bool) -> int | None:
    """Pattern of a binary op f(x, y) whose result is stored (``store``) or stays in a register."""
    ks = _kinds(kids)
    if ks == ["L", "L"]:
        return 1 if store else 2
    if ks == ["I", "L"]:
        return 7 if store else None
    if ks == ["L", "op"] and _is_g_bi(next(k for k in kids if k.kind == "op"), fn):
        return 9 if store else 8
    return None


# ---------------------------------------------------------------------------------------------------------
# The pass


def _operand_text(op) -> str:
    if isinstance(op, Reg):
        return ("-" if op.negate else "") + op.name
    if isinstance(op, Imm):
        return str(op.value)
    if isinstance(op, Addr):
        base = "" if op.base is None else _operand_text(op.base)
        off = f"+{op.offset}" if op.offset > 0 else (str(op.offset) if op.offset < 0 else "")
        return f"[{base}{off}]" if base else f"[{op.offset}]"
    if isinstance(op, Vec):
        return "{" + ", ".join("_" if it is None else _operand_text(it) for it in op.items) + "}"
    return str(getattr(op, "name", op))


def ptx_text(ins: Instruction) -> str:
    """``ins`` as PTX text (``ld.global.f32 %f1, [%rd4]``; guard included)."""
    guard = f"@{'!' if ins.guard.negate else ''}{ins.guard.name} " if ins.guard is not None else ""
    return f"{guard}{ins.full} " + ", ".join(_operand_text(o) for o in ins.operands)


def _types_reason(ins: Instruction) -> str | None:
    for t in ins.types():
        if t.name == "f64":
            return "f64 (double precision) operation"
        if t.name != "pred" and t.bits > 32:
            return f"{t.bits}-bit operation"
    if "wide" in ins.mods:
        return "64-bit (.wide) result"
    if "cc" in ins.mods or ins.opcode in ("addc", "subc", "madc"):
        return "carry chain"
    return None


def alu_reason(ins: Instruction) -> str | None:
    """Why ``ins`` cannot be a chain ALU op (None when it can: a simple INT/FP32 op, setp, fma/mad)."""
    op = ins.opcode
    if op in SFU_OPS:
        return f"SFU/long-latency op {ins.full}"
    if op not in BINARY_OPS | UNARY_OPS | FMA_OPS | {"setp"}:
        return f"{ins.full} is not an offloadable ALU op"
    why = _types_reason(ins)
    if why is not None:
        return f"{why}: {ins.full}"
    if ins.guard is not None:
        return f"guarded instruction {ins.full}"
    return None


class _Pass:
    def __init__(self, fn: Function, an: Analyses, pcs: list[int]):
        self.fn = fn
        self.an = an
        self.cfg = an.cfg
        self.pcs = pcs
        self.body = fn.body
        self.rejected: list[RejectedChain] = []

    @cached_property
    def _defs(self) -> list[tuple[str, ...]]:
        return [defs_of(ins) for ins in self.body]

    @cached_property
    def _uses(self) -> list[tuple[str, ...]]:
        return [uses_of(ins) for ins in self.body]

    # -- leaves --------------------------------------------------------------------------------
    def chain_load(self, j: int) -> bool:
        """``body[j]`` is a global load that may lead a chain."""
        ins = self.body[j]
        m = mem_op(ins)
        return (ins.opcode == "ld" and m is not None and m.kind == "load" and m.space == "global"
                and m.vector == 1 and isinstance(ins.operands[0], Reg) and ins.guard is None
                and _types_reason(ins) is None)

    def scalar_def(self, j: int, depth: int = 2) -> bool:
        """``body[j]`` defines a warp-uniform scalar: ld.param/ld.const, or mov/cvt of one or an immediate."""
        ins = self.body[j]
        m = mem_op(ins)
        if m is not None:
            return m.kind == "load" and m.space in ("param", "const") and isinstance(ins.operands[0], Reg)
        if ins.opcode in ("mov", "cvt") and len(ins.operands) == 2 and depth > 0:
            src = ins.operands[1]
            if isinstance(src, Imm):
                return True
            if isinstance(src, Reg):
                return self.scalar_reg(src.name, j, depth - 1)
        return False

    def scalar_reg(self, reg: str, at: int, depth: int = 2) -> bool:
        """Every definition of ``reg`` reaching instruction ``at`` is a scalar definition."""
        blk = self.cfg.block_of_instr[at]
        ds = self.an.reaching.at(reg, blk, at)
        if not ds or START in ds:
            return False
        return all(self.scalar_def(self.an.defuse.sites[d][0], depth) for d in ds)

    def def_in_block(self, reg: str, at: int) -> int | None:
        """The last instruction before ``at`` in its block that writes ``reg`` (None: none; -1: guarded)."""
        start = self.cfg.blocks[self.cfg.block_of_instr[at]].start
        for j in range(at - 1, start - 1, -1):
            if reg in self._defs[j]:
                return -1 if self.body[j].guard is not None else j
        return None

    def operand(self, op, at: int, depth: int) -> _Node:
        if isinstance(op, Imm):
            return _Node("I", text=str(op.value))
        if not isinstance(op, Reg) or op.negate:
            return _Node("R", text=str(op))
        j = self.def_in_block(op.name, at)
        if j is None or j < 0:
            return _Node("I" if j is None and self.scalar_reg(op.name, at) else "R", text=op.name)
        if self.chain_load(j):
            return _Node("L", j, text=op.name)
        if self.scalar_def(j):
            return _Node("I", j, text=op.name)
        ins = self.body[j]
        if ins.opcode not in BINARY_OPS | UNARY_OPS | FMA_OPS | SFU_OPS or depth <= 0:
            return _Node("R", j, text=op.name)
        kids = tuple(self.operand(o, j, depth - 1) for o in ins.operands[1:])
        why = alu_reason(ins)
        if why is not None:
            return _Node("X", j, kids, why)
        return _Node("op", j, kids, op.name)

    # -- matching ------------------------------------------------------------------------------
    def match(self, i: int) -> tuple[int, _Node, bool] | None | str:
        """(pattern, tree, split_fma) of the chain rooted at ``body[i]``; a reason string when it has
        loads but is not a chain; None when it is no candidate at all."""
        ins = self.body[i]
        m = mem_op(ins)
        if m is not None and m.kind == "store" and m.space == "global":
            if m.vector != 1 or len(ins.operands) != 2:
                return None
            v = self.operand(ins.operands[1], i, 2)
            tree = _Node("op", i, (v,))
            if not v.loads():
                return None
            if (bad := v.bad()) is not None:
                return bad.text
            if (why := _types_reason(ins)) is not None or ins.guard is not None:
                return why or "guarded store"
            if v.kind == "L":
                return 3, tree, False
            if v.kind == "op":
                op = self.body[v.instr]
                if op.opcode in UNARY_OPS and _kinds(v.kids) == ["L"]:
                    return 4, tree, False
                if op.opcode in BINARY_OPS and (p := _binary_pattern(v.kids, self.fn, True)) is not None:
                    return p, tree, False
                if op.opcode in FMA_OPS and len(v.kids) == 3 and v.kids[2].kind == "L" \
                        and _kinds(v.kids[:2]) == ["I", "L"]:
                    return 9, tree, False  # fma(b, i, a): mul + add, both offloaded
            return "stored value is not a Table 1 shape"
        if ins.opcode in BINARY_OPS | FMA_OPS | {"setp"} | SFU_OPS:
            if ins.opcode == "setp" and (len(ins.operands) != 3 or not isinstance(ins.operands[0], Reg)):
                return None
            kids = tuple(self.operand(o, i, 1) for o in ins.operands[1:])
            if not any(k.loads() for k in kids):
                return None
            why = alu_reason(ins)
            bad = next((k.bad() for k in kids if k.bad() is not None), None)
            if why is not None or bad is not None:
                # only report op roots fed directly by a load, not every op downstream of one
                if any(k.kind == "L" for k in kids) or bad is not None:
                    return why or bad.text  # type: ignore[union-attr]
                return None
            tree = _Node("op", i, kids)
            if ins.opcode == "setp":
                ks = _kinds(kids)
                if ks == ["L", "L"]:
                    return 5, tree, False
                if ks == ["I", "L"]:
                    return 6, tree, False
                return None
            if ins.opcode in BINARY_OPS:
                p = _binary_pattern(kids, self.fn, False)
                return (p, tree, False) if p is not None else None
            if len(kids) != 3:
                return None
            mul, acc = kids[:2], kids[2]
            if acc.kind == "L":
                if _kinds(mul) == ["I", "L"]:
                    return 8, tree, False  # fma(b, i, a) into a register: mul + add offloaded
                return None
            if not acc.loads():  # split FMA: the mul is offloaded, the add stays at the core
                p = _binary_pattern(mul, self.fn, False)
                if p is not None:
                    return p, _Node("op", i, mul), True
            return None
        return None

    # -- validation ----------------------------------------------------------------------------
    def validate(self, pattern: int, tree: _Node, root: int) -> tuple[tuple[int, ...], str | None]:
        """(hoisted instructions, rejection reason or None) of the chain ``tree`` rooted at ``root``."""
        body = self.body
        loads = tree.loads()
        if len(set(loads)) != len(loads):
            return (), "the same load feeds the chain twice"
        members = sorted(set(loads) | set(tree.ops()) | {root})
        first, last = members[0], members[-1]
        mset = set(members)
        # registers the chain defines that the core must not need afterwards
        sink_kept = REPLY[pattern][0] != "ack"
        for d in members:
            if d == root and sink_kept:
                continue
            for r in self._defs[d]:
                for k in range(d + 1, last + 1):
                    if k not in mset and r in self._uses[k]:
                        return (), (f"{r} (from PTX line {body[d].line}) is reused by {body[k].full} at line "
                                    f"{body[k].line}: register reuse by the same wavefront")
                    if k != d and r in self._defs[k]:
                        break
                else:
                    if r in self.an.liveness.live_after(last):
                        return (), (f"{r} (from PTX line {body[d].line}) is live after the chain: register "
                                    "reuse by the same wavefront")
        hoisted: list[int] = []
        for x in range(first + 1, last):
            if x in mset:
                continue
            ins = body[x]
            if ins.opcode in _SYNC_OPS:
                return (), f"{_SYNC_OPS[ins.opcode]} inside the chain: {ins.full} at line {ins.line}"
            m = mem_op(ins)
            if m is not None and not (m.kind == "load" and m.space in ("param", "const")):
                return (), f"{m.space} {m.kind} inside the chain: {ins.full} at line {ins.line}"
            earlier = [c for c in members if c < x]
            for c in earlier:
                if set(self._uses[x]) & set(self._defs[c]):
                    return (), f"{ins.full} at line {ins.line} uses a chain result and cannot be hoisted"
                if set(self._defs[x]) & (set(self._uses[c]) | set(self._defs[c])):
                    return (), f"{ins.full} at line {ins.line} overwrites a chain register and cannot be hoisted"
            hoisted.append(x)
        return tuple(hoisted), None

    # -- driver --------------------------------------------------------------------------------
    def run(self, smem_bytes: int, sq_bytes: int) -> ChainTable:
        fn, body = self.fn, self.body
        found: list[Chain] = []
        for blk in self.cfg.blocks:
            cands: list[Chain] = []
            for i in range(blk.start, blk.end):
                res = self.match(i)
                if res is None:
                    continue
                if isinstance(res, str):
                    self.rejected.append(RejectedChain(fn.name, i, body[i].line, None, res))
                    continue
                pattern, tree, split = res
                hoisted, why = self.validate(pattern, tree, i)
                if why is not None:
                    self.rejected.append(RejectedChain(fn.name, i, body[i].line, pattern, why))
                    continue
                loads = tuple(sorted(set(tree.loads())))
                members = tuple(sorted(set(loads) | set(tree.ops()) | {i}))
                tags = tuple(TAG_FIRST if k == 0 else TAG_LAST if k == len(members) - 1 else TAG_MIDDLE
                             for k in range(len(members)))
                scalars = tree.scalars()
                store = i if mem_op(body[i]) is not None else None
                cands.append(Chain(fn.name, pattern, blk.index, members, tuple(self.pcs[k] for k in members),
                                   tuple(body[k].line for k in members), tuple(ptx_text(body[k]) for k in members),
                                   tags, loads, store, scalars[0] if scalars else None, hoisted, split))
            cands.sort(key=lambda c: (-len(c.instrs), c.instrs[0]))
            taken: list[Chain] = []
            for c in cands:
                clash = next((t for t in taken if set(t.instrs) & set(c.instrs)
                              or (t.instrs[0] < c.instrs[-1] and c.instrs[0] < t.instrs[-1])), None)
                if clash is None:
                    taken.append(c)
                elif not set(c.instrs) <= set(clash.instrs):
                    self.rejected.append(RejectedChain(fn.name, c.instrs[-1], c.lines[-1], c.pattern,
                                                       f"overlaps the pattern-{clash.pattern} chain ending at "
                                                       f"line {clash.lines[-1]}"))
            found.extend(sorted(taken, key=lambda c: c.instrs[0]))
        self.rejected.sort(key=lambda r: r.root)
        return ChainTable(fn.name, found, self.rejected, smem_bytes, sq_bytes)


def static_shared_bytes(fn: Function, program=None) -> int:
    """Static shared memory of kernel ``fn``: the decoded program's when given, else the sum of the
    function's ``.shared`` variables (module-scope shared arrays are then not counted)."""
    if program is not None:
        return int(getattr(program, "shared_static_bytes", 0))
    return sum(v.size for v in fn.variables if v.space == "shared")


def find_chains(fn: Function, program=None, sq_bytes: int = DEFAULT_SQ_BYTES,
                smem_bytes: int | None = None) -> ChainTable:
    """The offload chains of kernel ``fn`` (see the module docstring).

    ``program`` (:meth:`ndpgpu.api.Function.program`) gives the trace PCs (required for a kernel with
    calls) and the static shared memory; ``smem_bytes`` overrides the latter (add a launch's dynamic
    shared memory here).
    """
    pcs = pc_map(fn, program)
    smem = static_shared_bytes(fn, program) if smem_bytes is None else smem_bytes
    return _Pass(fn, analyze(fn), pcs).run(smem, sq_bytes)


# ---------------------------------------------------------------------------------------------------------
# Dynamic coverage (Table 3's columns)


@dataclasses.dataclass(frozen=True)
class Coverage:
    """Executed instructions and global memory requests of a trace (warp level), and the chains' part."""

    kernel: str
    instructions: int  # dynamic warp-instructions
    chain_instructions: int  # of which at a chain PC
    mem_requests: int  # global memory records (warp-level memory instructions with an active lane)
    chain_mem_requests: int  # of which at a chain load/store PC

    @property
    def instruction_share(self) -> float:
        return self.chain_instructions / self.instructions if self.instructions else 0.0

    @property
    def mem_share(self) -> float:
        return self.chain_mem_requests / self.mem_requests if self.mem_requests else 0.0

    def __add__(self, other: Coverage) -> Coverage:
        name = self.kernel if self.kernel == other.kernel else "*"
        return Coverage(name, self.instructions + other.instructions,
                        self.chain_instructions + other.chain_instructions, self.mem_requests + other.mem_requests,
                        self.chain_mem_requests + other.chain_mem_requests)


def chain_coverage(trace: KernelTrace, chains: list[Chain]) -> Coverage:
    """How much of ``trace`` the ``chains`` (of the trace's kernel, in its PC space) cover: executed
    warp-instructions at a chain PC among all, and global memory records of chain loads/stores among all
    global memory records with an active lane."""
    npc = len(trace.static)
    inside = np.zeros(npc + 1, np.int64)
    mem_pcs = np.zeros(npc, bool)
    for c in chains:
        if c.kernel != trace.launch.kernel:
            raise ValueError(f"chain of {c.kernel} given for a trace of {trace.launch.kernel}")
        for pc in c.pcs:
            if pc >= npc:
                raise ValueError(f"chain PC {pc} is past the trace's {npc} PCs")
            inside[pc + 1] = 1
        mem_pcs[list(c.memory_pcs)] = True
    cum = np.cumsum(inside)  # cum[p] = chain PCs below p
    seg = trace.segments
    pc0 = seg["pc"].astype(np.int64)
    cnt = seg["count"].astype(np.int64)
    total = int(cnt.sum())
    chain = int((cum[pc0 + cnt] - cum[pc0]).sum()) if len(seg) else 0
    mem = trace.mem
    glob = (mem["space"] == SPACE["global"]) & (mem["mask"] != 0)
    n_mem = int(glob.sum())
    n_chain = int((glob & mem_pcs[mem["pc"].astype(np.int64)]).sum()) if len(mem) else 0
    return Coverage(trace.launch.kernel, total, chain, n_mem, n_chain)


__all__ = ["BINARY_OPS", "Chain", "ChainTable", "Coverage", "DEFAULT_SQ_BYTES", "PATTERN_HLL", "REPLY",
           "RejectedChain", "SHARED_MEMORY_BYTES", "alu_reason", "chain_coverage", "find_chains", "omni_allowed",
           "reply_of", "static_shared_bytes"]
