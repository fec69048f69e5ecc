"""Affine address expressions in %tid/%ctaid/%ntid/%nctaid/parameters, and their ranges over a launch.

:class:`AffineAnalysis` gives the value of a register before an instruction, and the address of each
memory instruction, as an :class:`~ndpgpu.analysis.linexpr.Affine` (see there for the atoms), following
``mov``/``add``/``sub``/``mul.lo``/``mul.wide``/``mad``/``shl`` by a constant/``neg``/integer ``cvt``/
``cvta`` to or from global, ``ld.param`` of a parameter, and ``selp`` of equal values, through registers:

* where every reaching definition gives the same expression (one reaching definition, or e.g. the same
  constant on both sides of a diamond);
* inside loops, through induction variables: the value of an induction register in iteration ``k`` is
  ``init + k*step``, with ``k`` the atom ``loop:LABEL`` (``LABEL``: the loop header's label).

Anything else (a value loaded from memory, ``and``/``shr``/``div``, several different reaching
definitions, a loop-carried value that is not an induction variable, a value computed in a loop and used
after it) gives None; :meth:`AffineAnalysis.reason` says which (``Fail.kind``: ``load``, ``operator``,
``control``, ``induction``, ``special``, ``undefined``, ``float``), which is TELEPORT's classification
of non-precalculable indexes.

Ranges: :func:`value_range` (min/max over every thread and block of a :class:`Launch`, exact for
expressions linear in each variable, by checking the box's corners), :func:`cta_range` (bounds for one
CTA as expressions of ``%ctaid``, TELEPORT's Eqs. 2-3) and :meth:`AffineAnalysis.access_range` (bytes
an access may touch).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from functools import cached_property

from ..frontend.ir import Addr, Function, Reg, Sym
from .cfg import CFG
from .defuse import START, DefUse, ReachingDefs
from .linexpr import AFFINE_SPECIALS, Affine, Fail, Value, operand_leaf, transfer
from .loops import LoopForest
from .memops import MemOp, mem_op

_DIMS = ("x", "y", "z")
# TELEPORT's priority among reasons for a non-precalculable index: Indirect > Operator > Control > Induction
_RANK = {"load": 0, "operator": 1, "float": 1, "special": 1, "control": 2, "induction": 3, "undefined": 4}


def _dim3(v: int | tuple[int, ...]) -> tuple[int, int, int]:
    t = (v,) if isinstance(v, int) else tuple(v)
    if not 1 <= len(t) <= 3 or any(int(x) < 1 for x in t):
        raise ValueError(f"bad launch dimension {v!r}")
    return tuple(int(x) for x in t) + (1,) * (3 - len(t))  # type: ignore[return-value]


@dataclasses.dataclass(frozen=True)
class Launch:
    """A kernel launch: grid and block dimensions, optionally parameter values (by parameter name) and
    iteration counts of loops (by ``loop:LABEL`` atom or plain label) for expressions that use them."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    params: Mapping[str, int] = dataclasses.field(default_factory=dict)
    iterations: Mapping[str, int] = dataclasses.field(default_factory=dict)

    @staticmethod
    def of(grid: int | tuple[int, ...], block: int | tuple[int, ...], params: Mapping[str, int] | None = None,
           iterations: Mapping[str, int] | None = None) -> Launch:
        """Build a launch from CUDA-style ``grid``/``block`` (an int or a 1..3-tuple)."""
        its = {(k if k.startswith("loop:") else "loop:" + k): int(v) for k, v in (iterations or {}).items()}
        return Launch(_dim3(grid), _dim3(block), dict(params or {}), its)

    def constants(self) -> dict[str, int]:
        """Values of the launch-constant atoms: ``%ntid.*``, ``%nctaid.*`` and the given parameters."""
        out: dict[str, int] = {}
        for k, d in enumerate(_DIMS):
            out[f"%ntid.{d}"] = self.block[k]
            out[f"%nctaid.{d}"] = self.grid[k]
        out.update(self.params)
        return out

    def bounds(self) -> dict[str, tuple[int, int]]:
        """Inclusive ranges of the per-thread atoms ``%tid.*``, ``%ctaid.*`` and given loop counters."""
        out: dict[str, tuple[int, int]] = {}
        for k, d in enumerate(_DIMS):
            out[f"%tid.{d}"] = (0, self.block[k] - 1)
            out[f"%ctaid.{d}"] = (0, self.grid[k] - 1)
        for name, n in self.iterations.items():
            if n >= 1:
                out[name] = (0, n - 1)
        return out


