"""LLC-Compute / Omni-Compute in the timing engine: every chain instance handled once (at the core or
elsewhere), results unchanged, every suppression path, reply sizes, the mesh endpoints it uses, and
analytic bounds on a chain's round trip and the service ALU's throughput."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from ndpgpu.mechanisms.llc import hardware as H
from ndpgpu.mechanisms.llc.chains import REPLY
from ndpgpu.mechanisms.llc.config import ChainOffload, ChainOffloadError
from ndpgpu.mechanisms.llc.emn import MeshLayout
from ndpgpu.mechanisms.llc.policy import chain_tables
from ndpgpu.mechanisms.llc.unit import ChainOffloadHardware
from ndpgpu.mechanisms.policy import PolicyError, make_policy
from ndpgpu.timing.presets import load_machine
from ndpgpu.timing.session import TimingSession
from ndpgpu.workloads.runner import run_workload


@functools.cache
def recorded(workload: str, scale: str = "tiny"):
    run = run_workload(workload, scale, trace=True)
    assert run.passed, f"{workload}: functional outputs differ from NumPy"
    return tuple(run.device.traces), chain_tables(workload)


def timed(workload: str, config: ChainOffload | None, machine: str = "llc-mesh", overrides=None):
    """(summed statistics, metrics dict) of ``workload``'s launches with ``config`` (None: no offloading)."""
    traces, tables = recorded(workload)
    s = TimingSession(machine, overrides)
    if config is not None:
        s.attach(ChainOffloadHardware(tables, config))
    for tr in traces:
        s.run_launch(tr)
    tot = s.totals()
    return tot, {(p, m): v for p, m, v, _ in tot.rows()}


def chain_first_executions(workload: str) -> int:
    """Warp executions of every chain's first instruction, counted from the traces (an independent count)."""
    traces, tables = recorded(workload)
    n = 0
    for tr in traces:
        table = tables.get(tr.launch.kernel)
        if table is None:
            continue
        firsts = {c.pcs[0] for c in table.chains}
        seg = tr.segments
        pc0 = seg["pc"].astype(np.int64)
        cnt = seg["count"].astype(np.int64)
        for pc in firsts:
            n += int(((pc0 <= pc) & (pc < pc0 + cnt)).sum())
    return n


def c(metrics, name):
    return metrics[("offload.chains", name)]


@pytest.mark.parametrize("workload,scheme", [("llc_vecadd_aligned", "llc"), ("llc_vecadd_strided", "omni"),
                                             ("saxpy", "omni"), ("bfs_rodinia", "llc")])
def test_every_chain_instance_once(workload, scheme):
    """Each dynamic chain instance is decided once; offloaded ones are taken whole and replied to once; the
    warp-instruction count is the no-offload run's (a chain's instructions count once, at the source)."""
    base, mb = timed(workload, None)
    tot, m = timed(workload, ChainOffload(scheme=scheme))
    seen = chain_first_executions(workload)
    assert seen > 0
    assert c(m, "instances") == seen
    declined = sum(c(m, f"declined_{w}") for w in ("l1_hit", "oq_full", "no_emn", "not_one_llc", "trace"))
    assert c(m, "offloaded") + declined == seen
    assert c(m, "offloaded") > 0
    assert c(m, "completed") == c(m, "packets")
    assert c(m, "replies") + c(m, "sq_full_fallback") == c(m, "packets")  # fallbacks finish at the source
    assert m[("kernel", "warp_instructions")] == mb[("kernel", "warp_instructions")]
    traces, tables = recorded(workload)
    lengths = {len(ch.pcs) for t in tables.values() for ch in t.chains}
    if len(lengths) == 1:  # one chain shape: every offloaded instance took all its instructions
        assert c(m, "absorbed_instructions") == c(m, "offloaded") * lengths.pop()


def test_llc_compute_offloads_aligned_and_never_strided():
    _, m = timed("llc_vecadd_aligned", ChainOffload(scheme="llc"))
    assert c(m, "offload_rate") == 1.0 and c(m, "at_llc") == c(m, "packets")
    _, m = timed("llc_vecadd_strided", ChainOffload(scheme="llc"))
    assert c(m, "offloaded") == 0
    assert c(m, "declined_not_one_llc") == c(m, "instances")


