"""Liveness per block, per instruction and of single-entry regions, on hand-written PTX."""

from __future__ import annotations

import pytest
from ptxkit import block_at, kernel

from ndpgpu.analysis.cfg import CFG
from ndpgpu.analysis.liveness import (
    Liveness,
    RegionError,
    range_is_single_entry,
    region_entries,
    region_is_single_entry,
)

DIAMOND = """
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r2, %tid.x;
    setp.lt.s32 %p1, %r2, 16;
    @%p1 bra ELSE;
    add.s32 %r3, %r2, 1;
    bra JOIN;
ELSE:
    add.s32 %r3, %r2, 2;
JOIN:
    st.global.u32 [%rd1], %r3;
    ret;
"""


def test_diamond_block_and_instruction_liveness():
    cfg = CFG(kernel(DIAMOND))
    lv = Liveness(cfg)
    assert lv.block_live_in(0) == set()
    assert lv.block_live_out(0) == {"%rd1", "%r2"}
    assert lv.block_live_in(1) == {"%rd1", "%r2"}
    assert lv.block_live_in(3) == {"%rd1", "%r3"}
    assert lv.block_live_out(3) == set()
    assert lv.live_before(2) == {"%rd1", "%r2"}
    assert lv.live_after(2) == {"%rd1", "%r2", "%p1"}
    assert lv.live_before(3) == {"%rd1", "%r2", "%p1"}
    assert lv.live_after(8) == set()
    assert lv.max_live() == 3


def test_diamond_regions():
    cfg = CFG(kernel(DIAMOND))
    lv = Liveness(cfg)
    assert region_is_single_entry(cfg, {1})
    assert region_is_single_entry(cfg, {0, 1, 2, 3})
    assert not region_is_single_entry(cfg, {1, 2, 3})
    assert region_entries(cfg, {1, 2, 3}) == [1, 2]
    assert lv.live_in({1}) == {"%r2"}
    assert lv.live_out({1}) == {"%r3"}
    # the whole diamond: %rd1 flows through without being written, so it is not a live-out
    assert lv.live_in({0, 1, 2}) == set()
    assert lv.live_out({0, 1, 2}) == {"%rd1", "%r3"}
    assert lv.live_in({1, 2, 3, 0}) == set() and lv.live_out({0, 1, 2, 3}) == set()
    with pytest.raises(RegionError):
        lv.live_in({1, 2, 3})


PARTIAL = """
    mov.u32 %r1, %tid.x;
    mov.u32 %r5, 9;
    setp.lt.s32 %p1, %r1, 4;
    bra R;
R:
    @%p1 bra SKIP;
    mov.u32 %r5, 7;
SKIP:
    add.s32 %r6, %r5, %r1;
    @%p1 mov.u32 %r6, 0;
    st.global.u32 [%rd9], %r6;
    ret;
"""


def test_live_in_includes_values_a_path_leaves_unchanged():
    cfg = CFG(kernel(PARTIAL))
    lv = Liveness(cfg)
    r, skip = block_at(cfg, "R"), block_at(cfg, "SKIP")
    region = {r, r + 1}
    assert region_is_single_entry(cfg, region)
    # %r5 is written on one path only, and read after the region: it must be sent in and back
    assert lv.live_out(region) == {"%r5"}
    assert lv.live_in(region) == {"%p1", "%r5"}
    # the guarded write of %r6 does not kill: the add's %r6 stays live across it
    assert lv.live_in({skip}) == {"%r5", "%r1", "%p1", "%rd9"}
    assert "%r6" in lv.live_after(cfg.blocks[skip].start)
    assert lv.live_out({skip}) == set()


def test_instruction_ranges():
    fn = kernel(PARTIAL)
    cfg = CFG(fn)
    lv = Liveness(cfg)
    skip = fn.labels["SKIP"]
    # [SKIP, SKIP+2): the add and the guarded mov; %r6 is read afterwards by the store
    assert range_is_single_entry(cfg, skip, skip + 2)
    assert lv.range_live_in(skip, skip + 2) == {"%r5", "%r1", "%p1"}
    assert lv.range_live_out(skip, skip + 2) == {"%r6"}
    # a range starting mid-block
    assert lv.range_live_in(1, 3) == {"%r1"}
    assert lv.range_live_out(1, 3) == {"%r5", "%p1"}
    # R is instruction 4 and SKIP 6: [4, 7) holds the branch to SKIP, [5, 8) does not
    assert range_is_single_entry(cfg, 4, 7)
    assert not range_is_single_entry(cfg, 5, 8)  # SKIP is entered from the branch at 4
    with pytest.raises(RegionError):
        lv.range_live_in(5, 8)


LOOP = """
    ld.param.u64 %rd1, [k_param_0];
    ld.param.u32 %r9, [k_param_2];
    mov.u32 %r1, 0;
    mov.f32 %f1, 0f00000000;
L:
    mul.wide.s32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f2, [%rd3];
    add.f32 %f1, %f1, %f2;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, %r9;
    @%p1 bra L;
    st.global.f32 [%rd1], %f1;
    ret;
"""


def test_loop_region_liveness():
    cfg = CFG(kernel(LOOP))
    lv = Liveness(cfg)
    loop = block_at(cfg, "L")
    assert lv.live_in({loop}) == {"%rd1", "%r1", "%r9", "%f1"}
    assert lv.live_out({loop}) == {"%f1"}
    assert lv.block_live_in(loop) == {"%rd1", "%r1", "%r9", "%f1"}
    assert lv.block_live_out(loop) == {"%rd1", "%r1", "%r9", "%f1"}  # the back edge keeps them live
    assert lv.live_before(cfg.blocks[loop].end) == {"%rd1", "%f1"}


def test_infinite_loop_liveness_terminates():
    fn = kernel("""
    mov.u32 %r1, 0;
SPIN:
    add.s32 %r1, %r1, %r2;
    bra SPIN;
""")
    cfg = CFG(fn)
    lv = Liveness(cfg)
    spin = block_at(cfg, "SPIN")
    assert lv.block_live_in(spin) == {"%r1", "%r2"}
    assert lv.block_live_in(0) == {"%r2"}
