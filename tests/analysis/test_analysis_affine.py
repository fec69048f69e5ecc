"""Affine expressions of registers and addresses, and their ranges, on hand-written PTX."""

from __future__ import annotations

import pytest
from ptxkit import kernel

from ndpgpu.analysis.affine import AffineAnalysis, Launch, cta_range, value_range
from ndpgpu.analysis.linexpr import Affine

A = Affine.atom

SAXPY = """
    ld.param.f32 %f1, [k_param_0];
    ld.param.u64 %rd1, [k_param_1];
    ld.param.u64 %rd2, [k_param_2];
    ld.param.u32 %r2, [k_param_3];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    setp.ge.s32 %p1, %r1, %r2;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd2;
    cvta.to.global.u64 %rd4, %rd1;
    mul.wide.s32 %rd5, %r1, 4;
    add.s64 %rd6, %rd4, %rd5;
    ld.global.nc.f32 %f2, [%rd6];
    add.s64 %rd7, %rd3, %rd5;
    ld.global.f32 %f3, [%rd7];
    fma.rn.f32 %f4, %f2, %f1, %f3;
    st.global.f32 [%rd7+4], %f4;
DONE:
    ret;
"""
SAXPY_PARAMS = ("f32", "u64", "u64", "u32")
GID = A("%ctaid.x").times(A("%ntid.x")) + A("%tid.x")  # type: ignore[operator]


def _saxpy():
    fn = kernel(SAXPY, SAXPY_PARAMS)
    return fn, AffineAnalysis(fn)


def _at(fn, text: str) -> int:
    return next(i for i, ins in enumerate(fn.body) if ins.full == text)


def test_saxpy_addresses():
    fn, aa = _saxpy()
    x = _at(fn, "ld.global.nc.f32")
    assert aa.address(x) == A("k_param_1") + GID.scale(4)
    assert str(aa.address(x)) == "k_param_1 + 4*%ctaid.x*%ntid.x + 4*%tid.x"
    assert aa.address(x).coef("%ctaid.x", "%ntid.x") == 4
    st = _at(fn, "st.global.f32")
    assert aa.address(st) == A("k_param_2") + GID.scale(4) + 4
    assert aa.value("%r1", st) == GID
    assert aa.value("%r2", st) == A("k_param_3")
    assert aa.value("%f1", st) is None and aa.reason(st) == ""
    acc = {a.index: a for a in aa.accesses}
    assert acc[x].base == "k_param_1" and acc[x].offset == GID.scale(4)
    assert acc[x].op.space == "global" and acc[x].op.width == 4
    assert acc[0].expr == A("&k_param_0")  # ld.param reads the parameter's own address


def test_saxpy_ranges():
    fn, aa = _saxpy()
    x = _at(fn, "ld.global.nc.f32")
    launch = Launch.of(4, 128, {"k_param_1": 0x10000})
    assert value_range(GID, launch) == (0, 511)
    assert aa.access_range(x, launch) == (0x10000, 0x10000 + 4 * 511 + 3)
    assert aa.access_range(x, Launch.of(4, 128)) is None  # the base pointer is not given
    assert aa.access_range(x, launch, fixed={"%ctaid.x": 2}) == (0x10000 + 1024, 0x10000 + 1024 + 511)
    lo, hi = cta_range(aa.address(x), Launch.of(4, 128))
    assert lo == A("k_param_1") + A("%ctaid.x", 512)
    assert hi == A("k_param_1") + A("%ctaid.x", 512) + 508


def test_two_dimensional_index():
    fn = kernel("""
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %ctaid.y;
    mov.u32 %r2, %ntid.y;
    mov.u32 %r3, %tid.y;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mov.u32 %r5, %ctaid.x;
    mov.u32 %r6, %ntid.x;
    mov.u32 %r7, %tid.x;
    mad.lo.s32 %r8, %r5, %r6, %r7;
    shl.b32 %r9, %r4, 8;
    add.s32 %r10, %r9, %r8;
    cvt.u64.u32 %rd2, %r10;
    shl.b64 %rd3, %rd2, 2;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.f32 %f1, [%rd4];
    ret;
""")
    aa = AffineAnalysis(fn)
    e = aa.address(14)
    row = A("%ctaid.y").times(A("%ntid.y")) + A("%tid.y")
    col = A("%ctaid.x").times(A("%ntid.x")) + A("%tid.x")
    assert e == A("k_param_0") + row.scale(1024) + col.scale(4)
    launch = Launch.of((16, 16), (16, 16), {"k_param_0": 0})
    assert aa.access_range(14, launch) == (0, 4 * (255 * 256 + 255) + 3)
    lo, hi = cta_range(e, launch)
    assert lo == A("%ctaid.y", 16 * 1024) + A("%ctaid.x", 64)
    assert hi == lo + 15 * 1024 + 15 * 4


