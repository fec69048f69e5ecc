"""Integer polynomials over named atoms, and the transfer function of PTX integer arithmetic on them.

:class:`Affine` is ``c0 + sum(ci * monomial_i)`` where a monomial is a product of atoms (strings). The
analyses use these atoms:

* ``%tid.x`` ... ``%nctaid.z``: the special registers;
* a kernel parameter's name (``saxpy_param_1``): the value ``ld.param`` reads from it
  (``name+8`` for a field at byte offset 8 of a by-value struct);
* ``&name``: the address of a module- or function-scope variable (``mov.u64 %rd1, tile``);
* ``loop:LABEL``: the iteration number (0, 1, ...) of the loop whose header carries ``LABEL``;
* a register name (``%r12``): used only by trip-count formulas, where it means "the register's value
  when the loop is entered".

Products of atoms are kept (``%ctaid.x*%ntid.x`` is one monomial), so an expression is affine in the
thread and block indices with coefficients that are launch constants, which is what the mechanisms
need. Arithmetic is over mathematical integers: wraparound, truncation and sign extension are ignored
(valid while values fit their registers, as in-bounds addresses do).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping

from ..frontend.ir import Addr, Imm, Instruction, Operand, Reg, Special, Sym, Vec

Monomial = tuple[str, ...]

MAX_DEGREE = 4  # products of more atoms are given up on (reported as non-affine)
MAX_TERMS = 48

AFFINE_SPECIALS = frozenset(
    f"%{name}.{dim}" for name in ("tid", "ntid", "ctaid", "nctaid") for dim in ("x", "y", "z")
)
FLOAT_KINDS = ("f", "bf")


class Affine:
    """An immutable integer polynomial ``c0 + sum(ci * monomial)`` over string atoms."""

    __slots__ = ("_d", "_hash")

    def __init__(self, terms: Mapping[Monomial, int] | Iterable[tuple[Monomial, int]] = ()):
        items = terms.items() if isinstance(terms, Mapping) else terms
        acc: dict[Monomial, int] = {}
        for mono, coef in items:
            if coef:
                key = mono if len(mono) < 2 else tuple(sorted(mono))
                acc[key] = acc.get(key, 0) + coef
        self._d: dict[Monomial, int] = {m: c for m, c in acc.items() if c}
        self._hash: int | None = None

    @classmethod
    def _of(cls, d: dict[Monomial, int]) -> Affine:
        """Wrap a canonical dict (sorted monomials, no zero coefficient) without copying."""
        out = cls.__new__(cls)
        out._d = d
        out._hash = None
        return out

    @property
    def _terms(self) -> list[tuple[Monomial, int]]:
        """Terms in display order."""
        return sorted(self._d.items(), key=_mono_key)

    # -- construction ---------------------------------------------------------------------------
    @staticmethod
    def const(value: int) -> Affine:
        """The constant ``value``."""
        return Affine({(): int(value)})

    @staticmethod
    def atom(name: str, coef: int = 1) -> Affine:
        """``coef * name``."""
        return Affine({(name,): coef})

    # -- inspection -----------------------------------------------------------------------------
    @property
    def terms(self) -> dict[Monomial, int]:
        """Monomial -> coefficient (the constant under ``()``), in display order."""
        return dict(self._terms)

    @property
    def constant(self) -> int:
        """The constant term ``c0``."""
        return self._d.get((), 0)

    @property
    def is_constant(self) -> bool:
        return not self._d or (len(self._d) == 1 and () in self._d)

    @property
    def degree(self) -> int:
        """The largest number of atoms in one monomial (0 for a constant)."""
        return max((len(m) for m in self._d), default=0)

    def atoms(self) -> set[str]:
        """Every atom that appears."""
        return {a for mono in self._d for a in mono}

    def coef(self, *atoms: str) -> int:
        """The coefficient of the monomial made of ``atoms`` (``coef()`` is the constant)."""
        return self._d.get(tuple(sorted(atoms)), 0)

    def degree_in(self, prefixes: Iterable[str]) -> int:
        """Largest number of atoms starting with one of ``prefixes`` in one monomial."""
        pre = tuple(prefixes)
        return max((sum(1 for a in m if a.startswith(pre)) for m in self._d), default=0)

    # -- arithmetic -----------------------------------------------------------------------------
    def __add__(self, other: Affine | int) -> Affine:
        d = dict(self._d)
        if isinstance(other, Affine):
            for m, c in other._d.items():
                v = d.get(m, 0) + c
                if v:
                    d[m] = v
                else:
                    d.pop(m, None)
        elif other:
            v = d.get((), 0) + int(other)
            if v:
                d[()] = v
            else:
                d.pop((), None)
        return Affine._of(d)

    __radd__ = __add__

    def __neg__(self) -> Affine:
        return Affine._of({m: -c for m, c in self._d.items()})

    def __sub__(self, other: Affine | int) -> Affine:
        o = other if isinstance(other, Affine) else Affine.const(other)
        return self + (-o)

    def __rsub__(self, other: int) -> Affine:
        return Affine.const(other) - self

    def scale(self, k: int) -> Affine:
        """``k * self``."""
        if not k:
            return Affine()
        return Affine._of({m: c * k for m, c in self._d.items()})

    def __mul__(self, k: int) -> Affine:
        if not isinstance(k, int):
            return NotImplemented
        return self.scale(k)

    __rmul__ = __mul__

    def times(self, other: Affine) -> Affine | None:
        """The product, or None when it exceeds :data:`MAX_DEGREE` or :data:`MAX_TERMS`."""
        if self.is_constant:
            return other.scale(self.constant)
        if other.is_constant:
            return self.scale(other.constant)
        if self.degree + other.degree > MAX_DEGREE or len(self._d) * len(other._d) > MAX_TERMS * 4:
            return None
        out = Affine([(m1 + m2, c1 * c2) for m1, c1 in self._d.items() for m2, c2 in other._d.items()])
        return out if len(out._d) <= MAX_TERMS else None

    def substitute(self, mapping: Mapping[str, Affine | int]) -> Affine | None:
        """Replace atoms by expressions or numbers (None if a product grows too large)."""
        out = Affine()
        for mono, coef in self._d.items():
            if not any(a in mapping for a in mono):
                out = out + Affine._of({mono: coef})
                continue
            term = Affine.const(coef)
            rest: list[str] = []
            for a in mono:
                if a in mapping:
                    v = mapping[a]
                    t = term.times(v if isinstance(v, Affine) else Affine.const(v))
                    if t is None:
                        return None
                    term = t
                else:
                    rest.append(a)
            if rest:
                t = term.times(Affine({tuple(rest): 1}))
                if t is None:
                    return None
                term = t
            out = out + term
        return out

    def evaluate(self, values: Mapping[str, int]) -> int:
        """The value with every atom given in ``values`` (KeyError names a missing atom)."""
        total = 0
        for mono, coef in self._d.items():
            v = coef
            for a in mono:
                v *= values[a]
            total += v
        return total

    # -- protocol -------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, int):
            return self.is_constant and self.constant == other
        return isinstance(other, Affine) and self._d == other._d

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._d.items()))
        return self._hash

    def __str__(self) -> str:
        if not self._terms:
            return "0"
        parts: list[str] = []
        for mono, coef in self._terms:
            body = "*".join(sorted(mono, key=lambda a: (_atom_rank(a), a)))
            if not mono:
                txt = str(abs(coef))
            elif abs(coef) == 1:
                txt = body
            else:
                txt = f"{abs(coef)}*{body}"
            if not parts:
                parts.append(("-" if coef < 0 else "") + txt)
            else:
                parts.append(("- " if coef < 0 else "+ ") + txt)
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Affine({self})"


@functools.lru_cache(maxsize=4096)
def _atom_rank(a: str) -> int:
    if a.startswith("&"):
        return 1
    if a.startswith("%ctaid") or a.startswith("%nctaid"):
        return 3
    if a.startswith("%ntid"):
        return 4
    if a.startswith("%tid"):
        return 5
    if a.startswith("loop:"):
        return 6
    if a.startswith("%"):
        return 2  # registers (trip-count formulas)
    return 0  # parameters


def _mono_key(item: tuple[Monomial, int]):
    return _mono_order(item[0])


@functools.lru_cache(maxsize=8192)
def _mono_order(mono: Monomial):
    if not mono:
        return (1, 0, ())
    return (0, min(_atom_rank(a) for a in mono), len(mono), tuple((_atom_rank(a), a) for a in mono))


# ---------------------------------------------------------------------------------------------------------
# Transfer function


class Fail:
    """Why a value is not an :class:`Affine`: ``kind`` is one of ``load`` (read from memory), ``operator``
    (an operation outside + - * and shifts by constants), ``control`` (several reaching definitions or
    ``selp``), ``induction`` (a loop-carried value that is not a recognised induction variable),
    ``special`` (a special register other than tid/ntid/ctaid/nctaid), ``undefined``, ``float``."""

    __slots__ = ("kind", "detail")

    def __init__(self, kind: str, detail: str = ""):
        self.kind = kind
        self.detail = detail

    def __repr__(self) -> str:
        return f"Fail({self.kind}: {self.detail})"

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}" if self.detail else self.kind


Value = Affine | Fail


def _int_types(ins: Instruction) -> bool:
    return all(t.kind not in FLOAT_KINDS and t.kind != "pred" for t in ins.types())


def _where(ins: Instruction) -> str:
    return f"{ins.full} (line {ins.line})" if ins.line else ins.full


def transfer(
    ins: Instruction,
    src: Callable[[Operand], Value],
    params: frozenset[str] | set[str] = frozenset(),
    strict: bool = False,
) -> Value:
    """The value ``ins`` writes to its (single) destination, given ``src`` that evaluates a source operand.

    ``params`` names the function's parameters (``ld.param`` of one gives its atom). With ``strict``
    width-changing operations (``cvt``, ``mul.wide``, ``mad.wide``) are refused, so the result is exact
    modulo the register width (trip counts need that).
    """
    op = ins.opcode
    ops = ins.operands
    mods = ins.mods
    if op == "ld":
        if not _int_types(ins):
            return Fail("float", _where(ins))
        if "param" in mods and len(ops) >= 2 and isinstance(ops[1], Addr) and isinstance(ops[1].base, Sym):
            name = ops[1].base.name
            if name in params and not isinstance(ops[0], Vec):
                return Affine.atom(name if not ops[1].offset else f"{name}+{ops[1].offset}")
        return Fail("load", _where(ins))
    if op in ("mov", "cvta", "cvt", "neg", "selp") and len(ops) < 2:
        return Fail("operator", _where(ins))
    if not _int_types(ins):
        return Fail("float", _where(ins))
    if op == "mov":
        if isinstance(ops[0], Vec) or isinstance(ops[1], Vec):
            return Fail("operator", _where(ins))
        return src(ops[1])
    if op == "cvta":
        if "global" in mods or not any(s in mods for s in ("shared", "local", "const", "param")):
            return src(ops[1])
        return Fail("operator", f"{_where(ins)}: generic/space conversion")
    if op == "cvt":
        if strict or "sat" in mods or len(ins.types()) != 2:
            return Fail("operator", _where(ins))
        return src(ops[1])
    if op in ("add", "sub"):
        if "sat" in mods or "cc" in mods or len(ops) < 3:
            return Fail("operator", _where(ins))
        a, b = src(ops[1]), src(ops[2])
        if isinstance(a, Fail):
            return a
        if isinstance(b, Fail):
            return b
        return a + b if op == "add" else a - b
    if op == "neg":
        a = src(ops[1])
        return a if isinstance(a, Fail) else -a
    if op in ("mul", "mul24", "mad", "mad24"):
        if "hi" in mods or "cc" in mods or "sat" in mods:
            return Fail("operator", _where(ins))
        if strict and "wide" in mods:
            return Fail("operator", _where(ins))
        need = 4 if op.startswith("mad") else 3
        if len(ops) < need:
            return Fail("operator", _where(ins))
        a, b = src(ops[1]), src(ops[2])
        if isinstance(a, Fail):
            return a
        if isinstance(b, Fail):
            return b
        prod = a.times(b)
        if prod is None:
            return Fail("operator", f"{_where(ins)}: product of degree > {MAX_DEGREE}")
        if op.startswith("mad"):
            c = src(ops[3])
            if isinstance(c, Fail):
                return c
            prod = prod + c
        return prod
    if op == "shl":
        if len(ops) < 3 or not isinstance(ops[2], Imm) or not isinstance(ops[2].value, int):
            return Fail("operator", f"{_where(ins)}: shift by a register")
        a = src(ops[1])
        return a if isinstance(a, Fail) else a.scale(1 << int(ops[2].value))
    if op in ("or", "xor") and len(ops) >= 3:
        # nvcc writes a + c as a | c when the low bits of a are known to be zero (a = 64*row, c = 1)
        imm, other = (ops[2], ops[1]) if isinstance(ops[2], Imm) else (ops[1], ops[2])
        if isinstance(imm, Imm) and isinstance(imm.value, int) and imm.value >= 0:
            a = src(other)
            if isinstance(a, Fail):
                return a
            if imm.value == 0 or all(c % (1 << imm.value.bit_length()) == 0 for c in a.terms.values()):
                return a + imm.value
        return Fail("operator", _where(ins))
    if op == "selp":
        if len(ops) < 4:
            return Fail("operator", _where(ins))
        a, b = src(ops[1]), src(ops[2])
        if isinstance(a, Affine) and a == b:
            return a
        return Fail("control", _where(ins))
    return Fail("operator", _where(ins))


def operand_leaf(op: Operand, params: frozenset[str] | set[str] = frozenset()) -> Value | None:
    """The value of an operand that is not a register (None for a register)."""
    if isinstance(op, Reg):
        return None
    if isinstance(op, Imm):
        if isinstance(op.value, int) and op.float_bits is None:
            return Affine.const(op.value)
        return Fail("float", "floating-point immediate")
    if isinstance(op, Special):
        if op.name in AFFINE_SPECIALS:
            return Affine.atom(op.name)
        return Fail("special", op.name)
    if isinstance(op, Sym):
        return Affine.atom("&" + op.name)
    if isinstance(op, Addr) and isinstance(op.base, Sym):  # symbol+offset used as a value
        return Affine.atom("&" + op.base.name) + op.offset
    return Fail("operator", f"operand {op!r}")