def test_omni_compute_uses_cores_and_has_no_emn_cases():
    _, m = timed("llc_vecadd_strided", ChainOffload(scheme="omni"))
    assert c(m, "at_core") > 0 and c(m, "emn_core") > 0
    assert c(m, "declined_no_emn") > 0
    assert c(m, "alu_ops") == c(m, "at_core") + c(m, "at_llc") + c(m, "sq_full_fallback")  # one op per chain


def test_l1_hits_keep_chains_at_the_core():
    """MVT's vector loads hit in L1 (L1 locality first, Sec. 4.3): most of its chains stay at the core."""
    _, m = timed("llc_mvt_splitfma", ChainOffload(scheme="llc"))
    assert c(m, "declined_l1_hit") > c(m, "offloaded")


def test_full_offload_queue_declines():
    _, m = timed("llc_vecadd_aligned", ChainOffload(scheme="llc", oq=1))
    assert c(m, "declined_oq_full") > 0
    assert c(m, "oq_max") <= 1


def test_full_service_queue_falls_back_to_the_source_core():
    _, m = timed("llc_vecadd_aligned", ChainOffload(scheme="llc", sq=1))
    assert c(m, "sq_full_fallback") > 0
    assert c(m, "sq_max") <= 1
    assert c(m, "completed") == c(m, "packets")


@pytest.mark.parametrize("workload,pattern", [("llc_vecadd_aligned", 1), ("llc_density", 6),
                                              ("llc_mvt_splitfma", 2)])
def test_reply_sizes_on_the_mesh(workload, pattern):
    """Table 1's replies (ack 1, bitmap 1, data 5 flits for a whole warp's 4-B results), as the mesh counted
    them; a data reply for fewer lanes is shorter (never longer)."""
    _, tables = recorded(workload)
    assert pattern in {p for t in tables.values() for p in t.patterns()}
    _, m = timed(workload, ChainOffload(scheme="llc"))
    replies = m[("mesh.reply.kind.offload_reply", "packets")]
    assert replies == c(m, "replies") > 0
    hops = m[("mesh.reply.kind.offload_reply", "hops")]
    weighted = m[("mesh.reply.kind.offload_reply", "weighted_hops")]
    if REPLY[pattern][1] == 1 or c(m, "mask_flits") == 0:
        assert weighted == REPLY[pattern][1] * hops
    else:  # divergent data chains: each packet's reply carries only its lanes' results
        assert hops <= weighted < REPLY[pattern][1] * hops
        assert c(m, "reply_flits") < REPLY[pattern][1] * replies
    if c(m, "mask_flits") == 0:  # one flit per ComputePacket without divergence
        assert m[("mesh.request.kind.compute", "weighted_hops")] == m[("mesh.request.kind.compute", "hops")]


