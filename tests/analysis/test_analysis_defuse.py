"""Definitions and uses per instruction, and reaching definitions."""

from __future__ import annotations

from ptxkit import block_at, kernel

from ndpgpu.analysis.cfg import CFG
from ndpgpu.analysis.defuse import CARRY, START, DefUse, ReachingDefs, defs_of, uses_of
from ndpgpu.analysis.memops import block_memory, mem_op
from ndpgpu.frontend.parser import parse_ptx

FORMS = """
    ld.param.u64 %rd1, [k_param_0];
    ld.global.v4.u32 {%r1, %r2, _, %r4}, [%rd1+16];
    st.global.v2.u32 [%rd1], {%r1, %r2};
    @!%p3 st.global.u32 [%rd2+4], %r5;
    red.global.add.u32 [%rd3], %r6;
    atom.global.add.u32 %r7, [%rd4], %r8;
    atom.global.cas.b32 %r9, [%rd4], %r10, %r11;
    setp.lt.s32 %p1|%p2, %r1, %r2;
    shfl.sync.bfly.b32 %r12|%p4, %r13, 1, 31, -1;
    mov.b64 %rd5, {%r14, %r15};
    mov.b64 {%r16, %r17}, %rd6;
    @%p1 add.s32 %r18, %r18, 1;
    selp.b32 %r19, %r20, 5, !%p2;
    mov.u32 %r21, %tid.x;
    bar.sync 0;
    bar.red.popc.u32 %r22, 0, %p1;
    add.cc.u32 %r23, %r24, %r25;
    addc.u32 %r26, %r27, %r28;
    @%p1 bra END;
END:
    ret;
"""


def _ins(fn, k):
    return fn.body[k]


def test_defs_and_uses_of_instruction_forms():
    fn = kernel(FORMS)
    expect = [
        (("%rd1",), ()),
        (("%r1", "%r2", "%r4"), ("%rd1",)),
        ((), ("%rd1", "%r1", "%r2")),
        ((), ("%p3", "%rd2", "%r5")),
        ((), ("%rd3", "%r6")),
        (("%r7",), ("%rd4", "%r8")),
        (("%r9",), ("%rd4", "%r10", "%r11")),
        (("%p1", "%p2"), ("%r1", "%r2")),
        (("%r12", "%p4"), ("%r13",)),
        (("%rd5",), ("%r14", "%r15")),
        (("%r16", "%r17"), ("%rd6",)),
        (("%r18",), ("%p1", "%r18")),
        (("%r19",), ("%r20", "%p2")),
        (("%r21",), ()),
        ((), ()),
        (("%r22",), ("%p1",)),
        (("%r23", CARRY), ("%r24", "%r25")),
        (("%r26",), ("%r27", "%r28", CARRY)),
        ((), ("%p1",)),
        ((), ()),
    ]
    assert len(fn.body) == len(expect)
    for k, (d, u) in enumerate(expect):
        ins = _ins(fn, k)
        assert defs_of(ins) == d, (k, ins.text)
        assert uses_of(ins) == u, (k, ins.text)


def test_call_arguments_and_returns():
    text = """
.version 8.0
.target sm_75
.address_size 64
.func (.param .b32 ret0) f(.param .b32 a0)
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [a0];
    st.param.b32 [ret0], %r1;
    ret;
}
.visible .entry k(.param .u64 k_param_0)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    {
    .reg .b32 tmp;
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), f, (param0);
    ld.param.b32 %r2, [retval0];
    mov.b32 tmp, %r2;
    add.s32 %r3, tmp, 1;
    }
    ret;
}
"""
    fn = parse_ptx(text).functions["k"]
    call = next(i for i in fn.body if i.opcode == "call")
    assert defs_of(call) == () and uses_of(call) == ()  # arguments travel through .param variables
    mov = next(i for i in fn.body if i.opcode == "mov")
    add = next(i for i in fn.body if i.opcode == "add")
    assert defs_of(mov) == ("tmp$s1",)
    assert uses_of(add) == ("tmp$s1",)


def test_defuse_numbering():
    fn = kernel(FORMS)
    du = DefUse(fn)
    assert du.sites[du.def_ids[1][2]] == (1, "%r4")
    assert not du.must[11] and du.must[12]
    assert CARRY in du.reg_index
    assert du.reg_names(du.reg_bits({"%r1", "%p1"})) == {"%r1", "%p1"}


GUARDED = """
    mov.u32 %r1, 1;
    mov.u32 %r2, %tid.x;
    setp.eq.s32 %p1, %r2, 0;
    @%p1 mov.u32 %r1, 2;
    setp.lt.s32 %p2, %r2, 5;
    @%p2 bra SKIP;
    mov.u32 %r1, 3;
SKIP:
    add.s32 %r3, %r1, %r4;
    ret;
"""


def test_reaching_definitions_with_guards_and_joins():
    fn = kernel(GUARDED)
    cfg = CFG(fn)
    du = DefUse(fn)
    rd = ReachingDefs(cfg, du)
    skip = block_at(cfg, "SKIP")
    add = cfg.blocks[skip].start
    sites = sorted(du.sites[d][0] for d in rd.at("%r1", skip, add))
    assert sites == [0, 3, 6]  # the guarded def does not kill the first
    assert rd.at("%r4", skip, add) == (START,)  # never written: the start value
    # just after the guarded def, both the guarded and the first definition reach
    assert sorted(du.sites[d][0] for d in rd.at("%r1", 0, 4)) == [0, 3]
    assert [du.sites[d][0] for d in rd.at("%r1", 1, 7)] == [6]


def test_memory_ops_and_block_counts():
    fn = kernel(FORMS)
    m = mem_op(fn.body[1], 1)
    assert m is not None and (m.kind, m.space, m.width, m.vector) == ("load", "global", 16, 4)
    assert m.addr.offset == 16
    st = mem_op(fn.body[2], 2)
    assert st is not None and (st.kind, st.width) == ("store", 8)
    assert mem_op(fn.body[7], 7) is None
    bm = block_memory(CFG(fn))[0]
    assert bm.loads == {"param": 1, "global": 1}
    assert bm.stores == {"global": 2}
    assert bm.atomics == {"global": 3}
    assert bm.barrier and not bm.fence and not bm.shared
    assert bm.n_loads() == 1 and bm.n_stores() == 2
