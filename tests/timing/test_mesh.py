"""The 2D mesh interconnect (issue 4): routing distance, hot spots, VC back-pressure, LLC-Compute Fig. 3."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from tracegen import PreloadLines, one_line_per_cta, streaming_read

import ndpgpu
from ndpgpu.timing import CtaDispatch, DispatchPlan, TimingSession, load_machine
from ndpgpu.timing import engine as E
from ndpgpu.timing.policies import Pinned

NORTH, EAST, SOUTH, WEST, LOCAL = range(5)
STEP = {NORTH: (0, -1), EAST: (1, 0), SOUTH: (0, 1), WEST: (-1, 0)}


class OnSMs(CtaDispatch):
    """CTA i runs on SM ``sms[i % len(sms)]``."""

    def __init__(self, sms: list[int]) -> None:
        self.sms = sms

    def plan(self, launch, machine) -> DispatchPlan:
        n = launch.num_ctas
        target = np.array([self.sms[i % len(self.sms)] for i in range(n)], np.int64)
        return DispatchPlan(np.arange(n, dtype=np.int64), target, E.DISP_STATIC)


def route(src: int, dst: int, w: int, yx: bool) -> list[tuple[int, int]]:
    """The (node, output direction) links a packet crosses under dimension-order routing (ejection last)."""
    x, y = src % w, src // w
    dx, dy = dst % w, dst // w
    out = []
    order = ("y", "x") if yx else ("x", "y")
    for dim in order:
        while (x, y) != (dx, y) if dim == "x" else y != dy:
            if dim == "x":
                d = EAST if dx > x else WEST
            else:
                d = SOUTH if dy > y else NORTH
            out.append((y * w + x, d))
            x, y = x + STEP[d][0], y + STEP[d][1]
    out.append((y * w + x, LOCAL))
    return out


def manhattan(a: int, b: int, w: int) -> int:
    return abs(a % w - b % w) + abs(a // w - b // w)


def one_load_trace(line_addr: int, ctas: int = 1) -> object:
    """Each CTA (one warp): one coalesced 128-B load of ``line_addr``, then exit."""
    return one_line_per_cta(ctas, line_addr)


# ------------------------------------------------------------------------------------------------------
# routing distance


@pytest.mark.parametrize("routing", ["yx", "xy"])
def test_hop_counts_equal_manhattan_distance(routing):
    """One warp on SM s reads a line homed at LLC d: request and reply each take |dx| + |dy| hops, and the
    links they cross are exactly those of the dimension-order route."""
    m = load_machine("llc-mesh", overrides={"icnt.mesh.routing": routing})
    ms = m.icnt.mesh
    base = 1 << 32
    for sm, llc in ((0, 0), (15, 5), (15, 6), (15, 7), (55, 0), (28, 3)):
        sess = TimingSession(m)
        sess.map_range(base, base + (1 << 20), Pinned(llc))
        sess.set_cta_dispatch(OnSMs([sm]))
        st = sess.run_launch(one_load_trace(base))
        h = manhattan(ms.sm_nodes[sm], ms.llc_nodes[llc], ms.width)
        assert st.get("mesh.request.kind.read", "packets") == 1
        assert st.get("mesh.request.kind.read", "hops") == h
        assert st.get("mesh.reply.kind.read", "hops") == h
        assert st.get("mesh.request.kind.read", "weighted_hops") == h * 1  # header-only request: 1 flit
        assert st.get("mesh.reply.kind.read", "weighted_hops") == h * 5  # 8 + 128 B in 32-B flits
        for net, (a, b) in enumerate(((ms.sm_nodes[sm], ms.llc_nodes[llc]), (ms.llc_nodes[llc], ms.sm_nodes[sm]))):
            want = {n * 5 + d for n, d in route(a, b, ms.width, routing == "yx")}
            got = set(np.nonzero(st.mesh["ports"][net][:, 0])[0].tolist())
            assert got == want, (sm, llc, net)
    if routing == "yx":
        assert manhattan(ms.sm_nodes[15], ms.llc_nodes[5], 8) == 8  # LLC-Compute Fig. 3: 8 / 5 / 8 hops
        assert manhattan(ms.sm_nodes[15], ms.llc_nodes[6], 8) == 5
        assert manhattan(ms.sm_nodes[15], ms.llc_nodes[7], 8) == 8


# ------------------------------------------------------------------------------------------------------
# hot spot


@pytest.mark.parametrize("routing", ["yx", "xy"])
def test_hot_spot_saturates_the_predicted_link(routing):
    """Every SM streams lines homed at LLC5. The per-link flit counts equal the sums over the routes of the
    packets; the busiest request link into LLC5 is the one dimension-order routing predicts (YX: the last
    hop is along X, from the west, where 6 of the 8 columns lie; XY: along Y, from the north); and no link
    carries more than one flit per cycle, while LLC5's injection link (all replies) runs near that bound."""
    m = load_machine("llc-mesh", overrides={"icnt.mesh.routing": routing})
    ms = m.icnt.mesh
    base = 1 << 32
    sess = TimingSession(m)
    sess.map_range(base, base + (1 << 26), Pinned(5))
    tr = streaming_read(56 * 2, 64, 16, base=base)
    st = sess.run_launch(tr)
    w = ms.width
    llc = ms.llc_nodes[5]
    pred = np.zeros((2, 64 * 5), np.int64)
    kinds = st.packet_kinds
    assert kinds[E.PK_READ, 0] == kinds[E.PK_READ, 2] > 0
    # per SM: its request and reply packets (injected flits per source are in net_ports)
    for sm in range(m.num_sms):
        nreq = st.net_ports[0, 0, sm]  # request flits injected by the SM (1 flit each)
        nrep = st.net_ports[1, 1, sm]  # reply flits ejected at the SM
        for n, d in route(ms.sm_nodes[sm], llc, w, routing == "yx"):
            pred[0, n * 5 + d] += nreq
        for n, d in route(llc, ms.sm_nodes[sm], w, routing == "yx"):
            pred[1, n * 5 + d] += nrep
    got = st.mesh["ports"][:, :, 0]
    assert np.array_equal(got, pred)
    into = {WEST: llc - 1, EAST: llc + 1, NORTH: llc - w, SOUTH: llc + w}  # neighbour feeding LLC5 from that side
    link_in = {side: got[0, nb * 5 + {WEST: EAST, EAST: WEST, NORTH: SOUTH, SOUTH: NORTH}[side]]
               for side, nb in into.items()}
    busiest = max(link_in, key=link_in.get)
    assert busiest == (WEST if routing == "yx" else NORTH)
    icyc = st.time_ps / (1e6 / m.clocks.icnt_mhz)
    assert got.max() <= icyc  # one flit per link per cycle
    assert st.get("mesh.reply", "max_link_utilisation") <= 1.0
    inj = st.net_ports[1, 0, 5]  # LLC5's reply injection: every reply leaves through it
    assert inj == got[1].reshape(64, 5)[:, LOCAL].sum()
    # the injection link is the bottleneck: busy most of the kernel (DRAM at one MC could carry more)
    assert inj / icyc > 0.85, inj / icyc


