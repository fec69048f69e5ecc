"""Edge-value differential suite, conversions and comparisons: ``cvt`` and float ``setp``/``set``.

Every variant runs through the engine (real decoder and interpreter, one launch per variant, see
``edgekit``) and is compared bit for bit with ``cvtref``, an exact reference on Python integers and
``Fraction`` (no NumPy casts).

Suite size (families x types x modes x operand tuples), as computed by ``suite_size()``:

* cvt: 524 variants x 301480 operand tuples
* cvt packed f16x2/bf16x2: 8 variants x 40064 operand tuples
* cvt satfinite: 8 variants x 4536 operand tuples
* setp: 84 variants x 138390 operand tuples
* setp bool: 174 variants x 183744 operand tuples
* setp p|q: 96 variants x 120576 operand tuples
* set: 226 variants x 225149 operand tuples
* set bool: 24 variants x 20736 operand tuples
* setp/set f16x2 bf16x2: 168 variants x 143808 operand tuples
* total: 1312 instruction variants, 1178483 operand tuples compared bit for bit.

cvt covers 140 (destination, source) type pairs among u8..s64/f16/bf16/f32/f64: 102 int->int variants
(plain, ``.sat`` where it can clamp), 176 float->int (rni/rzi/rmi/rpi, ``.ftz`` for f32, ``.sat``),
152 int->float (rn/rz/rm/rp, ``.sat``, ``.ftz``), 94 float->float (rn/rz/rm/rp narrowing, rni.. in
place, ``.ftz``/``.sat``/``.relu``); each over the source type's edges plus conversion edges and 256
seeded random values. Comparisons: 14 float comparisons for f32 (with/without ``.ftz``), f64, f16
(with/without ``.ftz``), bf16 and f16x2/bf16x2, crossed edge sets plus 256 random pairs.
"""

from __future__ import annotations

import math
import zlib

import cvtref as R
import edgekit as ek
import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

INTS = R.INT_TYPES
FLOATS = R.FLOAT_TYPES
N_RANDOM = 256

# ---- variants -----------------------------------------------------------------------------------------


def _int_superset(dt: str, st: str) -> bool:
    dlo, dhi = R.int_range(dt)
    slo, shi = R.int_range(st)
    return dlo <= slo and shi <= dhi


def _float_superset(dt: str, st: str) -> bool:
    """Every value of ``st`` is exactly representable in ``dt``."""
    return dt == st or dt == "f64" or (dt == "f32" and st in ("f16", "bf16"))


def cvt_name(mods: tuple[str, ...], dt: str, st: str) -> str:
    return "cvt" + "".join("." + m for m in mods) + f".{dt}.{st}"


