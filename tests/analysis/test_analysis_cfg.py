"""CFG, dominators and post-dominators on hand-written PTX with known answers."""

from __future__ import annotations

from ptxkit import block_at, kernel

from ndpgpu.analysis.cfg import CFG

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

NESTED = """
    mov.u32 %r1, 0;
OUTER:
    mov.u32 %r2, 0;
INNER:
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p1, %r2, 8;
    @%p1 bra INNER;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p2, %r1, 4;
    @%p2 bra OUTER;
    ret;
"""

EARLY_EXIT = """
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 100;
    @%p1 ret;
    add.s32 %r2, %r1, 1;
    setp.eq.s32 %p2, %r2, 7;
    @%p2 bra OUT;
    add.s32 %r2, %r2, 1;
OUT:
    ret;
"""

INFINITE = """
    mov.u32 %r1, %tid.x;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra SPIN;
    ret;
SPIN:
    add.s32 %r1, %r1, 1;
    bra SPIN;
"""


def test_diamond_blocks_and_edges():
    cfg = CFG(kernel(DIAMOND))
    assert [(b.start, b.end) for b in cfg.blocks] == [(0, 4), (4, 6), (6, 7), (7, 9)]
    els, join = block_at(cfg, "ELSE"), block_at(cfg, "JOIN")
    assert (els, join) == (2, 3)
    assert cfg.blocks[0].succs == [2, 1]
    assert cfg.blocks[1].succs == [3]
    assert cfg.blocks[2].succs == [3]
    assert cfg.blocks[3].succs == [cfg.exit]
    assert sorted(cfg.blocks[3].preds) == [1, 2]


def test_diamond_dominators_and_postdominators():
    cfg = CFG(kernel(DIAMOND))
    assert cfg.idom == {0: 0, 1: 0, 2: 0, 3: 0}
    assert cfg.ipdom == {0: 3, 1: 3, 2: 3, 3: cfg.exit}
    assert cfg.dominates(0, 3) and not cfg.dominates(1, 3) and not cfg.dominates(2, 3)
    assert cfg.postdominates(3, 0) and not cfg.postdominates(1, 0)
    assert cfg.postdominates(cfg.exit, 0)
    assert cfg.reconvergence_instr(0) == 7  # the branch reconverges at JOIN
    assert cfg.reconvergence_instr(3) == len(cfg.fn.body)


def test_nested_loops_dominators():
    cfg = CFG(kernel(NESTED))
    outer, inner = block_at(cfg, "OUTER"), block_at(cfg, "INNER")
    assert (outer, inner) == (1, 2)
    assert cfg.blocks[inner].succs == [inner, 3]
    assert cfg.blocks[3].succs == [outer, 4]
    assert cfg.idom[inner] == outer and cfg.idom[3] == inner and cfg.idom[4] == 3
    assert cfg.ipdom[outer] == inner and cfg.ipdom[inner] == 3 and cfg.ipdom[3] == 4
    assert cfg.reconvergence_instr(inner) == cfg.blocks[3].start


def test_early_exit_postdominators():
    cfg = CFG(kernel(EARLY_EXIT))
    # block 0 ends with a guarded ret: successors are the exit and the fall-through
    assert cfg.blocks[0].succs == [cfg.exit, 1]
    out = block_at(cfg, "OUT")
    assert cfg.ipdom[0] == cfg.exit  # the early return skips OUT
    assert cfg.ipdom[1] == out
    assert cfg.reconvergence_instr(0) == len(cfg.fn.body)
    assert cfg.reconvergence_instr(1) == cfg.blocks[out].start


def test_infinite_loop_gets_exit_edge():
    cfg = CFG(kernel(INFINITE))
    spin = block_at(cfg, "SPIN")
    assert spin in cfg.blocks[spin].succs
    assert cfg.exit in cfg.blocks[spin].succs  # added so that post-dominators exist
    assert cfg.ipdom[spin] == cfg.exit
    assert cfg.ipdom[0] == cfg.exit
    assert cfg.dominates(0, spin)


def test_analyze_bundle_shares_its_parts():
    from ndpgpu.analysis import analyze

    an = analyze(kernel(DIAMOND))
    assert an.liveness.du is an.defuse and an.loops.du is an.defuse
    assert an.affine.loops is an.loops and an.loops.rd is an.reaching
    assert an.cfg.ipdom[0] == 3 and len(an.memory) == 4