# ------------------------------------------------------------------------------------------------------
# back-pressure and deadlock freedom


@pytest.mark.parametrize("routing", ["yx", "xy"])
def test_back_pressure_without_loss_or_deadlock_all_to_all(routing):
    """All 56 SMs stream lines interleaved over all 8 LLCs (all-to-all), with one 5-flit VC per port and
    small ejection queues: credit waits appear, every packet injected is ejected, and the run completes."""
    m = load_machine("llc-mesh", overrides={"icnt.mesh.routing": routing, "icnt.mesh.vcs": 1,
                                            "icnt.mesh.vc_buffers": 5, "icnt.eject_buffer": 2})
    sess = TimingSession(m)
    st = sess.run_launch(streaming_read(56 * 2, 128, 8, store=True))
    for net in ("mesh.request", "mesh.reply"):
        assert st.get(net, "injected") == st.get(net, "ejected") > 0
    assert st.get("mesh.request", "credit_waits") + st.get("mesh.reply", "credit_waits") > 0
    assert st.get("mesh.request", "injection_waits") > 0
    for net in ("mesh.request", "mesh.reply"):  # 5 input ports x 1 VC x at most 5 one-flit packets
        assert st.get(net, "max_router_packets") <= 5 * 5
    # every read got its reply and every write its ack
    k = st.packet_kinds
    assert k[E.PK_READ, 0] == k[E.PK_READ, 2]
    assert k[E.PK_WRITE, 0] == k[E.PK_ACK, 2]
    # with 8 VCs the same traffic waits less for credits
    roomy = TimingSession(load_machine("llc-mesh", overrides={"icnt.mesh.routing": routing}))
    st8 = roomy.run_launch(streaming_read(56 * 2, 128, 8, store=True))
    assert (st8.get("mesh.request", "credit_waits") + st8.get("mesh.reply", "credit_waits")
            < st.get("mesh.request", "credit_waits") + st.get("mesh.reply", "credit_waits"))


