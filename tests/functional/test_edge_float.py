"""Edge-value differential suite, floating-point arithmetic: every float ALU family the engine supports runs
through a kernel (edgekit: real decoder, interpreter and fast paths) on crossed edge operands plus seeded
random operands, and each lane's result is compared bit for bit with the exact reference of ``ieee_ref``
(Python integers / Fractions, IEEE 754 rounding written out; no host float arithmetic).

Binary operations run the full edge x edge product (plus hand-picked cancellation/overflow/underflow pairs),
fma/mad edge x edge x a reduced edge set (plus double-rounding traps), unary operations every edge; each
variant then gets 256 seeded random tuples (512 for unary ones). ``.approx`` families and ``div.full`` are
checked against the PTX ISA's documented error bounds, with their special cases (zeros, infinities, NaN) exact.

Suite size (``suite_size()``, ``python test_edge_float.py``): 20 families (add sub mul fma mad div rcp sqrt
rsqrt sin cos ex2 lg2 tanh abs neg min max copysign testp) x 6 types (f32 f64 f16 bf16 f16x2 bf16x2) x 7 modes
(rn rz rm rp full approx, and none for the exact bit-level families) = 120 (family, type, mode) combinations,
251 variants once .ftz/.sat/.relu/.NaN/.xorsign.abs and the six testp kinds are counted, 1,052,649 operand
tuples in all; plus the f32 division-by-zero regression through CUDA-like PTX.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import edgekit as ek
import ieee_ref as R
import numpy as np
import pytest

MODES = R.MODES
N_RANDOM = 256
SEED = 20240611

F32, F64, F16, BF16 = (R.fmt_of(n) for n in ("f32", "f64", "f16", "bf16"))
ONE = {"f32": 0x3F800000, "f64": 0x3FF0000000000000, "f16": 0x3C00, "bf16": 0x3F80}
# reduced third-operand edge sets for fma
EDGE3 = {
    "f32": [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001, 0x80800000, 0x3F800000,
            0xBF800000, 0x7F7FFFFF, 0x33800000, 0xB3800001],
    "f64": [0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF8000000000000, 0x0000000000000001,
            0x3FF0000000000000, 0xBFF0000000000000, 0x7FEFFFFFFFFFFFFF, 0x3CA0000000000000, 0xBCA0000000000001],
}


# ---- operand sets ----------------------------------------------------------------------------------------


def _extra_pairs(t: str) -> list[tuple]:
    """Hand-picked tuples: exact cancellation, ties, directed-rounding overflow and underflow."""
    if t == "f32":
        return [(0x3F800000, 0xBF800000), (0x7F7FFFFF, 0x7F7FFFFF), (0xFF7FFFFF, 0xFF7FFFFF), (0x1F800000, 0x1F800000),
                (0x00800000, 0x3F000000), (0x00000001, 0x3F000000), (0x00000003, 0x3F000000), (0x20000000, 0x1F000000)]
    if t == "f64":
        return [(0x3FF0000000000000, 0xBFF0000000000000), (0x7FEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF),
                (0x2000000000000000, 0x2000000000000000), (0x1000000000000001, 0x2000000000000003),
                (0x0010000000000000, 0x3FE0000000000000), (0x0000000000000003, 0x3FE0000000000000)]
    return []


@functools.cache
def tuples(types: tuple[str, ...], kind: str = "cross") -> list[tuple]:
    t = types[0]
    if kind == "fma":
        sets = [ek.edges(t), ek.edges(t), EDGE3.get(t, ek.edges(t))]
        out = ek.operand_tuples(types, n_random=N_RANDOM, seed=SEED, edge_sets=sets)
        # double-rounding traps: a product exactly on a tie plus a tiny addend; exact cancellation
        if t == "f32":
            out += [(0x3F800001, 0x3F800001, 0xBF800000), (0x3F800001, 0x3F7FFFFF, 0xBF800000),
                    (0x4B000001, 0x3F800000, 0x2F000000), (0x4B000001, 0x3F800000, 0xAF000000),
                    (0x3F800000, 0x3F800000, 0xBF800000), (0x00000001, 0x3F000000, 0x80000000)]
        elif t == "f64":
            out += [(0x3FF0000000000001, 0x3FF0000000000001, 0xBFF0000000000000),
                    (0x3FF0000000000001, 0x3FEFFFFFFFFFFFFF, 0xBFF0000000000000),
                    (0x4340000000000001, 0x3FF0000000000000, 0x0000000000000001),
                    (0x3FF0000000000000, 0x3FF0000000000000, 0xBFF0000000000000),
                    (0x2000000000000001, 0x1FF0000000000001, 0x0000000000000001),
                    (0x0000000000000001, 0x3FE0000000000000, 0x8000000000000000)]
        elif t == "bf16":
            out += [(0x4040, 0x42AE, 0x0DA0), (0x4040, 0x42AE, 0x8DA0), (0x4040, 0xC2AE, 0x0DA0)]
        return out
    if kind == "x2":  # packed halves: low and high halves from different edge pairs
        base = ek.operand_tuples((t[:-2],) * len(types), n_random=N_RANDOM, seed=SEED)
        rot = base[len(base) // 3:] + base[: len(base) // 3]
        return [tuple(lo | (hi << 16) for lo, hi in zip(p, q, strict=True)) for p, q in zip(base, rot, strict=True)]
    if len(types) == 1:
        return ek.operand_tuples(types, n_random=2 * N_RANDOM, seed=SEED)
    return ek.operand_tuples(types, n_random=N_RANDOM, seed=SEED) + _extra_pairs(t)


# ---- modifiers applied to exact references ---------------------------------------------------------------


def saturate(t: str, bits):
    """``.sat``: clamp to [0, 1]; NaN becomes +0. A -0 result may come back as either zero (the ISA does
    not say whether the clamp keeps the sign of -0)."""
    f = R.fmt_of(t)
    if isinstance(bits, R.Accept):  # NaN
        return 0
    if R.is_nan_bits(f, bits):
        return 0
    if bits == f.sign_bit:
        return {0, f.sign_bit}
    if bits & f.sign_bit:
        return 0
    if R.order_key(f, bits) > R.order_key(f, ONE[t]):
        return ONE[t]
    return bits


def relu(t: str, bits):
    """``.relu``: negative results become +0; a NaN result is the canonical NaN (PTX ISA, fma and min/max)."""
    f = R.fmt_of(t)
    if isinstance(bits, R.Accept) or R.is_nan_bits(f, bits):
        return f.nan
    if bits == f.sign_bit:
        return {0, f.sign_bit}
    return 0 if bits & f.sign_bit else bits


def packed(ref, n):
    """Reference of an x2 instruction from the reference of one half."""
    def run(*ops):
        lo = ref(*(o & 0xFFFF for o in ops[:n]))
        hi = ref(*(o >> 16 for o in ops[:n]))
        los = sorted(lo) if isinstance(lo, set) else [lo]
        his = sorted(hi) if isinstance(hi, set) else [hi]
        if isinstance(lo, R.Accept) or isinstance(hi, R.Accept):
            raise AssertionError("packed reference needs exact halves")
        out = {a | (b << 16) for a in los for b in his}
        return out.pop() if len(out) == 1 else out
    return run


# ---- the cases -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    family: str
    type: str
    mode: str
    instr: str
    dtype: str
    srcs: tuple[str, ...]
    ref: object
    kind: str = "cross"

    @property
    def id(self) -> str:
        return self.instr


def _arith_ref(fam, t, mode, ftz, sat=False, rl=False):
    if fam == "add":
        def ref(a, b):
            return R.add(t, a, b, mode, ftz)
    elif fam == "sub":
        def ref(a, b):
            return R.add(t, a, b, mode, ftz, negate_b=True)
    elif fam == "mul":
        def ref(a, b):
            return R.mul(t, a, b, mode, ftz)
    elif fam in ("fma", "mad"):
        def ref(a, b, c):
            return R.fma(t, a, b, c, mode, ftz)
    elif fam == "div":
        def ref(a, b):
            return R.div(t, a, b, mode, ftz)
    elif fam == "rcp":
        def ref(a):
            return R.div(t, ONE[t], a, mode, ftz)
    elif fam == "sqrt":
        def ref(a):
            return R.sqrt(t, a, mode, ftz)
    else:
        raise ValueError(fam)
    if sat:
        return lambda *o: saturate(t, ref(*o))
    if rl:
        return lambda *o: relu(t, ref(*o))
    return ref


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(fam, t, mode, instr, ref, nsrc, kind="cross"):
        dtype = t
        srcs = (t,) * nsrc
        cases.append(Case(fam, t, mode, instr, dtype, srcs, ref, kind if nsrc > 1 or kind != "cross" else "cross"))

    # add/sub/mul/fma/mad/div/rcp/sqrt with IEEE rounding
    for fam in ("add", "sub", "mul"):
        add(fam, "f32", "rn", f"{fam}.f32", _arith_ref(fam, "f32", "rn", False), 2)
        for mode in MODES:
            for ftz in (False, True):
                for sat in (False, True):
                    mods = f".{mode}" + (".ftz" if ftz else "") + (".sat" if sat else "")
                    add(fam, "f32", mode, f"{fam}{mods}.f32", _arith_ref(fam, "f32", mode, ftz, sat), 2)
            add(fam, "f64", mode, f"{fam}.{mode}.f64", _arith_ref(fam, "f64", mode, False), 2)
        for t in ("f16", "bf16"):
            add(fam, t, "rn", f"{fam}.rn.{t}", _arith_ref(fam, t, "rn", False), 2)
            add(fam, t, "rn", f"{fam}.{t}", _arith_ref(fam, t, "rn", False), 2)
        for ftz, sat in ((True, False), (False, True), (True, True)):
            mods = (".ftz" if ftz else "") + (".sat" if sat else "")
            add(fam, "f16", "rn", f"{fam}.rn{mods}.f16", _arith_ref(fam, "f16", "rn", ftz, sat), 2)
        for t in ("f16x2", "bf16x2"):
            h = t[:-2]
            cases.append(Case(fam, t, "rn", f"{fam}.rn.{t}", "b32", ("b32", "b32"),
                              packed(_arith_ref(fam, h, "rn", False), 2), "x2"))
        cases.append(Case(fam, "f16x2", "rn", f"{fam}.rn.ftz.sat.f16x2", "b32", ("b32", "b32"),
                          packed(_arith_ref(fam, "f16", "rn", True, True), 2), "x2"))
    for mode in MODES:
        for ftz, sat in ((False, False), (True, False), (False, True), (True, True)):
            mods = f".{mode}" + (".ftz" if ftz else "") + (".sat" if sat else "")
            add("fma", "f32", mode, f"fma{mods}.f32", _arith_ref("fma", "f32", mode, ftz, sat), 3, "fma")
        add("mad", "f32", mode, f"mad.{mode}.f32", _arith_ref("mad", "f32", mode, False), 3, "fma")
        add("fma", "f64", mode, f"fma.{mode}.f64", _arith_ref("fma", "f64", mode, False), 3, "fma")
        add("mad", "f64", mode, f"mad.{mode}.f64", _arith_ref("mad", "f64", mode, False), 3, "fma")
    for t in ("f16", "bf16"):
        add("fma", t, "rn", f"fma.rn.{t}", _arith_ref("fma", t, "rn", False), 3, "fma")
        add("fma", t, "rn", f"fma.rn.relu.{t}", _arith_ref("fma", t, "rn", False, rl=True), 3, "fma")
    add("fma", "f16", "rn", "fma.rn.ftz.f16", _arith_ref("fma", "f16", "rn", True), 3, "fma")
    add("fma", "f16", "rn", "fma.rn.sat.f16", _arith_ref("fma", "f16", "rn", False, True), 3, "fma")
    add("fma", "f16", "rn", "fma.rn.ftz.sat.f16", _arith_ref("fma", "f16", "rn", True, True), 3, "fma")
    for t in ("f16x2", "bf16x2"):
        cases.append(Case("fma", t, "rn", f"fma.rn.{t}", "b32", ("b32",) * 3,
                          packed(_arith_ref("fma", t[:-2], "rn", False), 3), "x2"))
        cases.append(Case("fma", t, "rn", f"fma.rn.relu.{t}", "b32", ("b32",) * 3,
                          packed(_arith_ref("fma", t[:-2], "rn", False, rl=True), 3), "x2"))
    for fam in ("div", "rcp", "sqrt"):
        n = 2 if fam == "div" else 1
        for mode in MODES:
            for ftz in (False, True):
                add(fam, "f32", mode, f"{fam}.{mode}{'.ftz' if ftz else ''}.f32",
                    _arith_ref(fam, "f32", mode, ftz), n)
            add(fam, "f64", mode, f"{fam}.{mode}.f64", _arith_ref(fam, "f64", mode, False), n)
    # approximations and div.full
    for ftz in (False, True):
        z = ".ftz" if ftz else ""
        add("div", "f32", "full", f"div.full{z}.f32", div_full_ref(ftz), 2)
        add("div", "f32", "approx", f"div.approx{z}.f32", div_approx_ref(ftz), 2)
        add("rcp", "f32", "approx", f"rcp.approx{z}.f32", rcp_approx_ref(ftz), 1)
        add("sqrt", "f32", "approx", f"sqrt.approx{z}.f32", unary_approx_ref("sqrt", "f32", ftz), 1)
        add("rsqrt", "f32", "approx", f"rsqrt.approx{z}.f32", unary_approx_ref("rsqrt", "f32", ftz), 1)
        for fam in ("sin", "cos", "ex2", "lg2"):
            add(fam, "f32", "approx", f"{fam}.approx{z}.f32", unary_approx_ref(fam, "f32", ftz), 1)
    add("tanh", "f32", "approx", "tanh.approx.f32", unary_approx_ref("tanh", "f32", False), 1)
    for fam, t in (("ex2", "f16"), ("tanh", "f16"), ("tanh", "bf16")):
        add(fam, t, "approx", f"{fam}.approx.{t}", unary_approx_ref(fam, t, False), 1)
    add("ex2", "bf16", "approx", "ex2.approx.ftz.bf16", unary_approx_ref("ex2", "bf16", True), 1)
    add("rcp", "f64", "approx", "rcp.approx.ftz.f64", unary_approx_ref("rcp", "f64", True), 1)
    add("rsqrt", "f64", "approx", "rsqrt.approx.f64", unary_approx_ref("rsqrt", "f64", False), 1)
    # exact bit-level families
    for t in ("f32", "f64", "f16", "bf16"):
        for fam in ("abs", "neg"):
            add(fam, t, "-", f"{fam}.{t}", sign_op_ref(fam, t, False), 1)
        for fam in ("min", "max"):
            add(fam, t, "-", f"{fam}.{t}", minmax_ref(fam, t), 2)
    for fam in ("abs", "neg"):
        add(fam, "f32", "-", f"{fam}.ftz.f32", sign_op_ref(fam, "f32", True), 1)
        add(fam, "f16", "-", f"{fam}.ftz.f16", sign_op_ref(fam, "f16", True), 1)
    for fam in ("min", "max"):
        add(fam, "f32", "-", f"{fam}.ftz.f32", minmax_ref(fam, "f32", ftz=True), 2)
        add(fam, "f32", "-", f"{fam}.NaN.f32", minmax_ref(fam, "f32", nan=True), 2)
        add(fam, "f32", "-", f"{fam}.ftz.NaN.f32", minmax_ref(fam, "f32", ftz=True, nan=True), 2)
        add(fam, "f32", "-", f"{fam}.xorsign.abs.f32", minmax_ref(fam, "f32", xs=True), 2)
        add(fam, "f32", "-", f"{fam}.NaN.xorsign.abs.f32", minmax_ref(fam, "f32", nan=True, xs=True), 2)
        for t in ("f16", "bf16"):
            add(fam, t, "-", f"{fam}.NaN.{t}", minmax_ref(fam, t, nan=True), 2)
            add(fam, t, "-", f"{fam}.xorsign.abs.{t}", minmax_ref(fam, t, xs=True), 2)
        add(fam, "f16", "-", f"{fam}.ftz.f16", minmax_ref(fam, "f16", ftz=True), 2)
        for t in ("f16x2", "bf16x2"):
            cases.append(Case(fam, t, "-", f"{fam}.{t}", "b32", ("b32", "b32"), packed(minmax_ref(fam, t[:-2]), 2),
                              "x2"))
    for t in ("f32", "f64"):
        add("copysign", t, "-", f"copysign.{t}", lambda a, b, t=t: copysign_ref(t, a, b), 2)
        for kind in ("finite", "infinite", "number", "notanumber", "normal", "subnormal"):
            cases.append(Case("testp", t, "-", f"testp.{kind}.{t}", "pred", (t,),
                              lambda a, t=t, kind=kind: ref_testp(t, kind, a)))
    return cases


# ---- references of the bit-level and approximate families ------------------------------------------------


def sign_op_ref(fam, t, ftz):
    f = R.fmt_of(t)

    def ref(a):
        if R.is_nan_bits(f, a):
            return R.ANY_NAN_OF[t]  # the ISA: NaN inputs give an unspecified NaN
        if ftz:
            a = R.flush(t, a)
        return a & ~f.sign_bit if fam == "abs" else a ^ f.sign_bit
    return ref


def minmax_ref(fam, t, ftz=False, nan=False, xs=False):
    return lambda a, b: R.min_max(t, a, b, fam == "max", nan, ftz, xs)


def copysign_ref(t, a, b):
    f = R.fmt_of(t)
    return (b & ~f.sign_bit) | (a & f.sign_bit)


def ref_testp(t, kind, a):
    k, neg, m = R.decode(t, a)
    sub = R.is_subnormal(t, a)
    return int({"finite": k == "fin", "infinite": k == R.INF, "number": k != R.NAN, "notanumber": k == R.NAN,
                "normal": k == "fin" and m != 0 and not sub, "subnormal": sub}[kind])


def _special(t, ops, ftz):
    """True when some operand is a zero, an infinity or a NaN (after .ftz flushing): exact special results."""
    for a in ops:
        if ftz:
            a = R.flush(t, a)
        k, _, m = R.decode(t, a)
        if k != "fin" or m == 0:
            return True
    return False


def div_full_ref(ftz):
    def ref(a, b):
        exact = R.div("f32", a, b, "rn", ftz)
        if _special("f32", (a, b), ftz):
            return exact
        return R.within_ulps("f32", exact, 2, "div.full: 2 ulp")
    return ref


def div_approx_ref(ftz):
    def ref(a, b):
        exact = R.div("f32", a, b, "rn", ftz)
        fa, fb = (R.flush("f32", v) if ftz else v for v in (a, b))
        ka, na, _ = R.decode("f32", fa)
        kb, nb, mb = R.decode("f32", fb)
        if ka != R.NAN and kb == "fin" and mb > 2 ** 126:
            # the ISA: for 2^126 < |b| < 2^128, div.approx returns NaN for an infinite a and 0 otherwise
            # (a * (1/b) with the reciprocal flushed to a signed zero)
            return F32.nan if ka == R.INF else (F32.sign_bit if na != nb else 0)
        if _special("f32", (a, b), ftz):
            return exact
        return R.within_ulps("f32", exact, 2, "div.approx: 2 ulp")
    return ref


def rcp_approx_ref(ftz):
    def ref(a):
        exact = R.div("f32", ONE["f32"], a, "rn", ftz)
        if _special("f32", (a,), ftz):
            return exact
        return R.within_ulps("f32", exact, 1, "rcp.approx: 1 ulp")
    return ref


# documented maximum errors (PTX ISA): relative, absolute
BOUNDS = {
    "sqrt": (2.0 ** -23, 0.0),        # sqrt.approx.f32: max relative error 2^-23 (ulp-scale)
    "rsqrt": (2.0 ** -22.9, 0.0),     # rsqrt.approx.f32: max relative error 2^-22.9
    "sin": (0.0, 2.0 ** -20.5),       # sin.approx.f32: max absolute error 2^-20.5 in [-100pi, 100pi]
    "cos": (0.0, 2.0 ** -20.5),       # cos.approx.f32: same
    "ex2": (2.0 ** -22, 0.0),         # ex2.approx.f32: max relative error about 2^-22 (2 ulp)
    "lg2": (2.0 ** -22, 2.0 ** -22),  # lg2.approx.f32: max absolute error 2^-22 near 1, relative 2^-22 elsewhere
    "tanh": (2.0 ** -10.987, 0.0),    # tanh.approx.f32: max relative error 2^-10.987
}
# ex2/tanh.approx on f16/bf16: a few units of the format's precision (2^-9.9 for f16; bf16 keeps 8 bits)
HALF_BOUNDS = {"f16": (2.0 ** -9.9, 2.0 ** -24), "bf16": (2.0 ** -7, 2.0 ** -133)}
F64_APPROX_REL = 2.0 ** -20  # rcp.approx.ftz.f64 / rsqrt.approx.f64: the ISA gives no tighter figure we rely on


def unary_approx_ref(fam, t, ftz):
    f = R.fmt_of(t)
    tiny = f.min_normal

    def ref(a):
        if ftz:
            a = R.flush(t, a)
        k, neg, m = R.decode(t, a)
        if k == R.NAN:
            return R.ANY_NAN_OF[t] if t == "f64" else f.nan
        zero = k == "fin" and m == 0
        pinf, ninf = R.inf_bits(t, False), R.inf_bits(t, True)
        sz = a & f.sign_bit
        special = {
            "sqrt": {R.INF: f.nan if neg else pinf, "zero": a},
            "rsqrt": {R.INF: f.nan if neg else 0, "zero": pinf | sz},
            "rcp": {R.INF: sz, "zero": pinf | sz},
            "sin": {R.INF: f.nan, "zero": a},
            "cos": {R.INF: f.nan, "zero": ONE[t]},
            "ex2": {R.INF: 0 if neg else pinf, "zero": ONE[t]},
            "lg2": {R.INF: f.nan if neg else pinf, "zero": ninf},
            "tanh": {R.INF: ONE[t] | sz, "zero": a},
        }[fam]
        if k == R.INF:
            return special[R.INF]
        if zero:
            return special["zero"]
        x = float(-m if neg else m)
        if neg and fam in ("sqrt", "rsqrt", "lg2"):
            return f.nan
        if fam in ("rcp", "rsqrt") and t == "f64":
            true = 1 / x if fam == "rcp" else 1 / math.sqrt(x)
            if ftz and abs(true) < 2.0 ** -1022:
                return {0, f.sign_bit}
            return R.within_rel(t, true, F64_APPROX_REL)
        rel, ab = BOUNDS[fam] if t == "f32" else HALF_BOUNDS[t]
        if fam == "sqrt":
            true = math.sqrt(x)
        elif fam == "rsqrt":
            true = 1 / math.sqrt(x)
        elif fam == "sin":
            if abs(x) > 100 * math.pi:
                return R.Accept(lambda v: not R.is_nan_bits(f, v) and abs(R.value(t, v) or 2) <= 1, [], "in [-1,1]")
            true = math.sin(x)
        elif fam == "cos":
            if abs(x) > 100 * math.pi:
                return R.Accept(lambda v: not R.is_nan_bits(f, v) and abs(R.value(t, v) or 2) <= 1, [], "in [-1,1]")
            true = math.cos(x)
        elif fam == "ex2":
            true = 2.0 ** x if x < 1024 else math.inf
            if true < 2.0 ** -126:  # subnormal results: one subnormal step of slack (flushed with .ftz)
                ab = float(Fraction(2) ** -149) * 2
                if ftz:
                    ab = float(tiny)
        elif fam == "lg2":
            true = math.log2(x)
        else:
            true = math.tanh(x)
            ab = 2.0 ** -149  # tiny arguments
        if true != 0 and abs(true) < float(tiny) and fam != "ex2":
            ab = max(ab, 2.0 ** -149 * 2) if not ftz else max(ab, float(tiny))
        if math.isinf(true) or abs(true) > float(f.max_value):
            return R.Accept(lambda v, s=true < 0: v == R.inf_bits(t, s) or (not R.is_nan_bits(f, v) and
                            R.decode(t, v)[0] == "fin" and R.decode(t, v)[2] >= f.max_value * (1 - Fraction(rel))),
                            [R.inf_bits(t, true < 0)], "overflow")
        return R.within_rel(t, true, rel, ab)
    return ref


CASES = _cases()


def case_tuples(c: Case) -> list[tuple]:
    if c.kind == "x2":
        return tuples(tuple(("f16x2" if c.type.startswith("f16") else "bf16x2") for _ in c.srcs), "x2")
    return tuples(c.srcs, c.kind)


def suite_size() -> dict:
    """Families, types, modes (rounding/approximation kinds) and operand tuples the suite covers."""
    n = sum(len(case_tuples(c)) for c in CASES)
    return {"variants": len(CASES), "families": len({c.family for c in CASES}),
            "types": len({c.type for c in CASES}), "modes": len({c.mode for c in CASES}),
            "family_type_mode_combinations": len({(c.family, c.type, c.mode) for c in CASES}),
            "operand_tuples": n}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_float_edges(case: Case):
    ops = case_tuples(case)
    ek.differential(case.instr, case.dtype, list(case.srcs), case.ref, ops).check()


def test_f32_division_by_zero_through_cuda_like_ptx():
    """div/rcp of f32 by zero (and by a subnormal flushed with .ftz) gives +-inf or NaN, never an exception."""
    a = np.array([1.0, -1.0, 0.0, 6.0], dtype=np.float32)
    b = np.array([0.0, 0.0, 0.0, 3.0], dtype=np.float32)
    want = [0x7F800000, 0xFF800000, 0x7FFFFFFF, 0x40000000]
    for instr in ("div.rn.f32", "div.rz.f32", "div.rm.f32", "div.rp.f32", "div.full.f32", "div.approx.f32",
                  "div.rn.ftz.f32", "div.full.ftz.f32", "div.approx.ftz.f32"):
        ptx = ek.HEADER + f"""