def _box_range(e: Affine, bounds: Mapping[str, tuple[int, int]]) -> tuple[int, int] | None:
    variables = sorted(e.atoms())
    if any(v not in bounds for v in variables):
        return None
    multilinear = all(len(set(m)) == len(m) for m in e.terms)
    if multilinear and len(variables) <= 12:
        terms = list(e.terms.items())
        lo = hi = None
        for corner in itertools.product(*[bounds[v] for v in variables]):
            vals = dict(zip(variables, corner, strict=True))
            total = 0
            for mono, coef in terms:
                t = coef
                for a in mono:
                    t *= vals[a]
                total += t
            lo = total if lo is None or total < lo else lo
            hi = total if hi is None or total > hi else hi
        return (lo or 0, hi or 0)
    lo = hi = 0
    for mono, coef in e.terms.items():
        tlo = thi = coef
        for a in mono:
            alo, ahi = bounds[a]
            cands = (tlo * alo, tlo * ahi, thi * alo, thi * ahi)
            tlo, thi = min(cands), max(cands)
        lo += tlo
        hi += thi
    return lo, hi


def value_range(expr: Affine, launch: Launch, fixed: Mapping[str, int] | None = None,
                ) -> tuple[int, int] | None:
    """Inclusive (min, max) of ``expr`` over every thread of ``launch`` (atoms in ``fixed`` take the
    given values, e.g. ``{"%ctaid.x": 3}`` for one CTA); None when an atom has no value or range."""
    consts: dict[str, int] = launch.constants()
    if fixed:
        consts.update(fixed)
    e = expr.substitute(consts)
    if e is None:
        return None
    return _box_range(e, launch.bounds())


def cta_range(expr: Affine, launch: Launch) -> tuple[Affine, Affine] | None:
    """Bounds of ``expr`` over the threads (and loop iterations) of one CTA, as expressions of the
    ``%ctaid.*`` atoms (and of parameters not given in ``launch``): TELEPORT's per-block min/max.
    None when a term mixes ``%ctaid`` with a per-thread atom or a per-thread atom has no range."""
    e = expr.substitute(launch.constants())
    if e is None:
        return None
    bounds = launch.bounds()
    fixed_part = Affine()
    varying = Affine()
    for mono, coef in e.terms.items():
        per_thread = [a for a in mono if is_thread_atom(a) and not a.startswith("%ctaid")]
        if per_thread:
            if any(a not in bounds or a.startswith("%ctaid") for a in mono):
                return None  # a counter without a range, or a term mixing the CTA with its threads
            varying = varying + Affine({mono: coef})
        else:
            fixed_part = fixed_part + Affine({mono: coef})
    r = _box_range(varying, bounds) if varying.terms else (0, 0)
    if r is None:
        return None
    return fixed_part + r[0], fixed_part + r[1]


@dataclasses.dataclass(frozen=True)
class Access:
    """A memory instruction with its address expression (``expr``; None with ``reason`` when not
    affine). ``base`` is the pointer atom (a parameter or ``&symbol``) with coefficient 1 when there is
    exactly one, and ``offset`` = ``expr - base``."""

    op: MemOp
    expr: Affine | None
    reason: str = ""
    base: str | None = None
    offset: Affine | None = None

    @property
    def index(self) -> int:
        return self.op.index


