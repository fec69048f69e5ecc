"""Warp schedulers observed through the number of resident warps over time.

Four warps of one CTA on one SM with one scheduler each issue 100 independent adds (one instruction per
cycle at most). GTO keeps issuing the oldest warp until it stalls, so warps finish one after another
every ~100 cycles; LRR rotates every cycle, so all four finish together at ~400; two-level with an
active pool of two interleaves warps 0 and 1 (done at ~200), then 2 and 3.
"""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import alu_chain

from ndpgpu.timing import TimingSession

N = 100


def _resident_warps(impl: str) -> tuple[np.ndarray, np.ndarray, int]:
    trace = alu_chain(N, dependent=False, warps=4)
    sess = TimingSession("gtx480", overrides={
        "core.num_sms": 1, "core.sub_cores": 1, "core.scheduler.impl": impl, "core.scheduler.active_warps": 2,
        "sim.time_series_interval": 1})
    st = sess.run_launch(trace)
    assert st.c("WARP_INSTS") == 4 * (N + 1)
    ts = st.time_series
    return ts["cycle"], ts["active_warps"], st.cycles


def _at(cycles: np.ndarray, warps: np.ndarray, c: int) -> int:
    return int(warps[np.searchsorted(cycles, c)])


@pytest.mark.parametrize("impl, at150, at250", [("gto", 3, 2), ("lrr", 4, 4), ("two_level", 4, 2)])
def test_scheduler_order_shows_in_resident_warps(impl: str, at150: int, at250: int) -> None:
    cycles, warps, total = _resident_warps(impl)
    assert _at(cycles, warps, 50) == 4
    assert _at(cycles, warps, 150) == at150
    assert _at(cycles, warps, 250) == at250
    # one instruction per cycle whatever the order: every policy finishes the 404 issues in ~404 cycles
    assert 4 * (N + 1) <= total <= 4 * (N + 1) + 40
