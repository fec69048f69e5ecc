"""Natural loops, nesting, induction variables and trip counts on hand-written PTX."""

from __future__ import annotations

import pytest
from ptxkit import block_at, kernel

from ndpgpu.analysis.cfg import CFG
from ndpgpu.analysis.linexpr import Affine
from ndpgpu.analysis.loops import LoopForest, header_count


def forest(body: str, params=("u64", "u64", "u32")) -> LoopForest:
    return LoopForest(CFG(kernel(body, params)))


NESTED = """
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, 0;
OUTER:
    mov.u32 %r2, 0;
INNER:
    ld.global.u32 %r5, [%rd1];
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p1, %r2, 8;
    @%p1 bra INNER;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p2, %r1, 4;
    @%p2 bra OUTER;
    ret;
"""


def test_nested_loops_structure():
    lf = forest(NESTED)
    cfg = lf.cfg
    outer, inner = block_at(cfg, "OUTER"), block_at(cfg, "INNER")
    assert sorted(lf.loops) == [outer, inner]
    lo, li = lf.loops[outer], lf.loops[inner]
    assert lo.blocks == {outer, inner, 3} and li.blocks == {inner}
    assert lo.latches == (3,) and li.latches == (inner,)
    assert lo.exit_edges == ((3, 4),) and li.exit_edges == ((inner, 3),)
    assert lo.exits == (4,) and li.exiting == (inner,)
    assert (lo.depth, li.depth) == (1, 2)
    assert li.parent == outer and lo.parent is None and lo.children == [inner]
    assert lf.loop_of == [None, outer, inner, outer, None]
    assert [lp.header for lp in lf.loops_containing(inner)] == [inner, outer]
    assert lf.loop("INNER") is li and lo.label == "OUTER"
    assert lf.trip_count(inner).count == 8 and lf.trip_count(outer).count == 4
    assert lf.induction_variables(outer) == {"%r1": Affine.const(1)}
    assert lf.induction_variables(inner) == {"%r2": Affine.const(1)}
    assert lf.preheaders(inner) == [outer]


def test_infinite_loop_has_no_exit():
    lf = forest("""
    mov.u32 %r1, 0;
SPIN:
    add.s32 %r1, %r1, 1;
    bra SPIN;
""")
    lp = lf.loop("SPIN")
    assert lp.infinite and lp.exit_edges == ()
    tc = lf.trip_count("SPIN")
    assert tc.kind == "unknown" and "infinite" in tc.reason


def test_irreducible_edges_make_no_loop():
    lf = forest("""
    mov.u32 %r1, %tid.x;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra B;
A:
    add.s32 %r1, %r1, 1;
B:
    add.s32 %r1, %r1, 2;
    setp.lt.s32 %p2, %r1, 100;
    @%p2 bra A;
    ret;
""")
    assert lf.loops == {}
    assert len(lf.irreducible) == 1