# a data reply (Table 1: 5 flits for a warp) on llc-mesh's 32-B flits with an 8-B header carries one 4-B
# result per active lane: 32 lanes 8 + 128 B -> 5 flits; 16 lanes 8 + 64 B -> 3; 1 lane 8 + 4 B -> 1
@pytest.mark.parametrize("lanes,flits", [(1, 1), (16, 3), (32, 5)])
def test_reply_flits_follow_the_lane_mask(lanes, flits):
    m = load_machine("llc-mesh")
    flit, hdr = m.icnt.flit_bytes, m.icnt.header_bytes
    assert (flit, hdr) == (32, 8)
    # one coalesced 4-B load: the lanes' bytes, all in the one transaction (line tuple 0)
    sects = np.array([(1 << ((4 * lanes + 31) // 32)) - 1], dtype=np.int64)  # the sectors the lanes touch
    nbytes = H.tuple_bytes(4 * lanes, sects, 0, 1, 0)
    assert nbytes == 4 * lanes
    assert H.reply_flits(REPLY[2][1], nbytes, flit, hdr) == flits
    assert H.reply_flits(REPLY[1][1], nbytes, flit, hdr) == 1  # an ack is one flit whatever the lanes
    assert H.reply_flits(REPLY[5][1], nbytes, flit, hdr) == 1  # a bitmap too


def test_divergent_lanes_share_their_bytes_by_line_tuple():
    """32 lanes, each in its own line (one sector each): every ComputePacket carries one lane, a 1-flit reply
    (32 flits for the warp, not 32 x 5); 2 lines, 16 lanes each: two 3-flit replies."""
    one = np.ones(32, dtype=np.int64)
    assert [H.tuple_bytes(128, one, 0, 32, p) for p in (0, 31)] == [4, 4]
    assert H.tuple_bytes(128, one, 0, 32, 32) == 0  # past the record's last transaction
    two = np.array([0b11, 0b11], dtype=np.int64)
    assert H.tuple_bytes(128, two, 0, 2, 1) == 64
    assert H.reply_flits(5, 64, 32, 8) == 3


def test_round_trip_lower_bound_one_warp():
    """One warp's chains on an idle machine: each round trip covers at least the compute packet's and the
    reply's hops (router + link cycles per hop) and the service ALU's latency."""
    machine = load_machine("llc-mesh")
    mesh = machine.icnt.mesh
    per_hop = mesh.router_latency + mesh.link_latency
    layout = MeshLayout.of(machine)
    min_hops = min(layout.hops(cr, sl) for cr in range(len(layout.core_nodes)) for sl in range(8))
    cfg = ChainOffload(scheme="llc")
    _, m = timed("llc_vecadd_aligned", cfg)
    assert c(m, "round_trip") >= 2 * min_hops * per_hop + cfg.alu_latency
    assert c(m, "round_trip") < m[("kernel", "cycles")]


def test_service_alu_throughput_bound():
    """A slice's 32-wide ALU takes at most one warp-op a cycle: ALU ops at the LLCs <= slices x L2 cycles."""
    tot, m = timed("llc_vecadd_aligned", ChainOffload(scheme="llc"))
    machine = load_machine("llc-mesh")
    l2_cycles = tot.time_ps * machine.clocks.l2_mhz / 1e6
    assert c(m, "alu_ops") <= 8 * l2_cycles


def test_llc_compute_on_a_crossbar_and_omni_refuses_it():
    _, m = timed("llc_vecadd_aligned", ChainOffload(scheme="llc"), machine="llc-xbar")
    assert c(m, "completed") == c(m, "packets") > 0
    with pytest.raises(ChainOffloadError, match="mesh"):
        timed("llc_vecadd_aligned", ChainOffload(scheme="omni"), machine="llc-xbar")


def test_llc_compute_on_a_butterfly_and_omni_refuses_it():
    """llc-bfly (4-ary 3-fly): LLC-Compute offloads to the slices and completes every ComputePacket; message
    classes keep to the subnets as on the mesh (reads and writes on the request network, their answers on
    the reply network, once each); every packet crosses n - 1 = 2 hops. Omni-Compute, whose EMNs are mesh
    nodes (the paper's routers that compute), is refused with a typed error."""
    _, m = timed("llc_vecadd_aligned", ChainOffload(scheme="llc"), machine="llc-bfly")
    assert c(m, "completed") == c(m, "packets") > 0

    def pk(net, kind, metric="packets"):
        return m.get((f"butterfly.{net}.kind.{kind}", metric), 0)

    assert pk("request", "compute") == c(m, "packets")
    assert pk("reply", "offload_reply") == c(m, "replies")
    requests = pk("request", "read") + pk("request", "write")
    answers = pk("reply", "read") + pk("reply", "write_ack") + pk("reply", "sq_data")
    assert requests == answers  # (none here: every chain is offloaded and a slice reads its own banks)
    assert pk("reply", "write") == 0 and pk("request", "sq_data") == 0 and pk("request", "write_ack") == 0
    # every offload reply is an answer too: those of slices and those of core meet nodes (Omni-Compute) alike
    # ride the reply network, the cores' from their own reply-side source queues
    assert pk("request", "offload_reply") == 0
    assert pk("reply", "offload_reply") == c(m, "replies") > 0
    for net, kind in (("request", "compute"), ("reply", "offload_reply")):
        assert pk(net, kind, "hops") == 2 * pk(net, kind) > 0
    _, base = timed("llc_vecadd_aligned", None, machine="llc-bfly")  # the cores' own reads and writes
    assert base[("butterfly.request.kind.read", "packets")] == base[("butterfly.reply.kind.read", "packets")] > 0
    assert base[("butterfly.request.kind.write", "packets")] == base[("butterfly.reply.kind.write_ack", "packets")]
    assert base[("butterfly", "hops")] == 2 * (base[("butterfly.request", "ejected")]
                                               + base[("butterfly.reply", "ejected")])
    assert m[("kernel", "cycles")] < base[("kernel", "cycles")]  # the offloaded chains pay off here
    with pytest.raises(ChainOffloadError, match="butterfly"):
        timed("llc_vecadd_aligned", ChainOffload(scheme="omni"), machine="llc-bfly")


def test_chain_hops_on_any_router_network():
    """Fig. 3's chain accounting from the routing tables: on the mesh the tables give the Manhattan
    distances (LLC-Compute's meet node when a, b, c share LLC5: 48 / 144 -> 16 / 16, as Algorithm 1's);
    on the butterfly every leg between distinct terminals is 2 hops, and an LLC's own loads and store
    none: 12 / 36 -> 4 / 4 (the ComputePacket and the offload ack, 1 flit each)."""
    from ndpgpu.mechanisms.llc.emn import NetworkLayout, chain_hops

    mesh = NetworkLayout.of(load_machine("llc-mesh"))
    assert [mesh.hops(15, x) for x in (5, 6, 7)] == [8, 5, 8]
    assert chain_hops(mesh, 15, 5, 5, 5) == {"baseline": (48, 144), "offloaded": (16, 16)}
    assert chain_hops(mesh, 15, 5, 6, 7)["offloaded"] is None  # no core EMNs off Algorithm 1
    bfly = NetworkLayout.of(load_machine("llc-bfly"))
    assert {bfly.hops(cr, x) for cr in range(56) for x in range(8)} == {2}
    assert chain_hops(bfly, 15, 5, 5, 5) == {"baseline": (12, 36), "offloaded": (4, 4)}
    with pytest.raises(ValueError, match="router network"):
        NetworkLayout.of(load_machine("llc-xbar"))


def test_mechanism_endpoint_tables():
    """Omni's EMN table maps Algorithm 1's nodes to slices and to the SM at a core node."""
    from ndpgpu.mechanisms.llc.unit import emn_endpoints

    layout = MeshLayout.of(load_machine("llc-mesh"))
    t = emn_endpoints(layout)
    assert t.shape == (56, 8, 8)
    assert t[15, 5, 6] == 8 + 36  # EMN(c15, L5, L6) = core 36 (cores are the SMs, in order)
    assert t[15, 0, 6] == -1
    assert all(t[cr, k, k] == k for cr in range(56) for k in range(8))


def test_policy_spec():
    pol = make_policy("llc:omni,oq=64,sq=128,alu_width=16")
    assert pol.config == ChainOffload(scheme="omni", oq=64, sq=128, dedicated_alu_width=16)
    for bad in ("llc:both", "llc:llc,oq=x", "llc:llc,queue=4", "llc:omni,alu_width=3"):
        with pytest.raises(PolicyError):
            make_policy(bad)


def test_hardware_module_declares_its_hooks():
    from ndpgpu.timing.engine.hooks import HOOK_POINTS

    assert set(H.HOOKS) <= set(HOOK_POINTS)
    assert {"intercept", "core_service", "l2_serve", "l2_deliver", "slice_tick", "fetched"} <= set(H.HOOKS)
    assert all(callable(getattr(H, h)) for h in H.HOOKS)


@pytest.mark.parametrize("workload", ["llc_fdtd", "llc_streamcluster"])
def test_requests_and_answers_keep_to_their_subnets(workload):
    """Message classes on the mesh: every read or write (an SM's, a core service queue's, and a slice's to
    another slice) crosses the request network once and its answer (data, ack, operand) the reply network
    once. A request that travelled with the answers could wait on them in a cycle (the Omni stall)."""
    _, m = timed(workload, ChainOffload(scheme="omni"))
    assert c(m, "emn_llc") > 0  # slices met operands, some homed at other slices

    def pk(net, kind):
        return m.get((f"mesh.{net}.kind.{kind}", "packets"), 0)

    requests = pk("request", "read") + pk("request", "write")
    answers = pk("reply", "read") + pk("reply", "write_ack") + pk("reply", "sq_data")
    assert requests == answers > 0
    assert pk("reply", "write") == 0 and pk("request", "sq_data") == 0 and pk("request", "write_ack") == 0


@pytest.mark.parametrize("workload,scheme", [("llc_vecadd_aligned", "llc"), ("saxpy", "omni")])
def test_offload_aware_fetch_gives_chains_priority(workload, scheme):
    """Sec. 3.3: a warp whose fetch decoded a chain's ``01`` is fetched first until its ``11`` is decoded.
    Only chains take priority (none without offloading), and a chain instance can take it at most once per
    instruction from its ``01`` to its ``11`` (each priority fetch decodes at least one of them)."""
    _, mb = timed(workload, None)
    _, m = timed(workload, ChainOffload(scheme=scheme))
    assert mb[("core.issue", "fetches")] > 0
    assert mb[("core.issue", "fetches_with_priority")] == 0
    prio = m[("core.issue", "fetches_with_priority")]
    _, tables = recorded(workload)
    span = max(max(ch.pcs) - min(ch.pcs) + 1 for t in tables.values() for ch in t.chains)
    assert 0 < prio <= c(m, "instances") * span
    _, m0 = timed(workload, ChainOffload(scheme=scheme), overrides={"core.ibuffer": 0})  # an ideal front end
    assert m0[("core.issue", "fetches")] == 0
    assert m0[("kernel", "warp_instructions")] == m[("kernel", "warp_instructions")]


def steps(m, cls):
    return {ph: m[(f"offload.chains.steps.{cls}", ph)] for ph in H.PHASES[:7]}


def test_steps_add_up_to_the_round_trip():
    """The per-step times of every completed packet (to the meet node, the loads' send wait, the operand
    fetch, the buffer wait, buffer to result, result to reply, the reply's way back) sum to its round trip."""
    _, m = timed("llc_vecadd_strided", ChainOffload(scheme="omni"))
    total = sum(m[(f"offload.chains.steps.{cls}", "packets")] * sum(steps(m, cls).values())
                for cls in H.SITE_CLASSES)
    assert sum(m[(f"offload.chains.steps.{cls}", "packets")] for cls in H.SITE_CLASSES) == c(m, "completed")
    assert total == pytest.approx(c(m, "round_trip") * c(m, "completed"), rel=1e-9)
    assert steps(m, "core")["fetch"] > 0 and steps(m, "llc")["fetch"] > 0


def test_reply_leaves_when_the_result_is_computed():
    """Sec. 4.2: once the result is computed the service queue frees the entry and sends the response; the
    store goes out beside it and its ack returns to the meet node, where it is dropped. So at a core the
    step from result to reply is only the send port's wait, under one L2 ROP delay, and no store round trip
    is recorded; with ``ack_after_store`` the reply waits for the store's ack, which crossed at least one hop
    each way and the L2's ROP queue, and the round trip is longer."""
    machine = load_machine("llc-mesh")
    rop = machine.l2.rop_latency
    per_hop = machine.icnt.mesh.router_latency + machine.icnt.mesh.link_latency
    _, m = timed("llc_vecadd_strided", ChainOffload(scheme="omni"))
    _, ms = timed("llc_vecadd_strided", ChainOffload(scheme="omni", ack_after_store=1))
    assert c(m, "stores") == c(ms, "stores") > 0
    assert steps(m, "core")["store"] < rop
    assert m[("offload.chains.steps.core", "store_rt")] == 0  # (no ack comes back to an entry)
    assert ms[("offload.chains.steps.core", "store_rt")] >= 2 * per_hop + rop
    assert steps(ms, "core")["store"] >= ms[("offload.chains.steps.core", "store_rt")]
    assert c(m, "round_trip") < c(ms, "round_trip")


def test_compute_packets_skip_the_l2_request_queue():
    """A ComputePacket leaves the network at its meet node's service queue (the header-bit multiplexer at the
    network interface, Fig. 7): at a slice it does not queue with the L2's requests or pay the L2's ROP delay,
    and a packet ejected at a core (a ComputePacket, a core's offload reply) never did. Before, every packet
    ejected from the request network paid the ROP delay, so these steps could not average under it."""
    rop = load_machine("llc-mesh").l2.rop_latency
    _, m = timed("llc_vecadd_strided", ChainOffload(scheme="omni"))
    assert c(m, "at_llc") > 0 and c(m, "at_core") > 0
    assert steps(m, "llc")["to_emn"] < rop
    assert steps(m, "core")["to_emn"] < rop
    assert steps(m, "core")["reply"] < rop
    _, ml = timed("llc_vecadd_aligned", ChainOffload(scheme="llc"))
    assert ml[("mesh.request.kind.compute", "packets")] == c(ml, "packets") > 0
    assert steps(ml, "llc")["to_emn"] < rop


def test_service_queue_loads_pay_the_rop_delay_once():
    """As the baseline's loads do on entering the partition (3.2.2 l2cache.cc:549-555), the loads a slice's
    service queue makes in its own partition wait the ROP delay: every LLC-Compute packet's operand fetch
    (all ALIGNED operands local) takes at least the ROP delay plus the L2's latency."""
    m = load_machine("llc-mesh")
    _, ml = timed("llc_vecadd_aligned", ChainOffload(scheme="llc"))
    assert c(ml, "at_llc") == c(ml, "packets") > 0
    assert steps(ml, "llc")["fetch"] >= m.l2.rop_latency + m.l2.latency


def test_the_buffer_read_is_an_l2_access_through_the_slices_port():
    """Sec. 4.4.2 step 9 ("the SQ sends load requests to the LLC"): each operand an LLC site buffers is read
    from the slice a second time, as an L2 request of its own. ALIGNED's chains (two loads, a store) all run at
    their slice, so the offload's L2 accesses are the baseline's (the same loads and stores, sent by the slices)
    plus one per buffered operand, and each packet's way from buffer slot to result takes at least the L2's
    hit latency."""
    m = load_machine("llc-mesh")
    _, base = timed("llc_vecadd_aligned", None)
    _, ml = timed("llc_vecadd_aligned", ChainOffload(scheme="llc"))
    reads = c(ml, "llc_buffer_reads")
    assert reads == 2 * c(ml, "at_llc") > 0
    assert ml[("l2", "accesses")] >= base[("l2", "accesses")] + reads
    assert steps(ml, "llc")["alu"] >= m.l2.latency


def test_a_slice_site_reads_only_the_operands_it_holds():
    """Omni-Compute's meet node may be a slice that holds one operand of a chain, or none: the other comes from
    its own slice as data over the network and waits with the service-queue entry. Step 9's read into the
    buffer is of the lines this slice holds, so a streaming kernel with no reuse (STRIDED: every line read
    once) misses the L2 no more often offloaded than in the baseline: each line still comes from DRAM once.
    Before, a slice site also read the remote operand from its own banks, missing there and re-reading DRAM
    (one extra L2 miss per such chain)."""
    _, base = timed("llc_vecadd_strided", None)
    _, m = timed("llc_vecadd_strided", ChainOffload(scheme="omni"))
    assert c(m, "at_llc") > 0 and c(m, "network_operands") > 0
    assert c(m, "llc_buffer_reads") + c(m, "network_operands") == 2 * c(m, "at_llc")
    assert m[("l2", "misses")] <= base[("l2", "misses")]
    assert m[("dram", "reads")] <= base[("dram", "reads")]
