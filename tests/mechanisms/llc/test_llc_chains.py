"""LLC-Compute / Omni-Compute's offload-chain pass (seed 001, Table 1, Fig. 6; extraction 3.1, 3.2, 7.4, 7.6)."""

from __future__ import annotations

import pytest

import ndpgpu
from ndpgpu.frontend import nvcc
from ndpgpu.frontend.ir import Reg
from ndpgpu.frontend.parser import parse_ptx
from ndpgpu.mechanisms.llc.chains import (
    DEFAULT_SQ_BYTES,
    SHARED_MEMORY_BYTES,
    chain_coverage,
    find_chains,
    omni_allowed,
    reply_of,
)
from ndpgpu.mechanisms.llc.cli import resolve

needs_nvcc = pytest.mark.skipif(not nvcc.nvcc_available(), reason="nvcc and a host C++ compiler are needed")


def _kernel(body: str, params: str = "", regs: str = "", extra: str = "", name: str = "k"):
    """A one-kernel PTX module, parsed; returns (function, text)."""
    text = f""".version 7.0
.target sm_75
.address_size 64
{extra}
.visible .entry {name}({params})
{{
	.reg .pred %p<8>;
	.reg .b16 %rs<8>;
	.reg .b32 %r<40>;
	.reg .f32 %f<20>;
	.reg .f64 %fd<8>;
	.reg .b64 %rd<40>;
{regs}
{body}
	ret;
}}
"""
    return parse_ptx(text).functions[name], text


_P3 = ".param .u64 p_a, .param .u64 p_b, .param .u64 p_c"
_TID = """	mov.u32 %r1, %tid.x;
	mul.wide.s32 %rd2, %r1, 4;
"""

# Fig. 6 as nvcc emits it: each load/store preceded by its own offset calculation.
FIG6 = _TID + """	ld.param.u64 %rd3, [p_a];
	add.u64 %rd4, %rd3, %rd2;
	ld.global.s32 %r15, [%rd4+0];
	ld.param.u64 %rd5, [p_b];
	add.u64 %rd6, %rd5, %rd2;
	ld.global.s32 %r16, [%rd6+0];
	add.s32 %r17, %r15, %r16;
	ld.param.u64 %rd7, [p_c];
	add.u64 %rd8, %rd7, %rd2;
	st.global.s32 [%rd8+0], %r17;
"""


def _chains(body: str, params: str = _P3, **kw):
    fn, _ = _kernel(body, params, **kw)
    return find_chains(fn)


# -- Fig. 6 ---------------------------------------------------------------------------------------------


def test_fig6_one_pattern1_chain_tagged_and_hoisted():
    fn, _ = _kernel(FIG6, _P3)
    t = find_chains(fn)
    assert len(t.chains) == 1
    c = t.chains[0]
    assert c.pattern == 1 and c.reply == "ack" and c.reply_flits == 1
    assert c.tags == ("01", "10", "10", "11")
    assert [fn.body[i].opcode for i in c.instrs] == ["ld", "ld", "add", "st"]
    assert c.ptx[0].startswith("ld.global.s32") and c.ptx[-1].startswith("st.global.s32")
    # the offset calculations of b and c (ld.param + add) sit inside the chain and are hoisted above it
    assert c.hoisting_needed
    assert [fn.body[i].opcode for i in c.hoisted] == ["ld", "add", "ld", "add"]
    assert all(fn.body[i].line for i in c.hoisted)
    assert c.store == c.instrs[-1] and len(c.loads) == 2
    assert c.pcs == c.instrs  # no calls: trace PCs are instruction indices
    assert t.tags() == dict(zip(c.instrs, c.tags, strict=True))


# -- reply sizes, Omni rule ------------------------------------------------------------------------------


def test_reply_sizes_per_pattern():
    assert {p: reply_of(p) for p in range(1, 10)} == {
        1: ("ack", 1), 2: ("data", 5), 3: ("ack", 1), 4: ("ack", 1), 5: ("bitmap", 1), 6: ("bitmap", 1),
        7: ("ack", 1), 8: ("data", 5), 9: ("ack", 1)}
    with pytest.raises(ValueError):
        reply_of(10)


