"""The constant cache (``l1c``, engine/ccache.py): a warp's constant load is one access per distinct
constant-cache line its lanes read (lanes of one line broadcast, distinct lines serialize one a cycle, as
GPGPU-Sim generates constant accesses); hits take ``l1c.latency``; misses read the line from the L2 like L1
misses, through the SM's constant MSHRs. Every expected value is computed here from the preset's values."""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.bounds import flits
from ndpgpu.timing.spec import MachineConfigError

BASE = 1 << 32
NO_REFRESH = {"dram.refresh": False}


def const_chain(loads: list[list[int]]) -> object:
    """One warp: dependent constant loads (each reads the register the previous one wrote), lane addresses given."""
    b = TraceBuilder("cchain", 1, 32)
    ld = b.op("ld.const.u32", "load", dst=(1,), src=(1,), space="const", width=4)
    ex = b.op("exit", "branch")
    for addrs in loads:
        b.run(0, ld, addrs=addrs)
    b.run(0, ex)
    return b.build()


def broadcast(a: int) -> list[int]:
    return [a] * 32


def spread(lines: list[int]) -> list[int]:
    """Lane l reads a word of line ``lines[l % len(lines)]``."""
    return [lines[lane % len(lines)] + 4 * (lane // len(lines)) for lane in range(32)]


LINES = [BASE + 64 * i for i in range(4)]  # four 64-B constant lines (two 128-B L1/L2 lines)
WARM = [broadcast(a) for a in LINES]  # one miss each


def run(trace, machine="gtx480", **over):
    return TimingSession(load_machine(machine, {**NO_REFRESH, **over})).run_launch(trace)


def test_broadcast_is_one_access_and_hits_take_the_hit_latency():
    m = load_machine("gtx480")
    st = run(const_chain(WARM + [broadcast(LINES[0])] * 3))
    assert (st.get("const", "accesses"), st.get("const", "misses"), st.get("const", "hits")) == (7, 4, 3)
    assert st.get("l1d", "accesses") == 0  # constant loads never touch the L1D
    assert st.get("latency.load_to_use.l1", "loads") == 3
    assert st.get("latency.load_to_use.l1", "average") == pytest.approx(m.l1c.latency, abs=1e-3)


def test_distinct_lines_serialize_one_access_a_cycle():
    """Lanes spread over four lines: four accesses, one a cycle; the last one's value is usable
    ``l1c.latency`` after it, so a load takes latency + 3 (the first access is in its issue cycle)."""
    m = load_machine("gtx480")
    st = run(const_chain(WARM + [spread(LINES)] * 3))
    assert (st.get("const", "accesses"), st.get("const", "misses"), st.get("const", "hits")) == (16, 4, 12)
    assert st.get("latency.load_to_use.l1", "average") == pytest.approx(m.l1c.latency + 3, abs=1e-3)


def test_distinct_words_of_one_line_are_one_access_and_lines_split_at_the_constant_line():
    """GPGPU-Sim serializes distinct lines, not distinct words: 16 words of one 64-B line are one access; two
    64-B lines of one 128-B L1 line are two."""
    one_line = [LINES[0] + 4 * (lane % 16) for lane in range(32)]
    two_halves = [LINES[0] + 64 * (lane % 2) for lane in range(32)]
    st = run(const_chain([one_line, two_halves]))
    assert st.get("const", "accesses") == 1 + 2
    assert st.get("const", "misses") == 2  # the first load's line; the second load's other half
    assert st.get("const", "hits") == 1


def test_a_miss_is_read_from_the_l2_like_an_l1_miss():
    """Launch 1 brings the line into the L2; launch 2 (constant cache invalidated at the launch) misses it in
    the constant cache and hits the L2: l1d.miss_latency + request + ROP + L2 + reply of a 64-B line + use."""
    m = load_machine("gtx480", NO_REFRESH)
    sess = TimingSession(m)
    sess.run_launch(const_chain([broadcast(LINES[0])]))
    st = sess.run_launch(const_chain([broadcast(LINES[0])]))
    assert (st.get("const", "misses"), st.get("l2", "hits"), st.get("l1d", "accesses")) == (1, 1, 0)
    ic = m.icnt
    expect = (m.l1d.miss_latency + (ic.latency + flits(m, 0) - 1) + m.rop_latency + m.l2.latency
              + (ic.latency + flits(m, 64) - 1) + m.core.fill_to_use)
    assert expect == 1 + 5 + 120 + 1 + (5 + 2 - 1) + 1  # 64 B + 8-B header: 2 flits of 40 B
    assert st.get("latency.load_to_use.l2", "average") == pytest.approx(expect, abs=1e-3)
    assert st.get("icnt.reply", "bytes") == flits(m, 64) * ic.flit_bytes


def test_mshr_merges_and_reservation_fails():
    """Independent loads of one warp: A, A again (merges into A's MSHR), B, then C while both MSHRs are busy:
    C waits for a fill (reservation failures) and is sent then. Three reads reach the L2."""
    b = TraceBuilder("cmshr", 1, 32)
    lds = [b.op("ld.const.u32", "load", dst=(10 + i,), src=(1,), space="const", width=4) for i in range(4)]
    ex = b.op("exit", "branch")
    a, bb, c = BASE, BASE + 4096, BASE + 8192
    for op, addr in zip(lds, (a, a, bb, c), strict=True):
        b.run(0, op, addrs=broadcast(addr))
    b.run(0, ex)
    m = load_machine("gtx480")
    assert (m.l1c.mshr_entries, m.l1c.mshr_merge) == (2, 32)
    st = run(b.build())
    assert (st.get("const", "accesses"), st.get("const", "misses"), st.get("const", "mshr_merges")) == (4, 4, 1)
    assert st.get("const", "reservation_fails") > 0
    assert st.get("l2", "accesses") == 3
    assert st["core.loads"] == 4


def test_disabled_constant_cache_sends_constant_loads_through_the_l1d():
    trace = const_chain(WARM + [broadcast(LINES[0])] * 3)
    st = run(trace, **{"l1c.enabled": False})
    assert st.get("const", "accesses") == 0
    assert st.get("l1d", "accesses") == 7 and st.get("l1d", "hits") == 5  # 128-B L1 lines: two cold misses


def test_the_constant_cache_is_invalidated_at_each_launch():
    sess = TimingSession(load_machine("gtx480", NO_REFRESH))
    first = sess.run_launch(const_chain([broadcast(LINES[0])] * 2))
    second = sess.run_launch(const_chain([broadcast(LINES[0])] * 2))
    for st in (first, second):
        assert (st.get("const", "misses"), st.get("const", "hits")) == (1, 1)


def test_v100_geometry_and_invalid_specs():
    v = load_machine("v100")
    assert (v.l1c.size_kb, v.l1c.line_bytes, v.l1c.assoc, v.l1c.num_sets, v.l1c.mshr_merge) == (64, 64, 8, 128, 64)
    with pytest.raises(MachineConfigError, match="not a whole number of sets"):
        load_machine("gtx480", {"l1c.size_kb": 0.0625})
    with pytest.raises(MachineConfigError, match="exceeds l1d.line_bytes"):
        load_machine("gtx480", {"l1c.line_bytes": 256, "l1c.size_kb": 16})
