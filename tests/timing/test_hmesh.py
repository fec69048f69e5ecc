"""The hierarchical mesh (``icnt.impl: hmesh``, the mpu preset's 8 processors of 4x4 cores on a 4x2 off-chip
mesh): hand-counted hops, the tables' consistency, the zero-load latency with a narrow off-chip link, the
throughput of one off-chip link and of one local port, the spec's validation."""

from __future__ import annotations

import numpy as np
import pytest
from test_butterfly import drive

from ndpgpu.timing import MachineConfigError, load_machine
from ndpgpu.timing import engine as E
from ndpgpu.timing.topology import EJECT, NO_LINK, topology_of

NSM = 128  # MPU: SM c is terminal c, NBU (slice) 4c + s is terminal 128 + 4c + s
EAST_OFF = 9 + 1  # off-chip ports follow 4 on-chip and 5 local ports: N E S W = 9 10 11 12


@pytest.fixture(scope="module")
def mpu():
    return load_machine("mpu")


@pytest.fixture(scope="module")
def topo(mpu):
    return topology_of(mpu)


def nbu(core: int, s: int = 0) -> int:
    """Terminal of NBU ``s`` of ``core``."""
    return NSM + 4 * core + s


def core_at(chip: int, x: int, y: int) -> int:
    """The core at node (x, y) of processor ``chip`` (= its SM's terminal and its router)."""
    return chip * 16 + y * 4 + x


# ------------------------------------------------------------------------------------------------------
# routes


def test_shape_and_placement(topo):
    """128 routers of 4 + 5 + 4 ports; SM c enters at router c's first local port, NBU 4c + s at port 5 + s."""
    assert (topo.kind, topo.nrouters, topo.ports, topo.nterminals) == ("hmesh", 128, 13, 640)
    for c in (0, 37, 127):
        assert tuple(topo.inject[c]) == (c, 4)
        for s in range(4):
            assert tuple(topo.inject[nbu(c, s)]) == (c, 5 + s)


@pytest.mark.parametrize("src, dst, hops", [
    (0, nbu(0, 3), 0),                                  # the core's own NBU: ejected at its own router
    (core_at(0, 1, 2), nbu(core_at(0, 2, 2)), 1),       # east neighbour on the same chip
    (core_at(0, 1, 2), nbu(core_at(0, 1, 1)), 1),       # north neighbour
    (core_at(3, 0, 0), nbu(core_at(3, 3, 3)), 6),       # opposite corners of a chip: 3 + 3
    (core_at(5, 3, 0), nbu(core_at(5, 0, 3)), 6),
    # chip 0 (0, 0) -> gateway (1, 1): 2; chip 0 -> chip 1: 1 off-chip; gateway (1, 1) -> (3, 3) of chip 1: 4
    (core_at(0, 0, 0), nbu(core_at(1, 3, 3)), 7),
    # chip 0 (3, 3) -> gateway: 4; chip (0, 0) -> chip 7 = (3, 1): 3 + 1 off-chip; gateway -> (0, 0): 2
    (core_at(0, 3, 3), nbu(core_at(7, 0, 0)), 10),
    # the reply of an NBU of chip 6 = (2, 1), node (1, 1) (the gateway) to a core of chip 4 = (0, 1) at
    # node (1, 0): 0 on-chip, 2 off-chip (west, west), 1 on-chip (north)
    (nbu(core_at(6, 1, 1), 2), core_at(4, 1, 0), 3),
])
def test_hand_counted_hops(topo, src, dst, hops):
    assert topo.hops(src, dst) == hops


def test_cross_chip_route_by_hand(topo):
    """SM 0 (chip 0, node (0, 0)) to NBU 0 of core 31 (chip 1, node (3, 3)): X then Y to the gateway at
    (1, 1), east over the off-chip link to chip 1's gateway (router 21), X then Y to router 31, eject on
    NBU 0's port (5)."""
    assert topo.path(0, nbu(31)) == [(0, 1), (1, 2), (5, EAST_OFF), (21, 1), (22, 1), (23, 2), (27, 2), (31, 5)]


