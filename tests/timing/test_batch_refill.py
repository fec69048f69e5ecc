"""Batch CTA refill (``core.cta_dispatch.refill: batch``): an SM fills with CTAs while they fit, then takes no
new one until its whole batch has finished, as MPU-Sim's block scheduler does."""

from __future__ import annotations

from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession

ONE_SM = {"core.num_sms": 1, "core.max_ctas": 2}


def kernel(bodies: list[int]):
    """One warp per CTA; CTA i executes ``bodies[i]`` independent adds, then exits."""
    b = TraceBuilder("bodies", len(bodies), 32)
    op = b.op("add.s32", "int", dst=(2,), src=(1,))
    ex = b.op("exit", "branch")
    for w, n in enumerate(bodies):
        for _ in range(n):
            b.run(w, op)
        b.run(w, ex)
    return b.build()


def cycles(refill: str, bodies: list[int]) -> int:
    sess = TimingSession("gtx480", {**ONE_SM, "core.cta_dispatch.refill": refill})
    st = sess.run_launch(kernel(bodies))
    assert st.get("kernel", "ctas") == len(bodies)
    return int(st.get("kernel", "cycles"))


def test_equal_ctas_take_the_same_time_either_way():
    """With equal CTAs every batch ends together, so holding the refill changes nothing."""
    bodies = [300] * 8
    assert cycles("batch", bodies) == cycles("continuous", bodies)


def test_a_long_cta_holds_its_batch_partner_slot_empty():
    """CTA 0 runs 3000 adds, the other seven 200 each, two CTAs fit. Continuously refilled, the second slot
    runs CTAs 1-7 one after another beside CTA 0 (7 short ones take less than the long one: the kernel lasts
    about CTA 0 alone). In batches, {0, 1} ends with CTA 0, then {2, 3}, {4, 5} and {6, 7} follow: three short
    CTAs' time more. Each CTA's time alone is measured on the same SM."""
    t_long, t_short = cycles("continuous", [3000]), cycles("continuous", [200])
    assert 7 * t_short < t_long
    bodies = [3000] + [200] * 7
    cont, batch = cycles("continuous", bodies), cycles("batch", bodies)
    assert t_long <= cont <= t_long + t_short
    assert abs(batch - (t_long + 3 * t_short)) <= 0.15 * 3 * t_short
