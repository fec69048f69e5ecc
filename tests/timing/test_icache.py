"""The instruction cache (``l1i``) and kernel-parameter loads through the constant cache (``l1c.kernel_params``).

Rules (docs/timing.md, "Fetch and decode"; engine/icache.py): instruction ``pc`` of the first kernel sits at
``l1i.code_base + 8 pc``, so a 128-B line holds 16 instructions and line ``n`` of the code is instructions
16n .. 16n + 15, in set ``n % 4`` of the default 2-KB, 4-way L1I. The fetch stage looks up the line of a warp's
next instruction; a miss reads it from the L2 and the warp fetches nothing until it returns. Expected counts
are derived here by hand.
"""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession
from ndpgpu.timing.spec import load_machine

LINE_INSTS = 16  # 128-B lines of 8-B instructions
BASE = {"core.num_sms": 1, "core.sub_cores": 1, "core.ibuffer": 2}
ICACHE = {**BASE, "l1i.enabled": True}


def straight(n: int, ctas: int = 1) -> object:
    """``n`` independent adds (pcs 0 .. n-1, one trace segment), then ``exit`` (pc n); one warp per CTA."""
    b = TraceBuilder("straight", ctas, 32)
    body = [b.op("add.s32", "int", dst=(10 + r % 8,), src=(1,)) for r in range(n)]
    ex = b.op("exit", "branch")
    for w in range(ctas):
        for pc in body:
            b.run(w, pc)
        b.run(w, ex)
    return b.build()


def loop(body_len: int, passes: int) -> object:
    """One warp runs a loop body of ``body_len`` adds (pcs 0 .. body_len-1) ``passes`` times, then ``exit``."""
    b = TraceBuilder("loop", 1, 32)
    body = [b.op("add.s32", "int", dst=(10 + r % 8,), src=(1,)) for r in range(body_len)]
    ex = b.op("exit", "branch")
    for _ in range(passes):
        for pc in body:
            b.run(0, pc)
    b.run(0, ex)
    return b.build()


def _run(trace, **over):
    return TimingSession("gtx480", overrides=over).run_launch(trace)