def test_omni_shared_memory_rule():
    assert SHARED_MEMORY_BYTES == 48 * 1024
    assert omni_allowed(0)
    assert omni_allowed(SHARED_MEMORY_BYTES - DEFAULT_SQ_BYTES)
    assert not omni_allowed(SHARED_MEMORY_BYTES - DEFAULT_SQ_BYTES + 1)
    assert not omni_allowed(40 * 1024, sq_bytes=10 * 1024)
    # a kernel with a 47 KB shared array: chains stay tagged for LLC-Compute, none for Omni-Compute
    body = "\tmov.u32 %r30, big;\n" + FIG6
    fn, _ = _kernel(body, _P3, regs="\t.shared .align 4 .b8 big[48128];")
    t = find_chains(fn)
    assert t.smem_bytes == 48128 and not t.omni_allowed
    assert t.tags("llc") and t.tags("omni") == {}
    assert find_chains(fn, smem_bytes=0).tags("omni")


# -- each pattern on hand-written PTX --------------------------------------------------------------------

_PATTERNS = {
    # 2: c = f(a, b) kept in a register (used after)
    2: _TID + """	ld.param.u64 %rd3, [p_a];
	add.s64 %rd4, %rd3, %rd2;
	ld.param.u64 %rd5, [p_b];
	add.s64 %rd6, %rd5, %rd2;
	ld.global.f32 %f1, [%rd4];
	ld.global.f32 %f2, [%rd6];
	mul.f32 %f3, %f1, %f2;
	add.f32 %f4, %f3, %f3;
	ld.param.u64 %rd7, [p_c];
	add.s64 %rd8, %rd7, %rd2;
	st.global.f32 [%rd8], %f4;
""",
    # 4: c = f(a): one load, a unary op, a store
    4: _TID + """	ld.param.u64 %rd3, [p_a];
	add.s64 %rd4, %rd3, %rd2;
	ld.param.u64 %rd5, [p_b];
	add.s64 %rd6, %rd5, %rd2;
	ld.global.f32 %f1, [%rd4];
	neg.f32 %f2, %f1;
	st.global.f32 [%rd6], %f2;
""",
    # 8: d = f(a, g(b, i)) kept in a register
    8: _TID + """	ld.param.u64 %rd3, [p_a];
	add.s64 %rd4, %rd3, %rd2;
	ld.param.u64 %rd5, [p_b];
	add.s64 %rd6, %rd5, %rd2;
	ld.global.f32 %f1, [%rd4];
	ld.global.f32 %f2, [%rd6];
	sub.f32 %f3, %f2, 0f3F800000;
	mul.f32 %f4, %f1, %f3;
	mov.b32 %r20, %f4;
	ld.param.u64 %rd7, [p_c];
	add.s64 %rd8, %rd7, %rd2;
	st.global.u32 [%rd8], %r20;
""",
}


@pytest.mark.parametrize("pattern", sorted(_PATTERNS))
def test_hand_written_patterns(pattern):
    t = _chains(_PATTERNS[pattern])
    assert [c.pattern for c in t.chains] == [pattern]
    c = t.chains[0]
    assert c.tags[0] == "01" and c.tags[-1] == "11" and set(c.tags[1:-1]) <= {"10"}
    assert (c.reply, c.reply_flits) == reply_of(pattern)


def test_split_fma_is_pattern2_with_accumulator_at_core():
    """sum += a[i] * b[i]: fma(a, b, acc) offloads only the mul (data reply); acc stays at the core."""
    body = _TID + """	ld.param.u64 %rd3, [p_a];
	add.s64 %rd4, %rd3, %rd2;
	ld.param.u64 %rd5, [p_b];
	add.s64 %rd6, %rd5, %rd2;
	mov.f32 %f9, 0f00000000;
	ld.global.f32 %f1, [%rd4];
	ld.global.f32 %f2, [%rd6];
	fma.rn.f32 %f9, %f1, %f2, %f9;
	ld.param.u64 %rd7, [p_c];
	add.s64 %rd8, %rd7, %rd2;
	st.global.f32 [%rd8], %f9;
"""
    # %f9 (the accumulator) comes from a mov of an immediate; make it a core register instead
    body = body.replace("mov.f32 %f9, 0f00000000;", "cvt.rn.f32.s32 %f9, %r1;")
    t = _chains(body)
    assert [c.pattern for c in t.chains] == [2]
    c = t.chains[0]
    assert c.split_fma and c.reply == "data" and len(c.instrs) == 3


