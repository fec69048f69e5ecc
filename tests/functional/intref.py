"""Exact reference semantics of PTX's integer and bit instructions, in plain Python integers.

Written from the PTX ISA's definitions, independently of the engine (no numpy, no numba): every function
takes raw operand bit patterns (zero-extended Python ints) and returns the destination's bit pattern.
Signed types are read as two's complement of their width; results wrap to the destination width.
Choices PTX leaves open follow the simulator's documentation (docs/functional.md): integer division by
zero gives all ones (unsigned) / -1 (signed), remainder by zero gives the dividend.
"""

from __future__ import annotations

import math
import struct

# ---- types -------------------------------------------------------------------------------------------


def width(t: str) -> int:
    return 1 if t == "pred" else int(t[1:])


def mask(t: str | int) -> int:
    w = t if isinstance(t, int) else width(t)
    return (1 << w) - 1


def signed(t: str) -> bool:
    return t[0] == "s"


def val(x: int, t: str) -> int:
    """The integer an operand of type ``t`` denotes (sign-extended for .sN, zero-extended otherwise)."""
    w = width(t)
    x &= mask(w)
    if signed(t) and x >> (w - 1):
        return x - (1 << w)
    return x


def sval(x: int, w: int) -> int:
    """The low ``w`` bits of ``x`` as a signed integer."""
    x &= mask(w)
    return x - (1 << w) if x >> (w - 1) else x


def bits(v: int, t: str | int) -> int:
    """Integer ``v`` wrapped to the width of ``t`` (two's complement bits)."""
    return v & mask(t)


def wide(t: str) -> str:
    return t[0] + str(2 * width(t))


def _sat(v: int, w: int) -> int:
    lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    return bits(min(max(v, lo), hi), w)


# ---- arithmetic --------------------------------------------------------------------------------------


def add(t, a, b):
    return bits(val(a, t) + val(b, t), t)


def sub(t, a, b):
    return bits(val(a, t) - val(b, t), t)


def add_sat(t, a, b):  # .sat.s32: clamp to [MININT, MAXINT]
    return _sat(val(a, t) + val(b, t), width(t))


def sub_sat(t, a, b):
    return _sat(val(a, t) - val(b, t), width(t))


def carry_add(t, a, b, cin=0):
    """CC.CF after ``add.cc``/``addc.cc``: carry out of the unsigned sum."""
    m = mask(t)
    return 1 if (a & m) + (b & m) + cin > m else 0


def addc(t, a, b, cf):
    return bits((a & mask(t)) + (b & mask(t)) + cf, t)


def subc(t, a, b, borrow):
    """``subc``: d = a - (b + CC.CF), the flag being the borrow of the previous sub.cc/subc.cc."""
    return bits((a & mask(t)) - (b & mask(t)) - borrow, t)


def borrow_sub(t, a, b, bin_=0):
    """Borrow out of ``a - (b + bin)`` (unsigned): the CC.CF a following subc consumes."""
    return 1 if (a & mask(t)) < (b & mask(t)) + bin_ else 0


def mul(mode, t, a, b):
    p = val(a, t) * val(b, t)
    w = width(t)
    if mode == "lo":
        return bits(p, w)
    if mode == "hi":
        return bits(p >> w, w)
    return bits(p, 2 * w)  # wide


def mad(mode, t, a, b, c, sat=False, cin=0):
    """``mad.mode.type``; ``c`` has the destination's type (twice as wide for .wide)."""
    w = width(t)
    if mode == "wide":
        return bits(val(a, t) * val(b, t) + c, 2 * w)
    part = mul(mode, t, a, b)
    if sat:  # mad.hi.sat.s32: the sum saturates to the s32 range
        return _sat(sval(part, w) + sval(c, w), w)
    return bits(part + (c & mask(w)) + cin, w)


def mad_carry(mode, t, a, b, c, cin=0):
    """Carry out of the addition of ``mad.lo/.hi.cc`` / ``madc``."""
    part = mul(mode, t, a, b)
    return 1 if part + (c & mask(t)) + cin > mask(t) else 0


def mul24(mode, t, a, b):
    x, y = (sval(a, 24), sval(b, 24)) if signed(t) else (a & 0xFFFFFF, b & 0xFFFFFF)
    p = x * y  # 48-bit product
    return bits(p >> 16, 32) if mode == "hi" else bits(p, 32)


