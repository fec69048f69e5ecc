"""The 2D mesh interconnect (issue 4): routing distance, hot spots, VC back-pressure, LLC-Compute Fig. 3."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import TraceBuilder, streaming_read

import ndpgpu
from ndpgpu.timing import CtaDispatch, DispatchPlan, TimingSession, load_machine
from ndpgpu.timing import _engine as E
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
    b = TraceBuilder("one_load", ctas, 32)
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(ctas):
        b.run(w, ld, base=line_addr, stride=4)
        b.run(w, ex)
    return b.build()


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
    tr = mod.get_function("vecadd")((1,), (n,), (a, b, c, np.int32(n)), trace=True).trace
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
