"""The regions TOM's candidate pass considers (issue 43, item 4), against the paper's rule (section 3.1.4): a
block may hold control flow as long as every branch's destination stays inside it, so the threads of a warp
reconverge at its end; hand-written PTX with an if-then-else region and a loop left by a break."""

from __future__ import annotations

from test_tom_candidates import kernel, one_candidate

from ndpgpu.mechanisms.tom.candidates import find_candidates

HEAD = """
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r5, %tid.x;
    mul.wide.u32 %rd3, %r5, 4;
    bar.sync 0;
"""

IF_THEN_ELSE = HEAD + """
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    ld.global.f32 %f3, [%rd4+512];
    setp.gt.f32 %p1, %f2, %f3;
    @%p1 bra ELSE;
    st.global.f32 [%rd4+4], %f2;
    st.global.f32 [%rd4+8], %f3;
    bra JOIN;
ELSE:
    st.global.f32 [%rd4+12], %f2;
    st.global.f32 [%rd4+16], %f3;
JOIN:
    st.global.f32 [%rd4+20], %f2;
    st.global.f32 [%rd4+24], %f3;
    ret;
"""


def test_if_then_else_region_is_a_candidate():
    """After the barrier: two loads, a branch on a per-lane value, two stores in each arm and two after the
    join. No basic block saves alone (the arms read the loaded values: 2 live-ins of 3 units, 96 words,
    against 2 stores, 66), but the whole region does: live-in %rd2 and %rd3 (4 units), 2 loads and the 6
    stores it holds (each counted once, G9): BW_TX = 128 - 1 - 198 = -71, BW_RX = -32 - 1.5."""
    fn = kernel(IF_THEN_ELSE)
    table = find_candidates(fn)
    c = one_candidate(table)
    start = next(i for i, ins in enumerate(fn.body) if ins.opcode == "bar") + 1
    assert (c.begin, c.end) == (start, len(fn.body) - 1)  # up to the ret
    assert c.live_in == ("%rd2", "%rd3") and c.live_out == ()
    assert (c.n_ld_fixed, c.n_st_fixed) == (2, 6)
    assert c.bandwidth() == (128 - 1 - 6 * 33, -32 - 1.5)
    blocks = [r for r in table.rejected if r.origin.startswith("block")]
    assert blocks and all(r.bw_tx is None or r.bw_tx + r.bw_rx >= 0 or "overlaps" in r.reason for r in blocks)


LOOP_WITH_BREAK = HEAD + """
    add.s64 %rd4, %rd2, %rd3;
    ld.param.f32 %f1, [k_param_3];
    mov.u32 %r1, 0;
LOOP:
    ld.global.f32 %f2, [%rd4];
    setp.gt.f32 %p3, %f2, 0f00000000;
    @%p3 bra OUT;
    st.global.f32 [%rd4+4], %f1;
    st.global.f32 [%rd4+8], %f1;
    st.global.f32 [%rd4+12], %f1;
    st.global.f32 [%rd4+16], %f1;
    add.s64 %rd4, %rd4, 4;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p2, %r1, 7;
    @%p2 bra LOOP;
    st.global.f32 [%rd4+20], %f1;
OUT:
    ret;
"""


def test_loop_left_by_a_break_is_closed_to_the_break_target():
    """The loop's break jumps past the code after the loop, so the loop alone is not a closed region; grown to
    the break's target (the module docstring's closing) it is, and it saves."""
    fn = kernel(LOOP_WITH_BREAK)
    table = find_candidates(fn)
    loop, out = fn.labels["LOOP"], fn.labels["OUT"]
    (c,) = [c for c in table.candidates if c.begin == loop]
    assert c.end == out
    assert c.n_st_fixed + c.n_st_iter * c.effective_trips() >= 5
    assert not [r for r in table.rejected if "leaves the region" in r.reason]


def test_a_region_with_a_loop_and_its_guard_is_not_a_span():
    """Closed spans are acyclic: a loop stays its own region (the paper's Fig. 4 candidates are loops), so
    the guard before it and the code after it are never taken in together with it."""
    fn = kernel(LOOP_WITH_BREAK.replace("    mov.u32 %r1, 0;\n", "    mov.u32 %r1, 0;\n    setp.lt.s32 %p4, %r5, 3;\n"
                                        "    @%p4 bra OUT;\n"))
    table = find_candidates(fn)
    loop = fn.labels["LOOP"]
    assert all(c.begin >= loop for c in table.candidates)
    assert not [r for r in table.rejected if r.origin.startswith("span") and r.begin < loop < r.end]
