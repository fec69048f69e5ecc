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


def test_refresh_is_not_progress():
    """The same stuck row with refresh on, every few cycles: refreshes must not keep the watchdog from firing
    (a channel whose requests can never be served still refreshes on time)."""
    m = load_machine("gtx480", {"dram.timing.tRCD": 1000, "sim.watchdog_cycles": 100, "dram.refresh": True,
                                "dram.timing.tREFI": 40, "dram.timing.tRFC": 10,
                                "l2.rop_latency": 10, "dram.controller_latency": 10})
    with pytest.raises(SimulationStalled) as ei:
        TimingSession(m).run_launch(pointer_chase(LINES[:2]))
    assert "watchdog" in str(ei.value)
    assert sum(ei.value.summary["dram_queue"].values()) == 1


def test_l2_dram_protocol_cycle_is_broken():
    """Tiny DRAM and return queues with more reads in flight than they hold, every fill evicting a dirty line:
    a channel's queue fills with reads whose slice's return queue is full, and that slice's next fill needs
    the channel for its write-back. This used to wait forever (then stop at the watchdog); the write-back now
    takes the channel's room beyond its queue and reads that cannot return are not scheduled, so the kernel
    completes, and moves exactly its data: every line read once, every dirty line that left the 2-KB slices
    written once (docs/timing.md, "No L2/DRAM protocol cycle")."""
    m = load_machine("gtx480", {"dram.scheduler.queue_size": 4, "l2.return_queue": 1, "l2.size_kb": 2,
                                "l2.mshr_entries": 64, "sim.watchdog_cycles": 20000})
    lines = 120 * 8 * 4
    st = TimingSession(m).run_launch(streaming_read(120, 256, 4, store=True))
    met = {(p, n): v for p, n, v, _ in st.rows()}
    assert met[("dram", "read_bytes")] == lines * 128
    # each slice holds 16 lines; the 3,840 stored lines are dirty and only those still in the L2 stay there
    held = m.num_slices * 16
    assert (lines - held) * 128 <= met[("dram", "write_bytes")] <= lines * 128


def test_an_l2_whose_fills_cannot_reply_is_refused():
    """A fill replies to every request merged into its MSHR at once, into the slice's output queue
    (response_queue + latency entries): with fewer entries than mshr_merge the slice could stop for good."""
    from ndpgpu.timing import MachineConfigError

    with pytest.raises(MachineConfigError, match="mshr_merge"):
        load_machine("gtx480", {"l2.response_queue": 2, "l2.latency": 1, "l2.mshr_merge": 4})
    assert load_machine("gtx480", {"l2.response_queue": 3, "l2.latency": 1, "l2.mshr_merge": 4}).l2.response_queue == 3
