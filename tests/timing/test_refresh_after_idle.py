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


@pytest.mark.parametrize("machine", ["gtx480", "tom-baseline"])
def test_work_left_by_a_launch_before_a_long_copy_does_not_trip_the_watchdog(machine: str) -> None:
    """Write-throughs still queued when a kernel ends are served when the next launch runs, at their own
    (earlier) times; their progress must not make the watchdog count from before the launch's start (CFD and
    KM at paper scale stalled after a device-to-host copy between launches)."""
    writer = streaming_read(num_ctas=60, threads=256, loads_per_thread=8, store=True)
    reader = streaming_read(num_ctas=60, threads=256, loads_per_thread=8, base=1 << 34)  # lines the writer left alone
    sess = TimingSession(machine, overrides={"pcie.place_in_l2": False})
    sess.run_launch(writer)
    copy = sess.copy(64 << 20, "d2h", addr=1 << 40)  # longer than the watchdog's 200,000 cycles
    assert copy["time_ns"] * 1e-9 * sess.machine.clocks.core_mhz * 1e6 > sess.machine.sim.watchdog_cycles
    after = sess.run_launch(reader)
    ref = TimingSession(machine, overrides={"pcie.place_in_l2": False})
    ref.run_launch(writer)
    plain = ref.run_launch(reader)  # the same two launches without the copy between them
    assert after.get("dram", "read_bytes") == plain.get("dram", "read_bytes")
    assert after.cycles == pytest.approx(plain.cycles, rel=0.10)