# ------------------------------------------------------------------------------------------------------
# LLC-Compute Fig. 3

VECADD = r'''
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n){
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
'''


@pytest.mark.parametrize("homes, hops, weighted", [((5, 5, 5), 48, 144), ((5, 6, 7), 42, 126)])
def test_llc_compute_fig3_hop_accounting(homes, hops, weighted):
    """``c[i] = a[i] + b[i]`` by one warp (32 floats: one 128-B line per array) on core 15, with a, b, c
    homed at the given LLCs: two read requests (1 flit) and their replies (5 flits), one store (5 flits)
    and its ack (1 flit), each crossing the core-LLC distance (8, 5, 8 hops to LLC5, 6, 7)."""
    mod = ndpgpu.RawModule(code=VECADD)
    n = 32
    a = ndpgpu.asarray(np.ones(n, np.float32))
    b = ndpgpu.asarray(np.ones(n, np.float32))
    c = ndpgpu.zeros(n, np.float32)
    mod.get_function("vecadd")((1,), (n,), (a, b, c, np.int32(n)), trace=True)
    tr = c.device.launches[-1].trace
    sess = TimingSession("llc-mesh")
    for arr, llc in zip((a, b, c), homes, strict=True):
        assert arr.ptr % 128 == 0
        sess.map_range(arr.ptr, arr.ptr + 128, Pinned(llc))
    sess.set_cta_dispatch(OnSMs([15]))
    st = sess.run_launch(tr)
    assert st.get("mesh", "hops") == hops
    assert st.get("mesh", "weighted_hops") == weighted
    assert st.get("mesh.request.kind.read", "packets") == 2
    d_c = st.get("mesh.request.kind.write", "hops")  # core 15 -> c's LLC
    assert st.get("mesh.request.kind.write", "weighted_hops") == 5 * d_c
    assert st.get("mesh.reply.kind.write_ack", "packets") == 1
    assert st.get("mesh.reply.kind.write_ack", "weighted_hops") == d_c
    assert st.get("mesh.reply.kind.read", "weighted_hops") == 5 * st.get("mesh.request.kind.read", "hops")


def test_mesh_spec_validation():
    from ndpgpu.timing import MachineConfigError

    with pytest.raises(MachineConfigError, match="sm_nodes"):
        load_machine("llc-mesh", overrides={"core.num_sms": 55})
    with pytest.raises(MachineConfigError, match="repeats"):
        load_machine("llc-mesh", overrides={"icnt.mesh.llc_nodes": [0, 11, 21, 31, 34, 46, 48, 60]})
    with pytest.raises(MachineConfigError, match="needs an icnt.mesh"):
        load_machine("gtx480", overrides={"icnt.impl": "mesh"})


# ------------------------------------------------------------------------------------------------------
# router-level checks: the compiled mesh_tick of the request subnet driven directly, cycle by cycle, with
# every source queue kept full and every destination queue emptied each cycle (so only the mesh limits)