def mad24(mode, t, a, b, c, sat=False):
    part = mul24(mode, t, a, b)
    if sat:
        return _sat(sval(part, 32) + sval(c, 32), 32)
    return bits(part + c, 32)


def sad(t, a, b, c):
    return bits(abs(val(a, t) - val(b, t)) + val(c, t), t)


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def div(t, a, b):
    x, y = val(a, t), val(b, t)
    if y == 0:
        return mask(t)  # all ones: UINT_MAX, or -1 for signed types
    return bits(_trunc_div(x, y), t)


def rem(t, a, b):
    x, y = val(a, t), val(b, t)
    if y == 0:
        return bits(x, t)  # the dividend
    return bits(x - _trunc_div(x, y) * y, t)  # sign of the dividend (C semantics)


def iabs(t, a):
    return bits(abs(val(a, t)), t)  # abs(MININT) wraps to MININT


def neg(t, a):
    return bits(-val(a, t), t)


def imin(t, a, b, relu=False):
    r = min(val(a, t), val(b, t))
    return bits(max(r, 0) if relu else r, t)


def imax(t, a, b, relu=False):
    r = max(val(a, t), val(b, t))
    return bits(max(r, 0) if relu else r, t)


# ---- logic and bits ----------------------------------------------------------------------------------


def land(t, a, b):
    return a & b & mask(t)


def lor(t, a, b):
    return (a | b) & mask(t)


def lxor(t, a, b):
    return (a ^ b) & mask(t)


def lnot(t, a):
    return ~a & mask(t)


def cnot(t, a):
    return 1 if a & mask(t) == 0 else 0


def shl(t, a, n):
    """Shift amounts are unsigned 32-bit; amounts >= width give 0."""
    n &= 0xFFFFFFFF
    if n >= width(t):  # (checked first: Python would build a 2^32-bit integer for the huge amounts)
        return 0
    return ((a & mask(t)) << n) & mask(t)


def shr(t, a, n):
    """Unsigned/bit types fill with 0, signed with the sign bit; amounts beyond the width clamp."""
    n &= 0xFFFFFFFF
    return bits(val(a, t) >> n, t)  # Python's >> on a negative int is arithmetic


def bfe(t, a, b, c):
    w = width(t)
    msb = w - 1
    pos, ln = b & 0xFF, c & 0xFF
    if not signed(t) or ln == 0:
        sbit = 0
    else:
        sbit = (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(w):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


def bfi(t, a, b, c, d):
    w = width(t)
    pos, ln = c & 0xFF, d & 0xFF
    f = b & mask(w)
    i = 0
    while i < ln and pos + i <= w - 1:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


def popc(t, a):
    return bin(a & mask(t)).count("1")


def clz(t, a):
    return width(t) - (a & mask(t)).bit_length()


def brev(t, a):
    w = width(t)
    return int(format(a & mask(w), f"0{w}b")[::-1], 2)


def bfind(t, a, shiftamt=False):
    w = width(t)
    x = a & mask(w)
    if signed(t) and x >> (w - 1):
        x = ~x & mask(w)  # signed: the most significant non-sign bit
    if x == 0:
        return 0xFFFFFFFF
    pos = x.bit_length() - 1
    return (w - 1 - pos) if shiftamt else pos


# byte selections of prmt's modes, listed per c[1:0] as (d.b0, d.b1, d.b2, d.b3) from the ISA's table
_PRMT = {
    "f4e": [(0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)],
    "b4e": [(0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)],
    "rc8": [(0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)],
    "ecl": [(0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)],
    "ecr": [(0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)],
    "rc16": [(0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)],
}


def prmt(mode, a, b, c):
    """prmt.b32{.mode}: bytes 0-3 come from a, 4-7 from b."""
    src = [(a >> (8 * k)) & 0xFF for k in range(4)] + [(b >> (8 * k)) & 0xFF for k in range(4)]
    if mode == "":
        out = []
        for k in range(4):
            sel = (c >> (4 * k)) & 0xF
            byte = src[sel & 7]
            if sel & 8:  # msb of the selector: replicate the byte's sign
                byte = 0xFF if byte & 0x80 else 0
            out.append(byte)
    else:
        out = [src[i] for i in _PRMT[mode][c & 3]]
    return sum(v << (8 * k) for k, v in enumerate(out))


def shf(direction, mode, a, b, c):
    """shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of the 64-bit {b:a}."""
    n = min(c & 0xFFFFFFFF, 32) if mode == "clamp" else c & 0x1F
    both = ((b & 0xFFFFFFFF) << 32) | (a & 0xFFFFFFFF)
    if direction == "l":
        return ((both << n) >> 32) & 0xFFFFFFFF
    return (both >> n) & 0xFFFFFFFF


def lop3(lut, a, b, c, w=32):
    d = 0
    for i in range(w):
        idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1)
        d |= ((lut >> idx) & 1) << i
    return d


