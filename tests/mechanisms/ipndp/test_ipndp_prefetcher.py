"""The boundary-aware prefetcher on a synthetic streaming PACA kernel, against the per-warp stride prefetcher.

The kernel is Fig. 7's traversal reduced to one load per block step: CTA c (one per SM) owns a band of
``BAND`` rows of a W-float image; each of its 8 warps (block 32 x 8, warp w = row w of the block) loads its 32
floats (one 128-B line) per block step, left to right along the row block, then down by 8 rows, with a barrier
after every step. Every prefetch is compared with the same warp's next demand (the hardware's own bookkeeping)
and with an independent walk of the traversal here.
"""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.mechanisms.ipndp.dispatch import PatternAwareDispatch
from ndpgpu.mechanisms.ipndp.tables import ImageArray, Traversal
from ndpgpu.mechanisms.ipndp.unit import IpndpHardware
from ndpgpu.timing import TimingSession

W, BAND, NSM, BASE = 512, 16, 8, 1 << 32
STEPS = (BAND // 8) * (W // 32)  # block steps per CTA


def demand(cta: int, warp: int, step: int) -> int:
    """Byte address of warp ``warp``'s line at block step ``step`` (the traversal, walked independently)."""
    rb, xb = divmod(step, W // 32)
    y = cta * BAND + rb * 8 + warp
    return BASE + (y * W + xb * 32) * 4


def streaming_paca() -> object:
    b = TraceBuilder("stream_paca", NSM, (32, 8, 1))
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    add = b.op("add.f32", "fp32", dst=(11,), src=(10, 11))
    bar = b.op("bar.sync", "barrier")
    ex = b.op("exit", "branch")
    for cta in range(NSM):
        for w in range(8):
            g = cta * 8 + w
            for s in range(STEPS):
                b.run(g, ld, base=demand(cta, w, s), stride=4)
                b.run(g, add)
                b.run(g, bar)
            b.run(g, ex)
    return b.build()


def image() -> tuple[list[ImageArray], Traversal]:
    return [ImageArray(BASE, W, NSM * BAND)], Traversal("row", 32, 8, NSM, W, NSM * BAND)


def run(prefetcher: str, literal: bool = False, machine: str = "ipndp-ip8"):
    s = TimingSession(machine)
    s.set_cta_dispatch(PatternAwareDispatch())
    hw = IpndpHardware(prefetcher, lambda launch: image(), literal)
    s.attach(hw)
    return s.run_launch(streaming_paca())


@pytest.fixture(scope="module")
def runs():
    return {k: run(*k) for k in (("none", False), ("pf", False), ("pf", True), ("pws", False))}


def test_walk_is_exact() -> None:
    """The independent walk: consecutive demands differ by 128 B inside a row block, by the exact jump at a wrap."""
    arr, tr = image()
    from ndpgpu.mechanisms.ipndp import hardware as H
    from ndpgpu.mechanisms.ipndp.tables import entry

    e = entry(arr[0], tr)
    for s in range(STEPS - 1):
        d = demand(3, 5, s + 1) - demand(3, 5, s)
        assert d == (e[H.E_BASE] if (s + 1) % (W // 32) else e[H.E_MOD])


def test_pf_predicts_every_next_demand(runs) -> None:
    st = runs[("pf", False)]
    matched, missed = st["ipndp.prefetcher.next_demand_match"], st["ipndp.prefetcher.next_demand_mismatch"]
    nwarps = NSM * 8
    assert matched + missed == nwarps * (STEPS - 1)  # every step but the first follows a prediction
    assert missed == 0 and st["ipndp.prefetcher.next_demand_accuracy"] >= 0.98
    wraps = st["ipndp.prefetcher.wraps"]
    assert wraps == nwarps * (BAND // 8)  # the last block of every row block
    # the last prediction of the last band's rows leaves the image; every other one is issued or already there
    assert st["ipndp.prefetcher.outside"] == 8
    # every DRAM read is a prefetch or a demand miss that found nothing on its way; the memory partition's fixed
    # (ROP) delay applies on every path, so each SM's last prefetch may still be in the partition when the kernel
    # ends and never reach DRAM: at most one per SM
    requested = st["prefetch.issued"] + st["l1d.misses"] - st["l1d.mshr_merges"]
    assert requested - NSM <= st["dram.reads"] <= requested


def test_pws_misses_at_the_wraps(runs) -> None:
    st = runs[("pws", False)]
    nwarps = NSM * 8
    wraps_between = nwarps * (BAND // 8 - 1)  # row-block wraps followed by another demand
    # after a wrap the stride changed: the prediction made at the wrap is wrong, and the one after it too
    # (the new stride has been seen once only), so PWS issues nothing until it sees the base stride twice again
    assert st["ipndp.prefetcher.next_demand_mismatch"] >= wraps_between
    assert st["ipndp.prefetcher.next_demand_accuracy"] < runs[("pf", False)]["ipndp.prefetcher.next_demand_accuracy"]


def test_literal_stride_misses_at_the_wraps(runs) -> None:
    """``base + W x by`` lands one row below the next demand at every row-block wrap followed by another step
    (one of them, in the last band, leaves the image and is not issued, so it is not compared either)."""
    st = runs[("pf", True)]
    extra_outside = st["ipndp.prefetcher.outside"] - 8
    assert st["ipndp.prefetcher.next_demand_mismatch"] + extra_outside == NSM * 8 * (BAND // 8 - 1)
    assert st["ipndp.prefetcher.next_demand_match"] + st["ipndp.prefetcher.next_demand_mismatch"] + extra_outside \
        == NSM * 8 * (STEPS - 1)


def test_prefetching_cuts_misses_and_time(runs) -> None:
    none, pf = runs[("none", False)], runs[("pf", False)]
    lines = NSM * 8 * STEPS
    assert none["l1d.misses"] == lines and none["l1d.hits"] == 0  # each line demanded once by one warp
    # with the prefetcher nearly every demand finds its line in the L1 or already on its way (a prefetch one
    # block step ahead is often still in flight: the demand merges into its MSHR)
    assert pf["l1d.hits"] + pf["l1d.mshr_merges"] >= 0.9 * lines
    assert pf["kernel.cycles"] < 0.8 * none["kernel.cycles"]
    assert pf["kernel.cycles"] < runs[("pws", False)]["kernel.cycles"]


def test_dram_bound(runs) -> None:
    """Analytic bounds: no run beats the stack's 256 GB/s for the image's bytes, and the PF run reads each line
    about once (no wrong prefetch, none outside the image; a few prefetched lines are evicted from the 8 KB L1
    before their demand, by the other warps' lines, and read again)."""
    for key, st in runs.items():
        lines = NSM * 8 * STEPS
        assert st["dram.reads"] >= lines
        t_ns = st["kernel.cycles"] / 0.7  # 700 MHz cores
        assert t_ns >= lines * 128 / 256.0, key
    assert NSM * 8 * STEPS <= runs[("pf", False)]["dram.reads"] <= 1.05 * NSM * 8 * STEPS


def test_no_knowledge_of_the_future() -> None:
    """Data-dependent addresses: at a quarter of the steps (chosen by data) a warp loads a random line of the image
    instead of its next block. A prefetcher that read the trace's future would predict those too; ours predicts
    from the demanded line and the launch's table only, so it is right exactly where the next demand follows
    the traversal from the current one, which is counted here independently of the hardware."""
    import numpy as np

    from ndpgpu.mechanisms.ipndp import hardware as H
    from ndpgpu.mechanisms.ipndp.tables import table

    rng = np.random.default_rng(7)
    arrays, tr = image()
    ent = table(arrays, tr)
    lo, hi = arrays[0].start, arrays[0].end
    b = TraceBuilder("stream_gather", NSM, (32, 8, 1))
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    bar = b.op("bar.sync", "barrier")
    ex = b.op("exit", "branch")
    expected = 0
    for cta in range(NSM):
        for w in range(8):
            seq = [demand(cta, w, s) if rng.random() >= 0.25 else lo + 128 * int(rng.integers(0, (hi - lo) // 128))
                   for s in range(STEPS)]
            for a in seq:
                b.run(cta * 8 + w, ld, base=a, stride=4)
                b.run(cta * 8 + w, bar)
            b.run(cta * 8 + w, ex)
            for cur, nxt in zip(seq, seq[1:], strict=False):
                t, _ = H.boundary_target.py_func(cur, 0, ent)
                t -= t % 128
                expected += int(lo <= t < hi and t == nxt)
    s = TimingSession("ipndp-ip8")
    s.set_cta_dispatch(PatternAwareDispatch())
    s.attach(IpndpHardware("pf", lambda launch: image()))
    st = s.run_launch(b.build())
    assert st["ipndp.prefetcher.next_demand_match"] == expected
    assert st["ipndp.prefetcher.next_demand_accuracy"] < 0.9