@pytest.mark.parametrize(
    ("setup", "update", "test", "count"),
    [
        ("mov.u32 %r1, 0;", "add.s32 %r1, %r1, 1;", "setp.lt.s32 %p1, %r1, 10;", 10),
        ("mov.u32 %r1, 0;", "add.s32 %r1, %r1, 4;", "setp.le.s32 %p1, %r1, 99;", 25),
        ("mov.u32 %r1, 3;", "add.s32 %r1, %r1, 4;", "setp.lt.s32 %p1, %r1, 80;", 20),
        ("mov.u32 %r1, 12;", "add.s32 %r1, %r1, -3;", "setp.ne.s32 %p1, %r1, 0;", 4),
        ("mov.u32 %r1, 12;", "sub.s32 %r1, %r1, 3;", "setp.ne.s32 %p1, %r1, 0;", 4),
        ("mov.u32 %r1, 20;", "add.s32 %r1, %r1, -2;", "setp.gt.s32 %p1, %r1, 0;", 10),
        ("mov.u32 %r1, 20;", "add.s32 %r1, %r1, -2;", "setp.ge.s32 %p1, %r1, 1;", 10),
        ("mov.u32 %r1, 0;", "add.s32 %r1, %r1, 1;", "setp.lo.u32 %p1, %r1, 7;", 7),
        ("mov.u32 %r1, 0;", "add.s32 %r1, %r1, 1;", "setp.gt.s32 %p1, 7, %r1;", 7),  # bound on the left
        ("mov.u32 %r1, 0;", "add.s32 %r1, %r1, 16;", "setp.ne.s32 %p1, %r1, 80;", 5),  # nvcc's unroll by 16
        ("mov.u32 %r1, 40;", "add.s32 %r1, %r1, 8;", "setp.ne.s32 %p1, %r1, 80;", 5),
        ("mov.u32 %r1, 0;", "add.s32 %r1, %r1, 1;", "setp.lt.s32 %p1, %r1, -5;", 1),  # do-while: runs once
        ("mov.u64 %rd7, 0;", "add.s64 %rd7, %rd7, 8;", "setp.lt.u64 %p1, %rd7, 64;", 8),
    ],
)
def test_static_trip_counts_bottom_tested(setup, update, test, count):
    lf = forest(f"""
    ld.param.u64 %rd1, [k_param_0];
    {setup}
L:
    ld.global.u32 %r5, [%rd1];
    {update}
    {test}
    @%p1 bra L;
    ret;
""")
    tc = lf.trip_count("L")
    assert tc.kind == "static", tc.reason
    assert tc.count == count
    assert tc.evaluate({}) == count


def test_static_span_of_an_unrolled_loop():
    lf = forest("""
    mov.u32 %r9, 0;
L:
    add.s32 %r9, %r9, 16;
    setp.ne.s32 %p1, %r9, 80;
    @%p1 bra L;
    ret;
""")
    tc = lf.trip_count("L")
    assert (tc.kind, tc.count, tc.span, tc.iv) == ("static", 5, 80, "%r9")
    assert tc.step == Affine.const(16) and tc.start == Affine.const(0) and tc.bound == Affine.const(80)
    assert tc.cmp == "ne" and tc.bits == 32 and tc.signed


def test_top_tested_loop_counts_header_runs():
    lf = forest("""
    mov.u32 %r1, 0;
HEAD:
    setp.ge.s32 %p1, %r1, 10;
    @%p1 bra DONE;
    add.s32 %r1, %r1, 1;
    bra HEAD;
DONE:
    ret;
""")
    tc = lf.trip_count("HEAD")
    assert tc.kind == "static" and tc.count == 11  # the test runs 11 times, the body 10
    assert tc.test_block == block_at(lf.cfg, "HEAD")


def test_negated_guard_and_predicate_pairs():
    neg = forest("""
    mov.u32 %r1, 0;
L:
    add.s32 %r1, %r1, 1;
    setp.ge.s32 %p1, %r1, 6;
    @!%p1 bra L;
    ret;
""")
    assert neg.trip_count("L").count == 6
    pair = forest("""
    mov.u32 %r1, 0;
L:
    add.s32 %r1, %r1, 2;
    setp.lt.s32 %p1|%p2, %r1, 10;
    @%p2 bra OUT;
    bra L;
OUT:
    ret;
""")
    tc = pair.trip_count("L")
    assert tc.kind == "static" and tc.count == 5


def test_entry_trip_count_from_a_parameter():
    lf = forest("""
    ld.param.u32 %r9, [k_param_2];
    mov.u32 %r1, 0;
L:
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, %r9;
    @%p1 bra L;
    ret;
""")
    tc = lf.trip_count("L")
    assert tc.kind == "entry"
    assert tc.registers == ("%r9",)  # the induction start (mov 0) is folded in
    assert tc.formula == "%r9"
    assert tc.evaluate({"%r9": 7}) == 7
    assert tc.evaluate({"%r9": 0}) == 1  # a bottom-tested loop runs at least once
    assert tc.evaluate({"%r9": 0xFFFFFFFF}) == 1  # -1 as a signed 32-bit value
    assert tc.evaluate({}) is None
    assert tc.entry_pc == lf.cfg.blocks[block_at(lf.cfg, "L")].start


