"""DRAM refresh after a long idle stretch (a host copy before the launch): the intervals slept through
were refreshed in the background, so the kernel does not start with a backlog of refreshes."""

from __future__ import annotations

import pytest
from tracegen import streaming_read

from ndpgpu.timing import TimingSession


@pytest.mark.parametrize("machine", ["gtx480", "v100"])
def test_a_long_copy_before_the_launch_does_not_stall_the_kernel(machine: str) -> None:
    trace = streaming_read(num_ctas=60, threads=256, loads_per_thread=8)
    plain = TimingSession(machine, overrides={"pcie.place_in_l2": False}).run_launch(trace)
    sess = TimingSession(machine, overrides={"pcie.place_in_l2": False})
    copy = sess.copy(256 << 20, "h2d", addr=1 << 40)  # 256 MB: tens of milliseconds, thousands of tREFI
    assert copy["time_ns"] > 10e6
    after = sess.run_launch(trace)
    # same work; only the refresh phase and the rows left open differ (a few percent either way).
    # Before the background accounting, thousands of overdue refreshes made it about 3x slower.
    assert after.cycles == pytest.approx(plain.cycles, rel=0.10)
    assert after.get("dram", "read_bytes") == plain.get("dram", "read_bytes")