def test_non_affine_reasons():
    fn = kernel("""
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %tid.x;
    ld.global.u32 %r2, [%rd1];
    mul.wide.s32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r3, [%rd3];
    and.b32 %r4, %r1, 7;
    mul.wide.u32 %rd4, %r4, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.global.u32 %r5, [%rd5];
    mov.u32 %r6, %laneid;
    mul.wide.u32 %rd6, %r6, 4;
    add.s64 %rd7, %rd1, %rd6;
    ld.global.u32 %r7, [%rd7];
    ld.global.u32 %r8, [%rd9];
    ret;
""")
    aa = AffineAnalysis(fn)
    assert aa.address(2) == A("k_param_0")
    assert aa.address(5) is None and aa.reason(5).startswith("load")  # an indirect index
    assert aa.address(9) is None and aa.reason(9).startswith("operator")
    assert aa.reason(13).startswith("special")
    assert aa.reason(14).startswith("undefined")


DIAMOND = """
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %tid.x;
    setp.lt.s32 %p1, %r1, 16;
    @%p1 bra ELSE;
    mov.u32 %r2, 8;
    add.s32 %r3, %r1, 1;
    bra JOIN;
ELSE:
    mov.u32 %r2, 8;
    add.s32 %r3, %r1, 2;
JOIN:
    add.s32 %r4, %r1, %r2;
    mul.wide.s32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    mul.wide.s32 %rd4, %r3, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r3;
    selp.b32 %r5, 4, 4, %p1;
    selp.b32 %r6, 4, 8, %p1;
    ret;
"""


def test_reaching_definitions_across_blocks():
    fn = kernel(DIAMOND)
    aa = AffineAnalysis(fn)
    st1 = 12
    st2 = 15
    assert fn.body[st1].opcode == "st" and fn.body[st2].opcode == "st"
    # the same value on both sides of the diamond is still affine
    assert aa.address(st1) == A("k_param_0") + A("%tid.x", 4) + 32
    # different values are control-dependent
    assert aa.address(st2) is None and aa.reason(st2).startswith("control")
    assert aa.value("%r5", 18) == Affine.const(4)
    assert aa.value("%r6", 18) is None


LOOP = """
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r2, 0;
L:
    mul.wide.s32 %rd4, %r2, 512;
    add.s64 %rd5, %rd3, %rd4;
    ld.global.f32 %f1, [%rd5];
    st.global.f32 [%rd3+64], %f1;
    add.s64 %rd3, %rd3, 8;
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p1, %r2, 10;
    @%p1 bra L;
    ld.global.f32 %f2, [%rd3];
    ret;
"""


def test_loop_induction_terms():
    fn = kernel(LOOP)
    aa = AffineAnalysis(fn)
    k = A("loop:L")
    base = A("k_param_0") + A("%tid.x", 4)
    # %rd3 advances 8 per iteration, %r2 counts iterations (512 bytes each)
    assert aa.address(7) == base + k.scale(8) + k.scale(512)
    assert aa.address(8) == base + k.scale(8) + 64
    assert aa.value("%r2", 10) == k
    assert aa.value("%r2", 11) == k + 1  # after its increment in the same iteration
    # after the loop, the induction register's final value is not expressed
    assert aa.address(13) is None and aa.reason(13).startswith("induction")
    launch = Launch.of(1, 32, {"k_param_0": 0})
    assert aa.loop_iterations(launch) == {"loop:L": 10}
    assert aa.access_range(7, launch) == (0, 31 * 4 + 9 * 520 + 3)