def cvt_variants() -> list[tuple[tuple[str, ...], str, str]]:
    """Every (modifiers, destination, source) the suite runs: each pair of u8..s64/f16/bf16/f32/f64 that
    the ISA allows, with each rounding mode allowed for it, and ``.sat``/``.ftz``/``.relu`` where they
    apply. The rules (checked against ptxas 13.0 for sm_90): bf16 does not convert to or from 8-bit
    integers and takes no ``.sat``; rounding to an integer in floating point needs a same-size pair."""
    out: list[tuple[tuple[str, ...], str, str]] = []
    for st in INTS:
        for dt in INTS:
            out.append(((), dt, st))
            if not _int_superset(dt, st):
                out.append((("sat",), dt, st))
    for st in FLOATS:
        for dt in INTS:
            if st == "bf16" and R.width(dt) == 8:
                continue
            for r in R.IRND:
                out.append(((r,), dt, st))
                if st == "f32":
                    out.append(((r, "ftz"), dt, st))
            if st != "bf16":
                out.append((("rzi", "sat"), dt, st))  # redundant but legal: float->int saturates anyway
    for st in INTS:
        for dt in FLOATS:
            if dt == "bf16" and R.width(st) == 8:
                continue
            for r in R.FRND:
                out.append(((r,), dt, st))
            if dt != "bf16":
                out.append((("rn", "sat"), dt, st))
            if dt == "f32":
                out.append((("rn", "ftz"), dt, st))
    for st in FLOATS:
        for dt in FLOATS:
            f32_involved = "f32" in (dt, st)
            sat_ok = "bf16" not in (dt, st)
            if not _float_superset(dt, st):
                for r in R.FRND:
                    out.append(((r,), dt, st))
                    if f32_involved:
                        out.append(((r, "ftz"), dt, st))
                if sat_ok:
                    out.append((("rn", "sat"), dt, st))
                    if f32_involved:
                        out.append((("rz", "ftz", "sat"), dt, st))
                if st == "f32" and dt in ("f16", "bf16"):
                    out += [(("rn", "relu"), dt, st), (("rz", "relu"), dt, st)]
                continue
            out.append(((), dt, st))
            if sat_ok:
                out.append((("sat",), dt, st))
            if f32_involved:
                out.append((("ftz",), dt, st))
                if sat_ok:
                    out.append((("ftz", "sat"), dt, st))
            if dt != st:
                continue
            for r in R.IRND:  # round to an integer in floating point
                out.append(((r,), dt, st))
                if f32_involved:
                    out.append(((r, "ftz"), dt, st))
            if sat_ok:
                out.append((("rni", "sat"), dt, st))
    return out


CVT_VARIANTS = cvt_variants()

# ---- operands -----------------------------------------------------------------------------------------


def _float_extra_edges(t: str) -> list[int]:
    """Values around integers, ties, and the integer types' limits, with their neighbours, both signs."""
    pts = [0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3.5, 4.5, 100.5, 101.5, 127, 127.5, 128, 128.5, 255, 255.5, 256,
           32767, 32767.5, 32768, 32768.5, 65503, 65504, 65519, 65520, 65535, 65535.5, 65536, 2 ** 24 + 1,
           2 ** 31 - 1, 2 ** 31, 2 ** 31 + 0.5, 2 ** 32 - 1, 2 ** 32, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63,
           2 ** 64 - 1, 2 ** 64, 2 ** 65, 1e30, 3e38, 1 / 3, 2.0 ** -24, 2.0 ** -25, 2.0 ** -126, 2.0 ** -127,
           2.0 ** -133, 2.0 ** -134, 2.0 ** -149, 2.0 ** -150, 2.0 ** -1022, 2.0 ** -1074]
    out = set()
    for p in pts:
        for rnd in ("rz", "rp"):
            b = R.encode(R.Fraction(p), t, rnd)
            for d in (-1, 0, 1):
                nb = b + d
                if 0 <= nb < (1 << (R.width(t) - 1)) and R.decode(nb, t).kind == "num":
                    out |= {nb, nb | (1 << (R.width(t) - 1))}
    return sorted(out)


def _int_extra_edges(t: str) -> list[int]:
    """Powers of two and their neighbours, and the rounding ties of bf16/f16/f32/f64 above them (plus and
    minus one), both signs: the integers that int->float rounding gets wrong first."""
    w = R.width(t)
    m = (1 << w) - 1
    vals = set()
    for k in range(1, w):
        base = 1 << k
        vals |= {base - 1, base, base + 1}
        for p in (8, 11, 24, 53):
            if k in (p + 1, p + 2, p + 9, 54, w - 2, w - 1) and k > p:
                half = 1 << (k - p)
                for tie in (base + half, base + 3 * half, 2 * base - half):
                    vals |= {tie - 1, tie, tie + 1}
    vals |= {-v for v in vals}
    return sorted({v & m for v in vals} | set(ek.edge_ints(w)))


