"""GPGPU-Sim 4.0's sectored L2 keys its MSHRs by 32-B sector (``l2.sector_mshrs``): two SMs missing different
sectors of one line send both DRAM reads at once; without the rule the second waits at the slice's head for the
first fill and then misses on its own. Checked against the machine's own single-miss time, with atomics (the
4.0 flavour sends them past the L1 in 32-B segments; an L1D miss of SM2_GTX480 asks for its whole line)."""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.engine.layout import CMD_RD

LINE = 1 << 32
IDEAL_FRONT = {"core.ibuffer": 0, "l1i.enabled": False}
MACHINE = "gtx480+gpgpusim"  # a sectored L2 (l2.sector_requests), a non-sectored L1


def sectors_of_one_line(sectors: list[int]) -> object:
    """One one-warp CTA per entry, each on its own SM: 8 lanes add to the 8 words of sector ``s`` of LINE."""
    b = TraceBuilder("sectors", len(sectors), 32)
    ld = b.op("atom.global.add.u32", "atomic", dst=(10,), src=(1, 3), space="global", width=4)
    ex = b.op("exit", "branch")
    for w, s in enumerate(sectors):
        b.run(w, ld, mask=0xFF, base=LINE + 32 * s, stride=4)
        b.run(w, ex)
    return b.build()


def run(sectors: list[int], on: bool):
    return session(on).run_launch(sectors_of_one_line(sectors))


def session(on: bool) -> TimingSession:
    return TimingSession(MACHINE, {**IDEAL_FRONT, "l2.sector_mshrs": on, "sim.record_dram_commands": True})


def read_commands(on: bool) -> list[int]:
    """DRAM cycles of the column reads of the two-sector launch."""
    sess = session(on)
    sess.run_launch(sectors_of_one_line([0, 1]))
    return [int(r[0]) for r in sess.dram_commands() if int(r[2]) == CMD_RD]


def cycles(st) -> int:
    return int(st.get("kernel", "cycles"))


def test_in_the_4_0_overlay_only():
    assert load_machine("gtx480+gpgpusim").l2.sector_mshrs and load_machine("v100-gpgpusim").l2.sector_mshrs
    for name in ("gtx480", "gtx480+gpgpusim3", "v100", "tom-baseline", "llc-mesh"):
        assert not load_machine(name).l2.sector_mshrs


def test_different_sectors_miss_in_parallel():
    one = cycles(run([0], True))  # a single miss: the machine's own DRAM round trip
    on, off = run([0, 1], True), run([0, 1], False)
    for st in (on, off):  # two DRAM reads either way, never one for both sectors
        assert int(st.get("dram", "reads")) == 2
    assert cycles(on) <= one + 20  # side by side: about one round trip
    assert cycles(off) > cycles(on)
    # the DRAM sees it: with the rule the two reads are a column-to-column gap apart; without it the second is
    # sent only after the first's data came back (at least CL + the burst later)
    t = load_machine(MACHINE).dram.timing
    burst = load_machine(MACHINE).dram.burst_cycles
    a, b = read_commands(True)
    assert b - a <= max(t.tCCD_L, t.tCCD_S, burst) + 2
    a, b = read_commands(False)
    assert b - a >= t.tCL + burst


@pytest.mark.parametrize("on", [True, False])
def test_the_same_sector_still_merges(on):
    """Two SMs' atomics on the same sector: one DRAM read, the second merged, with or without the rule."""
    st = run([2, 2], on)
    assert int(st.get("dram", "reads")) == 1
    assert int(st.get("l2", "mshr_merges")) == 1