def drive_mesh(overrides: dict, streams: list[tuple[int, int, int, int]], cycles: int,
               nbytes: int = 0) -> list[tuple[int, int, int]]:
    """Streams (source node, LLC node, priority class, packets) of read requests carrying ``nbytes`` through
    llc-mesh's request subnet; returns (cycle, source node, class) of every ejection, in order."""
    from ndpgpu.timing.build import EngineState

    m = load_machine("llc-mesh", overrides=overrides)
    ms = m.icnt.mesh
    st = EngineState(m)
    sm_of = {n: i for i, n in enumerate(ms.sm_nodes)}
    llc_of = {n: i for i, n in enumerate(ms.llc_nodes)}
    pending: list[tuple[int, list[int]]] = []
    r = 0
    for src, dst, prio, n in streams:
        rows = list(range(r, r + n))
        r += n
        for x in rows:
            st.rq[x, :] = 0
            st.rq[x, E.R_DEST] = -1  # (as rq_alloc: the natural destination)
            st.rq[x, E.R_MXD] = -1
            st.rq[x, E.R_KIND] = E.PK_READ
            st.rq[x, E.R_BYTES] = nbytes
            st.rq[x, E.R_SLICE] = llc_of[dst]
            st.rq[x, E.R_SRC] = sm_of[src]
            st.rq[x, E.R_PRIO] = prio
        pending.append((st.q_smout + sm_of[src], rows))
    out = []
    for k in range(cycles):
        for q, rows in pending:
            while rows and st.qm[q, E.Q_COUNT] < st.qm[q, E.Q_CAP]:
                E.q_push(st.qb, st.qm, q, rows.pop(0))
        E.mesh_tick(E.NET_REQ, E.edge(st.clk, E.D_ICNT, k), k, st.cfg, st.clk, st.rq, st.qb, st.qm, st.netd, st.wake,
                    st.g, st.nst, st.kst, st.mcfg, st.mvc, st.mvq, st.mport, st.msw, st.mst, st.mkst)
        for d in range(st.nsl):
            q = st.q_l2in + d
            while st.qm[q, E.Q_COUNT]:
                x = E.q_pop(st.qb, st.qm, q)
                out.append((k, ms.sm_nodes[st.rq[x, E.R_SRC]], int(st.rq[x, E.R_PRIO])))
    return out


def steady_rate(ejections: list[tuple[int, int, int]], skip: int = 40, count: int = 200) -> Fraction:
    """Packets per cycle between ejection ``skip`` and ejection ``skip + count``."""
    ks = [k for k, _s, _p in ejections]
    return Fraction(count, ks[skip + count] - ks[skip])


# Credit loop of one hop: a VC of B flits holds floor(B / f) packets of f flits; a packet takes its buffer
# space when the upstream router grants it, becomes eligible downstream router_latency + link_latency = 4
# cycles later, is granted then, and its space is visible upstream credit_delay = d cycles after that. So
# each packet's space turns over every 4 + d cycles and a link moves at most one flit per cycle:
# packets per cycle = min(1 / f, floor(B / f) / (4 + d)).
@pytest.mark.parametrize("buffers, delay, nbytes, want", [
    (4, 1, 0, Fraction(4, 5)),     # 1-flit requests: 4 / 5
    (4, 4, 0, Fraction(1, 2)),     # 4 / 8
    (4, 12, 0, Fraction(1, 4)),    # 4 / 16
    (2, 2, 0, Fraction(1, 3)),     # 2 / 6
    (8, 4, 0, Fraction(1, 1)),     # 8 / 8: the link's one flit per cycle binds
    (5, 1, 128, Fraction(1, 5)),   # 5-flit packets, one per VC: min(1/5, 1/5)
    (5, 4, 128, Fraction(1, 8)),   # min(1/5, 1/8)
    (10, 11, 128, Fraction(2, 15)),  # two per VC: min(1/5, 2/15)
    (10, 3, 128, Fraction(1, 5)),  # min(1/5, 2/7): link-bound again
])
def test_credit_delay_throughput_of_a_chain(buffers, delay, nbytes, want):
    """One stream from the SM at node 56 (x0, y7) to LLC7 at node 60 (x4, y7): four routers in a row, one
    VC per port, ``credit_delay`` = d. The steady ejection rate equals the credit loop's bound above."""
    ov = {"icnt.mesh.vcs": 1, "icnt.mesh.vc_buffers": buffers, "icnt.mesh.credit_delay": delay}
    ej = drive_mesh(ov, [(56, 60, 0, 400)], 4000, nbytes)
    assert len(ej) == 400
    assert steady_rate(ej) == want


