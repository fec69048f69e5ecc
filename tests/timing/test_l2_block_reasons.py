"""Why an L2 slice refused the head of its input queue: ``l2.blocked`` split into four reasons that add up to it,
each produced by a kernel built to cause it and absent where the kernel cannot cause it."""

from __future__ import annotations

from tracegen import one_line_per_cta, streaming_read

from ndpgpu.timing import TimingSession

REASONS = ("blocked_dram_queue", "blocked_reply_queue", "blocked_mshr", "blocked_pending_line")
BASE = 1 << 32


def _l2(machine: str, trace, overrides: dict | None = None) -> dict[str, float]:
    rows = TimingSession(machine, overrides or {}).run_launch(trace).metrics()["l2"]
    return {k: v[0] for k, v in rows.items()}


def test_requests_for_a_line_whose_miss_cannot_take_them_wait_as_pending():
    trace = one_line_per_cta(15, BASE, "same_line")  # gtx480: 15 SMs, one CTA each
    narrow = _l2("gtx480", trace, {"l2.mshr_merge": 1})
    assert narrow["misses"] >= 1 and narrow["blocked_pending_line"] > 0
    assert narrow["blocked_dram_queue"] == narrow["blocked_mshr"] == 0
    # with room for every SM's request in the miss's entry, nothing waits
    wide = _l2("gtx480", trace, {"l2.mshr_merge": 16, "l2.response_queue": 64})
    assert wide["blocked"] == 0
    for st in (narrow, wide):
        assert sum(st[k] for k in REASONS) == st["blocked"]


def test_a_full_dram_queue_blocks_as_dram_queue():
    trace = streaming_read(num_ctas=30, threads=256, loads_per_thread=4)
    st = _l2("gtx480", trace, {"dram.scheduler.queue_size": 1})
    assert st["blocked_dram_queue"] > 0 and st["blocked_pending_line"] == 0
    assert sum(st[k] for k in REASONS) == st["blocked"]


def test_a_slice_waiting_for_its_mshrs_sleeps_and_still_counts_every_refused_cycle():
    """One MSHR per slice, fifteen SMs missing on fifteen lines of one slice: each later miss waits at the head of
    the slice's queue for the one before it to come back from DRAM. The slice sleeps until a fill frees its MSHR
    (it ticks far fewer times than it refuses), and the refusals it would have met each cycle are counted all the
    same: at least one DRAM read (tCL, in L2 cycles) for each of the fourteen misses that waited."""
    from tracegen import TraceBuilder

    from ndpgpu.timing.engine import layout as E

    session = TimingSession("gtx480", {"l2.mshr_entries": 1})
    home = session.state.map_address(BASE)["slice"]
    lines = [a for a in range(BASE, BASE + (1 << 26), 128) if session.state.map_address(a)["slice"] == home][:15]
    b = TraceBuilder("same_slice", 15, 32)
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    for w, a in enumerate(lines):
        b.run(w, ld, base=a, stride=4)
        b.run(w, ex)
    st = session.run_launch(b.build())
    l2 = {k: v[0] for k, v in st.metrics()["l2"].items()}
    m = session.machine
    assert l2["misses"] == 15 and l2["blocked_pending_line"] == 0
    read = m.dram.timing.tCL * m.clocks.l2_mhz / m.clocks.dram_mhz  # L2 cycles of a column read alone
    assert l2["blocked_mshr"] >= 14 * read
    assert session.state.g[E.G_IT_L2] < l2["blocked_mshr"]
    assert sum(l2[k] for k in REASONS) == l2["blocked"]


def test_slices_waiting_for_reply_room_or_a_pending_line_sleep_and_count_every_refused_cycle():
    """Fifteen SMs read the same eight lines: with one request per miss entry the later requests wait for the fill
    (pending line), then hit; with a one-entry reply queue on a reply network of 4-byte flits (a reply takes over
    thirty cycles to leave) the hits wait for room to reply. The slices sleep through both (they tick far fewer
    times than they refuse) and every refused cycle is counted: 8 misses and 112 hits, refusals of both kinds."""
    from tracegen import TraceBuilder

    from ndpgpu.timing.engine import layout as E

    session = TimingSession("gtx480", {"l2.response_queue": 1, "l2.mshr_merge": 1, "icnt.flit_bytes": 4})
    b = TraceBuilder("shared_lines", 15, 32)
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(15):
        for i in range(8):
            b.run(w, ld, base=BASE + i * 128, stride=4)
        b.run(w, ex)
    st = session.run_launch(b.build())
    l2 = {k: v[0] for k, v in st.metrics()["l2"].items()}
    assert l2["accesses"] == 120 and l2["misses"] == 8 and l2["hits"] == 112
    assert l2["blocked_reply_queue"] > 0 and l2["blocked_pending_line"] > 0
    assert session.state.g[E.G_IT_L2] < l2["blocked"]
    assert sum(l2[k] for k in REASONS) == l2["blocked"]