@pytest.mark.parametrize("n", [15, 16, 47, 100])
def test_straight_code_misses_once_per_line(n: int) -> None:
    """n + 1 instructions span ceil((n + 1) / 16) lines: one miss each, every other fetch a hit. Without
    ``fill_to_fetch`` the warp fetches again after each fill (a hit), so accesses = fetches + misses."""
    k = -(-(n + 1) // LINE_INSTS)
    st = _run(straight(n), **ICACHE)
    fetches = st["core.issue.fetches"]
    assert st["l1i.misses"] == k
    assert st["l1i.hits"] == fetches
    assert st["l1i.accesses"] == fetches + k
    assert st["l1i.mshr_merges"] == 0
    # the fill goes straight to the fetch: no second access
    st2 = _run(straight(n), **ICACHE, **{"l1i.fill_to_fetch": True})
    assert st2["l1i.misses"] == k
    assert st2["l1i.accesses"] == st2["core.issue.fetches"]
    assert st2["l1i.hits"] == st2["core.issue.fetches"] - k


def test_a_second_warps_miss_merges_into_the_pending_line() -> None:
    """Four warps on one SM run the same 3-line code in step: each line is requested once (the other warps'
    misses on it merge into its MSHR, as GPGPU-Sim's read-only cache merges them), and DRAM reads it once."""
    n = 40
    k = -(-(n + 1) // LINE_INSTS)
    st = _run(straight(n, ctas=4), **ICACHE, **{"pcie.place_in_l2": False})
    assert st["l1i.misses"] - st["l1i.mshr_merges"] == k
    assert st["l1i.mshr_merges"] > 0
    assert st["dram.read_bytes"] == k * 128


def test_warps_at_a_barrier_are_fetched_with_fetch_at_barrier() -> None:
    """Sixteen warps of one CTA run an add and meet at a barrier (one fetch: add, bar), then two adds and
    exit. Without ``core.fetch_at_barrier`` the released warps are fetched one a cycle after the release;
    with it their buffers were filled while they waited: the same fetches, fewer cycles."""
    b = TraceBuilder("bar", 1, 32 * 16)
    a0 = b.op("add.s32", "int", dst=(10,), src=(1,))
    bar = b.op("bar.sync", "barrier")
    a1 = b.op("add.s32", "int", dst=(11,), src=(1,))
    a2 = b.op("add.s32", "int", dst=(12,), src=(1,))
    ex = b.op("exit", "branch")
    for w in range(16):
        for pc in (a0, bar, a1, a2, ex):
            b.run(w, pc)
    tr = b.build()
    over = {**BASE, "core.sub_cores": 2}
    off = _run(tr, **over)
    on = _run(tr, **over, **{"core.fetch_at_barrier": True})
    assert on["core.issue.fetches"] == off["core.issue.fetches"]
    assert on.cycles < off.cycles


def test_misses_cost_time() -> None:
    """The same code with the cache off: the same fetches, and every miss only adds cycles."""
    tr = straight(47)
    off = _run(tr, **BASE)
    on = _run(tr, **ICACHE)
    assert off["l1i.accesses"] == 0
    assert on.c("WARP_INSTS") == off.c("WARP_INSTS") == 48
    assert on.cycles > off.cycles + 3 * 50  # three misses, each at least an L2 round trip


def test_every_sm_misses_and_dram_is_read_once() -> None:
    """Eight CTAs on eight SMs run the same 3-line code: each SM misses each line once (24 misses); the L2
    fetches each line from DRAM once and serves the other SMs' misses."""
    ctas, n = 8, 40
    k = -(-(n + 1) // LINE_INSTS)
    st = _run(straight(n, ctas), **{**ICACHE, "core.num_sms": ctas, "pcie.place_in_l2": False})
    assert st["l1i.misses"] == ctas * k
    assert st["dram.read_bytes"] == k * 128


def test_a_loop_that_fits_misses_only_on_its_first_pass() -> None:
    """A 40-instruction loop plus exit: 3 lines, 1.5% of the 2-KB cache; 10 passes still take 3 misses."""
    st = _run(loop(40, 10), **ICACHE)
    assert st["l1i.misses"] == 3
    assert st.c("WARP_INSTS") == 401


@pytest.mark.parametrize("passes", [1, 3])
def test_a_loop_bigger_than_the_cache_thrashes(passes: int) -> None:
    """A 320-instruction body is 20 lines, five per set of a 4-way cache: under LRU a cyclic walk over five
    lines of a set evicts each before its reuse, so every pass misses all 20 lines (8 fetches a line, the
    first a miss); exit (pc 320) adds line 20."""
    st = _run(loop(320, passes), **ICACHE)
    assert st["l1i.misses"] == 20 * passes + 1


def test_the_cache_stays_warm_across_launches() -> None:
    """GPGPU-Sim never invalidates its L1I: a second launch of the same kernel on the same SM hits."""
    sess = TimingSession("gtx480", overrides=ICACHE)
    tr = straight(47)
    first = sess.run_launch(tr)
    second = sess.run_launch(tr)
    assert first["l1i.misses"] == 3
    assert second["l1i.misses"] == 0
    # a second kernel is laid out after the first: its code misses again
    b = TraceBuilder("other", 1, 32)
    ex = b.op("exit", "branch")
    b.run(0, ex)
    assert sess.run_launch(b.build())["l1i.misses"] == 1


@pytest.mark.parametrize("over", [{}, {"core.ibuffer": 2}])
def test_off_is_bit_identical(over: dict) -> None:
    """The features absent and explicitly off: the same configuration hash and the same statistics."""
    tr = straight(47, ctas=4)
    base = {"core.num_sms": 2, **over}
    off = {**base, "l1i.enabled": False, "l1c.kernel_params": False, "l1c.keep_across_launches": False,
           "core.fetch_at_barrier": False}
    assert load_machine("gtx480", base).config_hash() == load_machine("gtx480", off).config_hash()
    assert load_machine("gtx480").config_hash() == load_machine("gtx480", {"l1i.enabled": False}).config_hash()
    a, b = _run(tr, **base), _run(tr, **off)
    assert a.rows() == b.rows()
    assert a.cycles == b.cycles


def param_kernel(ctas: int) -> object:
    """One warp per CTA: ``ld.param`` (offset 0), an add that uses it (so the warp waits for it), a second
    ``ld.param`` (offset 4, the same 64-B constant line), exit."""
    b = TraceBuilder("params", ctas, 32)
    p0 = b.op("ld.param.u32", "load", dst=(10,), space="param", width=4)
    use = b.op("add.s32", "int", dst=(11,), src=(10,))
    p1 = b.op("ld.param.u32", "load", dst=(12,), space="param", width=4)
    ex = b.op("exit", "branch")
    for w in range(ctas):
        for pc in (p0, use, p1, ex):
            b.run(w, pc)
    return b.build()


@pytest.mark.parametrize("ctas", [1, 6])
def test_param_reads_miss_once_per_sm_then_hit(ctas: int) -> None:
    """Each SM's first parameter load misses the constant cache (its line is cold: no copy writes it), the
    second, after the fill, hits; the L2 reads the line from DRAM once for all SMs."""
    over = {"core.num_sms": ctas, "l1c.kernel_params": True, "pcie.place_in_l2": False}
    st = _run(param_kernel(ctas), **over)
    assert st["const.accesses"] == 2 * ctas
    assert st["const.misses"] == ctas
    assert st["const.hits"] == ctas
    assert st["dram.read_bytes"] == 64
    off = _run(param_kernel(ctas), **{**over, "l1c.kernel_params": False})
    assert off["const.accesses"] == 0
    assert st.cycles > off.cycles


@pytest.mark.parametrize("keep", [False, True])
def test_a_second_launch_finds_the_parameters(keep: bool) -> None:
    """The L2 keeps the parameter line: a second launch's first loads hit there. With
    ``l1c.keep_across_launches`` (GPGPU-Sim invalidates only its L1D) they hit in the constant cache itself."""
    over = {"core.num_sms": 2, "l1c.kernel_params": True, "l1c.keep_across_launches": keep}
    sess = TimingSession("gtx480", overrides=over)
    first = sess.run_launch(param_kernel(2))
    second = sess.run_launch(param_kernel(2))
    assert first["const.misses"] == 2 and second["dram.read_bytes"] == 0
    assert second["const.misses"] == (0 if keep else 2)
    assert second["const.hits"] == (4 if keep else 2)


def test_param_offsets_follow_the_loads() -> None:
    """Parameters are taken in PC order, each aligned to its width: 4, 8, 8, 4 bytes -> 0, 8, 16, 24."""
    from ndpgpu.timing.build import param_offsets

    b = TraceBuilder("p", 1, 32)
    pcs = [b.op("ld.param.u32", "load", dst=(10,), space="param", width=4),
           b.op("add.s32", "int", dst=(11,), src=(10,)),
           b.op("ld.param.u64", "load", dst=(12,), space="param", width=8),
           b.op("ld.param.u64", "load", dst=(13,), space="param", width=8),
           b.op("ld.param.u32", "load", dst=(14,), space="param", width=4)]
    tr = b.build()
    assert param_offsets(tr.static, 0) == {pcs[0]: 0, pcs[2]: 8, pcs[3]: 16, pcs[4]: 24}
    assert param_offsets(tr.static, 20)[pcs[3]] == 8  # kept inside a 20-byte buffer


def test_needs_a_fetch_stage() -> None:
    with pytest.raises(Exception, match="ibuffer"):
        load_machine("gtx480", {"l1i.enabled": True})


def test_overlays_turn_both_on_and_v100_gpgpusim_off() -> None:
    for name in ("gtx480-gpgpusim", "gtx480-gpgpusim3", "gtx480+gpgpusim"):
        m = load_machine(name)
        assert m.inst_cache_on and m.params_in_const_cache and m.core.ibuffer == 2
        assert (m.l1i.num_sets, m.l1i.assoc, m.l1i.line_bytes) == (4, 4, 128)
    assert load_machine("gtx480-gpgpusim").l1i.fill_to_fetch
    assert not load_machine("gtx480-gpgpusim3").l1i.fill_to_fetch
    v = load_machine("v100-gpgpusim")
    assert not v.inst_cache_on and not v.params_in_const_cache
    assert not load_machine("gtx480").inst_cache_on


def _in_module(trace, offset: int, module_insts: int, module_id: str = "m"):
    """``trace`` stamped as a kernel ``offset`` instructions into a module of ``module_insts`` (GPGPU-Sim's layout)."""
    trace.launch.code_offset = offset
    trace.launch.module_insts = module_insts
    trace.launch.module_id = module_id
    return trace


@pytest.mark.parametrize("offset,lines", [(0, 1), (8, 2), (16, 1), (27, 2)])
def test_a_kernel_sits_where_gpgpusim_assembles_it_in_its_module(offset: int, lines: int) -> None:
    """15 adds and exit (16 instructions) at ``offset`` instructions into their module: one 128-B line when the
    offset is a multiple of 16, two otherwise (a kernel after a 27-instruction one, as `transpose_shared` after
    `transpose_naive`, starts at byte 216)."""
    st = TimingSession("gtx480", overrides=ICACHE).run_launch(_in_module(straight(15), offset, 64))
    assert st["l1i.misses"] == lines


def test_modules_are_laid_out_whole_in_the_order_of_their_first_launch() -> None:
    """Module A (40 instructions) is launched first and sits at instruction 0; module B after it, at 40. Kernels of
    16 instructions: A's at 0 is line 0; B's at 8 is instructions 48-63, line 3; A's other at 16 is line 1; each a
    miss on first launch and a hit after. (All three traces name the same kernel: a layout by kernel would put
    them in one place, and the second and third would hit.)"""
    sess = TimingSession("gtx480", overrides=ICACHE)
    misses = [sess.run_launch(_in_module(straight(15), off, 40, mod))["l1i.misses"]
              for off, mod in [(0, "A"), (8, "B"), (16, "A"), (0, "A"), (8, "B"), (16, "A")]]
    assert misses == [1, 1, 1, 0, 0, 0]


def test_the_frontend_lays_out_a_module_in_ptx_order() -> None:
    """Every defined function in the order the PTX defines it, one slot per instruction (labels none); a declaration
    without a body takes none."""
    from ndpgpu.frontend.parser import parse_ptx

    ptx = """
.version 8.0
.target sm_75
.address_size 64
.func (.param .b32 r) g(.param .b32 a);
.visible .entry first()
{
    .reg .b32 %r<4>;
    mov.u32 %r1, 1;
L1:
    add.s32 %r1, %r1, 1;
    ret;
}
.func (.param .b32 r) g(.param .b32 a)
{
    .reg .b32 %r<2>;
    ld.param.b32 %r1, [a];
    st.param.b32 [r], %r1;
    ret;
}
.visible .entry second()
{
    ret;
}
"""
    offsets, total = parse_ptx(ptx).code_layout()
    assert offsets == {"first": 0, "g": 3, "second": 6}
    assert total == 7


def test_a_traced_launch_says_where_its_kernel_sits_in_its_module() -> None:
    """`transpose_shared`'s module defines `transpose_naive` first: the traced launch carries the naive kernel's
    instruction count as its offset (GPGPU-Sim placed it at byte 216, 27 instructions, with nvcc 13's PTX) and its
    module's size and identity."""
    from ndpgpu.workloads.runner import run_workload

    run = run_workload("transpose_shared", "tiny", trace=True)
    launch = run.device.traces[0].launch
    ir = run.module.ir
    naive = next(f for n, f in ir.functions.items() if "transpose_naive" in n)
    shared = next(f for n, f in ir.functions.items() if "transpose_shared" in n)
    assert launch.code_offset == len(naive.body) > 0
    assert launch.module_insts == len(naive.body) + len(shared.body)
    assert len(launch.module_id) == 16