# -- suppression -----------------------------------------------------------------------------------------


def test_reused_load_stays_untagged():
    body = FIG6 + """	ld.param.u64 %rd9, [p_c];
	add.s64 %rd10, %rd9, 4096;
	add.s64 %rd11, %rd10, %rd2;
	st.global.s32 [%rd11], %r15;
"""
    t = _chains(body)
    assert not any(c.pattern == 1 for c in t.chains)
    assert any("reuse" in r.reason and r.pattern == 1 for r in t.rejected)
    # the reused load %r15 is in no chain
    fn, _ = _kernel(body, _P3)
    ld15 = next(i for i, ins in enumerate(fn.body) if ins.opcode == "ld" and ins.operands[0] == Reg("%r15"))
    assert ld15 not in find_chains(fn).tags()


def test_reuse_inside_the_chain_window_is_rejected():
    body = FIG6.replace("\tadd.s32 %r17, %r15, %r16;\n", "\tadd.s32 %r17, %r15, %r16;\n\tadd.s32 %r18, %r15, 1;\n")
    body += "\tst.global.s32 [%rd4+4], %r18;\n"
    t = _chains(body)
    assert not any(c.pattern == 1 for c in t.chains)


@pytest.mark.parametrize("op, word", [("sqrt.rn.f32 %f3, %f1;", "SFU"), ("rcp.rn.f32 %f3, %f1;", "SFU"),
                                      ("ex2.approx.f32 %f3, %f1;", "SFU")])
def test_sfu_op_is_not_a_chain(op, word):
    body = _TID + f"""	ld.param.u64 %rd3, [p_a];
	add.s64 %rd4, %rd3, %rd2;
	ld.param.u64 %rd5, [p_b];
	add.s64 %rd6, %rd5, %rd2;
	ld.global.f32 %f1, [%rd4];
	{op}
	st.global.f32 [%rd6], %f3;
"""
    t = _chains(body)
    assert t.chains == []
    assert any(word in r.reason for r in t.rejected)


def test_f64_chain_is_not_tagged():
    body = _TID.replace("%r1, 4", "%r1, 8") + """	ld.param.u64 %rd3, [p_a];
	add.s64 %rd4, %rd3, %rd2;
	ld.param.u64 %rd5, [p_b];
	add.s64 %rd6, %rd5, %rd2;
	ld.global.f64 %fd1, [%rd4];
	ld.global.f64 %fd2, [%rd6];
	add.f64 %fd3, %fd1, %fd2;
	ld.param.u64 %rd7, [p_c];
	add.s64 %rd8, %rd7, %rd2;
	st.global.f64 [%rd8], %fd3;
"""
    t = _chains(body)
    assert t.chains == []


def test_shared_memory_loads_are_not_chains():
    body = """	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.s32 %r4, %r3, %r2;
	ld.shared.f32 %f1, [%r4];
	ld.shared.f32 %f2, [%r4+4];
	add.f32 %f3, %f1, %f2;
	st.shared.f32 [%r4+8], %f3;
	setp.eq.f32 %p1, %f1, %f2;
"""
    t = _chains(body, regs="\t.shared .align 4 .b8 buf[1024];")
    assert t.chains == []


def test_barrier_inside_is_rejected():
    body = FIG6.replace("\tadd.s32 %r17, %r15, %r16;\n", "\tbar.sync 0;\n\tadd.s32 %r17, %r15, %r16;\n")
    t = _chains(body)
    assert not any(c.pattern == 1 for c in t.chains)
    assert any("barrier" in r.reason for r in t.rejected)


def test_store_inside_is_rejected():
    body = FIG6.replace("\tadd.s32 %r17, %r15, %r16;\n",
                        "\tst.global.s32 [%rd4+64], %r1;\n\tadd.s32 %r17, %r15, %r16;\n")
    t = _chains(body)
    assert not any(c.pattern == 1 for c in t.chains)
    assert any("global store inside" in r.reason for r in t.rejected)