.visible .entry quot(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 n)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r1, %r2;
  @%p1 bra $L__BB0_2;
  cvta.to.global.u64 %rd4, %rd1;
  mul.wide.s32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  cvta.to.global.u64 %rd7, %rd2;
  add.s64 %rd8, %rd7, %rd5;
  ld.global.f32 %f1, [%rd6];
  ld.global.f32 %f2, [%rd8];
  {instr} %f3, %f1, %f2;
  cvta.to.global.u64 %rd9, %rd3;
  add.s64 %rd10, %rd9, %rd5;
  st.global.f32 [%rd10], %f3;
$L__BB0_2:
  ret;
}}
"""
        fn = ek.ndpgpu.RawModule(ptx=ptx).get_function("quot")
        for bb, w in ((b, want), (np.array([0.0, -1e-45, 1e-45, 3.0], dtype=np.float32), None)):
            da, db = ek.ndpgpu.asarray(a), ek.ndpgpu.asarray(bb)
            dc = ek.ndpgpu.zeros(4, np.float32)
            fn((1,), (32,), (da, db, dc, np.uint32(4)))
            got = [int(v) for v in dc.get().view(np.uint32)]
            if w is not None:
                assert got == w, (instr, [hex(v) for v in got])
            elif ".ftz" in instr:  # the subnormal divisor is flushed to a signed zero
                assert got == [0x7F800000, 0x7F800000, 0x7FFFFFFF, 0x40000000], (instr, [hex(v) for v in got])
    for instr, x, want1 in (("rcp.approx.f32", 0.0, 0x7F800000), ("rcp.rn.f32", -0.0, 0xFF800000),
                            ("rcp.approx.ftz.f32", -1e-45, 0xFF800000), ("rcp.rn.ftz.f32", 1e-45, 0x7F800000)):
        got = ek.apply(instr, "f32", ["f32"], [(ek.f32_bits(x),)])
        assert got == [want1], (instr, hex(got[0]))


if __name__ == "__main__":
    print(suite_size())
