"""Prefetch accuracy over the whole run: used prefetches over issued ones. A prefetch is used once, by the
first demand that merges into it in flight or hits its filled line before eviction (IP-NDP's section 5.3
gives its prefetcher's accuracy as such a share). The cases are worked by hand with the next-line prefetcher:
each new L1 miss on line ``n`` prefetches line ``n + 1``."""

from __future__ import annotations

from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession, load_machine

BASE = 1 << 32
LINE = 128
NEXT_LINE = {"l1d.prefetch.impl": "next_line", "dram.refresh": False}


def one_lane(line: int) -> list[int]:
    return [BASE + LINE * line] + [0] * 31


def run(lines: list[int], dependent: bool):
    """One warp loads one word of each of ``lines`` in order (each load waiting for the one before when
    ``dependent``), then exits."""
    b = TraceBuilder("pfacc", 1, 32)
    ld = b.op("ld.global.u32", "load", dst=(1,), src=(1,) if dependent else (), space="global", width=4)
    ex = b.op("exit", "branch")
    for n in lines:
        b.run(0, ld, 1, addrs=one_lane(n))
    b.run(0, ex)
    return TimingSession(load_machine("gtx480", NEXT_LINE)).run_launch(b.build())


def test_filled_prefetches_count_once_when_a_demand_hits_them():
    """Misses on lines 0, 2, ..., 14 issue 8 prefetches (lines 1, 3, ..., 15); demands then read 5 of them,
    twice each: 5 used of 8 issued, accuracy 5/8, although the prefetched lines take 10 hits."""
    even = [2 * i for i in range(8)]
    used = [1, 3, 5, 7, 9]
    st = run(even + used + used, dependent=True)
    assert st.get("prefetch", "issued") == 8
    assert st.get("l1d", "hits") == 10
    assert st.get("prefetch", "useful") == 5
    assert st.get("prefetch", "accuracy") == 5 / 8


def test_demands_merging_into_a_prefetch_in_flight_count_it_once():
    """Loads of lines 0, 1, 1 that read no register: line 0's miss prefetches line 1 and the first load of line
    1 merges into that prefetch in flight (a merge issues no prefetch of its own); the second writes the same
    register, so it waits for the first and then hits the filled line. 1 issued, 1 used (the merge and the hit
    are one use)."""
    st = run([0, 1, 1], dependent=False)
    assert st.get("l1d", "mshr_merges") == 1
    assert st.get("l1d", "hits") == 1
    assert st.get("prefetch", "issued") == 1
    assert st.get("prefetch", "useful") == 1
    assert st.get("prefetch", "accuracy") == 1.0


def test_unused_prefetches_count_nothing():
    """Misses only on even lines: 8 prefetches, none demanded."""
    st = run([2 * i for i in range(8)], dependent=True)
    assert st.get("prefetch", "issued") == 8
    assert st.get("prefetch", "useful") == 0
    assert st.get("prefetch", "accuracy") == 0.0
