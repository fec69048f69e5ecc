"""GPGPU-Sim keeps its CTA round robin across kernel launches (``core.cta_dispatch.carry_round_robin``;
``m_last_cluster_issue``, set once per simulation): a launch's first CTA goes to the SM after the last one the
previous launch used. Checked on which SMs each launch's CTAs ran (the per-SM CTA counts)."""

from __future__ import annotations

import pytest
from tracegen import empty_kernel

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.engine.layout import SMS_CTAS


def sms_used(carry: bool, ctas: int, launches: int) -> list[list[int]]:
    s = TimingSession("gtx480", {"core.cta_dispatch.carry_round_robin": carry})
    trace = empty_kernel(ctas, 32)
    return [[int(sm) for sm in (s.run_launch(trace).per_sm[:, SMS_CTAS] > 0).nonzero()[0]] for _ in range(launches)]


def test_each_launch_starts_at_sm_0_without_it():
    assert sms_used(False, 12, 3) == [list(range(12))] * 3


def test_the_round_robin_carries_over():
    """15 SMs: 12 CTAs on SMs 0-11, then 12-14 and 0-8, then 9-14 and 0-5, as GPGPU-Sim places them."""
    used = sms_used(True, 12, 3)
    assert used[0] == list(range(12))
    assert used[1] == sorted([12, 13, 14, *range(9)])
    assert used[2] == sorted([*range(9, 15), *range(6)])


def test_first_sm_starts_the_first_launch_only():
    """GPGPU-Sim 3.2.2's m_last_cluster_issue starts at 0, so its first CTA goes to SM 1; later launches carry on."""
    s = TimingSession("gtx480", {"core.cta_dispatch.carry_round_robin": True, "core.cta_dispatch.first_sm": 1})
    trace = empty_kernel(12, 32)
    used = [sorted(int(sm) for sm in (s.run_launch(trace).per_sm[:, SMS_CTAS] > 0).nonzero()[0]) for _ in range(2)]
    assert used[0] == list(range(1, 13))
    assert used[1] == sorted([13, 14, *range(10)])


def test_first_sm_without_carry_starts_every_launch():
    s = TimingSession("gtx480", {"core.cta_dispatch.first_sm": 17})  # 17 mod 15 SMs: SM 2, as a round robin wraps
    trace = empty_kernel(3, 32)
    for _ in range(2):
        assert [int(x) for x in (s.run_launch(trace).per_sm[:, SMS_CTAS] > 0).nonzero()[0]] == [2, 3, 4]


@pytest.mark.parametrize("name", ["gtx480", "tom-baseline", "v100"])
def test_off_in_the_presets(name):
    """The presets keep every launch's round robin from SM 0 (their golden statistics)."""
    m = load_machine(name)
    assert not m.core.cta_dispatch.carry_round_robin and m.core.cta_dispatch.first_sm == 0


@pytest.mark.parametrize(("name", "first"), [("gtx480-gpgpusim", 0), ("gtx480+gpgpusim", 0), ("v100-gpgpusim", 0),
                                             ("gtx480-gpgpusim3", 1), ("gtx480+gpgpusim3", 1)])
def test_on_in_both_gpgpusim_flavours(name, first):
    """4.0.1 sets m_last_cluster_issue to the last cluster (first CTA on SM 0), 3.2.2 to 0 (first CTA on SM 1)."""
    m = load_machine(name)
    assert m.core.cta_dispatch.carry_round_robin and m.core.cta_dispatch.first_sm == first
