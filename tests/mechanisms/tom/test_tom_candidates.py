"""TOM's cost model and offload-candidate pass: the paper's worked example, the restrictions and counting
rules on hand-written PTX, LIB's Fig. 4 loops as nvcc compiles them, invariants on all ten TOM workloads,
and ``ndpgpu analyze tom``."""

from __future__ import annotations

import json
import math

import pytest

from ndpgpu.analysis import analyze
from ndpgpu.analysis.cfg import branch_target
from ndpgpu.analysis.liveness import range_is_single_entry
from ndpgpu.frontend import nvcc
from ndpgpu.frontend.ir import Function
from ndpgpu.frontend.parser import parse_ptx
from ndpgpu.mechanisms.tom.candidates import (
    METADATA_BITS_PER_ENTRY,
    Candidate,
    CandidateTable,
    disallowed,
    find_candidates,
    pc_map,
)
from ndpgpu.mechanisms.tom.cost import CostParams, bw_per_thread, bw_per_warp, min_trips

needs_nvcc = pytest.mark.skipif(not nvcc.nvcc_available(), reason="nvcc and a host C++ compiler are needed")

# ---------------------------------------------------------------------------------------------------------
# Cost model (acceptance check 1)


@pytest.mark.parametrize("trips, tx, rx, total", [
    (1, 126.5, -16.25, 110.25),
    (3, None, None, 10.75),
    (4, 26.0, -65.0, -39.0),
    (5, -7.5, None, None),
])
def test_worked_example_of_the_paper(trips, tx, rx, total):
    """REG_TX 5, REG_RX 0, one load and one store per trip (section 3.1, Fig. 4)."""
    got_tx, got_rx = bw_per_warp(5, 0, trips, trips)
    if tx is not None:
        assert got_tx == tx
    if rx is not None:
        assert got_rx == rx
    if total is not None:
        assert got_tx + got_rx == total


def test_worked_example_threshold_is_four_trips():
    assert min_trips(5, 0, 0, 0, 1, 1) == 4
    totals = [sum(bw_per_warp(5, 0, t, t)) for t in range(1, 8)]
    assert [t < 0 for t in totals] == [False, False, False, True, True, True, True]


@pytest.mark.parametrize("reg_tx, reg_rx, n_ld, n_st", [(5, 0, 1, 1), (0, 0, 0, 0), (3, 7, 11, 2), (26, 4, 0, 9)])
def test_closed_forms(reg_tx, reg_rx, n_ld, n_st):
    assert bw_per_thread(reg_tx, reg_rx, n_ld, n_st) == (reg_tx - n_ld - 2 * n_st, reg_rx - n_ld - n_st / 4)
    tx, rx = bw_per_warp(reg_tx, reg_rx, n_ld, n_st)
    assert tx == 32 * reg_tx - 0.5 * n_ld - 33 * n_st
    assert rx == 32 * reg_rx - 16 * n_ld - 0.25 * n_st
    # Eqs. 3-4 with one thread per warp, one word per line and every load missing are Eqs. 1-2
    one = CostParams(warp_size=1, line_over_addr=1, coal_ld=1, coal_st=1, miss_ld=1)
    assert bw_per_warp(reg_tx, reg_rx, n_ld, n_st, one) == bw_per_thread(reg_tx, reg_rx, n_ld, n_st)


@pytest.mark.parametrize("args", [
    (5, 0, 0, 0, 1, 1), (6, 0, 0, 0, 1, 1), (4, 0, 0, 0, 1, 1), (12, 3, 2, 0, 0, 1), (9, 1, 0, 0, 2, 0),
    (0, 0, 1, 0, 0, 0), (40, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0), (199, 0, 0, 0, 1, 1),
])
def test_min_trips_is_the_smallest_saving_count(args):
    reg_tx, reg_rx, ld0, st0, ld1, st1 = args
    saving = [t for t in range(1, 400) if sum(bw_per_warp(reg_tx, reg_rx, ld0 + t * ld1, st0 + t * st1)) < 0]
    assert min_trips(*args) == (saving[0] if saving else None)


