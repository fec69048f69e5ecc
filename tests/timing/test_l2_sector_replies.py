"""GPGPU-Sim 4.0's sectored L2 sends each 32-B sector of a reply as a packet of its own (``l2.sector_replies``):
on the crossbar the sectors of two replies bound for one SM interleave, so the first reply completes later than
when it held the SM's port for all its flits, while the flits, and an unloaded reply's time, stay the same."""

from __future__ import annotations

from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession, load_machine

BASE = 1 << 32
IDEAL_FRONT = {"core.ibuffer": 0, "l1i.enabled": False}
MACHINE = "gtx480+gpgpusim"


def loads(lines: list[int]) -> object:
    """One CTA, one warp per entry: warp ``w`` loads the whole 128-B line ``lines[w]`` (four sectors)."""
    b = TraceBuilder("ld", 1, 32 * len(lines))
    ld = b.op("ld.global.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    for w, line in enumerate(lines):
        b.run(w, ld, base=BASE + 128 * line)
        b.run(w, ex)
    return b.build()


def run(lines: list[int], on: bool):
    return TimingSession(MACHINE, {**IDEAL_FRONT, "l2.sector_replies": on}).run_launch(loads(lines))


def latency_sum(st) -> float:
    n = 0.0
    for level in ("l2", "dram"):
        k = f"latency.load_to_use.{level}"
        n += st.get(k, "loads") * st.get(k, "average")
    return n


def test_in_the_4_0_overlay_only():
    assert load_machine("gtx480+gpgpusim").l2.sector_replies and load_machine("v100-gpgpusim").l2.sector_replies
    for name in ("gtx480", "gtx480+gpgpusim3", "v100", "llc-mesh", "tom-baseline"):
        assert not load_machine(name).l2.sector_replies


def test_an_unloaded_reply_takes_as_long():
    on, off = run([0], True), run([0], False)
    assert on.get("kernel", "cycles") == off.get("kernel", "cycles")
    assert on.get("icnt.reply", "flits") == off.get("icnt.reply", "flits") == 4  # 4 x (8 + 32 B) in 40-B flits


def test_replies_to_one_sm_interleave():
    """16 warps load 16 consecutive lines, spread over the slices: their replies meet at the SM's one port.
    Whole, a reply holds it 4 cycles and the next follows; by sector the replies alternate, so each finishes
    later than it would whole and the last no earlier: the load-to-use sum grows, the flits and the end do not."""
    on, off = run(list(range(16)), True), run(list(range(16)), False)
    assert on.get("icnt.reply", "flits") == off.get("icnt.reply", "flits") == 16 * 4
    assert latency_sum(on) > latency_sum(off)
    assert on.get("kernel", "cycles") == off.get("kernel", "cycles")
