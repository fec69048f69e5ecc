"""CTA allocation: PACA's CTA i -> SM i, BCS's pairs, and round robin's timing-dependent regions (Fig. 2a)."""

from __future__ import annotations

import numpy as np
from tracegen import TraceBuilder

from ndpgpu.mechanisms.ipndp.dispatch import BlockCtaDispatch, PatternAwareDispatch
from ndpgpu.mechanisms.ipndp.tables import band
from ndpgpu.mechanisms.ipndp.unit import IpndpHardware
from ndpgpu.timing import TimingSession


def uneven_ctas(num_ctas: int, threads: int = 256) -> object:
    """CTA c runs a dependent ALU chain of (c * 7) % 23 + 1 instructions: CTAs finish at different times."""
    b = TraceBuilder("uneven", num_ctas, (threads, 1, 1))
    alu = b.op("add.s32", "int", dst=(1,), src=(1,))
    ex = b.op("exit", "branch")
    wpc = threads // 32
    for c in range(num_ctas):
        for w in range(wpc):
            for _ in range((c * 7) % 23 + 1):
                b.run(c * wpc + w, alu)
            b.run(c * wpc + w, ex)
    return b.build()


def placement(dispatch, num_ctas: int, machine: str = "ipndp-base8-lt") -> np.ndarray:
    s = TimingSession(machine)
    if dispatch is not None:
        s.set_cta_dispatch(dispatch)
    hw = IpndpHardware("none")
    s.attach(hw)
    s.run_launch(uneven_ctas(num_ctas))
    return hw.cta_sm[-1]


def test_paca_runs_cta_i_on_sm_i() -> None:
    assert placement(PatternAwareDispatch(), 8).tolist() == list(range(8))
    assert placement(PatternAwareDispatch(), 16, "ipndp-ip16").tolist() == list(range(16))
    assert placement(PatternAwareDispatch(), 24).tolist() == [c % 8 for c in range(24)]


def test_bcs_keeps_pairs_together() -> None:
    sm = placement(BlockCtaDispatch(), 32, "ipndp-base8")  # 6 CTAs of 256 threads fit an SM
    assert sm.tolist() == [(c // 2) % 8 for c in range(32)]


def test_bcs_is_dynamic_each_pair_on_an_sm_with_room_for_both() -> None:
    """128 uneven CTAs on Base-8 (6 CTA slots per SM): the first 24 pairs fill the 48 slots in round-robin order
    (pair k on SM k mod 8); later pairs go where two slots are free when they are next, not to a fixed SM. Every
    pair shares an SM."""
    sm = placement(BlockCtaDispatch(), 128, "ipndp-base8")
    assert (sm[0::2] == sm[1::2]).all()
    assert sm[:48].tolist() == [(c // 2) % 8 for c in range(48)]
    assert sm[48:].tolist() != [(c // 2) % 8 for c in range(48, 128)]
    assert sorted(set(sm.tolist())) == list(range(8))


def test_bcs_falls_back_to_round_robin_where_a_pair_cannot_share_an_sm() -> None:
    """Base-8-LT holds one 256-thread CTA per SM: BCS places as round robin does."""
    assert placement(BlockCtaDispatch(), 32).tolist() == placement(None, 32).tolist()


def test_round_robin_regions_are_not_constant_strides() -> None:
    """With one CTA slot per SM and uneven CTAs, round robin sends each CTA to the SM that frees first: SM 0's
    CTA ids are not evenly spaced (the paper's Fig. 2a: 6 -> 2 -> 3 -> 2), so its region is not predictable."""
    sm = placement(None, 64)
    assert sm.min() == 0 and sm.max() == 7 and (sm >= 0).all()
    strides = {int(s) for k in range(8) for s in np.diff(np.flatnonzero(sm == k))}
    assert len(strides) > 1


def test_paca_regions_partition_the_image() -> None:
    """ipndp_band's regions (the kernels' Step 1) cover every row once, for any size and SM count."""
    for extent, step, regions in [(512, 8, 8), (128, 8, 16), (100, 8, 8), (64, 32, 3), (7, 8, 8)]:
        per = band(extent, step, regions)
        covered = np.zeros(extent, int)
        for r in range(regions):
            lo = min(r * per, extent)
            covered[lo:min(lo + per, extent)] += 1
            assert lo % step == 0 or lo == extent
        assert (covered == 1).all()