def test_zero_credit_delay_depends_on_router_order():
    """credit_delay = 0 (the default) credits a slot in the cycle the packet leaves; routers are visited in
    node order, so an upstream router with a lower id (an eastward chain) sees the credit one cycle later
    (4 flits per 4 + 1 cycles) and a westward chain (63 -> 60) in the same cycle (4 per 4: link-bound)."""
    ov = {"icnt.mesh.vcs": 1, "icnt.mesh.vc_buffers": 4}
    assert steady_rate(drive_mesh(ov, [(56, 60, 0, 400)], 1000)) == Fraction(4, 5)
    assert steady_rate(drive_mesh(ov, [(63, 60, 0, 400)], 1000)) == 1


@pytest.mark.parametrize("routing", ["yx", "xy"])
@pytest.mark.parametrize("nbytes", [0, 128])
def test_islip_shares_a_hot_output_equally(routing, nbytes):
    """SMs at the four neighbours of LLC5 (node 46: 38 north, 54 south, 45 west, 47 east) stream requests to
    it; all four inputs of router 46 compete for its ejection port. iSLIP's grant pointer moves to one past
    the accepted input, so in any window each input gets the same number of grants, within one (here the
    inputs alternate N, E, S, W). The one-step round-robin (a scan pointer advancing one VC per cycle) is
    not fair on this pattern: one input gets twice the share of another."""
    from collections import Counter

    srcs = [38, 54, 45, 47]
    streams = [(s, 46, 0, 400) for s in srcs]
    fl = 1 if nbytes == 0 else 5
    for alloc in ("islip", "round_robin"):
        ej = drive_mesh({"icnt.mesh.allocator": alloc, "icnt.mesh.routing": routing}, streams, 300 * fl + 200, nbytes)
        window = ej[40:240]
        counts = Counter(s for _k, s, _p in window)
        assert sum(counts.values()) == 200
        assert (window[-1][0] - window[0][0] + fl) == 200 * fl  # the ejection port is busy every cycle
        if alloc == "islip":
            assert max(counts.values()) - min(counts[s] for s in srcs) <= 1, counts
            assert [s for _k, s, _p in window[:8]] == [38, 47, 54, 45] * 2
        else:
            assert max(counts.values()) >= 2 * min(counts[s] for s in srcs), counts


@pytest.mark.parametrize("allocator", ["round_robin", "islip"])
@pytest.mark.parametrize("nbytes", [0, 128])
def test_priority_class_first_through_a_contended_link(allocator, nbytes):
    """A class-1 stream (a preload's or prefetcher's class) from node 56 and a class-0 demand stream from node
    49 (x1, y6) to LLC7 (node 60) share the links 57 -> 58 -> 59 -> 60 (YX: 49 goes south to 57 first).
    With icnt.mesh.priority_arbitration every class-1 packet crosses before the first class-0 one; without
    it the two streams interleave."""
    streams = [(56, 60, 1, 60), (49, 60, 0, 60)]
    ov = {"icnt.mesh.allocator": allocator}
    got = [p for _k, _s, p in drive_mesh({**ov, "icnt.mesh.priority_arbitration": True}, streams, 800, nbytes)]
    assert got == [1] * 60 + [0] * 60
    plain = [p for _k, _s, p in drive_mesh(ov, streams, 800, nbytes)]
    assert sorted(plain) == sorted(got)
    assert plain.index(0) < 30  # a demand packet crosses before half the class-1 stream has


@pytest.mark.parametrize("allocator", ["round_robin", "islip"])
def test_preloads_in_class_1_served_first_end_to_end(allocator):
    """The whole engine: every SM streams demand reads (class 0) and preloads lines in class 1, all homed at
    LLC5, so both classes crowd the same links into and out of LLC5. With the mesh honouring classes the
    preloads' average latency falls by more than 40%; the work done is the same."""
    lat = {}
    for prio in (False, True):
        m = load_machine("llc-mesh", {"icnt.mesh.priority_arbitration": prio, "icnt.mesh.allocator": allocator})
        sess = TimingSession(m)
        for lo in (1 << 32, 1 << 36):
            sess.map_range(lo, lo + (1 << 26), Pinned(5))
        sess.set_preloader(PreloadLines(1, 8))
        st = sess.run_launch(streaming_read(56, 128, 8))
        assert st.get("priority.class1", "requests") == 56 * 8
        lat[prio] = st.get("priority.class1", "average_latency")
    assert lat[True] < 0.6 * lat[False], lat


