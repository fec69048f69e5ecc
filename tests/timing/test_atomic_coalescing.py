"""GPGPU-Sim's coalescing of global atomics (``core.atomic_segment_bytes``, ``core.atomic_warp_parts``; the
overlays' [ATOM]): lanes grouped by segment, and lanes to the same word in separate transactions. The compiled rule
against the plain-Python reference (itself first-fit by bytes, as GPGPU-Sim's loop is), hand-counted cases, and a
launch whose L2 sees exactly those transactions."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import FULL, TraceBuilder

from ndpgpu.timing import TimingSession
from ndpgpu.timing.presets import load_machine
from ndpgpu.trace.coalesce import coalesce_atomic_lanes, coalesce_atomics

BASE = 1 << 32


def _atomics(addr_lists, masks=None, size=4):
    b = TraceBuilder("a", 1, 32)
    pc = b.op("atom.global.add.u32", "atomic", dst=(2,), src=(1, 3), space="global", width=size)
    for i, addrs in enumerate(addr_lists):
        b.run(0, pc, FULL if masks is None else masks[i], addrs=addrs, size=size)
    return b.build()


@pytest.mark.parametrize(("seg", "parts"), [(32, 1), (128, 2), (128, 1), (64, 4)])
def test_the_compiled_rule_matches_the_reference(seg, parts):
    rng = np.random.default_rng(11)
    lists, masks = [], []
    for i in range(60):
        bins = 8 if i % 3 else 200  # crowded words, and spread ones
        lists.append([BASE + 4 * int(w) for w in rng.integers(0, bins, 32)])
        masks.append(FULL if i % 4 else int(rng.integers(1, 1 << 32)))
    co = coalesce_atomics(_atomics(lists, masks), np.arange(60), seg, parts)
    for i in range(60):
        s, n = co.rec_tx_start[i], co.rec_ntx[i]
        got = sorted(zip(co.tx_line[s:s + n].tolist(), co.tx_sectors[s:s + n].tolist(), strict=True))
        assert got == sorted(coalesce_atomic_lanes(lists[i], masks[i], 4, seg, parts)), i


def test_hand_counted_transactions():
    """Lanes 0-15 add to one word (BASE), lanes 16-31 to 16 consecutive words from BASE + 64 (chunks 2 and 3 of
    the same 128-B line). 4.0 (32-B segments, whole warp): BASE's segment needs 16 transactions; the other lanes
    cover two segments once each: 18. 3.2.2 (128-B segments, half-warps): the first half 16, the second 1: 17.
    By line, as a load: 1."""
    addrs = [BASE] * 16 + [BASE + 64 + 4 * k for k in range(16)]
    tr = _atomics([addrs])
    assert coalesce_atomics(tr, np.arange(1), 32, 1).rec_ntx[0] == 18
    assert coalesce_atomics(tr, np.arange(1), 128, 2).rec_ntx[0] == 17
    sect = coalesce_atomics(tr, np.arange(1), 128, 2).tx_sectors
    assert sect[0] == 0b0001 and sect[-1] == 0b1100  # BASE's chunk; the second half's two chunks
    assert len(coalesce_atomic_lanes(addrs, FULL, 4, 128, 1)) == 16  # whole warp, 128 B: the 16 on BASE


@pytest.mark.parametrize(("machine", "per_warp"), [("gtx480-gpgpusim3", 17), ("gtx480+gpgpusim", 18), ("gtx480", 1)])
def test_the_l2_sees_each_transaction(machine, per_warp):
    """60 warps each run the access above on their own line: the L2 takes 60 x the rule's transactions as atomics
    (the presets coalesce atomics by line)."""
    b = TraceBuilder("a", 60, 32)
    pc = b.op("atom.global.add.u32", "atomic", dst=(2,), src=(1, 3), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(60):
        line = BASE + 4096 * w
        b.run(w, pc, FULL, addrs=[line] * 16 + [line + 64 + 4 * k for k in range(16)])
        b.run(w, ex)
    st = TimingSession(machine).run_launch(b.build())
    assert st.metrics()["l2"]["atomics"][0] == 60 * per_warp


@pytest.mark.parametrize(("field", "value"), [("atomic_segment_bytes", 48), ("atomic_warp_parts", 3)])
def test_bad_atomic_settings_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        load_machine("gtx480", {f"core.{field}": value})