def test_entry_trip_count_nvcc_countdown_form():
    lf = forest("""
    ld.param.u32 %r12, [k_param_2];
    and.b32 %r21, %r12, 3;
    sub.s32 %r18, %r12, %r21;
    mov.u32 %r25, 0;
L:
    add.s32 %r25, %r25, 4;
    add.s32 %r18, %r18, -4;
    setp.ne.s32 %p1, %r18, 0;
    @%p1 bra L;
    ret;
""")
    tc = lf.trip_count("L")
    assert tc.kind == "entry" and tc.iv == "%r18"
    assert tc.registers == ("%r12", "%r21")
    assert tc.formula == "(%r12 - %r21) / 4"
    assert tc.evaluate({"%r12": 23, "%r21": 3}) == 5
    assert tc.step == Affine.const(-4)


def test_entry_trip_count_derived_compare():
    # nvcc also compares an invariant plus the counter: add %r20, %r4, %r25; setp.ne %r20, 0
    lf = forest("""
    ld.param.u32 %r12, [k_param_2];
    and.b32 %r26, %r12, 3;
    sub.s32 %r4, %r26, %r12;
    mov.u32 %r25, 0;
L:
    add.s32 %r25, %r25, 4;
    add.s32 %r20, %r4, %r25;
    setp.ne.s32 %p3, %r20, 0;
    @%p3 bra L;
    ret;
""")
    tc = lf.trip_count("L")
    assert tc.kind == "entry" and tc.iv == "%r25"
    assert tc.formula == "(%r12 - %r26) / 4"
    assert tc.evaluate({"%r12": 10, "%r26": 2}) == 2


def test_entry_trip_count_with_register_step_grid_stride():
    lf = forest("""
    ld.param.u32 %r9, [k_param_2];
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %nctaid.x;
    mul.lo.s32 %r4, %r2, %r3;
    mov.u32 %r5, %ctaid.x;
    mad.lo.s32 %r1, %r5, %r2, %tid.x;
L:
    add.s32 %r1, %r1, %r4;
    setp.lt.s32 %p1, %r1, %r9;
    @%p1 bra L;
    ret;
""")
    tc = lf.trip_count("L")
    assert tc.kind == "entry"
    assert set(tc.registers) == {"%r1", "%r4", "%r9"}
    assert tc.step == Affine.atom("%r4")
    assert tc.evaluate({"%r1": 3, "%r4": 256, "%r9": 1000}) == 4  # i = 3, 259, 515, 771
    assert tc.evaluate({"%r1": 0, "%r4": 256, "%r9": 256}) == 1


