"""Exact reference for PTX ``cvt`` and float comparisons, written independently of the engine.

Floats are decoded from their bits into :class:`Val` (an exact ``Fraction``, an infinity or a NaN), and
rounded back with IEEE 754 rounding written out on integers (nearest-even, toward zero, down, up; gradual
underflow; overflow to infinity or the largest finite value as the direction demands). No NumPy casts are
used: their semantics differ from PTX at the edges (NaN and out-of-range float->int, double rounding).

PTX choices encoded here (PTX ISA, ``cvt``):

* float -> integer saturates to the destination range (``.sat`` is redundant) and NaN converts to 0;
* integer -> integer ``.sat`` clamps the source value to the destination range, otherwise truncates;
* ``.sat`` on a float destination clamps to [0.0, 1.0] and turns NaN into +0.0;
* ``.ftz`` flushes f32 subnormal inputs, and f32 subnormal results (after rounding), to sign-preserving 0;
* ``.relu`` clamps negative results to 0 and keeps NaN (as the canonical NaN);
* a NaN result is the GPU's canonical NaN for f32 (0x7FFFFFFF), f16 and bf16 (0x7FFF); for f64 the
  quieted source NaN (payload and sign kept) or the canonical 0x7FFFFFFFFFFFFFFF are both accepted, and an
  f64 -> f64 conversion may also pass the source NaN through unchanged.

Where PTX leaves the sign of a clamped zero open (``.sat``/``.relu`` of a negative zero or of a negative
value that rounds to zero), both zeros are accepted.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

# (exponent bits, fraction bits)
FORMATS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "f64": (11, 52)}
INT_TYPES = ("u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64")
FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
CANONICAL_NAN = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFFFFFF, "f64": 0x7FFFFFFFFFFFFFFF}


def is_float(t: str) -> bool:
    return t in FORMATS


def width(t: str) -> int:
    return int("".join(c for c in t if c.isdigit()))


def int_range(t: str) -> tuple[int, int]:
    w = width(t)
    if t[0] == "s":
        return -(1 << (w - 1)), (1 << (w - 1)) - 1
    return 0, (1 << w) - 1


# ---- decoding -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Val:
    """A decoded float: ``kind`` is "num", "inf" or "nan"; ``neg`` the sign bit; ``q`` the exact value of a
    number (0 for zeros, whose sign is ``neg``); ``payload`` a NaN's fraction bits left-aligned as a
    Fraction in [0, 1) (the quiet bit is worth 1/2)."""

    kind: str
    neg: bool
    q: Fraction = Fraction(0)
    payload: Fraction = Fraction(0)
    subnormal: bool = False


@functools.lru_cache(maxsize=1 << 16)
def decode(bits: int, t: str) -> Val:
    """The value of float bits ``bits`` of type ``t``."""
    e, m = FORMATS[t]
    w = 1 + e + m
    bits &= (1 << w) - 1
    neg = bool(bits >> (w - 1))
    ex = (bits >> m) & ((1 << e) - 1)
    fr = bits & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if ex == (1 << e) - 1:
        if fr == 0:
            return Val("inf", neg)
        return Val("nan", neg, payload=Fraction(fr, 1 << m))
    if ex == 0:
        q = Fraction(fr, 1 << m) * Fraction(2) ** (1 - bias)
        return Val("num", neg, -q if neg else q, subnormal=fr != 0)
    q = Fraction((1 << m) | fr, 1 << m) * Fraction(2) ** (ex - bias)
    return Val("num", neg, -q if neg else q)


def int_value(bits: int, t: str) -> int:
    """The value of integer bits of type ``t`` (signed types two's complement)."""
    w = width(t)
    bits &= (1 << w) - 1
    if t[0] == "s" and bits >> (w - 1):
        return bits - (1 << w)
    return bits


def flush(v: Val) -> Val:
    """``.ftz`` on an input: subnormal -> zero of the same sign."""
    if v.kind == "num" and v.subnormal:
        return Val("num", v.neg)
    return v


# ---- rounding -----------------------------------------------------------------------------------------


def _floor_log2(a: Fraction) -> int:
    """floor(log2(a)) for a > 0, exactly."""
    k = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** k > a:
        k -= 1
    elif Fraction(2) ** (k + 1) <= a:
        k += 1
    return k


def _round_int(n: Fraction, mode: str, neg: bool) -> int:
    """Round the non-negative magnitude ``n`` to an integer; ``neg`` is the sign of the value it belongs to.
    ``mode``: rn (nearest, ties to even), rna (ties away), rz, rm, rp."""
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem == 0:
        return fl
    if mode == "rz":
        return fl
    if mode == "rm":
        return fl + 1 if neg else fl
    if mode == "rp":
        return fl if neg else fl + 1
    half = Fraction(1, 2)
    if rem > half or (rem == half and (mode == "rna" or fl & 1)):
        return fl + 1
    return fl


def encode(q: Fraction, t: str, mode: str, neg_zero: bool = False, ftz: bool = False) -> int:
    """Round exact ``q`` to float type ``t`` with ``mode`` (rn/rz/rm/rp) and return its bits.

    ``neg_zero`` is the sign of a zero ``q``. ``ftz`` flushes a subnormal result (after rounding) to a zero
    of the same sign."""
    e, m = FORMATS[t]
    w = 1 + e + m
    bias = (1 << (e - 1)) - 1
    emin = 1 - bias
    emax = bias
    sign_bit = 1 << (w - 1)
    if q == 0:
        return sign_bit if neg_zero else 0
    neg = q < 0
    a = -q if neg else q
    sb = sign_bit if neg else 0
    ex = max(_floor_log2(a), emin)
    ulp = Fraction(2) ** (ex - m)
    r = _round_int(a / ulp, mode, neg)
    if r == 1 << (m + 1):
        r >>= 1
        ex += 1
    if ex > emax:
        toward_zero = mode == "rz" or (mode == "rm" and not neg) or (mode == "rp" and neg)
        if toward_zero:
            return sb | (((1 << e) - 2) << m) | ((1 << m) - 1)
        return sb | (((1 << e) - 1) << m)
    if r == 0:
        return sb
    if r < 1 << m:  # subnormal
        return sb if ftz else sb | r
    return sb | ((ex + bias) << m) | (r - (1 << m))


def round_to_integer(q: Fraction, mode: str) -> Fraction:
    """PTX integer rounding (rni/rzi/rmi/rpi) of an exact value; the result's sign of zero is the input's."""
    neg = q < 0
    a = -q if neg else q
    r = _round_int(a, {"rni": "rn", "rzi": "rz", "rmi": "rm", "rpi": "rp"}[mode], neg)
    return Fraction(-r if neg else r)


def is_subnormal_bits(bits: int, t: str) -> bool:
    e, m = FORMATS[t]
    return ((bits >> m) & ((1 << e) - 1)) == 0 and (bits & ((1 << m) - 1)) != 0


def inf_bits(t: str, neg: bool) -> int:
    e, m = FORMATS[t]
    return ((1 << (e + m)) if neg else 0) | (((1 << e) - 1) << m)


def one_bits(t: str) -> int:
    return encode(Fraction(1), t, "rn")


def quiet_nan(v: Val, t: str) -> int:
    """The NaN of type ``t`` that IEEE 754's recommended propagation gives: sign and payload kept
    (left-aligned, truncated), quiet bit set."""
    e, m = FORMATS[t]
    fr = (v.payload.numerator << m) // v.payload.denominator
    fr |= 1 << (m - 1)
    return ((1 << (e + m)) if v.neg else 0) | (((1 << e) - 1) << m) | fr


# ---- cvt ----------------------------------------------------------------------------------------------

IRND = ("rni", "rzi", "rmi", "rpi")
FRND = ("rn", "rz", "rm", "rp")


def cvt(dt: str, st: str, bits: int, rnd: str | None = None, ftz: bool = False, sat: bool = False,
        relu: bool = False) -> int | set[int]:
    """``cvt{.rnd}{.ftz}{.sat}{.relu}.dt.st`` of source bits; the destination bits (or a set of acceptable
    bits where PTX leaves the choice open)."""
    if not is_float(st):
        iv = int_value(bits, st)
        if not is_float(dt):
            lo, hi = int_range(dt)
            if sat:
                iv = min(max(iv, lo), hi)
            return iv & ((1 << width(dt)) - 1)
        return _to_float(Val("num", False, Fraction(iv)), dt, rnd or "rn", ftz, sat, relu, st)
    v = decode(bits, st)
    if ftz and st == "f32":
        v = flush(v)
    if not is_float(dt):
        lo, hi = int_range(dt)
        if v.kind == "nan":
            r = 0
        elif v.kind == "inf":
            r = lo if v.neg else hi
        else:
            rq = round_to_integer(v.q, rnd or "rzi")
            r = min(max(int(rq), lo), hi)
        return r & ((1 << width(dt)) - 1)
    if rnd in IRND and v.kind == "num":
        v = Val("num", v.neg, round_to_integer(v.q, rnd))
        rnd = "rn"
    return _to_float(v, dt, rnd or "rn", ftz, sat, relu, st)


def _to_float(v: Val, dt: str, rnd: str, ftz: bool, sat: bool, relu: bool, st: str) -> int | set[int]:
    zero, nzero = 0, 1 << (width(dt) - 1)
    if v.kind == "nan":
        if sat:
            return zero
        if dt == "f64":
            acc = {quiet_nan(v, dt), CANONICAL_NAN[dt]}
            if st == "f64":
                e, m = FORMATS[st]
                fr = (v.payload.numerator << m) // v.payload.denominator
                acc.add(((1 << 63) if v.neg else 0) | (((1 << e) - 1) << m) | fr)
            return acc
        return CANONICAL_NAN[dt]
    if v.kind == "inf":
        if sat:
            return zero if v.neg else one_bits(dt)
        if relu and v.neg:
            return zero
        return inf_bits(dt, v.neg)
    q = v.q
    if sat:
        if q < 0 or (q == 0 and v.neg):
            return {zero, nzero}
        if q > 1:
            q = Fraction(1)
    r = encode(q, dt, rnd, v.neg, ftz and dt == "f32")
    if relu and (q < 0 or (q == 0 and v.neg)):
        return {zero, nzero} if r in (zero, nzero) else zero
    if sat and r == nzero:  # cannot happen (q >= 0 here) but keep +-0 symmetric
        return {zero, nzero}
    return r


def f16x2(dt: str, rnd: str, a: int, b: int, relu: bool = False) -> int | set[int]:
    """``cvt.rnd{.relu}.f16x2.f32 d, a, b`` / bf16x2: a goes to the upper half, b to the lower."""
    ht = "f16" if dt == "f16x2" else "bf16"
    hi = cvt(ht, "f32", a, rnd, relu=relu)
    lo = cvt(ht, "f32", b, rnd, relu=relu)
    his = hi if isinstance(hi, set) else {hi}
    los = lo if isinstance(lo, set) else {lo}
    acc = {(h << 16) | low for h in his for low in los}
    return acc.pop() if len(acc) == 1 else acc


def satfinite(dt: str, rnd: str, bits: int, relu: bool = False) -> int | set[int]:
    """``cvt.rnd.satfinite{.relu}.{f16,bf16}.f32``: results beyond the largest finite value (infinities
    included) clamp to it, NaN stays NaN (canonical)."""
    v = decode(bits, "f32")
    if v.kind == "nan":
        return CANONICAL_NAN[dt]
    e, m = FORMATS[dt]
    maxfin = (((1 << e) - 2) << m) | ((1 << m) - 1)
    sb = 1 << (e + m)
    if v.kind == "inf":
        r = (sb | maxfin) if v.neg else maxfin
    else:
        r = encode(v.q, dt, rnd, v.neg)
        if r & ~sb == inf_bits(dt, False):
            r = (r & sb) | maxfin
    if relu and r & sb:
        return {0, sb} if r & ~sb == 0 else 0
    return r


# ---- comparisons --------------------------------------------------------------------------------------

CMPS = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")


def fcmp(cmp: str, a: int, b: int, t: str, ftz: bool = False) -> bool:
    """PTX float comparison ``cmp`` of bits ``a`` and ``b`` of type ``t``; ``.ftz`` flushes f32 and f16
    subnormal inputs (``setp.ftz.f16`` is legal, bf16 takes no ``.ftz``)."""
    x, y = decode(a, t), decode(b, t)
    if ftz and t in ("f32", "f16"):
        x, y = flush(x), flush(y)
    unordered = x.kind == "nan" or y.kind == "nan"
    if cmp == "num":
        return not unordered
    if cmp == "nan":
        return unordered
    unordered_true = cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu")
    if unordered:
        return unordered_true
    base = cmp[:-1] if unordered_true else cmp

    def order(v: Val) -> tuple[int, Fraction]:
        if v.kind == "inf":
            return (-1 if v.neg else 1), Fraction(0)
        return 0, v.q

    ox, oy = order(x), order(y)
    return {"eq": ox == oy, "ne": ox != oy, "lt": ox < oy, "le": ox <= oy, "gt": ox > oy, "ge": ox >= oy}[base]
