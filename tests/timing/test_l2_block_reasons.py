"""Why an L2 slice refused the head of its input queue: ``l2.blocked`` split into four reasons that add up to it,
each produced by a kernel built to cause it and absent where the kernel cannot cause it."""

from __future__ import annotations

from tracegen import TraceBuilder, streaming_read

from ndpgpu.timing import TimingSession

REASONS = ("blocked_dram_queue", "blocked_reply_queue", "blocked_mshr", "blocked_pending_line")
BASE = 1 << 32


def _l2(machine: str, trace, overrides: dict | None = None) -> dict[str, float]:
    rows = TimingSession(machine, overrides or {}).run_launch(trace).metrics()["l2"]
    return {k: v[0] for k, v in rows.items()}


def one_line_from_every_sm(num_ctas: int) -> object:
    """One warp per CTA, each loading the same 128-B line once: the L2 gets one request per SM for one line."""
    b = TraceBuilder("same_line", num_ctas, 32)
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(num_ctas):
        b.run(w, ld, base=BASE, stride=4)
        b.run(w, ex)
    return b.build()


def test_requests_for_a_line_whose_miss_cannot_take_them_wait_as_pending():
    trace = one_line_from_every_sm(15)  # gtx480: 15 SMs, one CTA each
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
