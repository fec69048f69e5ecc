"""Warp-uniform live-ins (issue 43, item 2): the analysis on hand-written PTX (uniform, per-lane and mixed
registers, divergent and uniform branches), their price in the cost model and the offload request with
``uniform_live_ins`` (a refinement the paper's model does not have), and the policy flag that turns it on."""

from __future__ import annotations

import dataclasses

import pytest
from test_tom_candidates import kernel, loop_kernel, one_candidate

from ndpgpu.analysis.uniform import uniform_registers, uniform_special, varying_registers
from ndpgpu.mechanisms.policy import PolicyError
from ndpgpu.mechanisms.tom.candidates import find_candidates
from ndpgpu.mechanisms.tom.config import TomConfig
from ndpgpu.mechanisms.tom.cost import DEFAULT_PARAMS, CostParams, bw_per_warp, min_trips
from ndpgpu.mechanisms.tom.policy import TomPolicySpec

UNIFORM = CostParams(uniform_live_ins=True)


# ---------------------------------------------------------------------------------------------------------
# The analysis


def test_special_registers():
    for name in ("%ctaid.x", "%ctaid.y", "%nctaid.x", "%ntid.x", "%ntid.z", "%gridid"):
        assert uniform_special(name), name
    for name in ("%tid.x", "%tid.y", "%laneid", "%warpid", "%clock", "%lanemask_lt", "%smid"):
        assert not uniform_special(name), name


def test_uniform_values():
    """Parameters, cvta of a parameter, launch constants, %ctaid and arithmetic on them are uniform."""
    fn = kernel("""
    ld.param.u64 %rd1, [k_param_0];
    ld.param.u32 %r2, [k_param_2];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mul.lo.s32 %r5, %r3, %r4;
    add.s32 %r6, %r5, %r2;
    mul.wide.s32 %rd3, %r6, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r7, [%rd4];
    st.global.u32 [%rd4], %r7;
    ret;
""")
    varying = varying_registers(fn)
    assert varying == {"%r7"}  # a global load, even at a uniform address
    uni = uniform_registers(fn)
    assert {"%rd1", "%rd2", "%rd3", "%rd4", "%r2", "%r3", "%r4", "%r5", "%r6"} <= uni and "%r7" not in uni


def test_per_lane_values():
    """%tid, %laneid, loads, atomics and shuffles are per-lane, and so is anything computed from them."""
    fn = kernel("""
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %laneid;
    shl.b32 %r3, %r1, 2;
    add.s32 %r4, %r3, 7;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r5, [%rd2];
    atom.global.add.u32 %r6, [%rd2], 1;
    shfl.sync.idx.b32 %r7, %r5, 0, 31, -1;
    mov.u32 %r8, 3;
    st.global.u32 [%rd4], %r8;
    ret;
""")
    assert varying_registers(fn) == {"%r1", "%r2", "%r3", "%r4", "%rd3", "%rd4", "%r5", "%r6", "%r7"}


def test_guards_and_branches():
    """A def guarded by a per-lane predicate is per-lane; a register assigned on both sides of a branch on a
    per-lane predicate differs between the lanes after they reconverge; on a uniform predicate it does not."""
    fn = kernel("""
    ld.param.u32 %r1, [k_param_2];
    mov.u32 %r2, %tid.x;
    setp.lt.u32 %p1, %r2, 16;
    setp.lt.u32 %p2, %r1, 16;
    mov.u32 %r3, 1;
    @%p1 mov.u32 %r3, 2;
    mov.u32 %r4, 1;
    @%p2 mov.u32 %r4, 2;
    @%p1 bra A;
    mov.u32 %r5, 10;
    bra B;
A:
    mov.u32 %r5, 20;
B:
    @%p2 bra C;
    mov.u32 %r6, 10;
    bra D;
C:
    mov.u32 %r6, 20;
D:
    add.s32 %r7, %r5, %r6;
    add.s32 %r8, %r4, %r6;
    ret;
""")
    varying = varying_registers(fn)
    assert {"%r2", "%p1", "%r3", "%r5", "%r7"} <= varying
    assert not varying & {"%r1", "%p2", "%r4", "%r6", "%r8"}


def test_loop_with_a_divergent_exit():
    """Lanes leave a loop at different trips when its bound is per-lane: the counter is uniform among the lanes
    still iterating, and per-lane after the loop."""
    fn = kernel("""
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    mov.u32 %r9, 0;
L:
    add.s32 %r3, %r2, 5;
    add.s32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra L;
    ret;
""")
    assert not varying_registers(fn) & {"%r2", "%r3", "%r9"}
    after = kernel("""
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
L:
    add.s32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra L;
    add.s32 %r4, %r2, 3;
    ret;
""")
    assert {"%r2", "%r4"} <= varying_registers(after)


# ---------------------------------------------------------------------------------------------------------
# Candidates


MIXED = """
    ld.param.u64 %rd1, [k_param_0];
    ld.param.u32 %r2, [k_param_2];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    bar.sync 0;
    mul.wide.s32 %rd3, %r6, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    mul.wide.s32 %rd5, %r2, 4;
    add.s64 %rd6, %rd4, %rd5;
    ld.global.f32 %f3, [%rd6];
    add.f32 %f4, %f2, %f3;
    st.global.f32 [%rd4], %f4;
    st.global.f32 [%rd4+4], %f4;
    st.global.f32 [%rd4+8], %f4;
    ret;
"""


