"""TOM's learning-phase charge (mechanisms/tom/policy: ``learning_charge``), on hand-made traces.

Section 5.1: "all memory accesses in the learning phase are modeled with the measured PCI-E bus latency";
section 3.2.3: "no extra data remapping overhead". The charge is ``pcie_ns`` per access the learning phase's
critical path waits for, in core cycles, and nothing else.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from ndpgpu.mechanisms.tom.candidates import Candidate, CandidateTable
from ndpgpu.mechanisms.tom.config import TomConfig
from ndpgpu.mechanisms.tom.instances import find_instances
from ndpgpu.mechanisms.tom.plan import TomOffload
from ndpgpu.mechanisms.tom.policy import TomPolicy, TomPolicySpec, analyzer_instances, learning_charge, warp_waits

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "timing"))
from tracegen import TraceBuilder  # noqa: E402

A, C = 1 << 32, (1 << 32) + (1 << 26)
PCIE_NS, CORE_MHZ = 1000.0, 1400.0
CYCLES_PER_WAIT = PCIE_NS * CORE_MHZ / 1000  # 1 us at 1.4 GHz


def loop_kernel(trips: list[int], *, prefix_load: bool = True, two_loads: bool = False, same_line: bool = False):
    """Warp w: [ld r1] (before the block); ``trips[w]`` iterations of the block [1, 6): ld r10 (address r1; a
    new line each iteration, or with ``same_line`` always the same), [ld r12,] add r11 <- r10 (+ r12), st r11,
    bra; exit."""
    b = TraceBuilder("loop", 1, 32 * len(trips))
    pre = (b.op("ld.global.u64", "load", dst=(1,), space="global", width=8) if prefix_load
           else b.op("mov.u64", "int", dst=(1,)))
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    ld2 = (b.op("ld.global.f32", "load", dst=(12,), src=(1,), space="global", width=4) if two_loads
           else b.op("mov.f32", "mov", dst=(12,)))
    add = b.op("add.f32", "fp32", dst=(11,), src=(10, 11, 12))
    st = b.op("st.global.f32", "store", src=(3, 11), space="global", width=4)
    br = b.op("bra", "branch", src=(2,))
    ex = b.op("exit", "branch")
    for w, n in enumerate(trips):
        b.run(w, pre, base=C + 4096 + w * 128)
        for k in range(n):
            b.run(w, ld, base=A + (w * 64 + (0 if same_line else k)) * 128)
            b.run(w, ld2, base=A + (1 << 20) + (w * 64 + k) * 128)
            b.run(w, add)
            b.run(w, st, base=C + w * 128)
            b.run(w, br)
        b.run(w, ex)
    return b.build()


def candidate() -> Candidate:
    return Candidate(index=0, kernel="loop", begin=1, end=6, begin_pc=1, end_pc=6, live_in=("%r1", "%r3", "%f11"),
                     live_out=("%f11",), reg_tx=3, reg_rx=1, n_ld_fixed=0, n_st_fixed=0, n_ld_iter=1, n_st_iter=1,
                     trip="entry", trip_count=None, header_pc=1, tmin=1)


def chain_kernel():
    """A launch with no candidate: warp 0 chases three pointers (ld r1; ld r2 <- [r1]; ld r3 <- [r2]; st r3),
    warp 1 loads once and uses it; warp 2 only stores, and its one load has no active lane."""
    b = TraceBuilder("chain", 1, 96)
    l1 = b.op("ld.global.u64", "load", dst=(1,), space="global", width=8)
    l2 = b.op("ld.global.u64", "load", dst=(2,), src=(1,), space="global", width=8)
    l3 = b.op("ld.global.u64", "load", dst=(3,), src=(2,), space="global", width=8)
    st = b.op("st.global.u64", "store", src=(3, 4), space="global", width=8)
    sh = b.op("ld.shared.u64", "load", dst=(5,), space="shared", width=8)
    use = b.op("add.s64", "int", dst=(6,), src=(1, 5))
    ex = b.op("exit", "branch")
    for i, pc in enumerate((l1, l2, l3, st, ex)):
        b.run(0, pc, base=A + i * 4096)
    for pc in (l1, sh, use, ex):  # one wait: the shared load never reaches host memory
        b.run(1, pc, base=A)
    b.run(2, l1, mask=0, base=A)  # no active lane: no access
    b.run(2, use)
    b.run(2, st, base=C)
    b.run(2, ex)
    return b.build()


def test_each_waited_access_pays_pcie_once():
    tr = loop_kernel([2, 5])
    # warp 0: the prefix load (waited for by the block's first load, which reads r1) + one per iteration
    assert list(warp_waits(tr, np.array([0, 1]))) == [1 + 2, 1 + 5]
    # two loads in flight together are waited for once; stores are not waited for
    assert list(warp_waits(loop_kernel([4], two_loads=True), np.array([0]))) == [1 + 4]
    assert list(warp_waits(loop_kernel([3], prefix_load=False), np.array([0]))) == [3]
    assert list(warp_waits(chain_kernel(), np.arange(3))) == [3, 1, 0]


def test_a_line_the_warp_loaded_before_is_a_cache_hit():
    """Only a warp's first load of a line reaches (host) memory: reloading it every iteration waits once."""
    assert list(warp_waits(loop_kernel([1, 6], same_line=True), np.array([0, 1]))) == [1 + 1, 1 + 1]


