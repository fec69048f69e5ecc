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