def test_min_trips_is_exact_at_break_even():
    # 199 units * 32 = 6368 = 128 trips * 49.75: the total is exactly 0 at T = 128, which does not save
    assert sum(bw_per_warp(199, 0, 128, 128)) == 0
    assert min_trips(199, 0, 0, 0, 1, 1) == 129


def test_cost_params_are_validated_and_change_the_model():
    with pytest.raises(ValueError, match="miss_ld"):
        CostParams(miss_ld=1.5)
    with pytest.raises(ValueError, match="warp_size"):
        CostParams(warp_size=0)
    with pytest.raises(ValueError, match="coal_ld"):
        CostParams(coal_ld=0)
    aggressive = CostParams(miss_ld=1.0)
    assert min_trips(5, 0, 0, 0, 1, 1, aggressive) < min_trips(5, 0, 0, 0, 1, 1)


# ---------------------------------------------------------------------------------------------------------
# Hand-written PTX


REGS = """    .reg .pred %p<16>;
    .reg .b32 %r<64>;
    .reg .b64 %rd<64>;
    .reg .f32 %f<32>;
"""


def ptx_text(body: str, name: str = "k") -> str:
    params = ("u64", "u64", "u32", "f32")
    plist = ",\n".join(f"    .param .{t} {name}_param_{i}" for i, t in enumerate(params))
    return (f".version 8.0\n.target sm_75\n.address_size 64\n\n.visible .entry {name}(\n{plist}\n)\n{{\n{REGS}\n"
            f"{body}\n}}\n")


def kernel(body: str) -> Function:
    return parse_ptx(ptx_text(body)).functions["k"]


PROLOGUE = """
    ld.param.u64 %rd1, [k_param_0];
    ld.param.u32 %r2, [k_param_2];
    ld.param.f32 %f1, [k_param_3];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, 0;
"""


def loop_kernel(bound: str = "%r2", extra: str = "", after: str = "") -> Function:
    """One loop: load L[i], scale, store L[i]; ``extra`` goes inside the body, ``after`` after the loop."""
    return kernel(loop_body(bound, extra, after))


def loop_body(bound: str = "%r2", extra: str = "", after: str = "") -> str:
    """The body of :func:`loop_kernel`'s kernel."""
    return (PROLOGUE + f"""
    setp.lt.s32 %p1, %r2, 1;
    @%p1 bra DONE;
LOOP:
    mul.wide.s32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    mul.f32 %f3, %f2, %f1;
    {extra}
    st.global.f32 [%rd4], %f3;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p2, %r1, {bound};
    @%p2 bra LOOP;
    {after}
DONE:
    ret;
""")


def one_candidate(table: CandidateTable) -> Candidate:
    assert len(table.candidates) == 1, table.candidates
    return table.candidates[0]


def test_entry_loop_is_a_conditional_candidate_with_the_papers_threshold():
    """Live-in: the base pointer (64-bit: 2), the counter, the bound and the scale factor = 5 units, no
    live-out, one load and one store per trip: the paper's example, offloaded from 4 trips on."""
    fn = loop_kernel()
    table = find_candidates(fn)
    c = one_candidate(table)
    loop = fn.labels["LOOP"]
    assert (c.begin, c.end) == (loop, fn.labels["DONE"])
    assert c.live_in == ("%f1", "%r1", "%r2", "%rd2")
    assert (c.reg_tx, c.reg_rx, c.live_out) == (5, 0, ())
    assert (c.n_ld_fixed, c.n_st_fixed, c.n_ld_iter, c.n_st_iter) == (0, 0, 1, 1)
    assert (c.trip, c.trip_count, c.tmin, c.conditional) == ("entry", None, 4, True)
    assert c.header_pc == c.begin_pc == loop
    assert c.bandwidth() == (26.0, -65.0) == c.bandwidth(4)
    assert sum(c.bandwidth(3)) == 10.75 and c.bandwidth(1) == (126.5, -16.25)
    assert c.tag() == (False, True) and c.tag(5) == (True, True)
    assert table.metadata_bits() == METADATA_BITS_PER_ENTRY == 258


