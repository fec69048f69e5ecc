"""Stall attribution: every scheduler cycle that issues nothing is charged to one reason (docs/timing.md).

One SM with two sub-cores runs one CTA of two warps. Warp 0 (sub-core 0) meets the barrier at once; warp 1
(sub-core 1) first follows a chain of dependent loads to distinct lines, then meets the barrier. While warp 1
waits for memory, sub-core 0 has no active warp and one waiting at a barrier: those cycles are ``barrier``
(before 2026-12-03 they were held as ``scoreboard``, the reason a sub-core kept after a cycle that issued), and
sub-core 1's are ``memory``.
"""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession

STALLS = ("idle", "memory", "scoreboard", "barrier", "unit_busy", "ldst_busy", "memory_structural", "drain", "fetch")


def _barrier_behind_a_chase(loads: int) -> object:
    b = TraceBuilder("bar_chase", 1, 64)
    ld = b.op("ld.global.u64", "load", dst=(1,), src=(1,), space="global", width=8)
    bar = b.op("bar.sync", "barrier")
    ex = b.op("exit", "branch")
    b.run(0, bar)
    b.run(0, ex)
    for i in range(loads):
        b.run(1, ld, 1, addrs=[(1 << 32) + i * 4096] + [0] * 31)
    b.run(1, bar)
    b.run(1, ex)
    return b.build()


@pytest.mark.parametrize("loads", [2, 6])
def test_a_sub_core_waiting_at_a_barrier_counts_barrier(loads: int) -> None:
    st = TimingSession("gtx480", overrides={"core.num_sms": 1, "core.sub_cores": 2}).run_launch(
        _barrier_behind_a_chase(loads))
    stalls = {r: st[f"core.stalls.{r}"] for r in STALLS}
    # every scheduler cycle issued or stalled for exactly one reason
    assert sum(stalls.values()) + st["core.issue.issue_cycles"] == st["core.issue.scheduler_cycles"]
    # sub-core 1 waits for each load in turn; sub-core 0 waits at the barrier all that time
    assert stalls["memory"] > loads * 100
    assert stalls["barrier"] >= 0.95 * stalls["memory"]
    assert stalls["scoreboard"] < 0.05 * stalls["barrier"]
