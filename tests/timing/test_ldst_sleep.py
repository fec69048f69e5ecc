"""An SM whose LD/ST unit is refused for a reason only one of its own fills can lift sleeps until that fill wakes
it, and still counts one refusal for every cycle it slept (``l1d.reservation_fails``), as when it retried each
cycle. Each kernel below is built to cause one such refusal on one SM of ``gtx480`` (a 4-way L1)."""

from __future__ import annotations

from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession
from ndpgpu.timing.engine import layout as E
from ndpgpu.timing.engine.ldst import l1_base

BASE = 1 << 32


def _loads(lines: list[int]):
    """One CTA; warp ``w`` loads line ``lines[w]`` (32 lanes, one 128-B line) and exits."""
    b = TraceBuilder("ldst_wait", 1, 32 * len(lines))
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    for w, a in enumerate(lines):
        b.run(w, ld, base=a, stride=4)
        b.run(w, ex)
    return b.build()


def _read_cycles(session: TimingSession) -> float:
    """Core cycles of one DRAM column read alone (tCL): a lower bound on any miss's round trip."""
    m = session.machine
    return m.dram.timing.tCL * m.clocks.core_mhz / m.clocks.dram_mhz


def _run(session: TimingSession, trace) -> dict[str, float]:
    st = session.run_launch(trace)
    return {k: v[0] for k, v in st.metrics()["l1d"].items()}


def test_a_load_waiting_on_a_merge_limited_mshr_sleeps_and_counts_each_refused_cycle():
    """Two warps load the same line; with one request per MSHR entry the second waits until the first's fill
    comes back from DRAM: one miss, and at least a DRAM read's cycles of refusals, in fewer SM ticks than that."""
    session = TimingSession("gtx480", {"l1d.mshr_merge": 1})
    l1 = _run(session, _loads([BASE, BASE]))
    assert l1["misses"] == 1
    assert l1["reservation_fails"] >= _read_cycles(session)
    assert session.state.g[E.G_IT_SM] < l1["reservation_fails"]


def test_a_load_finding_every_way_of_its_set_reserved_sleeps_and_counts_each_refused_cycle():
    """Five warps load five lines of one L1 set (4 ways, set to allocate on miss): the fifth finds all four ways
    reserved for the misses before it and waits for one of their fills."""
    session = TimingSession("gtx480", {"l1d.allocate": "miss"})
    cfg = session.state.cfg
    home = l1_base(0, BASE, cfg)
    lines = [a for a in range(BASE, BASE + (1 << 24), 128) if l1_base(0, a, cfg) == home][:5]
    assert len(lines) == 5
    l1 = _run(session, _loads(lines))
    assert l1["misses"] == 5
    assert l1["reservation_fails"] >= _read_cycles(session)
    assert session.state.g[E.G_IT_SM] < l1["reservation_fails"]