def test_static_loop_is_scaled_by_its_count():
    fn = loop_kernel(bound="10")
    c = one_candidate(find_candidates(fn))
    assert (c.trip, c.trip_count, c.tmin, c.conditional) == ("static", 10, None, False)
    assert (c.n_ld_fixed, c.n_st_fixed, c.n_ld_iter, c.n_st_iter) == (10, 10, 0, 0)
    assert c.reg_tx == 4  # the bound is a constant now
    tx, rx = c.bandwidth()
    assert (tx, rx) == (128 - 10 * 33.5, -10 * 16.25)
    assert c.bandwidth(1) == (tx, rx)  # nothing is symbolic


def test_unknown_loop_counts_once():
    fn = kernel(PROLOGUE + """
LOOP:
    ld.global.u32 %r5, [%rd2];
    st.global.u32 [%rd2+4], %r5;
    st.global.u32 [%rd2+8], %r5;
    add.s64 %rd2, %rd2, 4;
    setp.ne.s32 %p2, %r5, 0;
    @%p2 bra LOOP;
    ret;
""")
    table = find_candidates(fn)
    (c,) = [c for c in table.candidates if c.header_pc is not None]
    assert (c.trip, c.trip_count, c.n_ld_fixed, c.n_st_fixed, c.n_ld_iter) == ("unknown", None, 1, 2, 0)
    assert (c.live_in, c.reg_tx, c.live_out) == (("%rd2",), 2, ())
    assert not c.conditional and sum(c.bandwidth()) == 64 - 16.5 - 2 * 33.25


NESTED = PROLOGUE + """
OUTER:
    mov.u32 %r3, 0;
INNER:
    add.s32 %r4, %r1, %r3;
    mul.wide.s32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    mul.f32 %f3, %f2, %f1;
    st.global.f32 [%rd4], %f3;
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p2, %r3, 4;
    @%p2 bra INNER;
    ld.global.f32 %f4, [%rd2];
    st.global.f32 [%rd2+4], %f4;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p3, %r1, %r2;
    @%p3 bra OUTER;
    ret;
"""


def test_static_inner_loop_is_multiplied_into_the_outer_iteration_and_overlaps_lose():
    fn = kernel(NESTED)
    table = find_candidates(fn)
    c = one_candidate(table)
    assert c.begin == fn.labels["OUTER"] and c.trip == "entry"
    assert (c.n_ld_fixed, c.n_st_fixed, c.n_ld_iter, c.n_st_iter) == (0, 0, 4 + 1, 4 + 1)
    assert c.tmin == min_trips(c.reg_tx, c.reg_rx, 0, 0, 5, 5)
    inner = [r for r in table.rejected if r.origin == "loop INNER"]
    assert len(inner) == 1 and "overlaps candidate #0" in inner[0].reason
    assert inner[0].bw_tx is not None and inner[0].bw_tx + inner[0].bw_rx < 0  # it would have saved too


@pytest.mark.parametrize("extra, why", [
    ("st.shared.f32 [%rd4], %f3;", "shared-memory access"),
    ("ld.shared.f32 %f5, [%rd4];", "shared-memory access"),
    ("bar.sync 0;", "barrier"),
    ("membar.gl;", "memory fence"),
    ("atom.global.add.u32 %r9, [%rd4], 1;", "atomic"),
    ("red.global.add.u32 [%rd4], 1;", "atomic reduction"),
    ("ld.f32 %f5, [%rd4];", "generic-address access"),
])
def test_disallowed_instructions_are_never_inside_a_candidate(extra, why):
    fn = loop_kernel(bound="10", extra=extra)
    bad = next(i for i, ins in enumerate(fn.body) if disallowed(ins))
    assert why in disallowed(fn.body[bad])
    table = find_candidates(fn)
    assert all(not c.begin <= bad < c.end for c in table.candidates)
    (loop,) = [r for r in table.rejected if r.origin == "loop LOOP"]
    assert f"contains {fn.body[bad].full} ({why}" in loop.reason


