"""The fetch stage (``core.ibuffer`` > 0): per-warp instruction buffers filled one warp per SM per cycle.

Rules (docs/timing.md, "Fetch and decode"): a warp whose buffer is empty is fetched, one warp per SM per
cycle (round robin, or the warp a mechanism gave priority), up to ``ibuffer`` instructions and never past
the end of its trace segment; they issue from the next cycle. Expected values are derived here by hand.
"""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession

ONE_SM = {"core.num_sms": 1, "core.sub_cores": 1}


def straight_line(blocks: int, warps: int = 1, block_len: int = 8) -> object:
    """Each warp runs ``blocks`` times a straight-line block of ``block_len`` independent adds (each block
    is a trace segment of its own: the loop jumps back), then ``exit`` (a segment of one)."""
    b = TraceBuilder("loop", 1, 32 * warps)
    ex = b.op("exit", "branch")  # pc 0: the jump to it ends the last block's segment
    body = [b.op("add.s32", "int", dst=(10 + r,), src=(1,)) for r in range(block_len)]
    for w in range(warps):
        for _ in range(blocks):
            for pc in body:
                b.run(w, pc)
        b.run(w, ex)
    return b.build()


def _cycles(trace, ibuffer: int, **extra) -> tuple[int, object]:
    sess = TimingSession("gtx480", overrides={**ONE_SM, "core.ibuffer": ibuffer, **extra})
    st = sess.run_launch(trace)
    return st.cycles, st


@pytest.mark.parametrize("blocks", [1, 4, 16])
def test_one_warp_pays_one_cycle_per_buffer_refill(blocks: int) -> None:
    """One warp, 8m independent adds then exit, ibuffer 2, issue width 1.

    Ideal front end: instruction i issues at t0 + i, exit at t0 + 8m. With the buffer: the warp finds it
    empty at t0, is fetched at t0 + 1, and each pair j issues at t0 + 2 + 3j and t0 + 3 + 3j (the emptied
    buffer is refilled the cycle after, issuable the cycle after that); the 4m pairs end at t0 + 12m, exit
    is fetched at t0 + 12m + 1 and issues at t0 + 12m + 2. The rest of the run (exit's latency, retiring)
    is the same, so the runs differ by exactly 4m + 2 cycles.
    """
    trace = straight_line(blocks)
    ideal, st0 = _cycles(trace, 0)
    fetched, st2 = _cycles(trace, 2)
    assert fetched - ideal == 4 * blocks + 2
    assert st0.c("WARP_INSTS") == st2.c("WARP_INSTS") == 8 * blocks + 1
    assert st2["core.issue.fetches"] == 4 * blocks + 1
    assert st0["core.issue.fetches"] == 0
    assert st2["core.stalls.fetch"] > 0


def test_a_fill_stops_at_a_control_flow_change() -> None:
    """Blocks of 3 instructions: with ibuffer 2 each block takes two fetches (2 + 1), never 1.5."""
    trace = straight_line(6, block_len=3)
    _, st = _cycles(trace, 2)
    assert st["core.issue.fetches"] == 6 * 2 + 1


@pytest.mark.parametrize("ibuffer", [1, 2])
def test_sm_issue_rate_is_bounded_by_fetch(ibuffer: int) -> None:
    """Many warps, two schedulers: an SM fetches one warp per cycle, so it issues at most ``ibuffer``
    instructions per cycle (with an ideal front end its two schedulers issue up to 2)."""
    trace = straight_line(32, warps=16)
    over = {"core.sub_cores": 2}
    cyc0, st0 = _cycles(trace, 0, **over)
    cyc, st = _cycles(trace, ibuffer, **over)
    insts = st.c("WARP_INSTS")
    assert insts == st0.c("WARP_INSTS") == 16 * (32 * 8 + 1)
    assert insts / cyc <= min(ibuffer, 2) + 1e-9
    assert st["core.issue.fetches"] <= cyc
    if ibuffer == 1:  # fetch-bound: within a few percent of one per cycle
        assert insts / cyc > 0.9
        assert cyc > 1.6 * cyc0


# ``core.branch_refetch`` (GPGPU-Sim's control hazard, docs/timing.md "Fetch and decode"): after a taken branch the
# warp's fetch group (when it had slots past the branch) or its next fetch (when the branch emptied the buffer)
# holds the instructions after the branch; the scheduler flushes them when it next looks at the warp, and only then
# is the target fetched. In ``straight_line`` every block ends in a jump (back to its start, or to exit at pc 0).