def _random(t: str, n: int, seed: int) -> list[int]:
    raw = ek.random_bits(t, n, seed)
    if t == "bf16":  # half uniform bits, half moderate magnitudes (float32 values' upper halves)
        mid = ek.random_bits("f32", n, seed + 1)
        raw = raw[: n // 2] + [v >> 16 for v in mid[n // 2:]]
    return raw


def cvt_operands(st: str, seed: int) -> list[int]:
    """The source operands of a cvt variant: the type's edge set, the conversion edges, and ``N_RANDOM``
    seeded random values."""
    if st in FLOATS:
        base = sorted(set(ek.edges(st)) | set(_float_extra_edges(st)))
    else:
        base = _int_extra_edges(st)
    return base + _random(st, N_RANDOM, seed)


def _seed(name: str) -> int:
    return zlib.crc32(name.encode()) & 0xFFFF


# ---- cvt ----------------------------------------------------------------------------------------------


def _ref_kwargs(mods: tuple[str, ...]) -> dict:
    rnd = next((m for m in mods if m in R.IRND or m in R.FRND), None)
    return {"rnd": rnd, "ftz": "ftz" in mods, "sat": "sat" in mods, "relu": "relu" in mods}


@pytest.mark.parametrize("mods,dt,st", CVT_VARIANTS, ids=[cvt_name(*v) for v in CVT_VARIANTS])
def test_cvt(mods, dt, st):
    name = cvt_name(mods, dt, st)
    xs = cvt_operands(st, _seed(name))
    kw = _ref_kwargs(mods)
    mm = ek.differential(name, dt, [st], lambda a: R.cvt(dt, st, a, **kw), [(x,) for x in xs])
    mm.check()


PACKED = [(dt, r, relu) for dt in ("f16x2", "bf16x2") for r in ("rn", "rz") for relu in (False, True)]


@pytest.mark.parametrize("dt,rnd,relu", PACKED, ids=[f"{d}.{r}{'.relu' if x else ''}" for d, r, x in PACKED])
def test_cvt_packed_pair(dt, rnd, relu):
    """``cvt.rn{.relu}.f16x2.f32 d, a, b``: a converted into the upper half, b into the lower."""
    name = f"cvt.{rnd}{'.relu' if relu else ''}.{dt}.f32"
    tuples = ek.operand_tuples(["f32", "f32"], N_RANDOM, _seed(name),
                               edge_sets=[ek.EDGE_F32, _float_extra_edges("f32")[::3]], max_edge_tuples=3000)
    ek.differential(name, dt, ["f32", "f32"], lambda a, b: R.f16x2(dt, rnd, a, b, relu), tuples).check()


SATFINITE = [(dt, r, relu) for dt in ("f16", "bf16") for r in ("rn", "rz") for relu in (False, True)]


@pytest.mark.parametrize("dt,rnd,relu", SATFINITE, ids=[f"{d}.{r}{'.relu' if x else ''}" for d, r, x in SATFINITE])
def test_cvt_satfinite(dt, rnd, relu):
    """``cvt.rn.satfinite{.relu}.f16.f32``: clamps to the largest finite value (not to [0, 1])."""
    name = f"cvt.{rnd}{'.relu' if relu else ''}.satfinite.{dt}.f32"
    xs = cvt_operands("f32", _seed(name))
    ek.differential(name, dt, ["f32"], lambda a: R.satfinite(dt, rnd, a, relu), [(x,) for x in xs]).check()


def test_cvt_large_and_nan_floats():
    """The reported defect, spelled out: rounding to an integer and float->int conversion at |x| >= 2^63,
    infinities and NaN."""
    big = ek.f32_bits(1e30)
    nbig = ek.f32_bits(-1e30)
    nan = 0x7FC00000
    xs = [big, nbig, nan, 0x7F800000, 0xFF800000]
    for r in ("rzi", "rmi", "rpi", "rni"):
        assert ek.apply(f"cvt.{r}.f32.f32", "f32", ["f32"], [(x,) for x in xs]) == \
            [big, nbig, 0x7FFFFFFF, 0x7F800000, 0xFF800000], r
        assert ek.apply(f"cvt.{r}.f64.f64", "f64", ["f64"], [(ek.f64_bits(1e300),), (ek.f64_bits(-2.0 ** 70),)]) \
            == [ek.f64_bits(1e300), ek.f64_bits(-2.0 ** 70)], r
    assert ek.apply("cvt.rzi.s32.f32", "s32", ["f32"], [(x,) for x in xs]) == \
        [0x7FFFFFFF, 0x80000000, 0, 0x7FFFFFFF, 0x80000000]
    assert ek.apply("cvt.rmi.s32.f32", "s32", ["f32"], [(big,)]) == [0x7FFFFFFF]
    assert ek.apply("cvt.rzi.u32.f32", "u32", ["f32"], [(x,) for x in xs]) == [0xFFFFFFFF, 0, 0, 0xFFFFFFFF, 0]
    assert ek.apply("cvt.rzi.s64.f32", "s64", ["f32"], [(x,) for x in xs]) == \
        [0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000]
    assert ek.apply("cvt.rzi.u64.f32", "u64", ["f32"], [(x,) for x in xs]) == \
        [0xFFFFFFFFFFFFFFFF, 0, 0, 0xFFFFFFFFFFFFFFFF, 0]


CUDA_SRC = r"""
extern "C" __global__ void conv(const float* in, float* fo, int* io, unsigned* uo, long long* lo,
                                unsigned long long* ulo, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  fo[4 * i + 0] = truncf(x);
  fo[4 * i + 1] = floorf(x);
  fo[4 * i + 2] = ceilf(x);
  fo[4 * i + 3] = rintf(x);
  io[2 * i + 0] = (int)x;
  io[2 * i + 1] = __float2int_rd(x);
  uo[i] = (unsigned)x;
  lo[i] = (long long)x;
  ulo[i] = (unsigned long long)x;
}
"""


@pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")
def test_cuda_conversions_of_large_and_nan():
    """Real CUDA (nvcc): truncf/floorf/ceilf/rintf and the integer casts of 1e30f, NaN, infinities and
    ordinary values; expectations from the exact reference."""
    vals = np.array([1e30, -1e30, np.nan, np.inf, -np.inf, 2.5, -2.5, -0.7, 3e9, -3e9, 1e19, 4e19, 0.0, 1.5e-45],
                    dtype=np.float32)
    n = len(vals)
    fn = ndpgpu.RawModule(code=CUDA_SRC).get_function("conv")
    din = ndpgpu.asarray(vals)
    fo = ndpgpu.zeros(4 * n, np.float32)
    io = ndpgpu.zeros(2 * n, np.int32)
    uo = ndpgpu.zeros(n, np.uint32)
    lo = ndpgpu.zeros(n, np.int64)
    ulo = ndpgpu.zeros(n, np.uint64)
    fn((1,), (32,), (din, fo, io, uo, lo, ulo, np.int32(n)))
    fb = fo.get().view(np.uint32).reshape(n, 4)
    ib = io.get().view(np.uint32).reshape(n, 2)
    for k, x in enumerate(int(b) for b in vals.view(np.uint32)):
        assert [int(v) for v in fb[k]] == [R.cvt("f32", "f32", x, r) for r in ("rzi", "rmi", "rpi", "rni")], vals[k]
        assert [int(v) for v in ib[k]] == [R.cvt("s32", "f32", x, "rzi"), R.cvt("s32", "f32", x, "rmi")], vals[k]
        assert int(uo.get()[k]) == R.cvt("u32", "f32", x, "rzi"), vals[k]
        assert int(lo.get().view(np.uint64)[k]) == R.cvt("s64", "f32", x, "rzi"), vals[k]
        assert int(ulo.get()[k]) == R.cvt("u64", "f32", x, "rzi"), vals[k]
    assert int(io.get()[0]) == 2**31 - 1 and int(io.get()[1]) == 2**31 - 1  # (int)1e30f, __float2int_rd(1e30f)
    assert int(uo.get()[0]) == 0xFFFFFFFF and int(lo.get()[0]) == 2**63 - 1
    assert math.isnan(float(fo.get()[8])) and float(fo.get()[0]) == np.float32(1e30)


# ---- comparisons --------------------------------------------------------------------------------------

CMP_TYPES = ("f32", "f64", "f16", "bf16")
# Combinations whose comparison part is already covered by test_setp run a subset of the comparisons that
# holds an ordered and an unordered one of each shape (to keep the file fast).
CMP_SUBSET = ("lt", "ne", "equ", "geu", "nan")
SETP = [(t, ftz) for t in CMP_TYPES for ftz in ((False, True) if t in ("f32", "f16") else (False,))]


def _cross(t: str, seed: int, max_edge: int = 20000) -> list[tuple]:
    return ek.operand_tuples([t, t], N_RANDOM, seed, max_edge_tuples=max_edge)


def _ftz_flag(t: str, ftz: bool) -> str:
    return ".ftz" if ftz else ""


def _cmp_ref(cmp, t, ftz):
    def ref(a, b, *rest):
        return int(R.fcmp(cmp, a, b, t, ftz))
    return ref


@pytest.mark.parametrize("t,ftz", SETP, ids=[f"{t}{_ftz_flag(t, f)}" for t, f in SETP])
def test_setp(t, ftz):
    """``setp.cmp{.ftz}.t`` for all 14 float comparisons over the crossed edge set plus random pairs."""
    tuples = _cross(t, _seed(t + str(ftz)))
    for cmp in R.CMPS:
        name = f"setp.{cmp}{_ftz_flag(t, ftz)}.{t}"
        ek.differential(name, "pred", [t, t], _cmp_ref(cmp, t, ftz), tuples).check()


def _bool_cmps(t: str) -> tuple[str, ...]:
    return R.CMPS if t == "f32" else CMP_SUBSET


BOOLS = [(t, bop, neg) for t in CMP_TYPES for bop in ("and", "or", "xor") for neg in (False, True)]


@pytest.mark.parametrize("t,bop,neg", BOOLS, ids=[f"{t}.{b}{'.not' if n else ''}" for t, b, n in BOOLS])
def test_setp_bool(t, bop, neg):
    """``setp.cmp.bop.t p, a, b, {!}c`` for every comparison; the predicate operand varies per lane."""
    ftz = t == "f32"
    tuples = ek.operand_tuples([t, t, "pred"], N_RANDOM, _seed(t + bop + str(neg)),
                               edge_sets=[ek.edges(t), ek.edges(t), [0, 1]], max_edge_tuples=800)
    fn = {"and": lambda x, y: x and y, "or": lambda x, y: x or y, "xor": lambda x, y: x != y}[bop]
    for cmp in _bool_cmps(t):
        instr = f"setp.{cmp}.{bop}{_ftz_flag(t, ftz)}.{t}"
        tmpl = f"{instr} {{d}}, {{a[0]}}, {{a[1]}}, {'!' if neg else ''}{{a[2]}};"

        def ref(a, b, c, cmp=cmp):
            return int(fn(R.fcmp(cmp, a, b, t, ftz), bool(c & 1) != neg))
        ek.differential(instr, "pred", [t, t, "pred"], ref, tuples, template=tmpl).check()


TWO_DST = [(t, bop) for t in ("f32", "f64") for bop in (None, "and", "xor")]  # f16/bf16: one predicate only


@pytest.mark.parametrize("t,bop", TWO_DST, ids=[f"{t}.{b}" for t, b in TWO_DST])
def test_setp_two_destinations(t, bop):
    """``setp.cmp{.bop}.t p|q, a, b{, c}``: q is the negated comparison combined with c."""
    srcs = [t, t] if bop is None else [t, t, "pred"]
    sets = [ek.edges(t), ek.edges(t)] + ([] if bop is None else [[0, 1]])
    tuples = ek.operand_tuples(srcs, N_RANDOM, _seed(t + str(bop)), edge_sets=sets, max_edge_tuples=1000)
    fn = {None: lambda x, c: x, "and": lambda x, c: x and c, "xor": lambda x, c: x != c}[bop]
    for cmp in (R.CMPS if bop is None else CMP_SUBSET):
        instr = f"setp.{cmp}{'' if bop is None else '.' + bop}.{t}"
        tail = "" if bop is None else ", {a[2]}"
        for second in (False, True):
            pq = "%q1|{d}" if second else "{d}|%q1"
            tmpl = f"{instr} {pq}, {{a[0]}}, {{a[1]}}{tail};"

            def ref(a, b, *c, cmp=cmp, second=second):
                r = R.fcmp(cmp, a, b, t)
                return int(fn(r != second, bool(c and c[0] & 1)))
            ek.differential(instr, "pred", srcs, ref, tuples, template=tmpl).check()


SET_DST = {"f32": ("u32", "s32", "f32", "f16", "bf16"), "f64": ("u32", "s32", "f32", "f16", "bf16"),
           "f16": ("u32", "s32", "u16", "f16", "bf16"), "bf16": ("u32", "s32", "u16", "bf16")}  # ptxas 13.0
SET_TRUE = {"u32": 0xFFFFFFFF, "s32": 0xFFFFFFFF, "u16": 0xFFFF, "f32": 0x3F800000, "f16": 0x3C00, "bf16": 0x3F80}
def _set_cmps(dt: str) -> tuple[str, ...]:
    return R.CMPS if dt in ("u32", "f32") else CMP_SUBSET


SET = [(dt, st, ftz) for st in CMP_TYPES for dt in SET_DST[st]
       for ftz in ((False, True) if st in ("f32", "f16") else (False,))]


@pytest.mark.parametrize("dt,st,ftz", SET, ids=[f"{d}.{s}{_ftz_flag(s, f)}" for d, s, f in SET])
def test_set(dt, st, ftz):
    """``set.cmp{.ftz}.dt.st``: all ones (integer destination) or 1.0 for true, 0 for false."""
    tuples = _cross(st, _seed(dt + st + str(ftz)), max_edge=800)
    true = SET_TRUE[dt]
    for cmp in _set_cmps(dt):
        name = f"set.{cmp}{_ftz_flag(st, ftz)}.{dt}.{st}"
        ek.differential(name, dt, [st, st], lambda a, b, cmp=cmp: true if R.fcmp(cmp, a, b, st, ftz) else 0,
                        tuples).check()


PAIRS = [(t, ftz) for t in ("f16x2", "bf16x2") for ftz in ((False, True) if t == "f16x2" else (False,))]


def _pair_tuples(t: str, seed: int) -> list[tuple]:
    """Packed pairs of halves: the crossed edge set in both halves (sampled) plus random words."""
    e = ek.edges(t[:-2])
    rng = np.random.default_rng(seed)
    words = [(int(rng.choice(e)) << 16) | int(rng.choice(e)) for _ in range(600)]
    words2 = [(int(rng.choice(e)) << 16) | int(rng.choice(e)) for _ in range(600)]
    return list(zip(words, words2, strict=True)) + ek.operand_tuples(["u32", "u32"], N_RANDOM, seed,
                                                                      edge_sets=[[], []])


@pytest.mark.parametrize("t,ftz", PAIRS, ids=[f"{t}{_ftz_flag('f16', f)}" for t, f in PAIRS])
def test_packed_half_comparisons(t, ftz):
    """``setp.cmp.f16x2 p|q, a, b`` (p: lower halves, q: upper), ``set.cmp.f16x2.f16x2`` (1.0 per half)
    and ``set.cmp.u32.f16x2`` (all ones per half)."""
    ht = t[:-2]
    tuples = _pair_tuples(t, _seed(t + str(ftz)))
    fz = _ftz_flag("f16", ftz)
    for cmp in R.CMPS:
        def half(a, b, k, cmp=cmp):
            return R.fcmp(cmp, (a >> (16 * k)) & 0xFFFF, (b >> (16 * k)) & 0xFFFF, ht, ftz)
        for k, pq in ((0, "{d}|%q1"), (1, "%q1|{d}")):
            instr = f"setp.{cmp}{fz}.{t}"
            ek.differential(instr, "pred", [t, t], lambda a, b, k=k, half=half: int(half(a, b, k)), tuples,
                            template=f"{instr} {pq}, {{a[0]}}, {{a[1]}};").check()
        one = SET_TRUE[ht]
        for dt, tv in ((t, one), ("u32", 0xFFFF)):
            instr = f"set.{cmp}{fz}.{dt}.{t}"
            ek.differential(instr, dt, [t, t],
                            lambda a, b, tv=tv, half=half: (tv if half(a, b, 0) else 0) | (tv << 16 if half(a, b, 1)
                                                                                          else 0),
                            tuples).check()


def test_set_bool():
    """``set.cmp.bop.u32.f32 d, a, b, {!}c``."""
    tuples = ek.operand_tuples(["f32", "f32", "pred"], 64, 5, edge_sets=[ek.EDGE_F32, ek.EDGE_F32, [0, 1]],
                               max_edge_tuples=800)
    for bop, fn in (("and", lambda x, y: x and y), ("or", lambda x, y: x or y), ("xor", lambda x, y: x != y)):
        for neg in (False, True):
            for cmp in ("lt", "equ", "nan", "ge"):
                instr = f"set.{cmp}.{bop}.f32.f32"
                tmpl = f"{instr} {{d}}, {{a[0]}}, {{a[1]}}, {'!' if neg else ''}{{a[2]}};"

                def ref(a, b, c, cmp=cmp, fn=fn, neg=neg):
                    return 0x3F800000 if fn(R.fcmp(cmp, a, b, "f32"), bool(c & 1) != neg) else 0
                ek.differential(instr, "f32", ["f32", "f32", "pred"], ref, tuples, template=tmpl).check()


# ---- size ---------------------------------------------------------------------------------------------


def suite_size() -> dict[str, tuple[int, int]]:
    """Per family: (instruction variants, operand tuples compared)."""
    cvt_tuples = sum(len(cvt_operands(st, _seed(cvt_name(m, dt, st)))) for m, dt, st in CVT_VARIANTS)
    f32_rows = len(cvt_operands("f32", 0))
    sizes = {
        "cvt": (len(CVT_VARIANTS), cvt_tuples),
        "cvt packed f16x2/bf16x2": (len(PACKED), len(PACKED) * (len(ek.EDGE_F32) * len(_float_extra_edges("f32")[::3])
                                                                + N_RANDOM)),
        "cvt satfinite": (len(SATFINITE), len(SATFINITE) * f32_rows),
    }
    n_setp = sum(len(R.CMPS) * len(_cross(t, 0)) for t, _ in SETP)
    sizes["setp"] = (len(SETP) * len(R.CMPS), n_setp)
    n_bool = sum(len(_bool_cmps(t)) * (min(len(ek.edges(t)) ** 2 * 2, 800) + N_RANDOM) for t, _, _ in BOOLS)
    sizes["setp bool"] = (sum(len(_bool_cmps(t)) for t, _, _ in BOOLS), n_bool)
    two = [(t, b, len(R.CMPS if b is None else CMP_SUBSET)) for t, b in TWO_DST]
    n_two = sum(2 * k * (min(len(ek.edges(t)) ** 2 * (1 if b is None else 2), 1000) + N_RANDOM) for t, b, k in two)
    sizes["setp p|q"] = (sum(2 * k for _, _, k in two), n_two)
    n_set = sum(len(_set_cmps(dt)) * (min(len(ek.edges(st)) ** 2, 800) + N_RANDOM) for dt, st, _ in SET)
    sizes["set"] = (sum(len(_set_cmps(dt)) for dt, _, _ in SET), n_set)
    sizes["set bool"] = (24, 24 * (800 + 64))
    sizes["setp/set f16x2 bf16x2"] = (len(PAIRS) * len(R.CMPS) * 4, len(PAIRS) * len(R.CMPS) * 4 * (600 + N_RANDOM))
    return sizes