def dp4a(atype, btype, a, b, c):
    acc = val(c, "s32" if "s32" in (atype, btype) else "u32")
    for k in range(4):
        ia = (a >> (8 * k)) & 0xFF
        ib = (b >> (8 * k)) & 0xFF
        acc += (sval(ia, 8) if signed(atype) else ia) * (sval(ib, 8) if signed(btype) else ib)
    return bits(acc, 32)


def dp2a(mode, atype, btype, a, b, c):
    """d = c + a.h0 * b.byte[s] + a.h1 * b.byte[s+1], s = 0 for .lo and 2 for .hi."""
    acc = val(c, "s32" if "s32" in (atype, btype) else "u32")
    s = 0 if mode == "lo" else 2
    for i in range(2):
        ia = (a >> (16 * i)) & 0xFFFF
        ib = (b >> (8 * (s + i))) & 0xFF
        acc += (sval(ia, 16) if signed(atype) else ia) * (sval(ib, 8) if signed(btype) else ib)
    return bits(acc, 32)


def fns(mask_, base, offset):
    base, offset = sval(base, 32), sval(offset, 32)
    if offset == 0:
        return base if 0 <= base < 32 and (mask_ >> base) & 1 else 0xFFFFFFFF
    pos, count, inc = base, abs(offset) - 1, (1 if offset > 0 else -1)
    while 0 <= pos < 32:
        if (mask_ >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return 0xFFFFFFFF


# ---- comparison and selection ------------------------------------------------------------------------

CMPS = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")


def icmp(cmp, t, a, b):
    """Integer comparison: lt/le/gt/ge follow the type's signedness, lo/ls/hi/hs are unsigned."""
    if cmp in ("lo", "ls", "hi", "hs"):
        x, y = a & mask(t), b & mask(t)
        cmp = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}[cmp]
    else:
        x, y = val(a, t), val(b, t)
    return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[cmp]


def boolop(op, r, p):
    if op == "and":
        return r and p
    if op == "or":
        return r or p
    if op == "xor":
        return r != p
    return r


def setp(cmp, t, a, b, bop="", p=0):
    """(p, q) of ``setp.cmp{.bop}.t p|q, a, b{, c}``: p = cmp BOP c, q = !cmp BOP c."""
    r = icmp(cmp, t, a, b)
    return int(boolop(bop, r, bool(p))), int(boolop(bop, not r, bool(p)))


def iset(cmp, dtype, stype, a, b, bop="", p=0):
    r = boolop(bop, icmp(cmp, stype, a, b), bool(p))
    if dtype == "f32":
        return 0x3F800000 if r else 0
    return mask(dtype) if r else 0


def selp(t, a, b, c):
    return (a if c & 1 else b) & mask(t)


def _f32(x: int) -> float:
    return struct.unpack("<f", struct.pack("<I", x & 0xFFFFFFFF))[0]


def slct(dtype, ctype, a, b, c, ftz=False):
    """d = (c >= 0) ? a : b. An f32 selector compares as a float: -0 selects a, NaN selects b;
    with .ftz a subnormal selector is flushed to a zero of its sign (so it selects a)."""
    if ctype == "s32":
        cond = sval(c, 32) >= 0
    else:
        if ftz and (c & 0x7F800000) == 0:
            c &= 0x80000000
        x = _f32(c)
        cond = (not math.isnan(x)) and x >= 0.0
    return (a if cond else b) & mask(dtype)