def test_nested_entry_bound_is_outer_induction_variable():
    lf = forest("""
    mov.u32 %r1, 0;
OUTER:
    mov.u32 %r2, 0;
INNER:
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p1, %r2, %r1;
    @%p1 bra INNER;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p2, %r1, 5;
    @%p2 bra OUTER;
    ret;
""")
    inner = lf.trip_count("INNER")
    assert inner.kind == "entry" and inner.registers == ("%r1",)
    assert inner.evaluate({"%r1": 3}) == 3
    assert lf.trip_count("OUTER").count == 5


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        # the bound is reloaded in every iteration
        ("""
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, 0;
L:
    ld.global.u32 %r9, [%rd1];
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, %r9;
    @%p1 bra L;
    ret;
""", "load"),
        # a geometric update is not an induction variable
        ("""
    mov.u32 %r1, 1;
L:
    shl.b32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, 1024;
    @%p1 bra L;
    ret;
""", "not an induction variable"),
        # a break: two exits
        ("""
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, 0;
L:
    ld.global.u32 %r5, [%rd1];
    setp.eq.s32 %p2, %r5, 0;
    @%p2 bra OUT;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, 10;
    @%p1 bra L;
OUT:
    ret;
""", "exiting blocks"),
        # a float compare
        ("""
    mov.f32 %f1, 0f00000000;
L:
    add.f32 %f1, %f1, 0f3F800000;
    setp.lt.f32 %p1, %f1, 0f41200000;
    @%p1 bra L;
    ret;
""", "not an integer comparison"),
        # the exit predicate is a combination of two comparisons
        ("""
    mov.u32 %r1, 0;
L:
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, 10;
    setp.ne.s32 %p2, %r1, 5;
    and.pred %p3, %p1, %p2;
    @%p3 bra L;
    ret;
""", "and.pred"),
        # the counter is only written on one path
        ("""
    mov.u32 %r1, 0;
    mov.u32 %r3, %tid.x;
L:
    setp.eq.s32 %p2, %r3, 0;
    @%p2 bra SKIP;
    add.s32 %r1, %r1, 1;
SKIP:
    setp.lt.s32 %p1, %r1, 10;
    @%p1 bra L;
    ret;
""", "several reaching definitions"),
        # never terminates: counting down towards a larger bound
        ("""
    mov.u32 %r1, 0;
L:
    add.s32 %r1, %r1, -1;
    setp.lt.s32 %p1, %r1, 10;
    @%p1 bra L;
    ret;
""", "never met"),
    ],
)
def test_unknown_trip_counts(body, reason):
    lf = forest(body)
    tc = lf.trip_count("L")
    assert tc.kind == "unknown"
    assert reason in tc.reason
    assert tc.evaluate({}) is None


def test_header_count_arithmetic():
    # ne: exact modular solution, as the hardware would run
    assert header_count("ne", True, 32, 0, 3, 12) == 4
    assert header_count("ne", True, 32, 0, 2, 7) is None  # skips over the bound forever
    assert header_count("ne", False, 8, 250, 1, 4) == 10  # wraps around 256
    assert header_count("ne", True, 32, 5, -1, 0) == 5
    assert header_count("lt", True, 32, 0, 3, 10) == 4
    assert header_count("lt", False, 32, 0, 1, 0xFFFFFFFF) == 0xFFFFFFFF
    assert header_count("le", True, 32, 0, 1, 0) == 1
    assert header_count("gt", True, 32, 10, -3, 0) == 4
    assert header_count("ge", True, 32, 10, -3, 0) == 4
    assert header_count("eq", True, 32, 0, 1, 1) == 2
    assert header_count("eq", True, 32, 0, 1, 5) == 1


def test_counter_through_a_temporary_and_a_guarded_exit():
    lf = forest("""
    mov.u32 %r4, 3;
L:
    add.s32 %r5, %r4, 2;
    mov.u32 %r4, %r5;
    setp.ge.s32 %p1, %r4, 13;
    @%p1 exit;
    bra L;
""")
    lp = lf.loop("L")
    assert lp.exit_edges == ((lp.header, lf.cfg.exit),)
    assert lf.induction_variables(lp.header) == {"%r4": Affine.const(2)}  # %r5 is derived from it
    tc = lf.trip_count("L")
    assert tc.kind == "static" and tc.count == 5  # 5, 7, 9, 11, 13


def test_loop_at_the_function_entry():
    lf = forest("""
L:
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, 10;
    @%p1 bra L;
    ret;
""")
    lp = lf.loop("L")
    assert lp.header == 0 and lf.preheaders(0) == []
    tc = lf.trip_count("L")
    assert tc.kind == "entry" and tc.registers == ("%r1",)  # uninitialised: read it at entry
    assert tc.evaluate({"%r1": 7}) == 3


def test_bound_read_from_a_parameter_inside_the_loop():
    lf = forest("""
    mov.u32 %r1, 0;
L:
    ld.param.u32 %r9, [k_param_2];
    add.s32 %r1, %r1, 2;
    setp.lt.u32 %p1, %r1, %r9;
    @%p1 bra L;
    ret;
""")
    tc = lf.trip_count("L")
    assert tc.kind == "entry" and tc.registers == ("k_param_2",)
    assert tc.formula == "ceil(k_param_2 / 2)"
    assert tc.evaluate({"k_param_2": 9}) == 5 and not tc.signed
