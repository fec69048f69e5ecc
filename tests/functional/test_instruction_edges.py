"""Edge cases per instruction family, through hand-written PTX, against Python/NumPy references."""

from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np
import pytest

import ndpgpu

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"


def run_binary(instr: str, rtype: str, atype: str, a: list[int], b: list[int], btype: str | None = None) -> list[int]:
    """Apply ``instr d, a, b`` lane-wise; operands and results are raw bit patterns."""
    btype = btype or atype
    n = len(a)
    ptx = HEADER + f"""
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{{
  .reg .b64 %rd<12>;
  .reg .b32 %r<3>;
  .reg .{atype} %a;
  .reg .{btype} %b;
  .reg .{"u32" if rtype == "pred" else rtype} %d;
  .reg .pred %p;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pd];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.{_ld(atype)} %a, [%rd5];
  ld.global.{_ld(btype)} %b, [%rd6];
  {f"{instr} %p, %a, %b;  selp.u32 %d, 1, 0, %p;" if rtype == "pred" else f"{instr} %d, %a, %b;"}
  st.global.{_ld(rtype)} [%rd7], %d;
  ret;
}}
"""
    fn = ndpgpu.RawModule(ptx=ptx).get_function("k")
    da = ndpgpu.asarray(np.array(a, dtype=np.uint64))
    db = ndpgpu.asarray(np.array(b, dtype=np.uint64))
    dd = ndpgpu.zeros(n, np.uint64)
    fn((1,), (n,), (da, db, dd))
    mask = (1 << _bits(rtype)) - 1
    return [int(v) & mask for v in dd.get()]


def _bits(t: str) -> int:
    return 32 if t == "pred" else int("".join(c for c in t if c.isdigit()))


def _ld(t: str) -> str:
    if t == "pred":
        return "u32"
    return "b" + str(_bits(t)) if t[0] in "fb" else t


