"""Determinism, multi-launch state, instruction caps and the watchdog."""

from __future__ import annotations

import pytest
from tracegen import pointer_chase, streaming_read

from ndpgpu.timing import SimulationStalled, TimingSession, load_machine

LINES = [(1 << 32) + 128 * 53 * i for i in range(8)]


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_two_runs_give_identical_rows(name):
    tr = streaming_read(20, 256, 4, store=True)
    a = TimingSession(name).run_launch(tr).rows()
    b = TimingSession(name).run_launch(tr).rows()
    assert a == b


def test_multi_launch_keeps_l2_warm_and_invalidates_l1():
    sess = TimingSession("gtx480")
    tr = pointer_chase(LINES + LINES)  # each launch: 8 misses, then 8 L1 hits
    first = sess.run_launch(tr)
    second = sess.run_launch(tr)
    assert first.get("l1d", "hits") == second.get("l1d", "hits") == 8  # L1 starts cold each launch
    assert first.get("l2", "hits") == 0
    assert second.get("l2", "hits") == 8  # L2 kept its lines
    assert second.get("dram", "reads") == 0
    assert second.cycles < first.cycles
    tot = sess.totals()
    assert tot.get("l2", "hits") == 8 and tot.get("kernel", "launches") == 2
    assert tot.cycles == first.cycles + second.cycles


def test_instruction_cap_stops_at_the_cap():
    cap = 1000
    m = load_machine("gtx480", {"sim.max_warp_instructions": cap})
    sess = TimingSession(m)
    st = sess.run_launch(streaming_read(60, 512, 8))
    assert st.capped and st.get("kernel", "capped") == 1
    wi = st.get("kernel", "warp_instructions")
    # the cap is checked after each core cycle, in which every scheduler may issue once
    assert cap <= wi < cap + m.core.num_sms * m.core.sub_cores * m.core.issue_width
    later = sess.run_launch(streaming_read(4, 64, 2))  # the session stopped: later launches do nothing
    assert later.get("kernel", "warp_instructions") == 0 and later.capped


def test_watchdog_raises_with_a_state_summary():
    """A DRAM whose tRCD exceeds the watchdog: nothing progresses while the row opens."""
    m = load_machine("gtx480", {"dram.timing.tRCD": 1000, "sim.watchdog_cycles": 100, "dram.refresh": False,
                                "l2.rop_latency": 10, "dram.controller_latency": 10})  # both below the watchdog
    with pytest.raises(SimulationStalled) as ei:
        TimingSession(m).run_launch(pointer_chase(LINES[:2]))
    s = ei.value.summary
    assert "watchdog" in str(ei.value)
    assert s["warps"]["pending_loads"] == 1
    assert sum(s["dram_queue"].values()) == 1
    assert s["l2_mshrs_in_use"] == 1 and sum(s["l1_mshrs_in_use"].values()) == 1