def test_candidate_uniform_units_all_uniform():
    """The paper's Fig. 4 loop as hand-written here: base pointer (2 units), counter, bound, scale factor, all
    derived from parameters and constants: 5 units, all uniform."""
    c = one_candidate(find_candidates(loop_kernel()))
    assert (c.reg_tx, c.reg_tx_uniform) == (5, 5)
    assert c.bandwidth() == (26.0, -65.0)  # the paper's model: unchanged by the recorded uniform units
    cu = one_candidate(find_candidates(loop_kernel(), params=UNIFORM))
    assert cu.tmin == 1  # 5 - 0.5 - 33 + (-16 - 0.25) < 0 at one trip
    assert cu.bandwidth(4, UNIFORM) == (5 - 4 * 33.5, -65.0)


def test_candidate_uniform_units_per_lane_and_mixed():
    """Live-ins of the block after the barrier: %rd2 (uniform, 2 units), %r2 (uniform), %r6 (per-lane, from
    %tid); two loads and three stores."""
    fn = kernel(MIXED)
    c = one_candidate(find_candidates(fn))
    assert c.live_in == ("%r2", "%r6", "%rd2")
    assert (c.reg_tx, c.reg_tx_uniform) == (4, 3)
    assert c.bandwidth() == (4 * 32 - 2 * 0.5 - 3 * 33, -2 * 16 - 3 * 0.25) == (28, -32.75)  # paper's model
    cu = one_candidate(find_candidates(fn, params=UNIFORM))
    assert cu.bandwidth(params=UNIFORM) == (32 + 3 - 2 * 0.5 - 3 * 33, -32.75) == (-65, -32.75)
    assert c.tag() == (False, True) and cu.tag(params=UNIFORM) == (True, True)  # adds TX -> saves TX
    # every live-in per-lane: the whole warp's copies
    per_lane = kernel(MIXED.replace("mov.u32 %r3, %ctaid.x;", "mov.u32 %r3, %laneid;")
                      .replace("ld.param.u32 %r2, [k_param_2];", "ld.global.u32 %r2, [%rd1];"))
    cp = one_candidate(find_candidates(per_lane, params=UNIFORM))
    assert (cp.reg_tx, cp.reg_tx_uniform) == (4, 2)  # %rd2 stays uniform (a parameter)


def test_specials_read_inside_the_block():
    """The special registers a block reads count as live-ins (G9): %ctaid and %ntid uniform, %tid not."""
    fn = kernel("""
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    bar.sync 0;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    mul.wide.s32 %rd3, %r6, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    ld.global.f32 %f3, [%rd4+512];
    st.global.f32 [%rd4+4], %f2;
    st.global.f32 [%rd4+8], %f2;
    st.global.f32 [%rd4+12], %f3;
    st.global.f32 [%rd4+16], %f3;
    ret;
""")
    c = one_candidate(find_candidates(fn))
    assert c.live_in == ("%rd2", "%ctaid.x", "%ntid.x", "%tid.x")
    assert (c.reg_tx, c.reg_tx_uniform) == (5, 4)
    assert c.bandwidth() == (160 - 1 - 132, -33)
    assert c.bandwidth(params=UNIFORM) == (32 + 4 - 1 - 132, -33)


# ---------------------------------------------------------------------------------------------------------
# Cost model and packets


def test_cost_with_uniform_units():
    # the paper's model ignores the uniform units
    assert bw_per_warp(5, 0, 1, 1, DEFAULT_PARAMS, 4) == bw_per_warp(5, 0, 1, 1) == (126.5, -16.25)
    # one per-lane unit (32 words) + 4 uniform words - (0.5 + 33)
    assert bw_per_warp(5, 0, 1, 1, UNIFORM, 4) == (32 + 4 - 33.5, -16.25)
    assert bw_per_warp(5, 0, 1, 1, UNIFORM, 0) == (126.5, -16.25)
    with pytest.raises(ValueError, match="reg_tx_uniform"):
        bw_per_warp(3, 0, 1, 1, UNIFORM, 4)
    with pytest.raises(ValueError, match="uniform_live_ins"):
        CostParams(uniform_live_ins=1)  # type: ignore[arg-type]
    # min_trips: A = 32 + 4 = 36 at T = 0, B = -49.75 per trip -> one trip saves
    assert min_trips(5, 0, 0, 0, 1, 1, UNIFORM, 4) == 1
    assert min_trips(5, 0, 0, 0, 1, 1, DEFAULT_PARAMS, 4) == 4
    # 10 units, 9 uniform: 32 + 9 = 41; -49.75 per trip -> 1 trip; paper's model 320 / 49.75 -> 7
    assert min_trips(10, 0, 0, 0, 1, 1, UNIFORM, 9) == 1 and min_trips(10, 0, 0, 0, 1, 1) == 7


def test_request_flits():
    """16-B flits: 5 units x 32 lanes x 4 B = 640 B = 40 flits; with 4 uniform units 128 + 16 B = 9 flits."""
    paper = TomConfig()
    uni = TomConfig(cost=UNIFORM)
    assert paper.register_flits(5, 4) == paper.register_flits(5) == 40
    assert uni.register_flits(5, 4) == 9
    assert uni.register_flits(5, 0) == 40
    assert uni.register_flits(5, 5) == 2  # 20 B


def test_policy_flag():
    assert TomPolicySpec.parse("ctrl+tmap").uniform == 0
    spec = TomPolicySpec.parse("ctrl+tmap,uniform=1")
    assert spec.uniform == 1 and (spec.control, spec.mapping) == ("ctrl", "tmap")
    assert dataclasses.replace(spec, uniform=0) == TomPolicySpec.parse("ctrl+tmap")
    with pytest.raises(PolicyError, match="uniform"):
        TomPolicySpec.parse("ctrl+tmap,uniform=2")
