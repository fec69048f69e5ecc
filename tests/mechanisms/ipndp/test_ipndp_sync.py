"""Guideline 2, the barrier per block step (the paper's Fig. 8): without it the warps of an SM drift apart, and
with a small L1 the lines one warp fetched (and the prefetches it triggered) are evicted before the warp that
shares them arrives, so the same data is read again from DRAM; a 32 KB L1 holds them either way.

A synthetic PACA kernel: each warp reads its row and the next (the row the warp below it reads too) per block
step, with the prefetcher on."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import TraceBuilder

from ndpgpu.mechanisms.ipndp import hardware as H
from ndpgpu.mechanisms.ipndp.dispatch import PatternAwareDispatch
from ndpgpu.mechanisms.ipndp.tables import ImageArray, Traversal
from ndpgpu.mechanisms.ipndp.unit import IpndpHardware
from ndpgpu.timing import TimingSession

W, BAND, BASE = 512, 32, 1 << 32


def shared_rows(nsm: int, barrier: bool) -> object:
    b = TraceBuilder("shared_rows", nsm, (32, 8, 1))
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    add = b.op("add.f32", "fp32", dst=(11,), src=(10, 11))
    bar = b.op("bar.sync", "barrier")
    ex = b.op("exit", "branch")
    for c in range(nsm):
        for w in range(8):
            for s in range((BAND // 8) * (W // 32)):
                rb, xb = divmod(s, W // 32)
                y = c * BAND + rb * 8 + w
                for dy in (0, 1):
                    b.run(c * 8 + w, ld, base=BASE + (((y + dy) % (nsm * BAND)) * W + xb * 32) * 4, stride=4)
                for _ in range(4):
                    b.run(c * 8 + w, add)
                if barrier:
                    b.run(c * 8 + w, bar)
            b.run(c * 8 + w, ex)
    return b.build()


# The memory partition's fixed (ROP) delay, which GPGPU-Sim applies on every path, L2 or not, evens out how far
# warps drift on this two-load kernel: these tests isolate what the barrier does to L1 reuse, so they run without
# it (with it, on ipndp-ip16, the 8-KB case's DRAM reads without the barrier are 1.02x those with it, not > 1.1x)
NO_ROP = {"partition.rop_latency": 0}


def shared_rows_stats(machine: str, nsm: int, barrier: bool, overrides: dict | None = None):
    s = TimingSession(machine, {**NO_ROP, **(overrides or {})})
    s.set_cta_dispatch(PatternAwareDispatch())
    geo = ([ImageArray(BASE, W, nsm * BAND)], Traversal("row", 32, 8, nsm, W, nsm * BAND))
    s.attach(IpndpHardware("pf", lambda launch: geo))
    return s.run_launch(shared_rows(nsm, barrier))


def dram_reads(machine: str, nsm: int, barrier: bool, overrides: dict | None = None) -> float:
    return shared_rows_stats(machine, nsm, barrier, overrides)["dram.reads"]


@pytest.mark.parametrize("l1_kb, diverges", [(8, True), (32, False)])
def test_without_the_barrier_a_small_l1_loses_the_shared_rows(l1_kb: int, diverges: bool) -> None:
    over = {"l1d.size_kb": l1_kb}
    with_bar, without = dram_reads("ipndp-ip16", 16, True, over), dram_reads("ipndp-ip16", 16, False, over)
    lines = 16 * 8 * (BAND // 8) * (W // 32)  # each line is needed once
    assert with_bar >= lines
    if diverges:
        assert without > 1.1 * with_bar
    else:
        assert abs(without - with_bar) <= 0.01 * with_bar


def test_perfect_memory_mode_and_the_barriers_cost() -> None:
    """ipndp-ip8-pm: every L1 miss is served at the fixed latency; nothing reaches the network, the L2 or DRAM.
    There the barrier costs only waiting for the slowest warp: the run with it is the slower one."""
    cycles = {}
    for barrier in (True, False):
        s = TimingSession("ipndp-ip8-pm")
        s.set_cta_dispatch(PatternAwareDispatch())
        img = ImageArray(BASE, W, 8 * BAND)
        s.attach(IpndpHardware("none", None, perfect_l2=True, ranges=[(img.start, img.end)]))
        st = s.run_launch(shared_rows(8, barrier))
        assert st["dram.reads"] == 0 and st["l2.accesses"] == 0 and st["icnt.request.packets"] == 0
        assert st["latency.load_to_use.l2.loads"] > 0
        cycles[barrier] = st["kernel.cycles"]
    assert cycles[True] > cycles[False]


def test_progress_spread_by_hand() -> None:
    """Two SMs of two warp slots: counts per slot, and every PG_EVERY-th transaction of a warp samples its SM's
    spread among the slots that have issued any."""
    prog0, ctr0 = H.X_HDR, H.X_HDR + 4
    mx = np.zeros(ctr0 + len(H.COUNTER_NAMES), np.int64)
    mx[H.X_SLOTS], mx[H.X_PROG0], mx[H.X_SPS], mx[H.X_CTR0] = 4, prog0, 2, ctr0
    for _ in range(8):  # SM 0, slot 0 runs ahead: samples at its 4th and 8th (slot 1 has issued none: spread 0)
        H.progress(0, 0, mx)
    for _ in range(4):  # slot 1 catches up by 4: one sample, spread 8 - 4
        H.progress(0, 1, mx)
    H.progress(1, 3, mx)  # SM 1: one transaction, no sample
    H.progress(5, 9, mx)  # a slot beyond the table: ignored
    assert list(mx[prog0:prog0 + 4]) == [8, 4, 0, 1]
    c = {n: int(mx[ctr0 + i]) for i, n in enumerate(H.COUNTER_NAMES)}
    assert (c["PG_LOADS"], c["PG_SAMPLES"], c["PG_SPREAD_SUM"]) == (13, 3, 4)


def test_warp_progress_spread_with_and_without_the_barrier() -> None:
    """With the barrier no warp starts step s + 1 before every warp ended step s: two loads per step, so the
    spread is at most 2 transactions. Without it, on 16 SMs with 8 KB L1s the warps drift further apart than with
    32 KB L1s, where the shared rows stay and no warp waits long."""
    st = shared_rows_stats("ipndp-ip16", 16, True, {"l1d.size_kb": 8})
    steps = (BAND // 8) * (W // 32)
    assert st["ipndp.progress.loads_per_warp"] == 2 * steps
    assert 0 < st["ipndp.progress.spread_mean"] <= 2
    free8 = shared_rows_stats("ipndp-ip16", 16, False, {"l1d.size_kb": 8})["ipndp.progress.spread_mean"]
    free32 = shared_rows_stats("ipndp-ip16", 16, False, {"l1d.size_kb": 32})["ipndp.progress.spread_mean"]
    assert free8 > 2 and free8 > free32