class AffineAnalysis:
    """Affine values and addresses of one function (see the module docstring)."""

    def __init__(self, fn: Function, cfg: CFG | None = None, du: DefUse | None = None,
                 loops: LoopForest | None = None):
        self.fn = fn
        self.cfg = cfg or CFG(fn)
        self.du = du or DefUse(fn)
        self.loops = loops or LoopForest(self.cfg, self.du)
        self.rd: ReachingDefs = self.loops.rd
        self.params = frozenset(p.name for p in fn.params)
        self._memo: dict[int, Value] = {}
        self._warmed = False

    # -- values ---------------------------------------------------------------------------------
    def value_or_reason(self, reg: str, instr: int) -> Value:
        """The value of ``reg`` just before instruction ``instr``: an Affine or a Fail."""
        self._warm()
        try:
            return self._value(reg, self.cfg.block_of_instr[instr], instr)
        except RecursionError:
            return Fail("operator", "expression too deep")

    def _warm(self) -> None:
        """Evaluate every definition once in program order, so that later queries recurse shallowly."""
        if self._warmed:
            return
        self._warmed = True
        for d in range(len(self.du.sites)):
            try:
                self._def_value(d)
            except RecursionError:
                self._memo[d] = Fail("operator", "expression too deep")

    def value(self, reg: str, instr: int) -> Affine | None:
        """The value of ``reg`` just before instruction ``instr``, or None when not affine."""
        v = self.value_or_reason(reg, instr)
        return v if isinstance(v, Affine) else None

    def _loop_ok(self, v: Affine, block: int) -> bool:
        for a in v.atoms():
            if a.startswith("loop:"):
                lp = self._loop_by_atom.get(a)
                if lp is None or block not in self.loops.loops[lp].blocks:
                    return False
        return True

    @cached_property
    def _loop_by_atom(self) -> dict[str, int]:
        return {self.loop_atom(h): h for h in self.loops.loops}

    def loop_atom(self, header: int) -> str:
        """The atom counting the iterations of the loop with this header."""
        return "loop:" + self.loops.loops[header].label

    def _value(self, reg: str, block: int, pos: int) -> Value:
        defs = self.rd.at(reg, block, pos)
        if not defs:
            return Fail("undefined", f"{reg} at an unreachable point")
        fails: list[Fail] = []
        values: set[Affine] = set()
        for d in defs:
            if d == START:
                fails.append(Fail("undefined", f"{reg} may be read before it is written"))
                continue
            v = self._def_value(d)
            if isinstance(v, Fail):
                fails.append(v)
            else:
                values.add(v)
        if not fails and len(values) == 1:
            only = next(iter(values))
            if self._loop_ok(only, block):
                return only
        if self.loops.loop_of[block] is not None:
            lv = self._loop_value(reg, block, pos)
            if isinstance(lv, Affine):
                return lv
            fails.append(lv)
        elif len(values) > 1:
            fails.append(Fail("control", f"{reg} has several reaching definitions with different values"))
        elif values:
            fails.append(Fail("induction", f"{reg} is computed in a loop and read after it"))
        return min(fails, key=lambda f: _RANK.get(f.kind, 9))

    def _def_value(self, d: int) -> Value:
        v = self._memo.get(d)
        if v is not None:
            return v
        self._memo[d] = Fail("induction", "loop-carried value")
        i, reg = self.du.sites[d]
        ins = self.fn.body[i]
        block = self.cfg.block_of_instr[i]
        dst = ins.operands[0] if ins.operands else None
        if not isinstance(dst, Reg) or dst.name != reg:
            v = Fail("operator", f"{ins.full} (line {ins.line})")
        else:
            v = transfer(ins, lambda op: self._src(op, block, i), self.params)
        self._memo[d] = v
        return v

    def _src(self, op, block: int, pos: int) -> Value:
        leaf = operand_leaf(op, self.params)
        if leaf is not None:
            return leaf
        return self._value(op.name, block, pos)

    def _loop_value(self, reg: str, block: int, pos: int) -> Value:
        h = self.loops.loop_of[block]
        assert h is not None
        v = self.loops.iter_value(h, reg, block, pos)
        if isinstance(v, Fail):
            return v
        return self._from_iteration(h, v)

    def _from_iteration(self, h: int, v: Affine) -> Value:
        loops = self.loops
        ivs = loops.induction_variables(h)
        mapping: dict[str, Affine] = {}
        for a in v.atoms():
            if a not in self.du.reg_index:
                continue
            if loops.is_invariant(h, a):
                val = self._entry(h, a)
            elif a in ivs:
                init = self._entry(h, a)
                if isinstance(init, Fail):
                    return init
                step = ivs[a]
                smap: dict[str, Affine] = {}
                for s in step.atoms():
                    if s in self.du.reg_index:
                        sv = self._entry(h, s)
                        if isinstance(sv, Fail):
                            return sv
                        smap[s] = sv
                step_v = step.substitute(smap) if smap else step
                if step_v is None:
                    return Fail("operator", "step too complex")
                term = step_v.times(Affine.atom(self.loop_atom(h)))
                if term is None:
                    return Fail("operator", "step too complex")
                val = init + term
            else:
                return Fail("induction", f"{a} changes in loop {loops.loops[h].label} but is not an "
                                         "induction variable")
            if isinstance(val, Fail):
                return val
            mapping[a] = val
        out = v.substitute(mapping) if mapping else v
        return out if out is not None else Fail("operator", "expression too complex")

    def _entry(self, h: int, reg: str) -> Value:
        pres = self.loops.preheaders(h)
        if not pres:
            return Fail("undefined", "loop without an entry")
        vals: set[Affine] = set()
        for p in pres:
            v = self._value(reg, p, self.cfg.blocks[p].end)
            if isinstance(v, Fail):
                return v
            vals.add(v)
        if len(vals) != 1:
            return Fail("control", f"{reg} enters the loop with different values")
        return vals.pop()

    # -- addresses ------------------------------------------------------------------------------
    def address_or_reason(self, instr: int) -> Value:
        """The address of memory instruction ``instr`` (Affine) or why it is not affine (Fail)."""
        op = mem_op(self.fn.body[instr], instr)
        if op is None:
            return Fail("operator", "not a memory instruction")
        base = op.addr.base
        if base is None:
            return Affine.const(op.addr.offset)
        if isinstance(base, Sym):
            return Affine.atom("&" + base.name) + op.addr.offset
        v = self.value_or_reason(base.name, instr)
        return v + op.addr.offset if isinstance(v, Affine) else v

    def address(self, instr: int) -> Affine | None:
        """The address of memory instruction ``instr`` or None when it is not affine."""
        v = self.address_or_reason(instr)
        return v if isinstance(v, Affine) else None

    def reason(self, instr: int) -> str:
        """Why the address of ``instr`` is not affine ("" when it is)."""
        v = self.address_or_reason(instr)
        return "" if isinstance(v, Affine) else str(v)

    @cached_property
    def accesses(self) -> list[Access]:
        """Every memory instruction with its address expression, in program order."""
        out = []
        for i, ins in enumerate(self.fn.body):
            op = mem_op(ins, i)
            if op is None:
                continue
            v = self.address_or_reason(i)
            if isinstance(v, Fail):
                out.append(Access(op, None, str(v)))
                continue
            bases = [m[0] for m, c in v.terms.items() if len(m) == 1 and c == 1
                     and (m[0].startswith("&") or m[0] in self.params)]
            if len(bases) == 1:
                out.append(Access(op, v, "", bases[0], v - Affine.atom(bases[0])))
            else:
                out.append(Access(op, v))
        return out

    # -- launch constants -----------------------------------------------------------------------
    def constant_value(self, reg: str, instr: int, launch: Launch) -> int | None:
        """The value of ``reg`` before ``instr`` when it depends only on launch constants (``%ntid``,
        ``%nctaid``, parameters given in ``launch``), computed with the instructions' integer semantics
        (wraparound, shifts, ``and``/``or``/``div``...); None otherwise. Returned as the register's
        unsigned bit pattern."""
        memo: dict[int, int | None] = {}
        try:
            return self._const(reg, self.cfg.block_of_instr[instr], instr, launch, memo)
        except RecursionError:
            return None

    def constant_at_entry(self, header: int, reg: str, launch: Launch) -> int | None:
        """:meth:`constant_value` of ``reg`` when the loop with this header is entered."""
        memo: dict[int, int | None] = {}
        vals = set()
        for p in self.loops.preheaders(header):
            v = self._const(reg, p, self.cfg.blocks[p].end, launch, memo)
            if v is None:
                return None
            vals.add(v)
        return vals.pop() if len(vals) == 1 else None

    def _const(self, reg: str, block: int, pos: int, launch: Launch, memo: dict) -> int | None:
        defs = self.rd.at(reg, block, pos)
        vals = set()
        for d in defs:
            if d == START:
                return None
            if d not in memo:
                memo[d] = None  # cycles give up
                memo[d] = self._const_def(d, launch, memo)
            v = memo[d]
            if v is None:
                return None
            vals.add(v)
        return vals.pop() if len(vals) == 1 else None

    def _const_def(self, d: int, launch: Launch, memo: dict) -> int | None:
        i, reg = self.du.sites[d]
        ins = self.fn.body[i]
        dst = ins.operands[0] if ins.operands else None
        if not isinstance(dst, Reg) or dst.name != reg:
            return None
        block = self.cfg.block_of_instr[i]
        consts = launch.constants()

        def src(op) -> int | None:
            if isinstance(op, Reg):
                v = self._const(op.name, block, i, launch, memo)
                return None if v is None else (v ^ 1 if op.negate else v)
            leaf = operand_leaf(op, self.params)
            if isinstance(leaf, Affine):
                try:
                    return leaf.evaluate(consts)
                except KeyError:
                    return None
            return None

        return concrete(ins, src, launch.params)

    # -- ranges ---------------------------------------------------------------------------------
    def reachable_blocks(self, launch: Launch) -> set[int]:
        """Blocks some thread of ``launch`` may reach: branches whose predicate is a launch constant
        (see :meth:`constant_value`) follow only their taken or their fall-through edge."""
        cfg = self.cfg
        body = self.fn.body
        if not cfg.blocks:
            return set()
        memo: dict[int, int | None] = {}
        seen = {0}
        work = [0]
        while work:
            b = work.pop()
            blk = cfg.blocks[b]
            last = body[blk.end - 1]
            succs = list(blk.succs)
            if last.guard is not None and last.opcode in ("bra", "ret", "exit") and len(succs) == 2:
                p = self._const(last.guard.name, b, blk.end - 1, launch, memo)
                if p is not None:
                    taken = bool(p & 1) != last.guard.negate
                    succs = [succs[0] if taken else succs[1]]
            for s in succs:
                if s != cfg.exit and s not in seen:
                    seen.add(s)
                    work.append(s)
        return seen

    def loop_iterations(self, launch: Launch) -> dict[str, int]:
        """Iteration counts of loops for ``launch``: static counts, and entry counts whose registers are
        launch constants (given parameters, ntid, nctaid); 0 for loops no thread enters (their guard is a
        launch constant); loops given in ``launch.iterations`` win."""
        out: dict[str, int] = {}
        reach = self.reachable_blocks(launch)
        for h in self.loops.loops:
            atom = self.loop_atom(h)
            if h not in reach:
                out[atom] = 0
                continue
            tc = self.loops.trip_count(h)
            if tc.kind == "static" and tc.count is not None:
                out[atom] = tc.count
            elif tc.kind == "entry":
                vals: dict[str, int] = {}
                for r in tc.registers:
                    c = self.constant_at_entry(h, r, launch)
                    if c is None:
                        break
                    vals[r] = c
                else:
                    n = tc.evaluate(vals)
                    if n is not None:
                        out[atom] = n
        out.update(launch.iterations)
        return out

    def access_range(self, instr: int, launch: Launch, fixed: Mapping[str, int] | None = None,
                     ) -> tuple[int, int] | None:
        """First and last byte (inclusive) that memory instruction ``instr`` may touch over ``launch``
        (loop counters from :meth:`loop_iterations`); None when not affine, when an atom has no value,
        or when no thread of ``launch`` reaches it."""
        op = mem_op(self.fn.body[instr], instr)
        e = self.address(instr)
        if op is None or e is None or self.cfg.block_of_instr[instr] not in self.reachable_blocks(launch):
            return None
        full = Launch(launch.grid, launch.block, launch.params, self.loop_iterations(launch))
        r = value_range(e, full, fixed)
        if r is None:
            return None
        return r[0], r[1] + max(op.width, 1) - 1


