"""Algorithm 1's Earliest Meet Nodes on the llc-mesh layout, against the paper's Fig. 3 worked example."""

from __future__ import annotations

import pytest

from ndpgpu.mechanisms.llc.emn import NO_EMN, MeshLayout, chain_hops, emn, manhattan, path
from ndpgpu.timing import load_machine


@pytest.fixture(scope="module")
def layout():
    return MeshLayout.of(load_machine("llc-mesh"))


def test_fig3_distances_and_emns(layout):
    assert [layout.hops(15, i) for i in (5, 6, 7)] == [8, 5, 8]
    assert layout.emn(15, 5, 6) == layout.core_nodes[36]  # EMN(core 15; LLC5, LLC6) = core 36
    e = layout.core_nodes[36]
    w = layout.width
    assert [manhattan(e, n, w) for n in (layout.core_nodes[15], *(layout.llc_nodes[i] for i in (5, 6, 7)))] == \
        [3, 5, 2, 5]
    assert layout.emn(15, 0, 6) == NO_EMN
    for core in (0, 15, 36, 55):
        for k in range(8):
            assert layout.emn(core, k, k) == layout.llc_nodes[k]


def test_every_emn_lies_on_a_shortest_path_to_both_llcs(layout):
    t = layout.table()
    w = layout.width
    assert t.shape == (56, 8, 8)
    for c, cn in enumerate(layout.core_nodes):
        for a, an in enumerate(layout.llc_nodes):
            for b, bn in enumerate(layout.llc_nodes):
                e = int(t[c, a, b])
                if e == NO_EMN:
                    continue
                assert e != cn
                for ln in (an, bn):
                    assert manhattan(cn, e, w) + manhattan(e, ln, w) == manhattan(cn, ln, w)


def test_emn_share_of_cores_llcs_and_none(layout):
    """56 cores x 56 ordered pairs of distinct LLCs: 62.8% cores, 14.3% LLC nodes, 22.9% no EMN (computed from
    Algorithm 1 on this placement independently of this code)."""
    b = layout.breakdown()
    assert b["core"] == pytest.approx(0.628, abs=5e-4)
    assert b["llc"] == pytest.approx(0.143, abs=5e-4)
    assert b["none"] == pytest.approx(0.229, abs=5e-4)


def test_fig3_hop_accounting(layout):
    """Scenario 1 (a, b, c in LLC5): 48 / 144 -> 16 / 16; scenario 2 (LLC5, 6, 7): 42 / 126 -> 30 / 78."""
    assert chain_hops(layout, 15, 5, 5, 5) == {"baseline": (48, 144), "offloaded": (16, 16)}
    assert chain_hops(layout, 15, 5, 6, 7) == {"baseline": (42, 126), "offloaded": (30, 78)}
    assert chain_hops(layout, 15, 0, 6, 7)["offloaded"] is None


def test_paths_follow_dimension_order():
    w = 8
    assert path(0, 18, w, "xy") == [0, 1, 2, 10, 18]
    assert path(0, 18, w, "yx") == [0, 8, 16, 17, 18]
    assert emn(0, 18, 18, w) == 18
    # both LLCs straight below the core: the nearer one is on the way to the farther
    assert emn(0, 16, 24, w) == 16


def test_a_crossbar_machine_has_no_mesh_layout():
    with pytest.raises(ValueError, match="mesh interconnect"):
        MeshLayout.of(load_machine("gtx480"))


def _reach(topo) -> tuple[dict[int, set[int]], dict[int, set[int]]]:
    """For every router: the terminals whose packets can cross it, and the terminals it can deliver to."""
    sources: dict[int, set[int]] = {r: set() for r in range(topo.nrouters)}
    sinks: dict[int, set[int]] = {r: set() for r in range(topo.nrouters)}
    for a in range(topo.nterminals):
        for b in range(topo.nterminals):
            for r, _ in topo.path(a, b):
                sources[r].add(a)
                sinks[r].add(b)
    return sources, sinks


def test_no_butterfly_router_can_be_an_omni_meet_node():
    """docs/llc.md: on llc-bfly no router is reachable from the core and both LLCs and also reaches all three
    (an Omni meet node's legs), for any core and pair of distinct LLCs; on the mesh every node is (the
    check's own sanity: the same walk finds meet routers where packets can turn)."""
    from ndpgpu.timing.topology import topology_of

    for machine, expect_any in (("llc-bfly", False), ("llc-mesh", True)):
        topo = topology_of(load_machine(machine))
        sources, sinks = _reach(topo)
        found = 0
        for c in topo.sm_terminals[:8]:
            for a in topo.llc_terminals:
                for b in topo.llc_terminals:
                    if a != b and any({c, a, b} <= sources[r] and {c, a, b} <= sinks[r]
                                      for r in range(topo.nrouters)):
                        found += 1
        assert (found > 0) == expect_any, machine
