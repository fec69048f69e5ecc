"""The analyses scale linearly on large kernels (about 5k instructions, 162 loops) in pure Python.

No wall-clock assertion (a loaded machine made one fail): the work is measured as the number of Python
function calls the analyses make, which does not depend on the machine. Their speed is in
``benchmarks/analysis.py``."""

from __future__ import annotations

import sys

from ptxkit import kernel

from ndpgpu.analysis import analyze
from ndpgpu.analysis.linexpr import Affine

PATTERN = """
    // part {k}
    setp.lt.s32 %p1, %r1, {k};
    @%p1 bra ELSE{k};
    add.s32 %r3, %r1, {k};
    bra JOIN{k};
ELSE{k}:
    sub.s32 %r3, %r1, {k};
JOIN{k}:
    mul.wide.s32 %rd4, %r3, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r3;
    mov.u32 %r4, 0;
    mov.u64 %rd6, %rd3;
LOOP{k}:
    ld.global.f32 %f1, [%rd6];
    ld.global.f32 %f2, [%rd6+4];
    add.f32 %f3, %f3, %f1;
    add.f32 %f3, %f3, %f2;
    ld.global.f32 %f1, [%rd6+8];
    ld.global.f32 %f2, [%rd6+12];
    add.f32 %f3, %f3, %f1;
    add.f32 %f3, %f3, %f2;
    st.global.f32 [%rd6+16], %f3;
    add.s64 %rd6, %rd6, 4096;
    add.s32 %r4, %r4, 4;
    setp.lt.s32 %p2, %r4, %r9;
    @%p2 bra LOOP{k};
    ld.global.u32 %r5, [%rd5];
    add.s32 %r1, %r1, %r5;
    mul.lo.s32 %r6, %r1, 3;
    shl.b32 %r7, %r6, 1;
    add.s32 %r8, %r7, %r2;
    mul.wide.s32 %rd7, %r8, 4;
    add.s64 %rd8, %rd2, %rd7;
    st.global.u32 [%rd8], %r8;
"""

HEAD = """
    ld.param.u64 %rd1, [k_param_0];
    ld.param.u64 %rd2, [k_param_1];
    ld.param.u32 %r9, [k_param_2];
    mov.u32 %r1, %tid.x;
    mov.u32 %r10, %ctaid.x;
    mov.u32 %r11, %ntid.x;
    mad.lo.s32 %r2, %r10, %r11, %r1;
    mul.wide.s32 %rd9, %r2, 4;
    add.s64 %rd3, %rd2, %rd9;
    mov.f32 %f3, 0f00000000;
"""


def _program(parts: int):
    return kernel(HEAD + "".join(PATTERN.format(k=k) for k in range(parts)) + "    ret;\n")


def run_analyses(fn):
    an = analyze(fn)
    _ = an.cfg.idom, an.cfg.ipdom
    loops = an.loops.loops
    trips = an.loops.all_trip_counts
    for lp in loops.values():
        an.liveness.live_in(lp.blocks)
        an.liveness.live_out(lp.blocks)
    return an, loops, trips, an.affine.accesses


def calls_made(fn) -> int:
    """Python function calls made while analysing ``fn`` (a machine-independent measure of work)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        run_analyses(fn)
    finally:
        sys.setprofile(None)
    return count


def test_five_thousand_instructions_give_the_right_loops_and_accesses():
    fn = _program(162)
    assert len(fn.body) > 5000
    an, loops, trips, accesses = run_analyses(fn)
    assert len(loops) == 162
    assert all(t.kind == "entry" and t.registers == ("%r9",) for t in trips.values())
    in_loops = [a for a in accesses if an.cfg.block_of_instr[a.index] in loops]
    assert len(in_loops) == 162 * 5 and all(a.expr is not None for a in in_loops)


def test_work_grows_linearly_with_kernel_size():
    """Four times the code costs about four times the calls (a quadratic pass would cost sixteen)."""
    small, large = calls_made(_program(20)), calls_made(_program(80))
    assert 3.0 < large / small < 5.0, (small, large)


def test_long_dependence_chains_do_not_exhaust_the_stack():
    n = 3000
    chain = "".join(f"    add.s64 %rd{2 + (k + 1) % 2}, %rd{2 + k % 2}, 4;\n" for k in range(n))
    fn = kernel("    ld.param.u64 %rd2, [k_param_0];\n" + chain + "    ld.global.u32 %r1, [%rd2];\n    ret;\n")
    an = analyze(fn)
    assert an.affine.address(n + 1) == Affine.atom("k_param_0") + 4 * n
    assert an.liveness.live_before(n + 1) == {"%rd2"}