def test_nested_loop_terms():
    fn = kernel("""
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, 0;
OUTER:
    mov.u32 %r2, 0;
INNER:
    mad.lo.s32 %r3, %r1, 100, %r2;
    mul.wide.s32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p1, %r2, 8;
    @%p1 bra INNER;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p2, %r1, 4;
    @%p2 bra OUTER;
    ret;
""")
    aa = AffineAnalysis(fn)
    assert aa.address(6) == A("k_param_0") + A("loop:OUTER", 400) + A("loop:INNER", 4)
    launch = Launch.of(1, 1, {"k_param_0": 0})
    assert aa.access_range(6, launch) == (0, 3 * 400 + 7 * 4 + 3)


def test_loop_carried_non_induction_value():
    fn = kernel("""
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, 1;
    mov.u32 %r2, 0;
L:
    mul.wide.s32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    shl.b32 %r1, %r1, 1;
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p1, %r2, 5;
    @%p1 bra L;
    ret;
""")
    aa = AffineAnalysis(fn)
    assert aa.address(5) is None
    assert aa.reason(5).startswith("induction")


def test_constant_values_under_a_launch():
    fn = kernel("""
    ld.param.u32 %r1, [k_param_2];
    and.b32 %r2, %r1, 3;
    sub.s32 %r3, %r1, %r2;
    shr.u32 %r4, %r3, 2;
    mov.u32 %r5, %ntid.x;
    div.u32 %r6, %r1, %r5;
    rem.s32 %r7, %r1, -3;
    mov.u32 %r8, %tid.x;
    ret;
""")
    aa = AffineAnalysis(fn)
    launch = Launch.of(2, 64, {"k_param_2": 23})
    assert aa.constant_value("%r2", 8, launch) == 3
    assert aa.constant_value("%r4", 8, launch) == 5
    assert aa.constant_value("%r6", 8, launch) == 0
    assert aa.constant_value("%r7", 8, launch) == 2
    assert aa.constant_value("%r8", 8, launch) is None  # differs between threads
    assert aa.constant_value("%r1", 8, Launch.of(1, 1)) is None  # parameter not given


def test_affine_algebra():
    e = A("p") + A("%tid.x", 4) - 3
    assert e.constant == -3 and e.degree == 1 and e.atoms() == {"p", "%tid.x"}
    prod = e.times(A("%ntid.x"))
    assert prod is not None and prod.coef("%tid.x", "%ntid.x") == 4 and prod.degree == 2
    assert e.substitute({"%tid.x": 2, "p": 100}) == Affine.const(105)
    assert e.evaluate({"%tid.x": 1, "p": 0}) == 1
    with pytest.raises(KeyError):
        e.evaluate({})
    assert str(Affine()) == "0" and str(-A("x") + 1) == "-x + 1"
    assert e.degree_in(("%tid",)) == 1
    big = A("a")
    for name in "bcd":
        big = big.times(A(name))
    assert big.times(A("e")) is None  # degree 5 is beyond MAX_DEGREE
    assert value_range(A("%tid.x").times(A("%tid.x")), Launch.of(1, 4)) == (0, 9)  # not multilinear
    assert value_range(A("%tid.x") - A("%tid.y"), Launch.of(1, (4, 3))) == (-2, 3)


def test_or_with_known_zero_low_bits_is_an_add():
    fn = kernel("""
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 6;
    or.b32 %r3, %r2, 1;
    or.b32 %r4, %r1, 1;
    xor.b32 %r5, %r2, 63;
    or.b32 %r6, %r2, 64;
    ret;
""")
    aa = AffineAnalysis(fn)
    assert aa.value("%r3", 7) == A("%tid.x", 64) + 1
    assert aa.value("%r4", 7) is None  # the low bit of tid is not known to be zero
    assert aa.value("%r5", 7) == A("%tid.x", 64) + 63
    assert aa.value("%r6", 7) is None


def test_ranges_need_every_atom():
    e = A("p") + A("%tid.x", 4) + A("loop:L", 256)
    launch = Launch.of(2, 32, {"p": 0})
    assert value_range(e, launch) is None  # the loop counter has no range
    assert value_range(e, Launch.of(2, 32, {"p": 0}, {"L": 3})) == (0, 124 + 512)
    assert cta_range(e, launch) is None
    lo, hi = cta_range(e, Launch.of(2, 32, {}, {"L": 3}))
    assert lo == A("p") and hi == A("p") + 124 + 512
    assert cta_range(A("%ctaid.x").times(A("%tid.x")), launch) is None  # mixes the CTA and its threads
