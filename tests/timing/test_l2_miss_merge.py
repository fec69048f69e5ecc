"""The L2 miss buffer: a miss to a line already pending merges into its entry up to ``l2.mshr_merge``
requests; the next one waits until the fill and then hits. A line is never read from DRAM twice while its
first read is outstanding (GPGPU-Sim's reservation failure; hardware does the same)."""

from __future__ import annotations

from tracegen import one_line_per_cta

from ndpgpu.timing import TimingSession, load_machine

LINE = (1 << 32) + 128 * 97


def same_line_by(warps: int) -> object:
    """``warps`` one-warp CTAs (one per SM, so their L1s cannot merge them) each load the same 128-B line."""
    return one_line_per_cta(warps, LINE, "same_line")


def run(warps: int, merge: int):
    m = load_machine("gtx480", {"l2.mshr_merge": merge, "dram.refresh": False})
    return TimingSession(m).run_launch(same_line_by(warps))


def test_six_warps_missing_on_one_pending_line_read_it_once():
    one, six = run(1, 4), run(6, 4)
    assert one.get("dram", "reads") > 0
    assert six.get("dram", "reads") == one.get("dram", "reads")  # one DRAM read of the line, not two
    assert six.get("l2", "accesses") == 6  # every request counted at the L2
    # four share the miss (the first and three merges); the other two waited for the fill and hit
    assert six.get("l2", "hits") == 2


def test_within_the_merge_limit_every_request_merges():
    six = run(6, 8)
    assert six.get("dram", "reads") == run(1, 8).get("dram", "reads")
    assert six.get("l2", "hits") == 0  # all six rode the one miss