def expected_hops(a: int, b: int) -> int:
    """Hops between routers ``a`` and ``b`` derived from the geometry: Manhattan distance on one chip; else
    to the gateway (node 5), Manhattan over the 4x2 chip grid, from the gateway."""
    def dist(u: int, v: int, w: int) -> int:
        return abs(u % w - v % w) + abs(u // w - v // w)
    ca, na = divmod(a, 16)
    cb, nb = divmod(b, 16)
    if ca == cb:
        return dist(na, nb, 4)
    return dist(na, 5, 4) + dist(ca, cb, 4) + dist(5, nb, 4)


def test_every_route_ends_with_the_expected_hops(topo):
    """Every SM to every NBU and every NBU to every SM: the route ends at the destination's router on its
    local port, with the hops the geometry gives, and only gateways (node 5) use off-chip ports."""
    routers = topo.inject[:, 0]
    for src in range(topo.nterminals):
        dsts = range(NSM, topo.nterminals) if src < NSM else range(NSM)
        for dst in dsts:
            p = topo.path(src, dst)
            assert p[-1] == tuple(topo.inject[dst])
            assert len(p) - 1 == expected_hops(int(routers[src]), int(routers[dst]))
            for r, o in p[:-1]:
                assert o < 4 or (o >= 9 and r % 16 == 5)


def test_links_pair_up(topo):
    """Every router-to-router link has its reverse (the input port of a link is the output of the way
    back); 4 chips x 2 of 4x4 meshes give 8 x 48 on-chip links, the 4x2 chip grid 20 off-chip links, all
    between gateways; the 5 local ports of each router eject."""
    onchip = offchip = 0
    for r in range(topo.nrouters):
        for o in range(topo.ports):
            nb, ip = (int(v) for v in topo.link[r, o])
            if 4 <= o < 9:
                assert nb == EJECT
                continue
            if nb == NO_LINK:
                continue
            assert tuple(topo.link[nb, ip]) == (r, o)
            if o < 4:
                assert nb // 16 == r // 16 and ip == (o + 2) % 4
                onchip += 1
            else:
                assert r % 16 == nb % 16 == 5 and ip == 9 + (o - 9 + 2) % 4
                offchip += 1
    assert (onchip, offchip) == (8 * 48, 20)
    lat, width = topo.cost[:, :, 0], topo.cost[:, :, 1]
    assert (width[:, :9] == 32).all() and (width[:, 9:] == 16).all()
    assert (lat == 1).all()


# ------------------------------------------------------------------------------------------------------
# the compiled router: latency and throughput


@pytest.mark.parametrize("net, src, dst, nbytes, want", [
    # same chip, 1 hop, 3 flits (8 + 32 B over 16-B flits): (1 + 1) R + 1 L + 2 (3 flits on a 32-B port)
    (E.NET_REQ, 16, 4 * 17, 32, 5),
    # the reply back, header only (1 flit): 2 R + L + 1
    (E.NET_REP, 4 * 17, 16, 0, 4),
    # SM 0 -> NBU 0 of core 31 (7 hops, one off-chip): 8 R + 7 L + 3 (3 flits over the 16-B off-chip link)
    (E.NET_REQ, 0, 4 * 31, 32, 18),
    (E.NET_REQ, 0, 4 * 31, 0, 16),
    # its own NBU: 0 hops, R + 2
    (E.NET_REQ, 9, 4 * 9 + 1, 32, 3),
])
def test_zero_load_latency(mpu, net, src, dst, nbytes, want):
    """One packet alone. With R = L = 1 the head reaches the last router's switch after (h + 1) R + h L
    cycles; the tail follows at the pace of the narrowest link crossed: ceil(flits x 16 B / width) with 32 B
    on chip and 16 B off chip."""
    st, ej = drive(mpu, net, [(src, dst, nbytes)], 40)
    assert len(ej) == 1
    r = ej[0][1]
    t_in, t_out = (st.rq[r, E.R_T1], st.rq[r, E.R_T2]) if net == E.NET_REQ else (st.rq[r, E.R_T5], st.rq[r, E.R_T6])
    assert t_in == E.edge(st.clk, E.D_ICNT, 0)
    assert t_out == E.edge(st.clk, E.D_ICNT, want)


def ejection_cycles(ej) -> np.ndarray:
    return np.array([k for k, _r in ej])


def test_one_offchip_link_carries_one_flit_per_cycle(mpu):
    """All 16 cores of chip 0 send 3-flit requests to NBUs of chip 1: every packet crosses the one
    off-chip link from chip 0's gateway east (16 B per cycle = one flit), so in steady state one packet
    arrives every 3 cycles, and the link carries one flit in every cycle it is busy."""
    per = 30
    sends = [(c, 4 * (16 + (c + i) % 16) + i % 4, 32) for i in range(per) for c in range(16)]
    st, ej = drive(mpu, E.NET_REQ, sends, 2000)
    assert len(ej) == len(sends)
    k = ejection_cycles(ej)
    window = k[100:400]
    rate = (len(window) - 1) / (window[-1] - window[0])
    assert rate == pytest.approx(1 / 3, rel=0.03)
    link = st.mport[E.NET_REQ, 5 * 13 + EAST_OFF]
    assert link[E.MP_FLITS] == 3 * len(sends)
    assert link[E.MP_FLITS] <= k[-1] + 1


def test_one_local_port_ejects_two_flits_per_cycle(mpu):
    """Eight cores of one chip send 3-flit requests to one NBU: its 32-B ejection port takes a packet per
    ceil(48 / 32) = 2 cycles, the bound of the hot spot."""
    sends = [(c, 4 * 5 + 2, 32) for _ in range(30) for c in (0, 1, 2, 3, 8, 9, 10, 11)]
    st, ej = drive(mpu, E.NET_REQ, sends, 2000)
    assert len(ej) == len(sends)
    window = ejection_cycles(ej)[40:200]
    assert (len(window) - 1) / (window[-1] - window[0]) == pytest.approx(1 / 2, rel=0.02)
    assert st.mport[E.NET_REQ, 5 * 13 + 5 + 2, E.MP_FLITS] == 3 * len(sends)  # NBU 2: local port 5 + 2


def test_mixed_traffic_completes_with_counted_hops(mpu, topo):
    """Every core sends 3-flit requests to NBUs across the machine: all arrive, and the hops the router
    counted equal those the tables give."""
    rng = np.random.default_rng(3)
    sends = [(c, int(rng.integers(0, 512)), 32) for _ in range(6) for c in range(NSM)]
    st, ej = drive(mpu, E.NET_REQ, sends, 3000)
    assert len(ej) == len(sends)
    want = sum(topo.hops(s, NSM + d) for s, d, _b in sends)
    assert st.mkst[E.NET_REQ, E.PK_READ, 1] == want
    assert st.mst[E.NET_REQ, E.MS_EJ] == len(sends)


# ------------------------------------------------------------------------------------------------------
# spec


def test_hmesh_spec_validation():
    with pytest.raises(MachineConfigError, match="gateway=16 outside the 4x4"):
        load_machine("mpu", overrides={"icnt.hmesh.gateway": 16})
    with pytest.raises(MachineConfigError, match="sm_nodes has 3 routers for 128 SMs"):
        load_machine("mpu", overrides={"icnt.hmesh.sm_nodes": [0, 1, 2]})
    with pytest.raises(MachineConfigError, match=r"routers \[128\] outside the 128 routers"):
        load_machine("mpu", overrides={"icnt.hmesh.sm_nodes": list(range(127)) + [128]})
    with pytest.raises(MachineConfigError, match="a router holds 132 terminals; at most 55"):  # + NBUs 0-3
        load_machine("mpu", overrides={"icnt.hmesh.sm_nodes": [0] * 128})
    with pytest.raises(MachineConfigError, match="icnt.hmesh is set but icnt.impl is not 'hmesh'"):
        load_machine("mpu", overrides={"icnt.impl": "crossbar"})
    with pytest.raises(MachineConfigError, match="needs an icnt.hmesh section"):
        load_machine("mpu", overrides={"icnt.hmesh": None})
    assert load_machine("mpu", overrides={"icnt.impl": "crossbar", "icnt.hmesh": None}).icnt.impl == "crossbar"


def test_explicit_placement_moves_the_terminals():
    """Placing SM c at router 127 - c reverses the cores: SM 0 now injects at router 127, and its route to
    NBU 0 of core 0 (still at router 0) crosses both chips' halves: (3, 3) -> gateway (1, 1) of chip 7,
    chip 7 = (3, 1) -> chip 0 = (0, 0), gateway -> (0, 0): 4 + 4 + 2 hops."""
    m = load_machine("mpu", overrides={"icnt.hmesh.sm_nodes": list(range(127, -1, -1))})
    t = topology_of(m)
    assert tuple(t.inject[0]) == (127, 4)
    assert t.hops(0, nbu(0)) == 10
