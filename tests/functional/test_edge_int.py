"""Edge-value differential suite, integer and bit operations.

Every integer/bit ALU instruction family the engine supports runs through real kernels (decoder,
interpreter and its fast paths, via ``edgekit``) on edge operands plus seeded random operands, and each
result is compared bit for bit with ``intref``, an exact plain-Python reference written from the PTX ISA.
Binary operations run the full edge x edge product, ternary and wider ones a reduced edge set per operand
(and dedicated sets for shift amounts, bit positions/lengths, prmt selectors, dp4a/dp2a byte patterns and
f32 selectors), each followed by 256 seeded random tuples (shift-like operands also get 256 small random
amounts).

Suite size (``suite_size()``): 39 families x 11 types (u16 s16 u32 s32 u64 s64 b16 b32 b64, pred for the
logic ops, f32 as slct's/set's selector or destination) x 120 variants (modes, modifiers, carry chains,
comparisons, LUTs, immediates), as the ISA allows them: 526 (family, type, variant) cases, 573,518 operand
tuples in all (each compared bit for bit). Besides: the decoder's opcode-table walk (all 53 ALU opcodes:
50 run with a hand-computed result, 3 internal ones rejected, plus 13 spellings that must raise
UnsupportedPTX), the INT64_MIN division / abs regressions, and dp2a/dp4a through nvcc-compiled CUDA.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence

import edgekit as ek
import intref as R
import numpy as np
import pytest

import ndpgpu
from ndpgpu.functional import isa

INT = ["u16", "s16", "u32", "s32", "u64", "s64"]
BITS = ["b16", "b32", "b64"]
CC_TYPES = ["u32", "s32", "u64", "s64"]
N_RANDOM = 256


# ---- operand sets --------------------------------------------------------------------------------------


def reduced(t: str) -> list[int]:
    """A reduced integer edge set for ternary and wider operations."""
    w = ek.width(t)
    m, smin = (1 << w) - 1, 1 << (w - 1)
    return sorted({0, 1, 2, m, m - 1, smin, smin - 1, smin + 1, 0x5555555555555555 & m,
                   0xAAAAAAAAAAAAAAAA & m, 0x0123456789ABCDEF & m})


SHIFTS = sorted(set(ek.edge_ints(32)) | {4, 8, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 127, 128, 255, 256,
                                        257, 0x120})
POSLEN = [0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 0xFFFFFFFF, 0x80000001]
PRMT_SEL = sorted({0, 1, 2, 3, 4, 5, 6, 7, 0x3210, 0x7654, 0x0123, 0x4567, 0x8888, 0xFEDC, 0x89AB, 0xCDEF,
                   0x1F2E, 0xF0F0, 0xFFFF, 0x12345678, 0xFFFFFFFC, 0x80000003, 0x7FFFFFFE})
DP_BYTES = [0, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x01020304, 0xFF80017F, 0x8000FFFF, 0x7FFF8001, 0x12345678]
LUTS = [0x00, 0xFF, 0x96, 0xE8, 0xF0, 0xCC, 0xAA, 0x80, 0xFE, 0x1E, 0x6A, 0xB4, 0x5C]


def small_random(types: Sequence[str], small: Sequence[int], limit: int, seed: int, n: int = N_RANDOM) -> list[tuple]:
    """Random tuples whose operands at positions ``small`` are drawn from [0, limit) (shift amounts...)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        row = []
        for k, t in enumerate(types):
            row.append(rng.randrange(limit) if k in small else rng.getrandbits(ek.width(t)))
        out.append(tuple(row))
    return out


def tuples_for(types: Sequence[str], sets: Sequence[Sequence[int]] | None = None, seed: int = 1) -> list[tuple]:
    return ek.operand_tuples(types, n_random=N_RANDOM, seed=seed, edge_sets=sets)


# ---- the case table ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Case:
    family: str
    type: str
    variant: str
    dtype: str
    srcs: list[str]
    ref: Callable
    make: Callable[[], list[tuple]]
    instr: str | None = None
    template: str | None = None

    @property
    def id(self) -> str:
        return f"{self.family}-{self.variant}-{self.type}"


CASES: list[Case] = []


def case(family, t, variant, dtype, srcs, ref, make, instr=None, template=None):
    CASES.append(Case(family, t, variant, dtype, list(srcs), ref, make, instr, template))


def seed_of(*parts) -> int:
    return sum(ord(ch) * (k + 1) for k, ch in enumerate("-".join(map(str, parts)))) % 100003


