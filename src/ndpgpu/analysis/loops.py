"""Natural loops, induction variables and trip counts.

A back edge ``t -> h`` is an edge whose target dominates its source; the natural loop of header ``h`` is
``h`` plus every block that reaches one of its back edges without passing through ``h`` (back edges to
one header make one loop). Retreating edges whose target does not dominate the source make the CFG
irreducible; they are listed in :attr:`LoopForest.irreducible` and form no loop. The edge the CFG adds
from an infinite loop to the virtual exit is not counted as a loop exit.

**Induction variables.** Within one iteration, a register's value is expressed relative to the values
registers had at the header when the iteration started (reaching definitions over the loop body with
its back edges removed). A register is an induction variable when, at the end of every latch, its value
is ``itself + step`` where ``step`` is a constant or an expression of registers the loop never writes.

**Trip counts** (``LoopForest.trip_count``) for a loop with one exit, a conditional branch in a block
that runs once per iteration and dominates the latches, on a predicate set by one
``setp.<cmp>.<int type>`` in the loop, comparing an expression of one induction variable (plus
loop-invariant registers, as in nvcc's countdown ``add %r20, %r4, %r25; setp.ne %r20, 0``) with a bound
that the loop never writes. ``count`` is the number of times the header runs per entry into the loop
(the loop body of a bottom-tested loop; a top-tested loop's blocks after the test run ``count - 1``
times). Kinds:

* ``static``: a number;
* ``entry``: a formula over registers read at the header's first instruction when the loop is entered
  (``registers``, which may also name a kernel parameter or a special register that the loop reads
  directly; :meth:`TripCount.evaluate` computes it, exactly as the hardware would, modulo the compare's
  width for ``ne``);
* ``unknown``: with ``reason``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from functools import cached_property

from ..frontend.ir import Function, Instruction, PredPair, Reg
from .cfg import CFG, branch_target
from .defuse import START, DefUse, ReachingDefs
from .linexpr import Affine, Fail, Value, operand_leaf, transfer


@dataclasses.dataclass
class Loop:
    """A natural loop. ``header`` identifies it; ``exit_edges`` are ``(inside, outside)`` pairs (the
    outside block may be the CFG's virtual exit); ``depth`` is 1 for an outermost loop."""

    header: int
    blocks: frozenset[int]
    latches: tuple[int, ...]
    exit_edges: tuple[tuple[int, int], ...]
    label: str
    parent: int | None = None
    children: list[int] = dataclasses.field(default_factory=list)
    depth: int = 1

    @property
    def exits(self) -> tuple[int, ...]:
        """Distinct blocks outside the loop that an exit edge reaches."""
        return tuple(sorted({o for _, o in self.exit_edges}))

    @property
    def exiting(self) -> tuple[int, ...]:
        """Blocks of the loop with an exit edge."""
        return tuple(sorted({i for i, _ in self.exit_edges}))

    @property
    def infinite(self) -> bool:
        """True when no edge leaves the loop."""
        return not self.exit_edges

    def __contains__(self, block: int) -> bool:
        return block in self.blocks


@dataclasses.dataclass(frozen=True)
class TripCount:
    """How many times a loop's header runs per entry (see the module docstring).

    For ``static`` and ``entry`` kinds the loop stays while ``cmp(start + c*step, bound)`` holds for the
    ``c``-th test (``c = 1, 2, ...``), in ``bits``-wide ``signed``/unsigned arithmetic; ``start``, ``step``
    and ``bound`` are expressions over the ``registers``' values at loop entry. ``iv`` is the induction
    register; ``test_block`` the block holding the exit branch. ``span`` (static only) is
    ``|bound - start|``: the counter's distance, which is the source loop's iteration count when nvcc
    unrolled a unit-step loop by ``step`` and kept its counter in source units.
    """

    kind: str  # "static" | "entry" | "unknown"
    count: int | None = None
    formula: str = ""
    registers: tuple[str, ...] = ()
    reason: str = ""
    iv: str | None = None
    start: Affine | None = None
    step: Affine | None = None
    bound: Affine | None = None
    cmp: str = ""
    bits: int = 32
    signed: bool = True
    test_block: int | None = None
    entry_pc: int | None = None
    span: int | None = None

    def evaluate(self, values: Mapping[str, int] | None = None) -> int | None:
        """The count given the registers' values at loop entry (raw or signed ints); None when the loop
        would not terminate or the kind is ``unknown``."""
        if self.kind == "static":
            return self.count
        if self.kind != "entry" or self.start is None or self.step is None or self.bound is None:
            return None
        vals = dict(values or {})
        try:
            u = self.start.evaluate(vals)
            s = self.step.evaluate(vals)
            b = self.bound.evaluate(vals)
        except KeyError:
            return None
        return header_count(self.cmp, self.signed, self.bits, u, s, b)


def _norm(v: int, bits: int, signed: bool) -> int:
    mod = 1 << bits
    v %= mod
    if signed and v >= mod >> 1:
        v -= mod
    return v


def header_count(cmp: str, signed: bool, bits: int, start: int, step: int, bound: int) -> int | None:
    """Smallest ``c >= 1`` such that ``cmp(start + c*step, bound)`` fails (the loop stays while it holds),
    with ``bits``-wide arithmetic; None when no such ``c`` exists."""
    mod = 1 << bits
    step = _norm(step, bits, True)
    if cmp in ("ne", "eq"):
        d = (bound - start) % mod
        s = step % mod
        if cmp == "eq":
            if (start + step - bound) % mod:
                return 1
            return None if s == 0 else 2
        if s == 0:
            return 1 if d == 0 else None
        g = math.gcd(s, mod)
        if d % g:
            return None
        m = mod // g
        c = (d // g) * pow(s // g, -1, m) % m if m > 1 else 0
        return c if c else m
    u = _norm(start, bits, signed)
    b = _norm(bound, bits, signed)
    first = u + step
    if cmp == "lt":
        if not first < b:
            return 1
        return -((u - b) // step) if step > 0 else None
    if cmp == "le":
        if not first <= b:
            return 1
        return (b - u) // step + 1 if step > 0 else None
    if cmp == "gt":
        if not first > b:
            return 1
        return -((b - u) // -step) if step < 0 else None
    if cmp == "ge":
        if not first >= b:
            return 1
        return (u - b) // -step + 1 if step < 0 else None
    return None


_NEGATE = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}
_MIRROR = {"eq": "eq", "ne": "ne", "lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}
_UNSIGNED_CMP = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}


def _opname(op) -> str:
    return op.name if isinstance(op, Reg) else repr(op)


def _fmt(e: Affine) -> str:
    """``e`` with its positive terms first (``%r12 - %r26`` rather than ``-%r26 + %r12``)."""
    terms = sorted(e.terms.items(), key=lambda mc: mc[1] < 0)
    if not terms or terms[0][1] < 0:
        return str(e)
    parts = [str(Affine([terms[0]]))]
    for m, c in terms[1:]:
        t = str(Affine([(m, abs(c))]))
        parts.append(("- " if c < 0 else "+ ") + t)
    return " ".join(parts)


def _paren(e: Affine) -> str:
    s = _fmt(e)
    single = len(e.terms) == 1 and e.degree == 1 and e.coef(*e.atoms()) == 1
    return s if single or (e.is_constant and e.constant >= 0) else f"({s})"


def _formula(cmp: str, start: Affine, step: Affine, bound: Affine) -> str:
    if step.is_constant:
        k = step.constant
        d = (bound - start) if k > 0 else (start - bound)
        ak = abs(k)
        if cmp == "ne":
            return _fmt(d) if ak == 1 else f"{_paren(d)} / {ak}"
        if cmp in ("lt", "gt"):
            return _fmt(d) if ak == 1 else f"ceil({_paren(d)} / {ak})"
        if cmp in ("le", "ge"):
            return _fmt(d + 1) if ak == 1 else f"floor({_paren(d)} / {ak}) + 1"
        return f"eq-loop({_fmt(start)}, {_fmt(step)}, {_fmt(bound)})"
    d = bound - start
    if cmp == "ne":
        return f"{_paren(d)} / {_paren(step)}"
    if cmp in ("lt", "gt"):
        return f"ceil({_paren(d)} / {_paren(step)})"
    if cmp in ("le", "ge"):
        return f"floor({_paren(d)} / {_paren(step)}) + 1"
    return f"eq-loop({_fmt(start)}, {_fmt(step)}, {_fmt(bound)})"


class LoopForest:
    """The natural loops of ``cfg`` with their nesting, induction variables and trip counts."""

    def __init__(self, cfg: CFG, du: DefUse | None = None, rd: ReachingDefs | None = None):
        self.cfg = cfg
        self.fn: Function = cfg.fn
        self.du = du or DefUse(cfg.fn)
        self._rd = rd
        self.params = frozenset(p.name for p in cfg.fn.params)
        self.loops: dict[int, Loop] = {}
        self.irreducible: list[tuple[int, int]] = []
        self._find()
        nb = len(cfg.blocks)
        self.loop_of: list[int | None] = [None] * nb
        for h in sorted(self.loops, key=lambda h: -len(self.loops[h].blocks)):
            for b in self.loops[h].blocks:
                self.loop_of[b] = h
        self._iter_rd: dict[int, ReachingDefs] = {}
        self._iter_memo: dict[tuple[int, int, bool], Value] = {}
        self._ivs: dict[int, dict[str, Affine]] = {}
        self._defined_in: dict[int, set[str]] = {}
        self._trips: dict[int, TripCount] = {}

    @property
    def rd(self) -> ReachingDefs:
        """Reaching definitions of the whole function."""
        if self._rd is None:
            self._rd = ReachingDefs(self.cfg, self.du)
        return self._rd

    # -- structure ------------------------------------------------------------------------------
    def _real_exit(self, b: int) -> bool:
        """Whether ``b``'s edge to the virtual exit is real (not added for an infinite loop)."""
        cfg = self.cfg
        blk = cfg.blocks[b]
        last = self.fn.body[blk.end - 1]
        is_last_block = b == len(cfg.blocks) - 1
        if last.opcode in ("ret", "exit", "trap"):
            return True
        if last.opcode == "bra":
            target = branch_target(last)
            if target is not None and self.fn.labels.get(target, -1) >= len(self.fn.body):
                return True
            return last.guard is not None and is_last_block
        return is_last_block

    def _find(self) -> None:
        cfg = self.cfg
        if not cfg.blocks:
            return
        # DFS for retreating edges
        on_stack = {0}
        seen = {0}
        retreating: list[tuple[int, int]] = []
        stack = [(0, iter(cfg.blocks[0].succs))]
        while stack:
            node, it = stack[-1]
            for s in it:
                if s == cfg.exit:
                    continue
                if s in on_stack:
                    retreating.append((node, s))
                elif s not in seen:
                    seen.add(s)
                    on_stack.add(s)
                    stack.append((s, iter(cfg.blocks[s].succs)))
                    break
            else:
                on_stack.discard(node)
                stack.pop()
        latches: dict[int, list[int]] = {}
        for t, h in retreating:
            if cfg.dominates(h, t):
                latches.setdefault(h, []).append(t)
            else:
                self.irreducible.append((t, h))
        label_at = self.fn.label_at()
        for h, ts in sorted(latches.items()):
            body = {h}
            work = [t for t in ts if t != h]
            body.update(work)
            while work:
                x = work.pop()
                for p in cfg.blocks[x].preds:
                    if p not in body:
                        body.add(p)
                        work.append(p)
            edges = []
            for b in sorted(body):
                for s in cfg.blocks[b].succs:
                    if s == cfg.exit:
                        if self._real_exit(b):
                            edges.append((b, s))
                    elif s not in body:
                        edges.append((b, s))
            start = cfg.blocks[h].start
            names = label_at.get(start)
            label = sorted(names)[0] if names else f"B{h}"
            self.loops[h] = Loop(h, frozenset(body), tuple(sorted(set(ts))), tuple(edges), label)
        by_size = sorted(self.loops.values(), key=lambda lp: len(lp.blocks))
        for lp in by_size:
            for outer in by_size:
                if outer is not lp and lp.header in outer.blocks and lp.blocks <= outer.blocks \
                        and len(outer.blocks) >= len(lp.blocks):
                    lp.parent = outer.header
                    outer.children.append(lp.header)
                    break
        for lp in sorted(self.loops.values(), key=lambda lp: -len(lp.blocks)):
            lp.depth = 1 if lp.parent is None else self.loops[lp.parent].depth + 1

    def loop(self, header_or_label: int | str) -> Loop:
        """The loop with this header block index or header label."""
        if isinstance(header_or_label, str):
            for lp in self.loops.values():
                if lp.label == header_or_label or header_or_label in self.cfg.blocks[lp.header].labels:
                    return lp
            raise KeyError(header_or_label)
        return self.loops[header_or_label]

    def loops_containing(self, block: int) -> list[Loop]:
        """Loops containing ``block``, innermost first."""
        out = []
        h = self.loop_of[block]
        while h is not None:
            out.append(self.loops[h])
            h = self.loops[h].parent
        return out

    def preheaders(self, header: int) -> list[int]:
        """Blocks outside the loop that branch or fall into its header."""
        lp = self.loops[header]
        return [p for p in self.cfg.blocks[header].preds if p not in lp.blocks]

    def defined_in(self, header: int) -> set[str]:
        """Registers some instruction of the loop writes."""
        s = self._defined_in.get(header)
        if s is None:
            s = set()
            for b in self.loops[header].blocks:
                blk = self.cfg.blocks[b]
                for i in range(blk.start, blk.end):
                    s.update(self.du.defs[i])
            self._defined_in[header] = s
        return s

    def is_invariant(self, header: int, reg: str) -> bool:
        """True when the loop never writes ``reg``."""
        return reg not in self.defined_in(header)

    # -- values within one iteration ------------------------------------------------------------
    def iteration_rd(self, header: int) -> ReachingDefs:
        """Reaching definitions over one iteration of the loop (START = value at the header)."""
        rd = self._iter_rd.get(header)
        if rd is None:
            rd = ReachingDefs(self.cfg, self.du, self.loops[header].blocks, header, back_edges=False)
            self._iter_rd[header] = rd
        return rd

    def _is_reg_atom(self, a: str) -> bool:
        return a in self.du.reg_index

    def iter_value(self, header: int, reg: str, block: int, pos: int, strict: bool = False) -> Value:
        """The value of ``reg`` before instruction ``pos`` of ``block`` (a block of the loop), as an
        expression whose register atoms are the registers' values at the header when the current
        iteration started."""
        rd = self.iteration_rd(header)
        defs = rd.at(reg, block, pos)
        if not defs:
            return Fail("undefined", f"{reg} at an unreachable point")
        vals: set[Affine] = set()
        for d in defs:
            v = Affine.atom(reg) if d == START else self._iter_def(header, d, strict)
            if isinstance(v, Fail):
                return v
            vals.add(v)
        if len(vals) == 1:
            return vals.pop()
        return Fail("control", f"{reg} has several reaching definitions in one iteration")

    def _iter_def(self, header: int, d: int, strict: bool) -> Value:
        key = (header, d, strict)
        v = self._iter_memo.get(key)
        if v is None:
            self._iter_memo[key] = Fail("induction", "cyclic definition")
            i, reg = self.du.sites[d]
            ins = self.fn.body[i]
            block = self.cfg.block_of_instr[i]
            v = self._transfer_single(
                ins, reg, lambda op: self._iter_src(header, op, block, i, strict), strict)
            self._iter_memo[key] = v
        return v

    def _iter_src(self, header: int, op, block: int, pos: int, strict: bool) -> Value:
        leaf = operand_leaf(op, self.params)
        if leaf is not None:
            return leaf
        return self.iter_value(header, op.name, block, pos, strict)

    def _transfer_single(self, ins: Instruction, reg: str, src, strict: bool) -> Value:
        dst = ins.operands[0] if ins.operands else None
        if not isinstance(dst, Reg) or dst.name != reg:
            return Fail("operator", f"{ins.full}: {reg} is not its only destination")
        return transfer(ins, src, self.params, strict)

    def induction_variables(self, header: int) -> dict[str, Affine]:
        """Induction registers of the loop -> step per iteration (a constant or an expression of
        registers the loop never writes, parameters and special registers)."""
        ivs = self._ivs.get(header)
        if ivs is not None:
            return ivs
        lp = self.loops[header]
        ivs = {}
        inside = self.defined_in(header)
        for reg in sorted(inside):
            step: Affine | None = None
            ok = True
            for t in lp.latches:
                v = self.iter_value(header, reg, t, self.cfg.blocks[t].end)
                if isinstance(v, Fail):
                    ok = False
                    break
                s = v - Affine.atom(reg)
                if any(a in inside for a in s.atoms()) or any(a.startswith("loop:") for a in s.atoms()):
                    ok = False
                    break
                if step is None:
                    step = s
                elif step != s:
                    ok = False
                    break
            if ok and step is not None and step != 0:
                ivs[reg] = step
        self._ivs[header] = ivs
        return ivs

    # -- values at loop entry -------------------------------------------------------------------
    def _no_def_between(self, reg: str, i: int, header: int) -> bool:
        """True when no definition of ``reg`` lies on a path from instruction ``i`` to the loop's entry."""
        cfg = self.cfg
        lp = self.loops[header]
        pb = cfg.block_of_instr[i]
        targets = set(self.preheaders(header))
        # blocks that can reach a preheader without entering the header
        back: set[int] = set(targets)
        work = list(targets)
        while work:
            x = work.pop()
            for p in cfg.blocks[x].preds:
                if p not in back and p != header and p not in lp.blocks:
                    back.add(p)
                    work.append(p)
        fwd: set[int] = set()
        work = [s for s in cfg.blocks[pb].succs if s != cfg.exit and s != header]
        while work:
            x = work.pop()
            if x in fwd or x == header:
                continue
            fwd.add(x)
            work.extend(s for s in cfg.blocks[x].succs if s != cfg.exit and s != header)
        for d in self.du.defs_of_reg.get(reg, ()):
            j, _ = self.du.sites[d]
            bj = cfg.block_of_instr[j]
            if bj in fwd and bj in back:
                return False
            if bj == pb and j > i and pb in back:
                return False
        return True

    def entry_value(self, header: int, reg: str, bits: int, depth: int = 3) -> Affine:
        """``reg``'s value at loop entry as an expression over registers at loop entry: the register
        itself, or its definition expanded (same-width integer ``mov/add/sub/mul.lo/shl/neg`` whose
        operands are unchanged until the entry)."""
        me = Affine.atom(reg)
        pre = self.preheaders(header)
        if not pre or depth < 0:
            return me
        defs: set[int] = set()
        for p in pre:
            defs.update(self.rd.at_block_end(reg, p))
        if len(defs) != 1 or START in defs:
            return me
        d = defs.pop()
        i, _ = self.du.sites[d]
        ins = self.fn.body[i]
        if not self.du.must[i] or not isinstance(ins.operands[0], Reg) or ins.operands[0].name != reg:
            return me
        if ins.opcode != "mov":
            types = ins.types()
            if not types or types[-1].bits != bits:
                return me

        def src(op) -> Value:
            leaf = operand_leaf(op, self.params)
            if leaf is not None:
                return leaf
            if not self._no_def_between(op.name, i, header):
                return Fail("control", "changed before the loop")
            return self.entry_value(header, op.name, bits, depth - 1)

        v = transfer(ins, src, self.params, strict=True)
        if isinstance(v, Fail) or v.degree > 1 or any(not self._is_reg_atom(a) for a in v.atoms()):
            return me
        return v

    # -- trip counts ----------------------------------------------------------------------------
    def trip_count(self, header_or_label: int | str) -> TripCount:
        """The trip count of a loop (cached)."""
        header = self.loop(header_or_label).header
        tc = self._trips.get(header)
        if tc is None:
            try:
                tc = self._trip(header)
            except RecursionError:
                tc = TripCount("unknown", reason="expressions too deep to analyse",
                               entry_pc=self.cfg.blocks[header].start)
            self._trips[header] = tc
        return tc

    def _trip(self, header: int) -> TripCount:
        cfg = self.cfg
        lp = self.loops[header]
        entry_pc = cfg.blocks[header].start

        def unknown(reason: str, **kw) -> TripCount:
            kw.setdefault("entry_pc", entry_pc)
            return TripCount("unknown", reason=reason, **kw)

        if lp.infinite:
            return unknown("no exit (infinite loop)")
        exiting = lp.exiting
        if len(exiting) != 1:
            return unknown(f"{len(exiting)} exiting blocks (a break or return inside the loop)")
        x = exiting[0]
        if self.loop_of[x] != header:
            return unknown("the exit is inside an inner loop")
        if not all(cfg.dominates(x, t) for t in lp.latches):
            return unknown("the exit test does not run on every iteration")
        blk = cfg.blocks[x]
        last = self.fn.body[blk.end - 1]
        if last.guard is None:
            return unknown(f"exit by an unconditional {last.opcode}")
        if last.opcode == "bra":
            target = self.fn.labels[branch_target(last)]  # type: ignore[index]
            tblock = cfg.block_of_instr[target] if target < len(self.fn.body) else cfg.exit
            taken_exits = tblock not in lp.blocks
        elif last.opcode in ("ret", "exit"):
            taken_exits = True
        else:
            return unknown(f"exit by {last.full}")
        # the loop exits when the guard predicate equals p_exit
        p_exit = taken_exits != last.guard.negate
        pname = last.guard.name
        rd = self.iteration_rd(header)
        pdefs = rd.at(pname, x, blk.end - 1)
        if len(pdefs) != 1 or pdefs[0] == START:
            return unknown(f"the exit predicate {pname} is not set once per iteration")
        pi, _ = self.du.sites[pdefs[0]]
        setp = self.fn.body[pi]
        if setp.opcode != "setp" or not self.du.must[pi] or len(setp.operands) != 3:
            return unknown(f"the exit predicate comes from {setp.full} (line {setp.line})")
        dst = setp.operands[0]
        if isinstance(dst, PredPair) and dst.second is not None and dst.second.name == pname \
                and dst.first.name != pname:
            p_exit = not p_exit  # the second destination holds the negated comparison
        types = setp.types()
        cmps = [m for m in setp.mods if m in _NEGATE or m in _UNSIGNED_CMP]
        if not types or types[-1].kind not in ("s", "u", "b") or not cmps:
            return unknown(f"{setp.full}: not an integer comparison")
        t = types[-1]
        cmp = cmps[0]
        signed = t.kind == "s" and cmp not in _UNSIGNED_CMP
        cmp = _UNSIGNED_CMP.get(cmp, cmp)
        if t.kind == "b" and cmp not in ("eq", "ne"):
            return unknown(f"{setp.full}: ordered comparison of untyped bits")
        bits = t.bits
        sblock = cfg.block_of_instr[pi]
        a = self._operand_iter(header, setp, 1, sblock, pi)
        b = self._operand_iter(header, setp, 2, sblock, pi)
        if isinstance(a, Fail):
            return unknown(f"compared value {_opname(setp.operands[1])}: {a}")
        if isinstance(b, Fail):
            return unknown(f"compared value {_opname(setp.operands[2])}: {b}")
        ivs = self.induction_variables(header)
        inside = self.defined_in(header)

        def split(e: Affine) -> tuple[Affine, str | None] | str:
            """(per-iteration change, induction register) or a reason."""
            change = Affine()
            iv = None
            for mono, coef in e.terms.items():
                regs_in = [m for m in mono if m in inside]
                if not regs_in:
                    continue
                if len(mono) != 1 or mono[0] not in ivs:
                    return f"{' * '.join(mono)} changes in the loop but is not an induction variable"
                change = change + ivs[mono[0]].scale(coef)
                iv = mono[0]
            return change, iv

        sa, sb = split(a), split(b)
        if isinstance(sa, str):
            return unknown(sa)
        if isinstance(sb, str):
            return unknown(sb)
        (step_a, iv_a), (step_b, iv_b) = sa, sb
        if step_a != 0 and step_b != 0:
            return unknown("both compared values change in the loop")
        if step_a == 0 and step_b == 0:
            return unknown("the compared values do not change in the loop")
        if step_a == 0:
            a, b = b, a
            step_a, iv_a = step_b, iv_b
            cmp = _MIRROR[cmp]
        stay = not p_exit  # loop stays when the comparison equals `stay`
        if not stay:
            cmp = _NEGATE[cmp]
        start = a - step_a
        start = self._expand(header, start, bits)
        step = self._expand(header, step_a, bits)
        bound = self._expand(header, b, bits)
        regs = sorted(set().union(start.atoms(), step.atoms(), bound.atoms()))
        bad = [r for r in regs if r.startswith("loop:")]
        if bad:
            return unknown(f"the count depends on {', '.join(bad)}")
        common = dict(iv=iv_a, start=start, step=step, bound=bound, cmp=cmp, bits=bits, signed=signed,
                      test_block=x, entry_pc=entry_pc)
        formula = _formula(cmp, start, step, bound)
        if not regs:
            n = header_count(cmp, signed, bits, start.constant, step.constant, bound.constant)
            if n is None:
                return unknown("the exit condition is never met", **common)
            span = abs(bound.constant - start.constant)
            return TripCount("static", n, str(n), (), "", span=span, **common)  # type: ignore[arg-type]
        return TripCount("entry", None, formula, tuple(regs), "", **common)  # type: ignore[arg-type]

    def _operand_iter(self, header: int, ins: Instruction, k: int, block: int, pos: int) -> Value:
        op = ins.operands[k]
        leaf = operand_leaf(op, self.params)
        if leaf is not None:
            return leaf
        if not isinstance(op, Reg):
            return Fail("operator", repr(op))
        return self.iter_value(header, op.name, block, pos, strict=True)

    def _expand(self, header: int, e: Affine, bits: int) -> Affine:
        mapping = {}
        for a in e.atoms():
            if self._is_reg_atom(a):
                v = self.entry_value(header, a, bits)
                if v != Affine.atom(a):
                    mapping[a] = v
        if not mapping:
            return e
        out = e.substitute(mapping)
        return e if out is None else out

    @cached_property
    def all_trip_counts(self) -> dict[int, TripCount]:
        """Trip count of every loop, by header."""
        return {h: self.trip_count(h) for h in sorted(self.loops)}