def test_a_branch_leaving_the_region_rejects_it():
    """A break past the code after the loop grows the loop to the break's target (test_tom_regions.py), unless
    that takes in an instruction a block may not hold: here a barrier."""
    early_exit = "setp.eq.f32 %p3, %f3, 0f00000000;\n    @%p3 bra DONE;"
    fn = loop_kernel(bound="10", extra=early_exit, after="bar.sync 0;\n    st.global.f32 [%rd2], %f1;")
    table = find_candidates(fn)
    (loop,) = [r for r in table.rejected if r.origin == "loop LOOP"]
    assert "leaves the region" in loop.reason and "closing it would take in bar.sync" in loop.reason
    assert all(c.header_pc is None for c in table.candidates)


def test_a_branch_to_the_region_end_is_allowed():
    """A break that goes exactly to the end of the loop keeps it closed (two exits: unknown count)."""
    stores = "".join(f"st.global.f32 [%rd4+{4 * k}], %f3;\n    " for k in range(1, 5))
    fn = loop_kernel(bound="10", extra=stores + "setp.eq.f32 %p3, %f3, 0f00000000;\n    @%p3 bra DONE;")
    c = one_candidate(find_candidates(fn))
    assert c.end == fn.labels["DONE"] and c.trip == "unknown" and (c.n_ld_fixed, c.n_st_fixed) == (1, 5)


def test_regions_without_loads_or_stores_are_rejected():
    fn = kernel(PROLOGUE + """
LOOP:
    add.s32 %r1, %r1, 1;
    mul.f32 %f1, %f1, %f1;
    setp.lt.s32 %p2, %r1, 100;
    @%p2 bra LOOP;
    ret;
""")
    table = find_candidates(fn)
    assert table.candidates == [] and table.metadata_bits() == 0
    assert table.rejected and all(r.reason == "no global or local load or store" for r in table.rejected)


def test_register_units_specials_and_tag():
    """64-bit registers count 2, predicates 1, %tid.x 1 (live-in); live-outs in units too. Barriers end the
    block on both sides (a closed span would otherwise take in the prologue and the tail)."""
    fn = kernel(PROLOGUE + """
    setp.ne.s32 %p1, %r2, 0;
    bar.sync 0;
BODY:
    mov.u32 %r3, %tid.x;
    @%p1 st.global.u32 [%rd2], %r2;
""" + "".join(f"    st.global.u32 [%rd2+{4 * k}], %r3;\n" for k in range(1, 10)) + """
    add.s64 %rd3, %rd2, 64;
    bar.sync 0;
TAIL:
    st.global.u32 [%rd3], %r3;
    ret;
""")
    c = one_candidate(find_candidates(fn))
    assert (c.begin, c.end) == (fn.labels["BODY"], fn.labels["TAIL"] - 1)
    assert c.live_in == ("%p1", "%r2", "%rd2", "%tid.x") and c.reg_tx == 1 + 1 + 2 + 1
    assert c.live_out == ("%r3", "%rd3") and c.reg_rx == 1 + 2
    assert (c.n_st_fixed, c.n_ld_fixed, c.trip, c.header_pc) == (10, 0, "none", None)
    assert c.bandwidth() == (5 * 32 - 10 * 33, 3 * 32 - 10 * 0.25)
    assert c.tag() == (True, False)


def test_vector_accesses_count_once_and_param_const_loads_are_free():
    fn = kernel(PROLOGUE + """
    bar.sync 0;
BODY:
    ld.param.u32 %r7, [k_param_2];
    ld.global.v4.f32 {%f4, %f5, %f6, %f7}, [%rd2];
    st.global.v4.f32 [%rd2+16], {%f4, %f5, %f6, %f7};
    st.global.v2.f32 [%rd2+32], {%f4, %f5};
    st.global.f32 [%rd2+40], %f6;
    st.global.u32 [%rd2+44], %r7;
    ret;
""")
    c = one_candidate(find_candidates(fn))
    assert (c.n_ld_fixed, c.n_st_fixed) == (1, 4) and c.live_in == ("%rd2",)


