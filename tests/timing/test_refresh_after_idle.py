"""DRAM refresh after a long idle stretch (a host copy before the launch): the intervals slept through
were refreshed in the background, so the kernel does not start with a backlog of refreshes; at most
the one refresh that fell due as the channel woke is still to do."""

from __future__ import annotations

import pytest
from tracegen import streaming_read

from ndpgpu.timing import TimingSession, load_machine


@pytest.mark.parametrize("machine", ["gtx480", "v100"])
def test_a_long_copy_before_the_launch_does_not_stall_the_kernel(machine: str) -> None:
    trace = streaming_read(num_ctas=60, threads=256, loads_per_thread=8)
    plain = TimingSession(machine, overrides={"pcie.place_in_l2": False}).run_launch(trace)
    sess = TimingSession(machine, overrides={"pcie.place_in_l2": False})
    copy = sess.copy(256 << 20, "h2d", addr=1 << 40)  # 256 MB: tens of milliseconds, thousands of tREFI
    assert copy["time_ns"] > 10e6
    after = sess.run_launch(trace)
    # same work; the refresh phase differs: at most one refresh (tRFC) per channel more at the start.
    # (Before the background accounting, thousands of overdue refreshes made it 3x slower.)
    m = load_machine(machine)
    one_refresh = m.dram.timing.tRFC * m.clocks.core_mhz / m.clocks.dram_mhz
    assert plain.cycles * 0.98 <= after.cycles <= plain.cycles + one_refresh + 0.02 * plain.cycles
    assert after.get("dram", "read_bytes") == plain.get("dram", "read_bytes")
