"""Exact IEEE 754 reference for the edge-value differential suite, written independently of the engine.

Values are decoded from raw bits to exact :class:`fractions.Fraction` magnitudes (or infinity / NaN) and every
result is rounded once, with integer arithmetic, to f16 / bf16 / f32 / f64 in one of PTX's four rounding modes
(``rn`` nearest-even, ``rz`` toward zero, ``rm`` toward -inf, ``rp`` toward +inf). No float arithmetic of
numpy or of the host takes part in the exact reference; the ``.approx`` families are checked against bounds
computed from these exact values (and, for transcendentals, the host's double-precision ``math`` as the
"true" value, whose error is negligible next to the bounds).

NaN results: f32, f16 and bf16 arithmetic return the canonical NaN (0x7FFFFFFF, 0x7FFF, 0x7FFF). For f64 the
PTX ISA says NaN payloads are supported (propagated), so which NaN comes back is not pinned down by the
documentation: the reference accepts any f64 NaN (:data:`ANY_NAN`).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

# exponent bits, stored mantissa bits
FORMATS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "f64": (11, 52)}
CANONICAL_NAN = {"f32": 0x7FFFFFFF, "f16": 0x7FFF, "bf16": 0x7FFF, "f64": None}
MODES = ("rn", "rz", "rm", "rp")


class Accept(set):
    """A set of acceptable result bits given by a predicate (``Mismatches.compare`` tests ``got in want``).

    ``shown`` are a few representative bits used when a mismatch is reported."""

    def __init__(self, pred, shown=(), label=""):
        super().__init__()
        self.pred = pred
        self.shown = list(shown)
        self.label = label

    def __contains__(self, v):
        return bool(self.pred(v))

    def __iter__(self):
        return iter(self.shown)

    def __len__(self):
        return len(self.shown)

    def __repr__(self):
        return f"Accept({self.label})"


class Fmt:
    def __init__(self, name: str):
        self.name = name
        self.ebits, self.mbits = FORMATS[name]
        self.width = 1 + self.ebits + self.mbits
        self.bias = (1 << (self.ebits - 1)) - 1
        self.emin = 1 - self.bias  # exponent of the smallest normal
        self.emax = self.bias
        self.sign_bit = 1 << (self.width - 1)
        self.exp_mask = ((1 << self.ebits) - 1) << self.mbits
        self.man_mask = (1 << self.mbits) - 1
        self.inf = self.exp_mask
        self.max_finite = self.exp_mask - 1
        self.min_normal = Fraction(2) ** self.emin
        self.max_value = (2 - Fraction(1, 1 << self.mbits)) * Fraction(2) ** self.emax
        canon = CANONICAL_NAN[name]
        self.nan = canon if canon is not None else ANY_NAN_OF[name]


def is_nan_bits(fmt: Fmt, b: int) -> bool:
    return (b & fmt.exp_mask) == fmt.exp_mask and (b & fmt.man_mask) != 0


ANY_NAN_OF: dict[str, Accept] = {}


@functools.cache
def fmt_of(name: str) -> Fmt:
    if name not in ANY_NAN_OF:
        e, m = FORMATS[name]
        exp_mask = ((1 << e) - 1) << m
        man_mask = (1 << m) - 1
        ANY_NAN_OF[name] = Accept(lambda v, em=exp_mask, mm=man_mask: (v & em) == em and (v & mm) != 0,
                                  [exp_mask | (1 << (m - 1))], f"any {name} NaN")
    return Fmt(name)


ANY_NAN = None  # set below (f64)

# ---- decoding ------------------------------------------------------------------------------------------

NAN = "nan"
INF = "inf"


@functools.cache
def decode(name: str, bits: int):
    """``(kind, negative, magnitude)``: kind is ``"nan"``, ``"inf"`` or ``"fin"``; magnitude a Fraction."""
    f = fmt_of(name)
    neg = bool(bits & f.sign_bit)
    e = (bits & f.exp_mask) >> f.mbits
    m = bits & f.man_mask
    if e == (1 << f.ebits) - 1:
        return (NAN, neg, None) if m else (INF, neg, None)
    if e == 0:
        return ("fin", neg, Fraction(m) * Fraction(2) ** (f.emin - f.mbits))
    return ("fin", neg, Fraction((1 << f.mbits) | m) * Fraction(2) ** (e - f.bias - f.mbits))


def is_subnormal(name: str, bits: int) -> bool:
    f = fmt_of(name)
    return (bits & f.exp_mask) == 0 and (bits & f.man_mask) != 0


def flush(name: str, bits: int) -> int:
    """``.ftz``: a subnormal becomes a zero of the same sign."""
    f = fmt_of(name)
    return bits & f.sign_bit if is_subnormal(name, bits) else bits


def value(name: str, bits: int):
    """Signed Fraction of a finite value, None otherwise."""
    k, neg, mag = decode(name, bits)
    if k != "fin":
        return None
    return -mag if neg else mag


# ---- rounding ------------------------------------------------------------------------------------------


def _floor_log2(a: Fraction) -> int:
    """floor(log2(a)) for a > 0, exactly."""
    n, d = a.numerator, a.denominator
    e = n.bit_length() - d.bit_length()
    # 2^e <= a < 2^(e+1) ?
    if e >= 0:
        if n < d << e:
            e -= 1
    elif n << -e < d:
        e -= 1
    return e


def round_to(name: str, v: Fraction, mode: str = "rn", ftz: bool = False, zero_negative: bool = False) -> int:
    """Bits of the exact value ``v`` rounded once to format ``name`` with ``mode``.

    ``zero_negative`` gives the sign of an exactly-zero ``v``. Overflow follows IEEE: rn gives infinity,
    rz the largest finite value, rm/rp infinity in their own direction and the largest finite value in the
    other. ``ftz`` flushes a subnormal result (after rounding) to a zero of the same sign."""
    f = fmt_of(name)
    if v == 0:
        return f.sign_bit if zero_negative else 0
    neg = v < 0
    a = -v if neg else v
    sign = f.sign_bit if neg else 0
    e = max(_floor_log2(a), f.emin)
    quantum = Fraction(2) ** (e - f.mbits)
    scaled = a / quantum
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if rem:
        if mode == "rn":
            up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n & 1)
        elif mode == "rz":
            up = False
        elif mode == "rm":
            up = neg
        elif mode == "rp":
            up = not neg
        else:
            raise ValueError(mode)
        if up:
            n += 1
    mag = n * quantum
    if mag > f.max_value:
        to_inf = mode == "rn" or (mode == "rm" and neg) or (mode == "rp" and not neg)
        return sign | (f.inf if to_inf else f.max_finite)
    if mag == 0:
        return sign
    if mag < f.min_normal:
        bits = sign | int(mag / Fraction(2) ** (f.emin - f.mbits))
        return sign if ftz else bits
    e2 = _floor_log2(mag)
    man = int(mag / Fraction(2) ** (e2 - f.mbits)) - (1 << f.mbits)
    return sign | ((e2 + f.bias) << f.mbits) | man


# ---- IEEE operations -------------------------------------------------------------------------------------
# Each returns the result bits, or an Accept of NaNs. Operands are raw bits. Finite values travel as exact
# dyadic integers (negative, m, e) meaning (-1)^negative * m * 2^e; quotients and roots carry a sticky bit.


@functools.cache
def dyadic(name: str, bits: int):
    """``(kind, negative, m, e)`` with value m * 2^e for finite values (m = 0 for zeros)."""
    f = fmt_of(name)
    neg = bool(bits & f.sign_bit)
    ex = (bits & f.exp_mask) >> f.mbits
    m = bits & f.man_mask
    if ex == (1 << f.ebits) - 1:
        return (NAN if m else INF, neg, 0, 0)
    if ex == 0:
        return ("fin", neg, m, f.emin - f.mbits)
    return ("fin", neg, m | (1 << f.mbits), ex - f.bias - f.mbits)


def round_dyadic(name: str, neg: bool, m: int, e: int, mode: str = "rn", ftz: bool = False) -> int:
    """Bits of (-1)^neg * m * 2^e (m > 0) rounded once to ``name`` (same rules as :func:`round_to`)."""
    f = fmt_of(name)
    sign = f.sign_bit if neg else 0
    top = e + m.bit_length() - 1
    q = max(top, f.emin) - f.mbits
    shift = q - e
    if shift <= 0:
        n = m << -shift
    else:
        n = m >> shift
        rem = m & ((1 << shift) - 1)
        if rem:
            if mode == "rn":
                half = 1 << (shift - 1)
                up = rem > half or (rem == half and n & 1)
            elif mode == "rz":
                up = False
            elif mode == "rm":
                up = neg
            elif mode == "rp":
                up = not neg
            else:
                raise ValueError(mode)
            n += up
    if n >> (f.mbits + 1):
        n >>= 1
        q += 1
    if n == 0:
        return sign
    if n < (1 << f.mbits):  # subnormal (q is emin - mbits here)
        return sign if ftz else sign | n
    exp = q + f.mbits
    if exp > f.emax:
        to_inf = mode == "rn" or (mode == "rm" and neg) or (mode == "rp" and not neg)
        return sign | (f.inf if to_inf else f.max_finite)
    return sign | ((exp + f.bias) << f.mbits) | (n - (1 << f.mbits))


def nan_result(name: str):
    return fmt_of(name).nan


def inf_bits(name: str, neg: bool) -> int:
    f = fmt_of(name)
    return (f.sign_bit if neg else 0) | f.inf


def _zero_sum_sign(neg_a, a_is_zero, neg_b, b_is_zero, mode):
    """IEEE sign of an exactly-zero sum: the common sign of two like-signed zeros, otherwise +0 (-0 in rm)."""
    if a_is_zero and b_is_zero and neg_a == neg_b:
        return neg_a
    return mode == "rm"


def _sum(name, na, ma, ea, nb, mb, eb, mode, ftz):
    """Round (-1)^na ma 2^ea + (-1)^nb mb 2^eb exactly."""
    f = fmt_of(name)
    if ma == 0 or mb == 0:
        if ma == 0 and mb == 0:
            return f.sign_bit if _zero_sum_sign(na, True, nb, True, mode) else 0
        neg, m, e = (nb, mb, eb) if ma == 0 else (na, ma, ea)
        return round_dyadic(name, neg, m, e, mode, ftz)
    e = min(ea, eb)  # exact: Python integers are unbounded
    va = (ma << (ea - e)) * (-1 if na else 1)
    vb = (mb << (eb - e)) * (-1 if nb else 1)
    s = va + vb
    if s == 0:
        return f.sign_bit if mode == "rm" else 0
    return round_dyadic(name, s < 0, abs(s), e, mode, ftz)


def add(name: str, a: int, b: int, mode: str = "rn", ftz: bool = False, negate_b: bool = False):
    f = fmt_of(name)
    if ftz:
        a, b = flush(name, a), flush(name, b)
    if negate_b:
        b ^= f.sign_bit
    ka, na, ma, ea = dyadic(name, a)
    kb, nb, mb, eb = dyadic(name, b)
    if ka == NAN or kb == NAN:
        return f.nan
    if ka == INF or kb == INF:
        if ka == INF and kb == INF and na != nb:
            return f.nan
        return inf_bits(name, na if ka == INF else nb)
    return _sum(name, na, ma, ea, nb, mb, eb, mode, ftz)


def _operands(name: str, ftz: bool, *bits: int) -> list:
    """Each operand flushed to zero when ``ftz``, then decoded (:func:`dyadic`)."""
    return [dyadic(name, flush(name, b) if ftz else b) for b in bits]


def mul(name: str, a: int, b: int, mode: str = "rn", ftz: bool = False):
    f = fmt_of(name)
    (ka, na, ma, ea), (kb, nb, mb, eb) = _operands(name, ftz, a, b)
    neg = na != nb
    if ka == NAN or kb == NAN:
        return f.nan
    if ka == INF or kb == INF:
        if (ka == "fin" and ma == 0) or (kb == "fin" and mb == 0):
            return f.nan
        return inf_bits(name, neg)
    if ma == 0 or mb == 0:
        return f.sign_bit if neg else 0
    return round_dyadic(name, neg, ma * mb, ea + eb, mode, ftz)


def fma(name: str, a: int, b: int, c: int, mode: str = "rn", ftz: bool = False):
    f = fmt_of(name)
    (ka, na, ma, ea), (kb, nb, mb, eb), (kc, nc, mc, ec) = _operands(name, ftz, a, b, c)
    if NAN in (ka, kb, kc):
        return f.nan
    pneg = na != nb
    if ka == INF or kb == INF:
        if (ka == "fin" and ma == 0) or (kb == "fin" and mb == 0):
            return f.nan
        if kc == INF and nc != pneg:
            return f.nan
        return inf_bits(name, pneg)
    if kc == INF:
        return inf_bits(name, nc)
    return _sum(name, pneg, ma * mb, ea + eb, nc, mc, ec, mode, ftz)


def div(name: str, a: int, b: int, mode: str = "rn", ftz: bool = False):
    f = fmt_of(name)
    (ka, na, ma, ea), (kb, nb, mb, eb) = _operands(name, ftz, a, b)
    neg = na != nb
    if ka == NAN or kb == NAN:
        return f.nan
    if ka == INF:
        return f.nan if kb == INF else inf_bits(name, neg)
    if kb == INF:
        return f.sign_bit if neg else 0
    if mb == 0:
        return f.nan if ma == 0 else inf_bits(name, neg)
    if ma == 0:
        return f.sign_bit if neg else 0
    k = max(0, f.mbits + 4 + mb.bit_length() - ma.bit_length())
    n, r = divmod(ma << k, mb)
    if r:
        n, k = 2 * n + 1, k + 1  # sticky bit below every rounding position
    return round_dyadic(name, neg, n, ea - eb - k, mode, ftz)


def sqrt(name: str, a: int, mode: str = "rn", ftz: bool = False):
    f = fmt_of(name)
    if ftz:
        a = flush(name, a)
    k, neg, m, e = dyadic(name, a)
    if k == NAN:
        return f.nan
    if k == INF:
        return f.nan if neg else f.inf
    if m == 0:
        return a
    if neg:
        return f.nan
    if e & 1:
        m, e = m << 1, e - 1
    s = max(0, f.mbits + 4 - m.bit_length() // 2)
    mm = m << (2 * s)
    r = math.isqrt(mm)
    ex = e // 2 - s
    if r * r != mm:
        r, ex = 2 * r + 1, ex - 1
    return round_dyadic(name, False, r, ex, mode, ftz)


def min_max(name: str, a: int, b: int, is_max: bool, nan_prop: bool = False, ftz: bool = False,
            xorsign_abs: bool = False):
    """PTX min/max: -0 < +0; a NaN operand is ignored unless both are NaN (or ``.NaN`` is given)."""
    f = fmt_of(name)
    if ftz:
        a, b = flush(name, a), flush(name, b)
    sign = (a ^ b) & f.sign_bit
    if xorsign_abs:
        a &= ~f.sign_bit
        b &= ~f.sign_bit
    an, bn = is_nan_bits(f, a), is_nan_bits(f, b)
    if an or bn:
        if nan_prop or (an and bn):
            return f.nan
        r = b if an else a
    else:
        r = max(a, b, key=lambda v: order_key(f, v)) if is_max else min(a, b, key=lambda v: order_key(f, v))
    if xorsign_abs:
        r = (r & ~f.sign_bit) | sign
    return r


def order_key(f: Fmt, bits: int) -> int:
    """Monotonic integer of a non-NaN bit pattern (-0 just below +0; infinities at the ends)."""
    mag = bits & ~f.sign_bit
    return -mag - 1 if bits & f.sign_bit else mag


def ulp_distance(name: str, x: int, y: int) -> int:
    """Distance between two non-NaN patterns counted in representable steps (the two zeros one apart)."""
    f = fmt_of(name)
    return abs(order_key(f, x) - order_key(f, y))


def within_ulps(name: str, exact_rn: int, ulps: int, label: str = ""):
    """Accept results at most ``ulps`` representable steps from ``exact_rn`` (not NaN); a NaN reference stays
    exact (canonical or any NaN)."""
    f = fmt_of(name)
    if is_nan_bits(f, exact_rn):
        return f.nan
    return Accept(lambda v: not is_nan_bits(f, v) and ulp_distance(name, v, exact_rn) <= ulps,
                  [exact_rn], label or f"{ulps} ulp of {exact_rn:#x}")


def within_rel(name: str, true: float, rel: float, absolute: float = 0.0, label: str = ""):
    """Accept finite results r with |r - true| <= rel*|true| + absolute (true is a host double)."""
    f = fmt_of(name)

    def ok(v):
        if is_nan_bits(f, v):
            return False
        k, neg, m = decode(name, v)
        if k == INF:
            return math.isinf(true) and (true < 0) == neg
        if math.isinf(true):
            return False
        r = -m if neg else m
        t = Fraction(true)
        return abs(r - t) <= Fraction(rel) * abs(t) + Fraction(absolute)

    return Accept(ok, [round_to(name, Fraction(true), "rn")] if math.isfinite(true) else [],
                  label or f"|r-{true!r}| <= {rel}*|t|+{absolute}")


ANY_NAN = fmt_of("f64").nan