def test_islip_with_priority_completes_a_mixed_stream():
    """Regression: an iSLIP input whose lower-class (or second) packet for an output was not offered, because
    another of its VCs was, must be looked at again next cycle; this stream once stalled with packets left in
    the routers and no wake time."""
    m = load_machine("llc-mesh", {"icnt.mesh.priority_arbitration": True, "icnt.mesh.allocator": "islip"})
    sess = TimingSession(m)
    sess.set_preloader(PreloadLines(1, 16))
    st = sess.run_launch(streaming_read(56 * 2, 256, 8))
    for net in ("mesh.request", "mesh.reply"):
        assert st.get(net, "injected") == st.get(net, "ejected") > 0
    assert st.get("priority.class1", "requests") > 0


@pytest.mark.parametrize("routing, allocator, delay", [("yx", "islip", 0), ("xy", "islip", 0),
                                                       ("yx", "round_robin", 3), ("xy", "islip", 3)])
def test_islip_and_credit_delay_complete_all_to_all(routing, allocator, delay):
    """The all-to-all stream with one 5-flit VC per port and 2-entry ejection queues, under iSLIP and/or a
    credit delay: every packet injected is ejected, every read gets its reply and every write its ack."""
    m = load_machine("llc-mesh", overrides={"icnt.mesh.routing": routing, "icnt.mesh.vcs": 1,
                                            "icnt.mesh.vc_buffers": 5, "icnt.eject_buffer": 2,
                                            "icnt.mesh.allocator": allocator, "icnt.mesh.credit_delay": delay,
                                            "icnt.mesh.priority_arbitration": True})
    st = TimingSession(m).run_launch(streaming_read(56 * 2, 128, 8, store=True))
    for net in ("mesh.request", "mesh.reply"):
        assert st.get(net, "injected") == st.get(net, "ejected") > 0
        assert st.get(net, "max_router_packets") <= 5 * 5
    assert st.get("mesh.request", "credit_waits") + st.get("mesh.reply", "credit_waits") > 0
    k = st.packet_kinds
    assert k[E.PK_READ, 0] == k[E.PK_READ, 2]
    assert k[E.PK_WRITE, 0] == k[E.PK_ACK, 2]


def test_mesh_options_default_off():
    ms = load_machine("llc-mesh").icnt.mesh
    assert (ms.credit_delay, ms.allocator, ms.priority_arbitration) == (0, "round_robin", False)


# ------------------------------------------------------------------------------------------------------
# a router's allocation runs only from its next event on (``MP_WAKE``): the reference runs every occupied
# router every mesh cycle (``MC_EAGER``); the two must give the same launch to the last counter


@pytest.mark.parametrize("machine, overrides", [
    ("llc-mesh", {}),
    ("llc-mesh", {"icnt.mesh.vcs": 1, "icnt.mesh.vc_buffers": 5, "icnt.eject_buffer": 2}),
    ("llc-mesh", {"icnt.mesh.priority_arbitration": True, "icnt.mesh.credit_delay": 3}),
    ("llc-mesh", {"icnt.mesh.vcs": 16, "icnt.mesh.routing": "yx"}),  # 80 VCs a router: no VC mask
    ("llc-mesh", {"icnt.mesh.allocator": "islip", "icnt.mesh.vcs": 1, "icnt.mesh.vc_buffers": 5}),
    ("llc-bfly", {}),
])
def test_skipping_routers_before_their_next_event_changes_nothing(machine, overrides):
    trace = streaming_read(56 * 2, 128, 8, store=True)
    runs = []
    for eager in (0, 1):
        sess = TimingSession(load_machine(machine, overrides=overrides))
        sess.state.mcfg[E.MC_EAGER] = eager
        runs.append(sess.run_launch(trace))
    skipping, eager = runs
    assert skipping.get("mesh.request" if machine == "llc-mesh" else "butterfly.request", "injected") > 0
    assert skipping.as_dict() == eager.as_dict()
    assert (skipping.packet_kinds == eager.packet_kinds).all()