def test_live_register_cap():
    fn = loop_kernel()
    table = find_candidates(fn, max_live_regs=3)
    assert table.candidates == []
    (loop,) = [r for r in table.rejected if r.origin == "loop LOOP"]
    assert loop.reason == "4 live registers > 3" and loop.live_regs == 4


def test_pcs_follow_the_decoded_program():
    fn = loop_kernel()
    assert pc_map(fn) == list(range(len(fn.body) + 1))
    text = ptx_text(PROLOGUE + "    call.uni f, ();\n    ret;")
    text = text.replace(".visible .entry", ".func f()\n{\n    ret;\n}\n\n.visible .entry")
    with pytest.raises(ValueError, match="pass program="):
        find_candidates(parse_ptx(text).functions["k"])


# ---------------------------------------------------------------------------------------------------------
# nvcc-compiled kernels


def compiled(code: str):
    import ndpgpu

    return ndpgpu.RawModule(code=code)


CALL_THEN_LOOP = r"""
__device__ __noinline__ float scale(float x, float s) { return x * s; }
extern "C" __global__ void k(float *a, const float *b, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = scale(b[i], s);
#pragma unroll 1
  for (int j = 0; j < n; j++) a[i + j * 64] += b[j] * s;
}
"""


@needs_nvcc
def test_candidate_pcs_after_a_call_are_trace_pcs():
    import ndpgpu

    mod = compiled(CALL_THEN_LOOP)
    fn = mod.ir.functions["k"]
    program = mod.get_function("k").program(ndpgpu.Device())
    with pytest.raises(ValueError):
        find_candidates(fn)
    table = find_candidates(fn, program)
    (c,) = [c for c in table.candidates if c.trip == "entry"]
    assert c.begin_pc > c.begin  # the call's argument and result copies come before it
    assert c.end_pc - c.begin_pc == c.end - c.begin
    for k in range(c.end - c.begin):
        assert int(program.line_of_pc[c.begin_pc + k]) == fn.body[c.begin + k].line
    assert c.header_pc == c.begin_pc and c.conditional


FIG4_RUNTIME = r"""
extern "C" __global__ void fig4(float *Lg, float v, float b, float delta, int Nmat, int N) {
  float *L = Lg + (blockIdx.x * blockDim.x + threadIdx.x) * N;
  float *L_b = L;
#pragma unroll 1
  for (int n = 0; n < Nmat; n++) L_b[n] = -v * delta / (1.0f + delta * L[n]);
#pragma unroll 1
  for (int n = Nmat; n < N; n++) L_b[n] = b * L_b[n];
}
"""


@needs_nvcc
def test_fig4_loops_with_run_time_bounds_are_conditional():
    """The paper's LIB loops with bounds known at loop entry (kernel parameters): two conditional
    candidates, one load and one store per trip, nothing live-out."""
    mod = compiled(FIG4_RUNTIME)
    table = find_candidates(mod.ir.functions["fig4"])
    assert len(table.candidates) == 2
    for c in table.candidates:
        assert c.conditional and c.live_out == () and c.reg_rx == 0
        assert (c.n_ld_fixed, c.n_st_fixed, c.n_ld_iter, c.n_st_iter) == (0, 0, 1, 1)
        assert c.tmin == min_trips(c.reg_tx, 0, 0, 0, 1, 1)
        assert sum(c.bandwidth(c.tmin)) < 0 <= sum(c.bandwidth(c.tmin - 1))
    assert [c.reg_tx for c in table.candidates] == FIG4_RUNTIME_REG_TX
    assert [c.tmin for c in table.candidates] == [math.floor(32 * r / 49.75) + 1 for r in FIG4_RUNTIME_REG_TX]


FIG4_RUNTIME_REG_TX = [6, 5]


@pytest.fixture(scope="module")
def tom_modules():
    """Every TOM workload's module (compiled once, nvcc-cached) with a decoded program per kernel."""
    import ndpgpu
    from ndpgpu.mechanisms.tom.cli import load_module
    from ndpgpu.workloads.tom import TOM_WORKLOADS

    if not nvcc.nvcc_available():
        pytest.skip("nvcc and a host C++ compiler are needed")
    dev = ndpgpu.Device()
    out = {}
    for name in TOM_WORKLOADS.values():
        mod, _ = load_module(name)
        out[name] = (mod, {k: mod.get_function(k).program(dev) for k in mod.kernel_names})
    return out