def _bits_of(t) -> int:
    return t.bits if t.kind != "pred" else 1


def concrete(ins, src, params: Mapping[str, int]) -> int | None:
    """Evaluate integer instruction ``ins`` on concrete operands (``src(op)`` gives an operand's value as
    an unsigned bit pattern, or None); the result is the destination's unsigned bit pattern, or None for
    an operation it does not model (floats, memory other than ``ld.param``)."""
    op = ins.opcode
    ops = ins.operands
    types = ins.types()
    if any(t.kind in ("f", "bf") for t in types):
        return None
    if op == "ld":
        a = ops[1] if len(ops) > 1 else None
        if "param" in ins.mods and isinstance(a, Addr) and isinstance(a.base, Sym) and not a.offset \
                and a.base.name in params and types:
            return params[a.base.name] % (1 << types[-1].bits)
        return None
    if not types or len(ops) < 2:
        return None
    t = types[-1]
    bits = _bits_of(t)
    mask = (1 << bits) - 1
    signed = t.kind == "s"

    def sv(v: int, w: int = bits) -> int:
        v &= (1 << w) - 1
        return v - (1 << w) if v >> (w - 1) else v

    vals = [src(o) for o in ops[1:]]
    if any(v is None for v in vals[: {"mov": 1, "cvta": 1, "cvt": 1, "neg": 1, "not": 1}.get(op, 2)]):
        return None
    a = vals[0]
    b = vals[1] if len(vals) > 1 else None
    num = (lambda v: sv(v)) if signed else (lambda v: v & mask)
    if op in ("mov", "cvta"):
        return a & mask
    if op == "cvt":
        if len(types) != 2 or "sat" in ins.mods:
            return None
        st = types[1]
        v = sv(a, st.bits) if st.kind == "s" else a & ((1 << st.bits) - 1)
        return v & ((1 << types[0].bits) - 1)
    if op == "neg":
        return -a & mask
    if op == "not":
        return ~a & mask
    if op in ("add", "sub", "and", "or", "xor", "min", "max", "div", "rem", "shl", "shr"):
        if "cc" in ins.mods or "sat" in ins.mods or b is None:
            return None
        if op == "add":
            return (a + b) & mask
        if op == "sub":
            return (a - b) & mask
        if op == "and":
            return a & b
        if op == "or":
            return a | b
        if op == "xor":
            return a ^ b
        if op in ("min", "max"):
            x, y = num(a), num(b)
            return (min(x, y) if op == "min" else max(x, y)) & mask
        if op in ("div", "rem"):
            x, y = num(a), num(b)
            if y == 0:
                return None
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            return (q if op == "div" else x - q * y) & mask
        sh = b & 0xFFFFFFFF
        if op == "shl":
            return (a << sh) & mask if sh < bits else 0
        if signed:
            return (sv(a) >> min(sh, bits - 1)) & mask
        return (a & mask) >> sh if sh < bits else 0
    if op in ("mul", "mad"):
        if "hi" in ins.mods or "cc" in ins.mods or b is None:
            return None
        if "wide" in ins.mods:
            p = num(a) * num(b)
            w = 2 * bits
        else:
            p = a * b
            w = bits
        if op == "mad":
            c = vals[2] if len(vals) > 2 else None
            if c is None:
                return None
            p += c
        return p & ((1 << w) - 1)
    if op == "selp":
        c = vals[2] if len(vals) > 2 else None
        if c is None or b is None:
            return None
        return (a if c & 1 else b) & mask
    if op == "setp":
        if len(vals) != 2 or b is None:
            return None
        cmps = [m for m in ins.mods if m in ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")]
        if not cmps:
            return None
        c = cmps[0]
        uns = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
        if c in uns:
            x, y, c = a & mask, b & mask, uns[c]
        else:
            x, y = num(a), num(b)
        res = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[c]
        return int(res)
    return None


def is_thread_atom(atom: str) -> bool:
    """True for atoms that differ between threads of one launch (tid, ctaid, loop counters)."""
    return atom.startswith(("%tid", "%ctaid", "loop:"))


__all__ = [
    "AFFINE_SPECIALS", "Access", "Affine", "AffineAnalysis", "Fail", "Launch", "cta_range", "is_thread_atom",
    "value_range",
]
