"""Perfect memory (``partition.perfect_latency``): every request an SM sends is served a fixed number of core
cycles later, with no interconnect, L2, ROP queue or DRAM on its way (``ipndp-ip8-pm``, the IP-NDP barrier
study's measuring device). The expected latencies are worked by hand from the presets (as test_rop_path.py)."""

from __future__ import annotations

import pytest
from tracegen import pointer_chase, streaming_read

from ndpgpu.timing import TimingSession, load_machine

BASE = 1 << 32
#: ipndp-ip8-pm: the L1 miss (1) + the fixed 134 + the use (1), as Base-8's unloaded L2 hit (test_rop_path.py)
PM_LOAD_TO_USE = 1 + 134 + 1


def _run(machine, trace):
    return TimingSession(machine).run_launch(trace)


def test_the_preset_is_perfect_and_the_others_are_not():
    pm = load_machine("ipndp-ip8-pm")
    assert pm.partition.perfect_latency == 134
    for name in ("ipndp-ip8", "ipndp-base8", "gtx480"):
        assert load_machine(name).partition.perfect_latency is None


def test_a_dependent_miss_takes_the_fixed_latency():
    """Eight dependent loads on eight lines: each an L1 miss served in exactly 1 + 134 + 1 core cycles."""
    st = _run(load_machine("ipndp-ip8-pm"), pointer_chase([BASE + i * 4096 for i in range(8)]))
    assert st.get("latency.load_to_use.l2", "loads") == 8
    assert st.get("latency.load_to_use.l2", "average") == pytest.approx(PM_LOAD_TO_USE, abs=1)


def test_perfect_memory_takes_no_dram_cycles():
    """A memory-bound stream (8 CTAs x 256 threads, 16 independent line loads each, and a store per load): no
    DRAM command, no L2 access, no network packet; every load sees the unloaded latency however many are in
    flight (no queue anywhere), and the run is no slower than IP-8 with its real DRAM."""
    trace = streaming_read(8, 256, 16, store=True)
    pm = _run(load_machine("ipndp-ip8-pm"), trace)
    real = _run(load_machine("ipndp-ip8", {"dram.refresh": False}), trace)
    for name in ("reads", "writes", "bytes", "activates", "precharges", "refreshes"):
        assert pm.get("dram", name) == 0, name
    assert pm.get("l2", "accesses") == 0
    assert pm.get("icnt.request", "packets") == 0 and pm.get("icnt.reply", "packets") == 0
    assert real.get("dram", "reads") > 0  # the same trace does reach DRAM on the real machine
    loads = pm.get("latency.load_to_use.l2", "loads")
    assert loads == 8 * 8 * 16  # every warp's every load missed the L1 (distinct lines)
    assert pm.get("latency.load_to_use.l2", "average") == pytest.approx(PM_LOAD_TO_USE, abs=1)
    assert real.get("latency.load_to_use.dram", "average") > PM_LOAD_TO_USE
    assert pm.get("kernel", "cycles") <= real.get("kernel", "cycles")


def test_perfect_memory_needs_the_crossbar():
    m = load_machine("llc-mesh", {"partition.perfect_latency": 10})
    with pytest.raises(ValueError, match="perfect memory needs the crossbar"):
        TimingSession(m)