@needs_nvcc
def test_libor_candidates_under_the_tom_compilation_rule(tom_modules):
    """LIB as the TOM workloads compile (``TOM_NVCC_OPTIONS``: no loop unrolled). Each kernel's candidate is
    its path loop: per-thread L[], L2[], z[] stay in local memory, so it holds 13 (forward) and 17 (adjoint)
    live registers, under the cap of 32 (nvcc 13's default fully unrolled the forward sweep and kept L[] in
    registers: 202 live registers). The path loop's count is not known at entry (unknown: counted once).
    The Fig. 4 loops (portfolio_b's last two) are static 40-trip loops with the paper's 5 live-in units in
    the first (the counter, the local base, v, b and delta; 4 registers, the base 64-bit) and nothing
    live-out; they are not candidates because they lie inside the path loop, which saves more."""
    from ndpgpu.workloads.base import get_workload
    from ndpgpu.workloads.tom import TOM_NVCC_OPTIONS

    assert get_workload("libor").options == TOM_NVCC_OPTIONS
    mod, programs = tom_modules["libor"]
    got = {}
    for kernel in ("libor_forward", "libor_adjoint"):
        table = find_candidates(mod.ir.functions[kernel], programs[kernel])
        (c,) = table.candidates
        body = mod.ir.functions[kernel].body
        assert c.trip == "unknown" and c.live_out == () and c.live_regs <= 32
        assert any(body[i].has("local") for i in range(c.begin, c.end) if body[i].opcode in ("ld", "st"))
        got[kernel] = (c.live_regs, table)
    assert got["libor_forward"][0] == 13 and got["libor_adjoint"][0] == 17
    fig4 = [r for r in got["libor_adjoint"][1].rejected if r.origin.startswith("loop")
            and r.bw_rx == -40 * 16.25 and r.reason.startswith("overlaps candidate #0")]
    first, second = fig4[-2:]
    assert first.end_pc <= second.begin_pc
    assert (first.bw_tx, first.live_regs) == (5 * 32 - 40 * 33.5, 4)  # 5 units: the paper's REG_TX
    assert (second.bw_tx, second.live_regs) == (4 * 32 - 40 * 33.5, 3)