def test_learning_charge_is_waits_times_pcie_latency():
    tr = loop_kernel([2, 5])
    inst = find_instances(tr, [candidate()])
    assert len(inst) == 2
    one = learning_charge([tr], [inst], {0: np.array([0])}, PCIE_NS, CORE_MHZ)
    assert (one.waits, one.launches) == (3, 1)
    assert one.cycles == pytest.approx(3 * PCIE_NS * CORE_MHZ / 1000) == 4200.0
    # the phase ends with its slowest learning warp; the accesses after it (none here) are not charged
    both = learning_charge([tr], [inst], {0: np.array([0, 1])}, PCIE_NS, CORE_MHZ)
    assert (both.waits, both.cycles) == (6, 6 * CYCLES_PER_WAIT)
    assert learning_charge([tr], [inst], {}, PCIE_NS, CORE_MHZ).cycles == 0.0


def test_launches_before_the_learning_instances_run_inside_the_phase():
    """Launch 0 has no candidate: it runs whole in the learning phase (its slowest warp, 3 waits), then launch
    1's learning warp (1 + 2 waits)."""
    chain, loop = chain_kernel(), loop_kernel([2, 5])
    per_launch = [find_instances(chain, []), find_instances(loop, [candidate()])]
    charge = learning_charge([chain, loop], per_launch, {1: np.array([0])}, PCIE_NS, CORE_MHZ)
    assert (charge.waits, charge.launches, charge.cycles) == (3 + 3, 2, 6 * CYCLES_PER_WAIT)


def test_the_policy_reports_the_charge_of_its_first_instances():
    """The policy takes the first ``n_learn`` instances in dispatch order (warp 0's, then warp 1's) and reports
    tom.learning.charged_cycles = waits x pcie_ns x core clock; the learning instances run on the GPU."""
    tr = loop_kernel([2, 5])
    offload = TomOffload({"loop": CandidateTable("loop", [candidate()], [])}, TomConfig(control="ctrl"))
    per_launch = [find_instances(tr, [candidate()])]
    _, owner = analyzer_instances(per_launch)
    policy = TomPolicy(TomPolicySpec.parse("ctrl+tmap,pcie_ns=500"))
    machine = SimpleNamespace(clocks=SimpleNamespace(core_mhz=CORE_MHZ))
    policy._learning_phase(offload, 1, owner, per_launch, [tr], machine)
    rows = {f"{path}.{metric}": (value, unit) for path, metric, value, unit in policy.rows()}
    assert rows["tom.learning.instances"] == (1.0, "instances")
    assert rows["tom.learning.waits"] == (3.0, "accesses")
    assert rows["tom.learning.charged_cycles"] == (3 * 500 * 1400 / 1000, "cycles")  # 2,100 cycles
    assert "tom.learning.penalty_cycles" not in rows
    assert list(offload.learning[int(tr.launch.launch_id)]) == [0]