def test_loads_in_different_blocks_are_not_one_chain():
    body = FIG6.replace("\tadd.s32 %r17, %r15, %r16;\n", "$L1:\n\tadd.s32 %r17, %r15, %r16;\n")
    t = _chains(body)
    assert not any(c.pattern == 1 for c in t.chains)


# -- the llc suite's kernels -----------------------------------------------------------------------------

_MICRO = {"llc_vecadd": 1, "llc_copy": 3, "llc_compare": 5, "llc_density": 6, "llc_norm": 7}


@needs_nvcc
def test_microbenchmark_patterns():
    from ndpgpu.workloads.base import get_workload

    cls = get_workload("llc_vecadd_aligned")
    module = ndpgpu.RawModule(path=str(cls.source_paths()[0]), options=cls.options)
    for kernel, pattern in _MICRO.items():
        t = find_chains(module.ir.functions[kernel], module.get_function(kernel).program())
        assert [c.pattern for c in t.chains] == [pattern], kernel
        c = t.chains[0]
        assert c.tags[0] == "01" and c.tags[-1] == "11"
    vecadd = find_chains(module.ir.functions["llc_vecadd"])
    assert vecadd.chains[0].tags == ("01", "10", "10", "11") and vecadd.chains[0].hoisting_needed


@needs_nvcc
@pytest.mark.parametrize("name", ["llc_triad", "llc_triad_splitfma"])
def test_triad_is_pattern9(name):
    """nvcc contracts A[i] + s*B[i] into fma(B, s, A): a mul by the scalar plus an add of a load, both
    offloaded (pattern 9); the split-FMA variant has a separate mul and add."""
    from ndpgpu.workloads.base import get_workload

    cls = get_workload(name)
    module = ndpgpu.RawModule(path=str(cls.source_paths()[0]), options=cls.options)
    (k,) = [k for k in module.kernel_names]
    t = find_chains(module.ir.functions[k], module.get_function(k).program())
    assert [c.pattern for c in t.chains] == [9]
    assert t.chains[0].scalar is not None and not t.chains[0].split_fma


def test_resolve_abbreviations():
    assert resolve("TRIAD") == "llc_triad"
    assert resolve("TRIAD", offload_variant=True) == "llc_triad_splitfma"
    assert resolve("llc_triad", offload_variant=True) == "llc_triad_splitfma"
    assert resolve("foo.cu") == "foo.cu"


@needs_nvcc
def test_vecadd_dynamic_share_hand_count():
    """tiny: n = 4000, 16 blocks of 256 threads = 128 warps. Warps 0..124 are full and run the whole body
    (22 instructions, 4 of them the chain); warps 125..127 branch out after 10 and run ``ret`` (11). Every
    global memory record (2 loads + 1 store per full warp) belongs to the chain."""
    from ndpgpu.workloads.base import get_workload
    from ndpgpu.workloads.runner import _module_for, run_workload

    run = run_workload("llc_vecadd_aligned", "tiny", trace=True)
    (tr,) = run.device.traces
    module = _module_for(get_workload("llc_vecadd_aligned"))
    fn = module.ir.functions["llc_vecadd"]
    assert len(fn.body) == 22
    t = find_chains(fn, module.get_function("llc_vecadd").program())
    cov = chain_coverage(tr, t.chains)
    assert cov.instructions == 125 * 22 + 3 * 11
    assert cov.chain_instructions == 125 * 4
    assert cov.mem_requests == 125 * 3 and cov.chain_mem_requests == 125 * 3
    assert cov.instruction_share == pytest.approx(500 / 2783) and cov.mem_share == 1.0
    with pytest.raises(ValueError):
        chain_coverage(tr, find_chains(module.ir.functions["llc_copy"]).chains)


def test_cli_on_a_ptx_file(tmp_path, capsys):
    from ndpgpu.cli import main

    _, text = _kernel(FIG6, _P3)
    path = tmp_path / "fig6.ptx"
    path.write_text(text)
    assert main(["analyze", "llc", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    assert "pattern 1 ack (1 flit)" in out and "[01]" in out and "[11]" in out and "hoisted" in out