def _build() -> None:
    # add / sub, .sat.s32
    for t in INT:
        for fam, fn in (("add", R.add), ("sub", R.sub)):
            case(fam, t, "plain", t, [t, t], lambda a, b, t=t, fn=fn: fn(t, a, b),
                 lambda t=t, fam=fam: tuples_for([t, t], seed=seed_of(fam, t)), f"{fam}.{t}")
    for fam, fn in (("add", R.add_sat), ("sub", R.sub_sat)):
        case(fam, "s32", "sat", "s32", ["s32", "s32"], lambda a, b, fn=fn: fn("s32", a, b),
             lambda fam=fam: tuples_for(["s32", "s32"], seed=seed_of(fam, "sat")), f"{fam}.sat.s32")
    # carry chains: .cc sets CC.CF, addc/subc consume it; the flag is observed through addc/subc of zeros
    for t in CC_TYPES:
        w = ek.width(t)
        tmp, tmp2 = ("%r0", "%r1") if w == 32 else ("%rd7", "%rd8")
        m = R.mask(t)
        red4 = [t] * 4
        sets4 = [reduced(t)] * 2 + [[0, 1, m, m - 1, 1 << (w - 1)]] * 2
        case("add", t, "cc", t, [t, t], lambda a, b, t=t: R.add(t, a, b),
             lambda t=t: tuples_for([t, t], seed=seed_of("addcc", t)), f"add.cc.{t}")
        case("add", t, "cc-carry", t, [t, t], lambda a, b, t=t: R.carry_add(t, a, b),
             lambda t=t: tuples_for([t, t], seed=seed_of("addcf", t)),
             template=f"add.cc.{t} {tmp}, {{a[0]}}, {{a[1]}}; addc.{t} {{d}}, 0, 0;")
        case("addc", t, "carry-in", t, red4, lambda a, b, x, y, t=t: R.addc(t, a, b, R.carry_add(t, x, y)),
             lambda t=t, s=sets4, r4=red4: tuples_for(r4, s, seed=seed_of("addc", t)),
             template=f"add.cc.{t} {tmp}, {{a[2]}}, {{a[3]}}; addc.cc.{t} {{d}}, {{a[0]}}, {{a[1]}};")
        case("addc", t, "carry-out", t, red4,
             lambda a, b, x, y, t=t: R.carry_add(t, a, b, R.carry_add(t, x, y)),
             lambda t=t, s=sets4, r4=red4: tuples_for(r4, s, seed=seed_of("addco", t)),
             template=(f"add.cc.{t} {tmp}, {{a[2]}}, {{a[3]}}; addc.cc.{t} {tmp2}, {{a[0]}}, {{a[1]}}; "
                       f"addc.{t} {{d}}, 0, 0;"))
        case("sub", t, "cc", t, [t, t], lambda a, b, t=t: R.sub(t, a, b),
             lambda t=t: tuples_for([t, t], seed=seed_of("subcc", t)), f"sub.cc.{t}")
        case("sub", t, "cc-borrow", t, [t, t], lambda a, b, t=t, m=m: m * R.borrow_sub(t, a, b),
             lambda t=t: tuples_for([t, t], seed=seed_of("subcf", t)),
             template=f"sub.cc.{t} {tmp}, {{a[0]}}, {{a[1]}}; subc.{t} {{d}}, 0, 0;")
        case("subc", t, "borrow-in", t, red4, lambda a, b, x, y, t=t: R.subc(t, a, b, R.borrow_sub(t, x, y)),
             lambda t=t, s=sets4, r4=red4: tuples_for(r4, s, seed=seed_of("subc", t)),
             template=f"sub.cc.{t} {tmp}, {{a[2]}}, {{a[3]}}; subc.cc.{t} {{d}}, {{a[0]}}, {{a[1]}};")
        case("subc", t, "borrow-out", t, red4,
             lambda a, b, x, y, t=t, m=m: m * R.borrow_sub(t, a, b, R.borrow_sub(t, x, y)),
             lambda t=t, s=sets4, r4=red4: tuples_for(r4, s, seed=seed_of("subco", t)),
             template=(f"sub.cc.{t} {tmp}, {{a[2]}}, {{a[3]}}; subc.cc.{t} {tmp2}, {{a[0]}}, {{a[1]}}; "
                       f"subc.{t} {{d}}, 0, 0;"))
        # mad.lo/.hi.cc and madc (carry of the addition)
        sets3 = [reduced(t)] * 3
        for mode in ("lo", "hi"):
            case("mad", t, f"{mode}.cc", t, [t] * 3, lambda a, b, c, t=t, mode=mode: R.mad(mode, t, a, b, c),
                 lambda t=t, s=sets3, mode=mode: tuples_for([t] * 3, s, seed=seed_of("madcc", mode, t)),
                 f"mad.{mode}.cc.{t}")
            case("mad", t, f"{mode}.cc-carry", t, [t] * 3,
                 lambda a, b, c, t=t, mode=mode: R.mad_carry(mode, t, a, b, c),
                 lambda t=t, s=sets3, mode=mode: tuples_for([t] * 3, s, seed=seed_of("madcf", mode, t)),
                 template=f"mad.{mode}.cc.{t} {tmp}, {{a[0]}}, {{a[1]}}, {{a[2]}}; addc.{t} {{d}}, 0, 0;")
            # madc: the carry-in is the top bit of x (x + x carries exactly then)
            sets4m = [reduced(t)] * 3 + [[0, 1 << (w - 1)]]
            case("madc", t, f"{mode}", t, red4,
                 lambda a, b, c, x, t=t, mode=mode, w=w: R.mad(mode, t, a, b, c, cin=(x >> (w - 1)) & 1),
                 lambda t=t, s=sets4m, mode=mode, r4=red4: tuples_for(r4, s, seed=seed_of("madc", mode, t)),
                 template=f"add.cc.{t} {tmp}, {{a[3]}}, {{a[3]}}; madc.{mode}.{t} {{d}}, {{a[0]}}, {{a[1]}}, {{a[2]}};")
            case("madc", t, f"{mode}.cc-carry", t, red4,
                 lambda a, b, c, x, t=t, mode=mode, w=w: R.mad_carry(mode, t, a, b, c, cin=(x >> (w - 1)) & 1),
                 lambda t=t, s=sets4m, mode=mode, r4=red4: tuples_for(r4, s, seed=seed_of("madcco", mode, t)),
                 template=(f"add.cc.{t} {tmp}, {{a[3]}}, {{a[3]}}; "
                           f"madc.{mode}.cc.{t} {tmp2}, {{a[0]}}, {{a[1]}}, {{a[2]}}; addc.{t} {{d}}, 0, 0;"))
    # mul / mad
    for t in INT:
        for mode in ("lo", "hi", "wide"):
            if mode == "wide" and ek.width(t) == 64:
                continue
            dt = R.wide(t) if mode == "wide" else t
            case("mul", t, mode, dt, [t, t], lambda a, b, t=t, mode=mode: R.mul(mode, t, a, b),
                 lambda t=t, mode=mode: tuples_for([t, t], seed=seed_of("mul", mode, t)), f"mul.{mode}.{t}")
            srcs = [t, t, dt]
            case("mad", t, mode, dt, srcs, lambda a, b, c, t=t, mode=mode: R.mad(mode, t, a, b, c),
                 lambda srcs=srcs: tuples_for(srcs, [reduced(x) for x in srcs], seed=seed_of("mad", *srcs)),
                 f"mad.{mode}.{t}")
    case("mad", "s32", "hi.sat", "s32", ["s32"] * 3, lambda a, b, c: R.mad("hi", "s32", a, b, c, sat=True),
         lambda: tuples_for(["s32"] * 3, [reduced("s32")] * 3, seed=5), "mad.hi.sat.s32")
    # mul24 / mad24
    for t in ("u32", "s32"):
        e24 = sorted(set(ek.edge_ints(32)) | {0xFFFFFF, 0x800000, 0x7FFFFF, 0x1000000, 0xFF800000, 0x00800001})
        for mode in ("lo", "hi"):
            case("mul24", t, mode, t, [t, t], lambda a, b, t=t, mode=mode: R.mul24(mode, t, a, b),
                 lambda t=t, mode=mode, e=e24: tuples_for([t, t], [e, e], seed=seed_of("mul24", mode, t)),
                 f"mul24.{mode}.{t}")
            r24 = sorted(set(reduced(t)) | {0xFFFFFF, 0x800000, 0x7FFFFF})
            case("mad24", t, mode, t, [t] * 3, lambda a, b, c, t=t, mode=mode: R.mad24(mode, t, a, b, c),
                 lambda t=t, mode=mode, r=r24: tuples_for([t] * 3, [r, r, reduced(t)], seed=seed_of("mad24", mode)),
                 f"mad24.{mode}.{t}")
    r24 = sorted(set(reduced("s32")) | {0xFFFFFF, 0x800000, 0x7FFFFF})
    case("mad24", "s32", "hi.sat", "s32", ["s32"] * 3, lambda a, b, c: R.mad24("hi", "s32", a, b, c, sat=True),
         lambda: tuples_for(["s32"] * 3, [r24, r24, reduced("s32")], seed=7), "mad24.hi.sat.s32")
    # sad, div, rem, min, max
    for t in INT:
        case("sad", t, "plain", t, [t] * 3, lambda a, b, c, t=t: R.sad(t, a, b, c),
             lambda t=t: tuples_for([t] * 3, [reduced(t)] * 3, seed=seed_of("sad", t)), f"sad.{t}")
        for fam, fn in (("div", R.div), ("rem", R.rem), ("min", R.imin), ("max", R.imax)):
            case(fam, t, "plain", t, [t, t], lambda a, b, t=t, fn=fn: fn(t, a, b),
                 lambda t=t, fam=fam: tuples_for([t, t], seed=seed_of(fam, t)), f"{fam}.{t}")
    for fam, fn in (("min", R.imin), ("max", R.imax)):
        case(fam, "s32", "relu", "s32", ["s32", "s32"], lambda a, b, fn=fn: fn("s32", a, b, relu=True),
             lambda fam=fam: tuples_for(["s32", "s32"], seed=seed_of(fam, "relu")), f"{fam}.relu.s32")
    # abs, neg
    for t in ("s16", "s32", "s64"):
        for fam, fn in (("abs", R.iabs), ("neg", R.neg)):
            case(fam, t, "plain", t, [t], lambda a, t=t, fn=fn: fn(t, a),
                 lambda t=t, fam=fam: tuples_for([t], seed=seed_of(fam, t)), f"{fam}.{t}")
    # logic
    for t in BITS + ["pred"]:
        for fam, fn in (("and", R.land), ("or", R.lor), ("xor", R.lxor)):
            case(fam, t, "plain", t, [t, t], lambda a, b, t=t, fn=fn: fn(t, a, b),
                 lambda t=t, fam=fam: tuples_for([t, t], seed=seed_of(fam, t)), f"{fam}.{t}")
        case("not", t, "plain", t, [t], lambda a, t=t: R.lnot(t, a),
             lambda t=t: tuples_for([t], seed=seed_of("not", t)), f"not.{t}")
        if t != "pred":
            case("cnot", t, "plain", t, [t], lambda a, t=t: R.cnot(t, a),
                 lambda t=t: tuples_for([t], seed=seed_of("cnot", t)), f"cnot.{t}")
    # shifts (amount: u32 register; also immediates)
    for t in BITS + INT:
        fams = [("shr", R.shr)] + ([("shl", R.shl)] if t[0] == "b" else [])
        for fam, fn in fams:
            case(fam, t, "plain", t, [t, "u32"], lambda a, n, t=t, fn=fn: fn(t, a, n),
                 lambda t=t, fam=fam: tuples_for([t, "u32"], [ek.edges(t), SHIFTS], seed=seed_of(fam, t))
                 + small_random([t, "u32"], [1], 80, seed_of(fam, t, "small")), f"{fam}.{t}")
    for t in ("b32", "s32", "u64", "b64"):
        for fam in ("shl", "shr"):
            if fam == "shl" and t[0] != "b":
                continue
            fn = R.shl if fam == "shl" else R.shr
            for imm in (0, 31, 32, 63, 64, 200):
                case(fam, t, f"imm{imm}", t, [t], lambda a, t=t, fn=fn, imm=imm: fn(t, a, imm),
                     lambda t=t: tuples_for([t], seed=seed_of("shimm", t)),
                     template=f"{fam}.{t} {{d}}, {{a[0]}}, {imm};")
    # bfe, bfi
    for t in ("u32", "s32", "u64", "s64"):
        case("bfe", t, "plain", t, [t, "u32", "u32"], lambda a, b, c, t=t: R.bfe(t, a, b, c),
             lambda t=t: tuples_for([t, "u32", "u32"], [reduced(t), POSLEN, POSLEN], seed=seed_of("bfe", t))
             + small_random([t, "u32", "u32"], [1, 2], 70, seed_of("bfe", t, "s")), f"bfe.{t}")
    for t in ("b32", "b64"):
        m = R.mask(t)
        ab = [0, m, 0x5555555555555555 & m, 0x0123456789ABCDEF & m]
        case("bfi", t, "plain", t, [t, t, "u32", "u32"], lambda a, b, c, d, t=t: R.bfi(t, a, b, c, d),
             lambda t=t, ab=ab: tuples_for([t, t, "u32", "u32"], [ab, ab, POSLEN, POSLEN], seed=seed_of("bfi", t))
             + small_random([t, t, "u32", "u32"], [2, 3], 70, seed_of("bfi", t, "s")), f"bfi.{t}")
    # popc, clz, brev (b32/b64), bfind (u/s 32/64, .shiftamt)
    for t in ("b32", "b64"):
        for fam, fn in (("popc", R.popc), ("clz", R.clz), ("brev", R.brev)):
            dt = t if fam == "brev" else "u32"
            case(fam, t, "plain", dt, [t], lambda a, t=t, fn=fn: fn(t, a),
                 lambda t=t, fam=fam: tuples_for([t], seed=seed_of(fam, t)), f"{fam}.{t}")
    for t in ("u32", "s32", "u64", "s64"):
        for sa in (False, True):
            case("bfind", t, "shiftamt" if sa else "plain", "u32", [t], lambda a, t=t, sa=sa: R.bfind(t, a, sa),
                 lambda t=t, sa=sa: tuples_for([t], seed=seed_of("bfind", t, sa)),
                 f"bfind{'.shiftamt' if sa else ''}.{t}")
    # prmt, all modes
    for mode in ("", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
        r = reduced("b32") + [0x01234567 ^ 0xFFFFFFFF, 0x80FF7F01]
        case("prmt", "b32", mode or "default", "b32", ["b32"] * 3, lambda a, b, c, mode=mode: R.prmt(mode, a, b, c),
             lambda r=r, mode=mode: tuples_for(["b32"] * 3, [r, r, PRMT_SEL], seed=seed_of("prmt", mode)),
             f"prmt.b32{'.' + mode if mode else ''}")
    # shf
    for dr in ("l", "r"):
        for mode in ("wrap", "clamp"):
            case("shf", "b32", f"{dr}.{mode}", "b32", ["b32", "b32", "u32"],
                 lambda a, b, c, dr=dr, mode=mode: R.shf(dr, mode, a, b, c),
                 lambda dr=dr, mode=mode: tuples_for(["b32", "b32", "u32"], [reduced("b32")] * 2 + [SHIFTS],
                                                     seed=seed_of("shf", dr, mode))
                 + small_random(["b32", "b32", "u32"], [2], 70, seed_of("shf", dr, mode, "s")),
                 f"shf.{dr}.{mode}.b32")
    # lop3 (LUT is an immediate)
    rng = random.Random(3)
    for lut in LUTS + [rng.randrange(256) for _ in range(3)]:
        case("lop3", "b32", f"lut{lut:02x}", "b32", ["b32"] * 3, lambda a, b, c, lut=lut: R.lop3(lut, a, b, c),
             lambda lut=lut: tuples_for(["b32"] * 3, [reduced("b32")] * 3, seed=seed_of("lop3", lut)),
             template=f"lop3.b32 {{d}}, {{a[0]}}, {{a[1]}}, {{a[2]}}, 0x{lut:02x};")
    # dp4a, dp2a
    for at in ("u32", "s32"):
        for bt in ("u32", "s32"):
            srcs = [at, bt, "u32" if at == bt == "u32" else "s32"]
            case("dp4a", f"{at}.{bt}", "plain", "u32", srcs, lambda a, b, c, at=at, bt=bt: R.dp4a(at, bt, a, b, c),
                 lambda srcs=srcs: tuples_for(srcs, [DP_BYTES, DP_BYTES, reduced("u32")], seed=seed_of("dp4a", *srcs)),
                 f"dp4a.{at}.{bt}")
            for mode in ("lo", "hi"):
                case("dp2a", f"{at}.{bt}", mode, "u32", srcs,
                     lambda a, b, c, at=at, bt=bt, mode=mode: R.dp2a(mode, at, bt, a, b, c),
                     lambda srcs=srcs, mode=mode: tuples_for(srcs, [DP_BYTES, DP_BYTES, reduced("u32")],
                                                             seed=seed_of("dp2a", mode, *srcs)),
                     f"dp2a.{mode}.{at}.{bt}")
    # fns (base > 31 is undefined: not compared)
    bases = [0, 1, 2, 3, 15, 16, 30, 31, 32, 0xFFFFFFFF]
    offs = [v & 0xFFFFFFFF for v in (0, 1, -1, 2, -2, 3, 16, -16, 31, -31, 32, -32, 33, 0x7FFFFFFF, -(1 << 31))]
    case("fns", "b32", "plain", "b32", ["b32"] * 3,
         lambda m_, b, o: R.fns(m_, b, o) if b <= 31 else None,
         lambda: tuples_for(["b32"] * 3, [reduced("b32") + [0xAAAAAAAA, 0x80000001], bases, offs], seed=11)
         + small_random(["b32", "u32", "b32"], [1], 32, 12), "fns.b32")
    # setp: every comparison on every integer type (single destination: fast paths for 32 bits)
    for t in INT + BITS:
        for cmp in R.CMPS:
            case("setp", t, cmp, "pred", [t, t], lambda a, b, t=t, cmp=cmp: R.setp(cmp, t, a, b)[0],
                 lambda t=t: tuples_for([t, t], seed=seed_of("setp", t)), f"setp.{cmp}.{t}")
    # setp p|q with and without a bool op; both destinations packed as 2*p + q
    pq = "selp.u32 %r0, 2, 0, %q0; selp.u32 %r1, 1, 0, %q1; or.b32 {d}, %r0, %r1;"
    for t, cmps, bops in (("s32", R.CMPS, ("", "and", "or", "xor")), ("u64", ("lt", "hi", "eq", "ge"),
                                                                      ("", "and", "or", "xor")),
                          ("s16", ("lt", "ls", "ne", "gt"), ("", "and", "xor"))):
        for cmp in cmps:
            for bop in bops:
                srcs = [t, t] + (["pred"] if bop else [])
                extra = ", {a[2]}" if bop else ""
                case("setp", t, f"{cmp}.{bop or 'none'}.pq", "u32", srcs,
                     lambda a, b, p=0, t=t, cmp=cmp, bop=bop: 2 * R.setp(cmp, t, a, b, bop, p)[0]
                     + R.setp(cmp, t, a, b, bop, p)[1],
                     lambda srcs=srcs: tuples_for(srcs, [reduced(srcs[0])] * 2 + [[0, 1]] * (len(srcs) - 2),
                                                  seed=seed_of("setpq", *srcs)),
                     template=f"setp.{cmp}{'.' + bop if bop else ''}.{t} %q0|%q1, {{a[0]}}, {{a[1]}}{extra}; " + pq)
    # set.cmp{.bop}.dtype.stype
    for st in ("s32", "u32", "s64", "u16", "b16"):
        for cmp in R.CMPS:
            case("set", st, f"{cmp}.u32", "u32", [st, st], lambda a, b, st=st, cmp=cmp: R.iset(cmp, "u32", st, a, b),
                 lambda st=st: tuples_for([st, st], seed=seed_of("set", st)), f"set.{cmp}.u32.{st}")
    for dt in ("s32", "f32"):
        for cmp in ("lt", "hs", "eq"):
            case("set", "s32", f"{cmp}.{dt}", dt, ["s32", "s32"],
                 lambda a, b, dt=dt, cmp=cmp: R.iset(cmp, dt, "s32", a, b),
                 lambda: tuples_for(["s32", "s32"], seed=seed_of("set", "s32")), f"set.{cmp}.{dt}.s32")
    for bop in ("and", "or", "xor"):
        case("set", "u64", f"gt.{bop}.u32", "u32", ["u64", "u64", "pred"],
             lambda a, b, p, bop=bop: R.iset("gt", "u32", "u64", a, b, bop, p),
             lambda: tuples_for(["u64", "u64", "pred"], [reduced("u64")] * 2 + [[0, 1]], seed=13),
             f"set.gt.{bop}.u32.u64")
    # selp, slct
    for t in INT + BITS:
        case("selp", t, "plain", t, [t, t, "pred"], lambda a, b, c, t=t: R.selp(t, a, b, c),
             lambda t=t: tuples_for([t, t, "pred"], [reduced(t)] * 2 + [[0, 1]], seed=seed_of("selp", t)),
             f"selp.{t}")
    for dt in ("u32", "s32", "b64", "s16", "f32"):
        ab = [0x1111111111111111 & R.mask(dt), 0xFEDCBA9876543210 & R.mask(dt)] if dt != "f32" \
            else [0x3F800000, 0xFFC00000]
        for ct, ftz in (("s32", False), ("f32", False), ("f32", True)):
            cset = ek.edges(ct) + ([0x80000000, 0x807FFFFF, 0x00000001] if ct == "f32" else [])
            case("slct", f"{dt}.{ct}", "ftz" if ftz else "plain", dt, [dt, dt, ct],
                 lambda a, b, c, dt=dt, ct=ct, ftz=ftz: R.slct(dt, ct, a, b, c, ftz),
                 lambda dt=dt, ct=ct, ab=ab, cset=cset: tuples_for([dt, dt, ct], [ab, ab, cset],
                                                                   seed=seed_of("slct", dt, ct)),
                 f"slct{'.ftz' if ftz else ''}.{dt}.{ct}")


_build()


def suite_size() -> dict:
    """Families, types, variants, (family, type, variant) cases and operand tuples of the parametrized suite."""
    types = {c.type for c in CASES}
    base_types = {x for c in CASES for x in c.type.split(".")}
    return {"families": len({c.family for c in CASES}), "types": len(base_types), "type_labels": len(types),
            "variants": len({c.variant for c in CASES}), "cases": len(CASES),
            "tuples": sum(len(c.make()) for c in CASES)}


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_edge(c: Case) -> None:
    tuples = c.make()
    ek.differential(c.instr, c.dtype, c.srcs, c.ref, tuples, c.template).check()


# ---- known defects, by value ---------------------------------------------------------------------------

MIN64 = 1 << 63


def _run1(template: str, dtype: str, srcs: list[str], *ops: int) -> int:
    return ek.apply(None, dtype, srcs, [ops], template)[0]


@pytest.mark.parametrize("op,a,b,want", [
    ("div", MIN64, 2, -(1 << 62)), ("div", MIN64, 3, -3074457345618258602), ("div", 5, MIN64, 0),
    ("rem", MIN64, 3, -2), ("rem", 5, MIN64, 5), ("div", MIN64, -1, MIN64), ("rem", MIN64, -1, 0),
    ("div", MIN64, MIN64, 1), ("rem", MIN64, MIN64, 0), ("div", MIN64, 0, -1), ("rem", MIN64, 0, MIN64),
])
def test_int64_min_division(op: str, a: int, b: int, want: int) -> None:
    got = _run1(f"{op}.s64 {{d}}, {{a[0]}}, {{a[1]}};", "s64", ["s64", "s64"], a & R.mask(64), b & R.mask(64))
    assert got == want & R.mask(64)


def test_abs_neg_min() -> None:
    """PTX: abs/neg of the most negative value wrap (two's complement): abs.s64(INT64_MIN) = INT64_MIN."""
    for t in ("s16", "s32", "s64"):
        smin = 1 << (ek.width(t) - 1)
        assert _run1(f"abs.{t} {{d}}, {{a[0]}};", t, [t], smin) == smin
        assert _run1(f"neg.{t} {{d}}, {{a[0]}};", t, [t], smin) == smin


def test_dp2a_values() -> None:
    assert _run1("dp2a.lo.u32.u32 {d}, {a[0]}, {a[1]}, {a[2]};", "u32", ["u32"] * 3, 0x00020003, 0x0505, 0) == 25
    assert _run1("dp2a.hi.u32.u32 {d}, {a[0]}, {a[1]}, {a[2]};", "u32", ["u32"] * 3, 0x00020003, 0x05050000, 1) == 26
    # signed a halves (-1, -2) times unsigned bytes 0xFF: -255 - 510 + 7
    assert _run1("dp2a.lo.s32.u32 {d}, {a[0]}, {a[1]}, {a[2]};", "u32", ["s32", "u32", "s32"],
                 0xFFFEFFFF, 0xFFFF, 7) == (-758) & 0xFFFFFFFF


DP_SRC = r"""
extern "C" __global__ void k(unsigned *out, const unsigned *ua, const unsigned *ub, const unsigned *uc) {
    int i = threadIdx.x;
    unsigned a = ua[i], b = ub[i], c = uc[i];
    out[6 * i + 0] = __dp2a_lo(a, b, c);
    out[6 * i + 1] = __dp2a_hi(a, b, c);
    out[6 * i + 2] = (unsigned)__dp2a_lo((int)a, (int)b, (int)c);
    out[6 * i + 3] = (unsigned)__dp2a_hi((int)a, (int)b, (int)c);
    out[6 * i + 4] = __dp4a(a, b, c);
    out[6 * i + 5] = (unsigned)__dp4a((int)a, (int)b, (int)c);
}
"""


def test_dp2a_dp4a_nvcc() -> None:
    """dp2a/dp4a through nvcc-compiled CUDA (__dp2a_lo/__dp2a_hi/__dp4a, unsigned and signed overloads)."""
    rows = [(0x00020003, 0x0505, 0)] + [(a, b, c) for a in DP_BYTES[:6] for b in DP_BYTES[:5] for c in (0, 0x80000000)]
    fn = ndpgpu.RawModule(code=DP_SRC).get_function("k")
    cols = [ndpgpu.asarray(np.array([r[k] for r in rows], dtype=np.uint32)) for k in range(3)]
    out = ndpgpu.zeros(6 * len(rows), np.uint32)
    fn((1,), (len(rows),), (out, *cols))
    got = [int(v) for v in out.get()]
    assert got[0] == 25 and got[1] == 0
    for i, (a, b, c) in enumerate(rows):
        want = [R.dp2a("lo", "u32", "u32", a, b, c), R.dp2a("hi", "u32", "u32", a, b, c),
                R.dp2a("lo", "s32", "s32", a, b, c), R.dp2a("hi", "s32", "s32", a, b, c),
                R.dp4a("u32", "u32", a, b, c), R.dp4a("s32", "s32", a, b, c)]
        assert got[6 * i: 6 * i + 6] == want, (hex(a), hex(b), hex(c))


# ---- every ALU opcode the decoder accepts is implemented or rejected -----------------------------------

F1, F2, F3, F8 = 0x3F800000, 0x40000000, 0x40400000, 0x41000000  # 1.0, 2.0, 3.0, 8.0 (f32 bits)
P = "%q0"  # a free predicate register of edgekit's kernel
TOP = (P, "selp.u32 {d}, 1, 0, %q0;")

# opcode -> (template, dtype, operand types, operands, expected bits or set) ; None: must be rejected
OPCODE_TABLE: dict[str, tuple | None] = {
    "mov": ("mov.b32 {d}, {a[0]};", "b32", ["b32"], (0x12345678,), 0x12345678),
    "add": ("add.s32 {d}, {a[0]}, {a[1]};", "s32", ["s32"] * 2, (0x7FFFFFFF, 1), 0x80000000),
    "sub": ("sub.u16 {d}, {a[0]}, {a[1]};", "u16", ["u16"] * 2, (1, 2), 0xFFFF),
    "mul": ("mul.hi.u32 {d}, {a[0]}, {a[1]};", "u32", ["u32"] * 2, (0x80000000, 6), 3),
    "mad": ("mad.lo.s32 {d}, {a[0]}, {a[1]}, {a[2]};", "s32", ["s32"] * 3, (3, 0xFFFFFFFE, 10), 4),
    "mul24": ("mul24.hi.u32 {d}, {a[0]}, {a[1]};", "u32", ["u32"] * 2, (0xFFFFFF, 0x10000), 0xFFFFFF),
    "mad24": ("mad24.lo.u32 {d}, {a[0]}, {a[1]}, {a[2]};", "u32", ["u32"] * 3, (0x1000002, 3, 1), 7),
    "sad": ("sad.s32 {d}, {a[0]}, {a[1]}, {a[2]};", "s32", ["s32"] * 3, (0xFFFFFFFD, 4, 1), 8),
    "div": ("div.s32 {d}, {a[0]}, {a[1]};", "s32", ["s32"] * 2, (0xFFFFFFF9, 2), 0xFFFFFFFD),
    "rem": ("rem.s32 {d}, {a[0]}, {a[1]};", "s32", ["s32"] * 2, (0xFFFFFFF9, 2), 0xFFFFFFFF),
    "abs": ("abs.s16 {d}, {a[0]};", "s16", ["s16"], (0xFFF6,), 10),
    "neg": ("neg.s32 {d}, {a[0]};", "s32", ["s32"], (5,), 0xFFFFFFFB),
    "min": ("min.u32 {d}, {a[0]}, {a[1]};", "u32", ["u32"] * 2, (0xFFFFFFFF, 3), 3),
    "max": ("max.s32 {d}, {a[0]}, {a[1]};", "s32", ["s32"] * 2, (0xFFFFFFFF, 3), 3),
    "and": ("and.b32 {d}, {a[0]}, {a[1]};", "b32", ["b32"] * 2, (0xF0F0, 0xFF00), 0xF000),
    "or": ("or.b32 {d}, {a[0]}, {a[1]};", "b32", ["b32"] * 2, (0xF0F0, 0xFF00), 0xFFF0),
    "xor": ("xor.b32 {d}, {a[0]}, {a[1]};", "b32", ["b32"] * 2, (0xF0F0, 0xFF00), 0x0FF0),
    "not": ("not.b16 {d}, {a[0]};", "b16", ["b16"], (0x00FF,), 0xFF00),
    "cnot": ("cnot.b32 {d}, {a[0]};", "b32", ["b32"], (0,), 1),
    "shl": ("shl.b32 {d}, {a[0]}, {a[1]};", "b32", ["b32", "u32"], (3, 4), 48),
    "shr": ("shr.s32 {d}, {a[0]}, {a[1]};", "s32", ["s32", "u32"], (0x80000000, 4), 0xF8000000),
    "bfe": ("bfe.s32 {d}, {a[0]}, {a[1]}, {a[2]};", "s32", ["s32", "u32", "u32"], (0x00F0, 4, 4), 0xFFFFFFFF),
    "bfi": ("bfi.b32 {d}, {a[0]}, {a[1]}, {a[2]}, {a[3]};", "b32", ["b32"] * 4, (0xF, 0, 8, 4), 0xF00),
    "popc": ("popc.b64 {d}, {a[0]};", "u32", ["b64"], ((1 << 64) - 1,), 64),
    "clz": ("clz.b32 {d}, {a[0]};", "u32", ["b32"], (0x00010000,), 15),
    "brev": ("brev.b32 {d}, {a[0]};", "b32", ["b32"], (1,), 0x80000000),
    "bfind": ("bfind.u32 {d}, {a[0]};", "u32", ["u32"], (0x00010000,), 16),
    "prmt": ("prmt.b32 {d}, {a[0]}, {a[1]}, {a[2]};", "b32", ["b32"] * 3, (0x33221100, 0x77665544, 0x0404), 0x00440044),
    "shf": ("shf.l.wrap.b32 {d}, {a[0]}, {a[1]}, {a[2]};", "b32", ["b32"] * 3, (0x80000000, 1, 33), 3),
    "lop3": ("lop3.b32 {d}, {a[0]}, {a[1]}, {a[2]}, 0x96;", "b32", ["b32"] * 3, (0xF0, 0xCC, 0xAA), 0x96),
    "fma": ("fma.rn.f32 {d}, {a[0]}, {a[1]}, {a[2]};", "f32", ["f32"] * 3, (F2, F3, F2), F8),
    "rcp": ("rcp.rn.f32 {d}, {a[0]};", "f32", ["f32"], (F2,), 0x3F000000),
    "sqrt": ("sqrt.rn.f32 {d}, {a[0]};", "f32", ["f32"], (0x40800000,), F2),
    "rsqrt": ("rsqrt.approx.f32 {d}, {a[0]};", "f32", ["f32"], (0x40800000,), {0x3EFFFFFF, 0x3F000000, 0x3F000001}),
    "sin": ("sin.approx.f32 {d}, {a[0]};", "f32", ["f32"], (0,), 0),
    "cos": ("cos.approx.f32 {d}, {a[0]};", "f32", ["f32"], (0,), F1),
    "ex2": ("ex2.approx.f32 {d}, {a[0]};", "f32", ["f32"], (F3,), F8),
    "lg2": ("lg2.approx.f32 {d}, {a[0]};", "f32", ["f32"], (F8,), {0x403FFFFF, F3, 0x40400001}),
    "tanh": ("tanh.approx.f32 {d}, {a[0]};", "f32", ["f32"], (0,), 0),
    "testp": ("testp.finite.f32 %q0, {a[0]}; selp.u32 {d}, 1, 0, %q0;", "u32", ["f32"], (0x7F800000,), 0),
    "copysign": ("copysign.f32 {d}, {a[0]}, {a[1]};", "f32", ["f32"] * 2, (0xBF800000, F2), 0xC0000000),
    "setp": ("setp.lo.s32 %q0, {a[0]}, {a[1]}; selp.u32 {d}, 1, 0, %q0;", "u32", ["s32"] * 2, (1, 0xFFFFFFFF), 1),
    "set": ("set.lt.u32.s32 {d}, {a[0]}, {a[1]};", "u32", ["s32"] * 2, (0xFFFFFFFF, 0), 0xFFFFFFFF),
    "selp": ("setp.ne.u32 %q0, {a[2]}, 0; selp.b64 {d}, {a[0]}, {a[1]}, %q0;", "b64", ["b64", "b64", "u32"],
             (5, 6, 1), 5),
    "slct": ("slct.u32.f32 {d}, {a[0]}, {a[1]}, {a[2]};", "u32", ["u32", "u32", "f32"], (5, 6, 0x80000000), 5),
    "cvt": ("cvt.rn.f32.s32 {d}, {a[0]};", "f32", ["s32"], (5,), 0x40A00000),
    "cvta": ("cvta.to.global.u64 {d}, {a[0]};", "u64", ["u64"], (0x1234,), 0x1234),
    "fns": ("fns.b32 {d}, {a[0]}, {a[1]}, {a[2]};", "b32", ["b32"] * 3, (0xAAAAAAAA, 2, 0xFFFFFFFF), 1),
    "dp4a": ("dp4a.s32.u32 {d}, {a[0]}, {a[1]}, {a[2]};", "s32", ["s32", "u32", "s32"],
             (0xFF0102FF, 0x01020304, 10), (10 - 4 + 6 + 2 - 1) & 0xFFFFFFFF),
    "dp2a": ("dp2a.lo.u32.u32 {d}, {a[0]}, {a[1]}, {a[2]};", "u32", ["u32"] * 3, (0x00020003, 0x0505, 0), 25),
    "bmsk": ("bmsk.wrap.b32 {d}, {a[0]}, {a[1]};", "b32", ["b32"] * 2, (4, 8), 0xFF0),
    "szext": ("szext.wrap.s32 {d}, {a[0]}, {a[1]};", "s32", ["s32", "u32"], (0x80, 8), 0xFFFFFF80),
    "pack": None, "unpack": None, "movpf": None,  # internal opcodes of the decoder, not PTX
    "vsimd": None, "cvtpack": None,  # the decoder's SIMD video and cvt.pack forms
}
# spellings the decoder must reject: internal opcodes, and types an opcode has no ALU case for
REJECTED = [
    "pack.b32 {d}, {a[0]};", "unpack.b32 {d}, {a[0]};", "movpf.b32 {d}, {a[0]};",
    "rcp.rn.u32 {d}, {a[0]};", "sqrt.rn.s32 {d}, {a[0]};", "fma.rn.u32 {d}, {a[0]}, {a[0]}, {a[0]};",
    "popc.f32 {d}, {a[0]};", "shl.f32 {d}, {a[0]}, 1;", "dp2a.lo.f32.f32 {d}, {a[0]}, {a[0]}, {a[0]};",
    "rem.f32 {d}, {a[0]}, {a[0]};", "vabsdiff4.u32.u32.u32 {d}, {a[0]}.b0123, {a[0]}, {a[0]};",
]


def test_opcode_table_covers_alu() -> None:
    assert set(OPCODE_TABLE) == set(isa._ALU) and isa.ALU_LIMIT == len(isa._ALU)
    assert all(isa.OPCODES[n] < isa.ALU_LIMIT for n in OPCODE_TABLE)


@pytest.mark.parametrize("name", list(OPCODE_TABLE))
def test_alu_opcode(name: str) -> None:
    entry = OPCODE_TABLE[name]
    if entry is None:  # the decoder's internal opcodes are not PTX: the parser refuses them as unknown
        with pytest.raises(ndpgpu.PTXParseError, match="unknown instruction"):
            ek.apply(None, "b32", ["b32"], [(1,)], f"{name}.b32 {{d}}, {{a[0]}};")
        return
    template, dtype, srcs, ops, want = entry
    got = ek.apply(None, dtype, srcs, [ops], template)[0]
    assert (got in want) if isinstance(want, set) else got == want, (name, hex(got))


@pytest.mark.parametrize("template", REJECTED)
def test_rejected(template: str) -> None:
    internal = template.split(".")[0] in ("pack", "unpack", "movpf")  # not PTX at all: unknown to the parser
    with pytest.raises(ndpgpu.PTXParseError if internal else ndpgpu.UnsupportedPTX):
        ek.apply(None, "b32", ["b32"], [(1,)], template)