def f32b(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def b2f32(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def u32(x: int) -> int:
    return x & 0xFFFFFFFF


def test_shifts_of_32_or_more():
    a = [u32(-8)] * 6
    b = [0, 1, 31, 32, 33, 200]
    assert run_binary("shl.b32", "b32", "b32", a, b, "u32") == [u32(-8), u32(-16), 0, 0, 0, 0]
    assert run_binary("shr.u32", "u32", "u32", a, b) == [u32(-8), u32(-8) >> 1, 1, 0, 0, 0]
    assert run_binary("shr.s32", "s32", "s32", a, b, "u32") == [u32(-8), u32(-4), u32(-1), u32(-1), u32(-1),
                                                                 u32(-1)]
    big = [(1 << 63) | 5] * 3
    assert run_binary("shr.s64", "s64", "s64", big, [63, 64, 65], "u32") == [(1 << 64) - 1] * 3
    assert run_binary("shl.b64", "b64", "b64", [1] * 3, [63, 64, 99], "u32") == [1 << 63, 0, 0]


def test_division_and_remainder_truncate_and_define_division_by_zero():
    a = [7, u32(-7), 7, u32(-7), 5, u32(-2**31), u32(-2**31)]
    b = [2, 2, u32(-2), u32(-2), 0, u32(-1), 0]
    assert run_binary("div.s32", "s32", "s32", a, b) == [3, u32(-3), u32(-3), 3, u32(-1), u32(-2**31), u32(-1)]
    assert run_binary("rem.s32", "s32", "s32", a, b) == [1, u32(-1), 1, u32(-1), 5, 0, u32(-2**31)]
    assert run_binary("div.u32", "u32", "u32", [10, 10], [3, 0]) == [3, 0xFFFFFFFF]
    assert run_binary("rem.u32", "u32", "u32", [10, 10], [3, 0]) == [1, 10]


def test_signed_overflow_wraps_and_sat_clamps():
    a = [0x7FFFFFFF, u32(-2**31), 0x7FFFFFFF]
    b = [1, u32(-1), 0x7FFFFFFF]
    assert run_binary("add.s32", "s32", "s32", a, b) == [u32(-2**31), 0x7FFFFFFF, u32(-2)]
    assert run_binary("add.sat.s32", "s32", "s32", a, b) == [0x7FFFFFFF, u32(-2**31), 0x7FFFFFFF]
    assert run_binary("mul.lo.s32", "s32", "s32", a, b) == [u32(0x7FFFFFFF), u32(2**31), 1]
    hi = run_binary("mul.hi.s32", "s32", "s32", a, b)
    assert hi == [u32((0x7FFFFFFF * 1) >> 32), u32((-2**31 * -1) >> 32), u32((0x7FFFFFFF**2) >> 32)]
    wide = run_binary("mul.wide.s32", "s64", "s32", [u32(-3), 0x7FFFFFFF], [5, 0x7FFFFFFF])
    assert wide == [(-15) % 2**64, 0x7FFFFFFF**2]


def _directed(x: Fraction, mode: str) -> float:
    """Round the exact rational ``x`` to float32 in direction ``mode`` (reference by enumeration)."""
    nearest = np.float32(float(x))
    cands = {float(nearest), float(np.nextafter(nearest, np.float32(np.inf))),
             float(np.nextafter(nearest, np.float32(-np.inf)))}
    below = max(c for c in cands if Fraction(c) <= x)
    above = min(c for c in cands if Fraction(c) >= x)
    if mode == "rm":
        return below
    if mode == "rp":
        return above
    return below if x >= 0 else above  # rz


@pytest.mark.parametrize("mode", ["rz", "rm", "rp", "rn"])
@pytest.mark.parametrize("op", ["add", "mul"])
def test_f32_rounding_modes_against_exact_rationals(op, mode):
    rng = np.random.default_rng(7)
    xs = (rng.standard_normal(32) * 10.0 ** rng.integers(-5, 5, 32)).astype(np.float32)
    ys = (rng.standard_normal(32) * 10.0 ** rng.integers(-5, 5, 32)).astype(np.float32)
    got = run_binary(f"{op}.{mode}.f32", "f32", "f32", [f32b(float(x)) for x in xs], [f32b(float(y)) for y in ys])
    for x, y, g in zip(xs, ys, got, strict=True):
        exact = Fraction(float(x)) + Fraction(float(y)) if op == "add" else Fraction(float(x)) * Fraction(float(y))
        if mode == "rn":
            want = float(np.float32(x + y) if op == "add" else np.float32(x * y))
        else:
            want = _directed(exact, mode)
        assert b2f32(g) == want, (op, mode, x, y)


def test_nan_inf_comparisons_and_canonical_nan():
    nan, inf = f32b(float("nan")), f32b(float("inf"))
    one = f32b(1.0)
    a = [nan, nan, inf, one]
    b = [one, nan, inf, one]
    assert run_binary("setp.lt.f32", "pred", "f32", a, b) == [0, 0, 0, 0]
    assert run_binary("setp.ltu.f32", "pred", "f32", a, b) == [1, 1, 0, 0]
    assert run_binary("setp.ne.f32", "pred", "f32", a, b) == [0, 0, 0, 0]
    assert run_binary("setp.neu.f32", "pred", "f32", a, b) == [1, 1, 0, 0]
    assert run_binary("setp.nan.f32", "pred", "f32", a, b) == [1, 1, 0, 0]
    # inf - inf and NaN payloads give the GPU's canonical NaN
    snan = 0x7FA00001
    assert run_binary("sub.f32", "f32", "f32", [inf, snan], [inf, one]) == [0x7FFFFFFF, 0x7FFFFFFF]
    assert run_binary("min.f32", "f32", "f32", [nan, f32b(-0.0)], [one, f32b(0.0)]) == [one, f32b(-0.0)]


def _run_unary(instr: str, rtype: str, atype: str, a: list[int]) -> list[int]:
    n = len(a)
    ptx = HEADER + f"""
.visible .entry k(.param .u64 pa, .param .u64 pd)
{{
  .reg .b64 %rd<8>;
  .reg .b32 %r<2>;
  .reg .{atype} %a;
  .reg .{rtype} %d;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd3, [pd];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.{_ld(atype)} %a, [%rd5];
  {instr} %d, %a;
  st.global.{_ld(rtype)} [%rd7], %d;
  ret;
}}
"""
    fn = ndpgpu.RawModule(ptx=ptx).get_function("k")
    da = ndpgpu.asarray(np.array(a, dtype=np.uint64))
    dd = ndpgpu.zeros(n, np.uint64)
    fn((1,), (n,), (da, dd))
    mask = (1 << _bits(rtype)) - 1
    return [int(v) & mask for v in dd.get()]


def test_float_to_int_conversions_round_saturate_and_zero_nans():
    vals = [2.5, -2.5, 3.7, -3.7, 1e10, -1e10, float("nan"), float("inf")]
    a = [f32b(v) for v in vals]
    assert _run_unary("cvt.rni.s32.f32", "s32", "f32", a) == [2, u32(-2), 4, u32(-4), 0x7FFFFFFF, u32(-2**31), 0,
                                                              0x7FFFFFFF]
    assert _run_unary("cvt.rzi.s32.f32", "s32", "f32", a) == [2, u32(-2), 3, u32(-3), 0x7FFFFFFF, u32(-2**31), 0,
                                                              0x7FFFFFFF]
    assert _run_unary("cvt.rmi.u32.f32", "u32", "f32", a) == [2, 0, 3, 0, 0xFFFFFFFF, 0, 0, 0xFFFFFFFF]
    assert _run_unary("cvt.rpi.s32.f32", "s32", "f32", a)[:4] == [3, u32(-2), 4, u32(-3)]
    sat = _run_unary("cvt.sat.f32.f32", "f32", "f32", [f32b(v) for v in (1.5, -0.5, 0.25)])
    assert [b2f32(x) for x in sat] == [1.0, 0.0, 0.25]


def test_int_conversions_extend_truncate_and_saturate():
    assert _run_unary("cvt.s32.s8", "s32", "s8", [0x80, 0x7F, 0xFF]) == [u32(-128), 127, u32(-1)]
    assert _run_unary("cvt.u32.u8", "u32", "u8", [0x80, 0xFF]) == [0x80, 0xFF]
    assert _run_unary("cvt.u8.u32", "u8", "u32", [0x1FF, 3]) == [0xFF, 3]
    assert _run_unary("cvt.sat.u8.s32", "u8", "s32", [300, u32(-5), 7]) == [255, 0, 7]
    assert _run_unary("cvt.sat.s16.s32", "s16", "s32", [40000, u32(-40000)]) == [0x7FFF, 0x8000]


def test_half_precision_conversions():
    vals = np.array([1.0, -2.5, 65504.0, 1e5, 5.96e-8, 3e-5, 0.1], dtype=np.float32)
    got = _run_unary("cvt.rn.f16.f32", "f16", "f32", [f32b(float(v)) for v in vals])
    with np.errstate(over="ignore"):  # 1e5 overflows to inf on purpose
        expect = vals.astype(np.float16).view(np.uint16)
    assert got == [int(x) for x in expect]
    halves = np.array([0x3C00, 0xC100, 0x0001, 0x7C00, 0x03FF, 0x7BFF], dtype=np.uint16)
    back = _run_unary("cvt.f32.f16", "f32", "f16", [int(h) for h in halves])
    assert [b2f32(x) for x in back] == [float(v) for v in halves.view(np.float16).astype(np.float32)]
    # ties round to even: 2049 is halfway between 2048 and 2050
    assert _run_unary("cvt.rn.f16.f32", "f16", "f32", [f32b(2049.0), f32b(2051.0)]) == [0x6800, 0x6802]
    x = np.float16(1.5)
    y = np.float16(2.25)
    got = run_binary("add.f16", "f16", "f16", [int(np.array(x).view(np.uint16))], [int(np.array(y).view(np.uint16))])
    assert got == [int(np.array(x + y).view(np.uint16))]
