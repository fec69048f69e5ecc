"""The memory partition's ROP delay applies on every path into the partition, with or without an L2
(GPGPU-Sim's memory sub-partition delays every request in its ROP queue whether or not its L2 is enabled).

On ``ipndp-ip8`` (SMs on the logic die, ``l2: null``) an L1 miss therefore reaches DRAM no sooner than a
Base-8 L2 hit returns: the analytic latencies below are computed by hand from the presets' values
(docs/timing.md, "Latencies") and the engine is measured against them."""

from __future__ import annotations

import pytest
from refmodel import map_address
from tracegen import pointer_chase

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.bounds import load_to_use

NO_REFRESH = {"dram.refresh": False}
BASE = 1 << 32


def lines_in_one_row(m, n: int, base: int = BASE) -> list[int]:
    """``n`` line addresses in the DRAM row (channel, bank, row) of the line at ``base`` (reference mapping)."""
    want, out, a = None, [], base
    while len(out) < n:
        loc = map_address(m, a)
        key = (loc["channel"], loc["bank"], loc["row"])
        want = want or key
        if key == want:
            out.append(a)
        a += m.l1d.line_bytes
    return out


def measured_dram_row_hit(m) -> float:
    """Average load-to-use of 8 dependent loads, each an L1 miss and a DRAM row hit (the row opened before)."""
    lines = lines_in_one_row(m, 9)
    sess = TimingSession(m)
    sess.run_launch(pointer_chase(lines[:1]))  # opens the row
    st = sess.run_launch(pointer_chase(lines[1:]))
    assert st.get("latency.load_to_use.dram", "loads") == 8
    assert st.get("dram", "row_hits") == 8
    return st.get("latency.load_to_use.dram", "average")


def test_the_formulas_by_hand():
    """ipndp-ip8: miss 1 + request (5 + 1 - 1) + ROP 120 + partition reply 1 + reply (5 + ceil(136/40) - 1) + use
    1 = 136 core cycles before DRAM; DRAM 20 (controller) + 3 x max(tCCD_L 3, burst 1) + tCL 15 + 1 = 45 cycles
    of 1 ns = 31.5 core cycles. Base-8's L2 hit is 1 + 5 + 120 + 1 + 8 + 1 = 136."""
    ip8, base8 = load_machine("ipndp-ip8"), load_machine("ipndp-base8")
    assert ip8.l2 is None and (ip8.partition.rop_latency, ip8.rop_latency) == (120, 120)
    assert base8.partition.rop_latency is None and base8.rop_latency == base8.l2.rop_latency == 120
    assert load_to_use(ip8)["dram"] == pytest.approx(136 + 45 * 700 / 1000)
    assert load_to_use(base8)["l2"] == 136
    no_rop = load_machine("ipndp-ip8", {"partition.rop_latency": 0})
    assert load_to_use(no_rop)["dram"] == pytest.approx(16 + 45 * 700 / 1000)


def test_an_l2_less_logic_die_sm_waits_for_the_rop_queue():
    """Measured within [formula, formula + 1 + core/dram) (the two clock-domain crossings, docs/timing.md), and
    slower than Base-8's L2 hit; without the ROP delay it would be 120 cycles (up to the crossings) sooner."""
    m = load_machine("ipndp-ip8", NO_REFRESH)
    slack = 1 + m.clocks.core_mhz / m.clocks.dram_mhz
    lat = load_to_use(m)["dram"]
    got = measured_dram_row_hit(m)
    assert lat <= got < lat + slack
    assert got > load_to_use(load_machine("ipndp-base8"))["l2"]
    none = load_machine("ipndp-ip8", {**NO_REFRESH, "partition.rop_latency": 0})
    got0 = measured_dram_row_hit(none)
    assert load_to_use(none)["dram"] <= got0 < load_to_use(none)["dram"] + slack
    assert got - got0 == pytest.approx(120, abs=slack)


def test_a_disabled_l2_keeps_the_rop_delay():
    """gtx480 with its L2 disabled: every read goes to DRAM through the partition, ROP delay included."""
    m = load_machine("gtx480", {**NO_REFRESH, "l2.enabled": False})
    lat = load_to_use(m)["dram"]
    assert lat == pytest.approx(load_to_use(load_machine("gtx480"))["dram"])  # the formula does not need the L2
    got = measured_dram_row_hit(m)
    assert lat <= got < lat + 1 + 700 / 924
