"""The butterfly interconnect (``icnt.impl: butterfly``, the llc-bfly preset's 4-ary 3-fly): every route
crosses n routers, the zero-load latency of the model, one flit per port per cycle under uniform traffic,
the spec's validation. LLC-Compute on it: tests/mechanisms/llc/test_llc_hardware.py."""

from __future__ import annotations

import numpy as np
import pytest
from test_mesh import OnSMs, one_load_trace
from tracegen import streaming_read

from ndpgpu.timing import MachineConfigError, TimingSession, load_machine
from ndpgpu.timing import engine as E
from ndpgpu.timing.build import EngineState
from ndpgpu.timing.policies import Pinned
from ndpgpu.timing.topology import EJECT, topology_of


@pytest.fixture(scope="module")
def bfly():
    return load_machine("llc-bfly")


# ------------------------------------------------------------------------------------------------------
# routes


def test_tables_route_every_pair_through_n_routers(bfly):
    """Destination-tag routing on the tables: from each of the 64 terminals to each, the packet enters at
    stage-0 router t // 4 (input t % 4), takes output digit i of the destination (most significant first)
    at stage i, visits one router per stage and leaves the last stage's router d // 4 by port d % 4."""
    t = topology_of(bfly)
    k, n = bfly.icnt.butterfly.radix, bfly.icnt.butterfly.stages
    per = k ** (n - 1)
    assert (t.nrouters, t.ports, t.nterminals) == (n * per, k, k ** n)
    for s in range(k ** n):
        assert tuple(t.inject[s]) == (s // k, s % k)
        for d in range(k ** n):
            p = t.path(s, d)
            assert [r // per for r, _o in p] == list(range(n))
            assert [o for _r, o in p] == [(d // k ** (n - 1 - i)) % k for i in range(n)]
            assert p[-1] == ((n - 1) * per + d // k, d % k)
            assert int(t.link[p[-1][0], p[-1][1], 0]) == EJECT
            assert t.hops(s, d) == n - 1
    # the links between stages are a bijection: each input port of stages 1 .. n-1 is fed by one output
    feeds = [tuple(t.link[r, o]) for r in range((n - 1) * per) for o in range(k)]
    assert len(set(feeds)) == len(feeds) == (n - 1) * per * k


@pytest.mark.parametrize("flit", [32, 64])
def test_one_read_crosses_n_routers_each_way(bfly, flit):
    """One warp on SM s reads a line homed at LLC d: request and reply each cross the n = 3 routers of
    their route (n - 1 = 2 router-to-router hops, then the ejection), exactly the links the tables give.
    At 2x bandwidth (64-B flits) the 136-B reply is 3 flits instead of 5."""
    m = load_machine("llc-bfly", overrides={"icnt.flit_bytes": flit})
    t = topology_of(m)
    base = 1 << 32
    reply_flits = -(-(8 + 128) // flit)
    for sm, llc in ((0, 0), (15, 5), (55, 7), (28, 3)):
        sess = TimingSession(m)
        sess.map_range(base, base + (1 << 20), Pinned(llc))
        sess.set_cta_dispatch(OnSMs([sm]))
        st = sess.run_launch(one_load_trace(base))
        assert st.get("butterfly.request.kind.read", "packets") == 1
        assert st.get("butterfly.request.kind.read", "hops") == 2
        assert st.get("butterfly.reply.kind.read", "hops") == 2
        assert st.get("butterfly.reply.kind.read", "weighted_hops") == 2 * reply_flits
        a, b = t.sm_terminals[sm], t.llc_terminals[llc]
        for net, (src, dst) in enumerate(((a, b), (b, a))):
            want = {r * t.ports + o for r, o in t.path(src, dst)}
            got = set(np.nonzero(st.mesh["ports"][net][:, 0])[0].tolist())
            assert got == want, (sm, llc, net)
            assert len(got) == 3  # one output port in each of the n routers


# ------------------------------------------------------------------------------------------------------
# router-level: the compiled router of a subnet driven directly, cycle by cycle


def drive(m, net: int, sends: list[tuple[int, int, int]], cycles: int) -> tuple[EngineState, list]:
    """Packets ``(source, endpoint, bytes)`` pushed into subnet ``net``'s source queues (an SM's on the request
    network, a slice's on the reply network) as room allows; every destination queue (slices' and SMs'
    inputs) is emptied each cycle. Returns the state and (cycle, packet) of every ejection in order."""
    st = EngineState(m)
    nat = st.nsl if net == E.NET_REQ else st.nsm
    pending: dict[int, list[int]] = {}
    for r, (src, d, nbytes) in enumerate(sends):
        st.rq[r, :] = 0
        st.rq[r, E.R_MXD] = -1
        st.rq[r, E.R_KIND] = E.PK_READ
        st.rq[r, E.R_BYTES] = nbytes
        st.rq[r, E.R_DEST] = d if d >= nat else -1
        if net == E.NET_REQ:
            st.rq[r, E.R_SRC], st.rq[r, E.R_SLICE] = src, d if d < nat else 0
            q = st.q_smout + src
        else:
            st.rq[r, E.R_SRC] = d if d < nat else 0
            q = st.q_l2out + src
        pending.setdefault(q, []).append(r)
    sinks = [st.q_l2in + j for j in range(st.nsl)] + [st.q_smin + i for i in range(st.nsm)] + \
        [st.q_l2rin + j for j in range(st.nsl)]
    out = []
    for k in range(cycles):
        for q, rows in pending.items():
            while rows and st.qm[q, E.Q_COUNT] < st.qm[q, E.Q_CAP]:
                E.q_push(st.qb, st.qm, q, rows.pop(0))
        E.mesh_tick(net, E.edge(st.clk, E.D_ICNT, k), k, st.cfg, st.clk, st.rq, st.qb, st.qm, st.netd, st.wake,
                    st.g, st.nst, st.kst, st.mcfg, st.mvc, st.mvq, st.mport, st.msw, st.mst, st.mkst)
        for q in sinks:
            while st.qm[q, E.Q_COUNT]:
                out.append((k, E.q_pop(st.qb, st.qm, q)))
    return st, out


@pytest.mark.parametrize("net", [0, 1])
@pytest.mark.parametrize("nbytes, flits", [(0, 1), (128, 5)])
def test_zero_load_latency(bfly, net, nbytes, flits):
    """One packet alone, on either subnet. With router latency R = 3, link latency L = 1, n = 3 stages and f
    flits, injected in cycle 0:

    * the injection link (L) and the stage-0 router's pipeline (R): the head may cross its switch at L + R;
    * each of the n - 1 hops to the next stage: a link and a router, L + R, so the last stage's switch is
      reached at n (L + R);
    * ejection: the f flits leave the last switch one per cycle and cross the ejection link (L), so the tail
      arrives at n (L + R) + f + L.

    Zero-load latency n x (R + L) + L + f: 14 cycles for a 1-flit request, 18 for a 5-flit reply. (The mesh's
    local port has no link: its h-hop latency is (h + 1) R + h L + f, docs/timing.md.)"""
    bs = bfly.icnt.butterfly
    want = bs.stages * (bs.router_latency + bs.link_latency) + bs.link_latency + flits
    src, d = (15, 5) if net == E.NET_REQ else (5, 15)  # SM 15 -> LLC5, or LLC5 -> SM 15
    st, ej = drive(bfly, net, [(src, d, nbytes)], 40)
    assert len(ej) == 1
    r = ej[0][1]
    t_in, t_out = (st.rq[r, E.R_T1], st.rq[r, E.R_T2]) if net == E.NET_REQ else (st.rq[r, E.R_T5], st.rq[r, E.R_T6])
    assert t_in == E.edge(st.clk, E.D_ICNT, 0)
    assert t_out == E.edge(st.clk, E.D_ICNT, want)
    assert want == (14 if flits == 1 else 18)
    assert st.mkst[net, E.PK_READ, 1] == bs.stages - 1  # hops


def test_uniform_traffic_keeps_one_flit_per_port_per_cycle(bfly):
    """Every SM sends 5-flit packets to endpoints drawn uniformly from the other 63 terminals (slices, and SMs
    as the request network's second destinations) faster than the network drains them. No router output
    ever carries more than one flit per cycle, no terminal injects more than one flit per cycle, every packet
    arrives having crossed n - 1 = 2 hops, and the load is near the bound on the busiest ports."""
    rng = np.random.default_rng(7)
    nsm, nsl = bfly.num_sms, bfly.num_slices
    per_sm = 40
    sends = []
    for _ in range(per_sm):
        for s in range(nsm):
            while True:
                d = int(rng.integers(0, nsl + nsm))
                if d != nsl + s:
                    break
            sends.append((s, d, 128))
    cycles = 1500
    st, ej = drive(bfly, E.NET_REQ, sends, cycles)
    assert len(ej) == len(sends)
    last = ej[-1][0] + 1
    flits = st.mport[E.NET_REQ, :, E.MP_FLITS]
    assert flits.sum() == 3 * 5 * len(sends)  # each packet's 5 flits leave 3 router outputs
    assert flits.max() <= last
    assert st.nst[E.NET_REQ, 0, :nsm].max() <= last  # each SM's injection link
    assert st.mkst[E.NET_REQ, E.PK_READ, 0] == len(sends)
    assert st.mkst[E.NET_REQ, E.PK_READ, 1] == 2 * len(sends)
    assert flits.max() > 0.5 * last  # saturated: the busiest output is busy most of the time


def test_all_to_all_end_to_end_completes_within_the_link_bound(bfly):
    """The whole engine: 56 SMs streaming loads and stores over all 8 LLCs, with one 5-flit VC per port and
    2-entry ejection queues. Every packet injected is ejected, every read gets its reply and every write
    its ack, each packet crosses n - 1 = 2 hops, and no port exceeds one flit per cycle."""
    m = load_machine("llc-bfly", overrides={"icnt.butterfly.vcs": 1, "icnt.butterfly.vc_buffers": 5,
                                            "icnt.eject_buffer": 2})
    st = TimingSession(m).run_launch(streaming_read(56 * 2, 128, 8, store=True))
    for net in ("butterfly.request", "butterfly.reply"):
        assert st.get(net, "injected") == st.get(net, "ejected") > 0
        assert st.get(net, "hops") == 2 * st.get(net, "ejected")
        assert st.get(net, "max_link_utilisation") <= 1.0
    k = st.packet_kinds
    assert k[E.PK_READ, 0] == k[E.PK_READ, 2]
    assert k[E.PK_WRITE, 0] == k[E.PK_ACK, 2]
    icyc = st.time_ps / (1e6 / m.clocks.icnt_mhz)
    assert st.mesh["ports"][:, :, 0].max() <= icyc
    assert st.mesh["topology"] == "butterfly"


# ------------------------------------------------------------------------------------------------------
# spec


def test_butterfly_spec_validation():
    with pytest.raises(MachineConfigError, match="do not fit"):
        load_machine("llc-bfly", overrides={"icnt.butterfly.radix": 2, "icnt.butterfly.stages": 5})
    with pytest.raises(MachineConfigError, match="repeats"):
        load_machine("llc-bfly", overrides={"icnt.butterfly.llc_nodes": [1, 8, 16, 24, 32, 40, 48, 56]})
    with pytest.raises(MachineConfigError, match="outside"):
        load_machine("llc-bfly", overrides={"icnt.butterfly.llc_nodes": [0, 8, 16, 24, 32, 40, 48, 64]})
    with pytest.raises(MachineConfigError, match="sm_nodes"):
        load_machine("llc-bfly", overrides={"core.num_sms": 55})
    with pytest.raises(MachineConfigError, match="needs an icnt.butterfly"):
        load_machine("gtx480", overrides={"icnt.impl": "butterfly"})
    with pytest.raises(MachineConfigError, match="is not 'butterfly'"):
        load_machine("llc-bfly", overrides={"icnt.impl": "crossbar"})
    with pytest.raises(MachineConfigError, match="radix"):
        load_machine("llc-bfly", overrides={"icnt.butterfly.radix": 1})
    bs = load_machine("llc-bfly").icnt.butterfly
    assert (bs.radix, bs.stages, bs.terminals) == (4, 3, 64)