@pytest.mark.parametrize("blocks", [1, 4, 16])
def test_a_taken_branch_that_empties_the_buffer_costs_a_wrong_fetch_and_two_cycles(blocks: int) -> None:
    """Blocks of 8 adds, ibuffer 2: each block's last pair empties the buffer at its jump (issued at T). Without
    the rule the target is fetched at T + 1 and issues at T + 2. With it the fetch at T + 1 reads the instructions
    after the jump, the scheduler flushes them at T + 2, the target is fetched at T + 3 and issues at T + 4: two
    cycles and one fetch more per jump, ``blocks`` jumps (the last one to exit)."""
    trace = straight_line(blocks)
    plain, st0 = _cycles(trace, 2)
    refetch, st1 = _cycles(trace, 2, **{"core.branch_refetch": True})
    assert refetch - plain == 2 * blocks
    assert st1["core.issue.wrong_path_fetches"] == blocks
    assert st1["core.issue.fetches"] - st0["core.issue.fetches"] == blocks
    assert st0["core.issue.wrong_path_fetches"] == 0
    assert st1.c("WARP_INSTS") == st0.c("WARP_INSTS")


@pytest.mark.parametrize("blocks", [1, 6])
def test_a_taken_branch_first_in_its_group_is_flushed_the_next_cycle(blocks: int) -> None:
    """Blocks of 3 adds: fetches [1, 2] then [3, wrong]. After the jump (issued at T) the buffer still holds the
    wrong instruction; the scheduler flushes it at T + 1, the target is fetched at T + 2 and issues at T + 3,
    one cycle later than without the rule and with no fetch more."""
    trace = straight_line(blocks, block_len=3)
    plain, st0 = _cycles(trace, 2)
    refetch, st1 = _cycles(trace, 2, **{"core.branch_refetch": True})
    assert refetch - plain == blocks
    assert st1["core.issue.wrong_path_fetches"] == 0
    assert st1["core.issue.fetches"] == st0["core.issue.fetches"]


def test_straight_line_code_is_untouched() -> None:
    """One block, no jump but the one to exit: the only difference is that jump's."""
    b = TraceBuilder("line", 1, 32)
    body = [b.op("add.s32", "int", dst=(10 + r,), src=(1,)) for r in range(8)]
    ex = b.op("exit", "branch")
    for pc in body + [ex]:
        b.run(0, pc)
    trace = b.build()
    plain, st0 = _cycles(trace, 2)
    refetch, st1 = _cycles(trace, 2, **{"core.branch_refetch": True})
    assert refetch == plain
    assert st1["core.issue.fetches"] == st0["core.issue.fetches"]


def test_branch_refetch_needs_a_fetch_stage_and_both_gpgpusim_flavours_take_it() -> None:
    from ndpgpu.timing import load_machine

    trace = straight_line(4)
    ideal, _ = _cycles(trace, 0)
    assert _cycles(trace, 0, **{"core.branch_refetch": True})[0] == ideal  # an ideal front end has no refetch
    for name in ("gtx480-gpgpusim", "gtx480-gpgpusim3", "v100-gpgpusim"):
        assert load_machine(name).core.branch_refetch
    for name in ("gtx480", "v100", "llc-mesh", "ipndp-base8", "mpu"):
        assert not load_machine(name).core.branch_refetch


def test_a_fetch_group_runs_on_where_only_the_mask_changes() -> None:
    """Eight independent adds whose active mask alternates (each its own trace segment, at consecutive PCs), then
    exit at the next PC. A fetch that stops at every segment end decodes them one at a time: nine groups of one,
    each costing its fetch cycle and its issue cycle. GPGPU-Sim's fetch reads PCs and does not know masks, so with
    ``core.branch_refetch`` the groups are [0, 1] [2, 3] [4, 5] [6, 7] [exit]: four fetches fewer and four cycles
    fewer (a pair costs three cycles, two singles four)."""
    b = TraceBuilder("masks", 1, 32)
    body = [b.op("add.s32", "int", dst=(10 + r,), src=(1,)) for r in range(8)]
    ex = b.op("exit", "branch")
    for i, pc in enumerate(body):
        b.run(0, pc, 0xFFFFFFFF if i % 2 == 0 else 0x0000FFFF)
    b.run(0, ex)
    trace = b.build()
    assert len(trace.segments) == 9
    plain, st0 = _cycles(trace, 2)
    spans, st1 = _cycles(trace, 2, **{"core.branch_refetch": True})
    assert st0["core.issue.fetches"] == 9
    assert st1["core.issue.fetches"] == 5
    assert plain - spans == 4
    assert st1["core.issue.wrong_path_fetches"] == 0
    assert st1.c("WARP_INSTS") == st0.c("WARP_INSTS") == 9