@needs_nvcc
def test_scalarprod_candidate_and_its_trip_counts(tom_modules):
    """SP under the TOM rule: the inner product loop (two loads a trip) is a conditional candidate with 5 live
    registers (7 live-in units, 1 live-out: the running sum). tmin = floor(8 x 32 / (2 x 16.5)) + 1 = 8; at the
    SDK's sizes each thread runs elementN / ACCUM_N = 4096 / 1024 = 4 trips (tiny: 2), below it, so the cost
    model offloads none of them (the default 4x unroll gave one trip against tmin 2: the same verdict)."""
    from ndpgpu.workloads.base import get_workload

    mod, programs = tom_modules["scalarprod_nounroll"]
    (c,) = find_candidates(mod.ir.functions["scalar_prod"], programs["scalar_prod"]).candidates
    assert (c.trip, c.conditional, c.n_ld_iter, c.n_st_iter, c.n_ld_fixed, c.n_st_fixed) == ("entry", True, 2, 0, 0, 0)
    assert (c.live_regs, c.reg_tx, c.reg_rx) == (5, 7, 1)
    assert c.tmin == math.floor(8 * 32 / 33) + 1 == 8
    scales = get_workload("scalarprod_nounroll").scales
    assert [p["element_n"] // 1024 for p in scales.values()] == [2, 4, 4]
    assert all(p["element_n"] // 1024 < c.tmin for p in scales.values())


# workloads with at least one candidate (nvcc 13, sm_75): BP's blocks are split by shared memory and
# barriers and none of its pieces saves bandwidth
WITH_CANDIDATES = {"bfs_rodinia_nounroll", "cfd", "fastwalsh_nounroll", "heartwall", "kmeans_nounroll", "libor",
                   "ray", "reduction", "scalarprod_nounroll"}


@needs_nvcc
def test_invariants_on_every_tom_kernel(tom_modules):
    with_candidates = set()
    for name, (mod, programs) in tom_modules.items():
        for kname, program in programs.items():
            fn = mod.ir.functions[kname]
            table = find_candidates(fn, program)
            cands = table.candidates
            if cands:
                with_candidates.add(name)
            assert len(cands) <= 40 and table.metadata_bits() == 258 * len(cands)
            an = analyze(fn)
            for k, c in enumerate(cands):
                where = f"{name}/{kname} #{k}"
                assert c.index == k and c.kernel == kname, where
                if k:
                    assert cands[k - 1].end <= c.begin, where  # sorted, no overlap
                assert c.end_pc - c.begin_pc == c.end - c.begin > 0, where
                assert [int(program.line_of_pc[c.begin_pc + j]) for j in range(c.end - c.begin)] == \
                    [fn.body[i].line for i in range(c.begin, c.end)], where
                assert not any(disallowed(fn.body[i]) for i in range(c.begin, c.end)), where
                assert range_is_single_entry(an.cfg, c.begin, c.end), where
                for i in range(c.begin, c.end):
                    if fn.body[i].opcode == "bra":
                        target = fn.labels[branch_target(fn.body[i])]
                        assert c.begin <= target <= c.end, where
                assert c.live_regs <= 32, where
                assert set(c.live_out) == an.liveness.range_live_out(c.begin, c.end), where
                assert sum(c.bandwidth()) < 0, where
                if c.conditional:
                    assert c.tmin == 1 or sum(c.bandwidth(c.tmin - 1)) >= 0, where
                if c.header_pc is not None:
                    assert c.begin_pc <= c.header_pc < c.end_pc, where
    assert with_candidates == WITH_CANDIDATES


# ---------------------------------------------------------------------------------------------------------
# ndpgpu analyze tom


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    from ndpgpu.cli import main

    rc = main(["analyze", "tom", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_on_a_ptx_file(tmp_path, capsys):
    path = tmp_path / "loop.ptx"
    path.write_text(ptx_text(loop_body()))
    rc, out, _ = run_cli(capsys, str(path), "--format", "json", "--all")
    assert rc == 0
    data = json.loads(out)
    (kern,) = data["kernels"]
    assert kern["kernel"] == "k" and kern["metadata_bits"] == 258 and kern["rejected"]
    (row,) = kern["candidates"]
    assert (row["tmin"], row["bw_tx"], row["bw_rx"], row["bw_total"], row["tag"]) == (4, 26.0, -65.0, -39.0, "R")
    assert row["conditional"] and row["reg_tx"] == 5 and row["live_out"] == []
    rc, out, _ = run_cli(capsys, str(path), "--all")
    assert rc == 0
    assert "k: 1 candidate(s), metadata table 258 bits" in out and "entry" in out and "not candidates:" in out


@needs_nvcc
def test_cli_on_a_workload(capsys):
    rc, out, _ = run_cli(capsys, "LIB", "--kernel", "libor_adjoint")
    assert rc == 0
    assert "libor_adjoint: 1 candidate(s), metadata table 258 bits" in out and "unknown" in out


@pytest.mark.parametrize("argv, message", [
    (("missing.cu",), "no such file: missing.cu"),
    (("no_such_workload",), "'no_such_workload' is neither a .cu/.ptx file nor a registered workload"),
])
def test_cli_errors(capsys, argv, message):
    rc, _, err = run_cli(capsys, *argv)
    assert rc != 0 and "AnalyzeError" in err and message in err


@needs_nvcc
@pytest.mark.parametrize("argv, message", [
    (("libor", "--kernel", "nope"), "no kernel 'nope'; the module's kernels are libor_forward, libor_adjoint"),
    (("libor", "--scale", "huge"), "has no scale 'huge'"),
])
def test_cli_errors_on_workloads(capsys, argv, message):
    rc, _, err = run_cli(capsys, *argv)
    assert rc != 0 and "AnalyzeError" in err and message in err
