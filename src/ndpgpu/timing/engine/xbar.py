"""The crossbar interconnect: two networks (requests SM -> slice, replies slice -> SM); every port moves
one flit per cycle; only the head packet of a source's queue competes (head-of-line blocking, as one virtual
channel gives); within a priority class a destination port goes to a source chosen by ``icnt.allocator``: round
robin from one pointer over the sources, or one iSLIP iteration with a grant pointer per destination port.
A destination port takes one packet a cycle, and only when free, unless it has an output buffer
(``icnt.output_buffer`` flits): then a packet crosses while at most that many flits wait there to be ejected,
and is ejected after them.

With perfect memory (``partition.perfect_latency``, ``C_PERFECT_LAT`` > 0) the request network serves each SM's
loads, stores and atomics itself (``perfect_serve``): no port, L2, ROP queue or DRAM is used, and every reply
reaches the SM a fixed number of core cycles after the request left it.

An SM inside a memory stack has its own path to the vaults: its port moves the stack's internal bandwidth
(``stacks.sm_path_gbs`` of packet bytes, exact over time: the port frees when the bytes already on it have
passed at that rate) and meets each slice at a vault-side port of its own, so it shares no port with the GPU's SMs.
"""

from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .queues import (
    cyc_at,
    edge,
    packet_flits,
    popcount,
    q_head,
    q_pop,
    q_push,
    q_push_by_ready,
    q_space,
    rq_release,
    sector_train,
    slice_reply_taken,
)


@njit
def stack_path(r, cfg, rq):
    """Whether packet ``r`` travels a stack SM's own path to its vaults (requests from, replies to, an SM inside
    a memory stack): the SM's port at the stack's internal bandwidth and each slice's vault-side port, apart
    from the GPU's ports."""
    return cfg[C_SSM_MBPS] > 0 and rq[r, R_SRC] >= cfg[C_NGPU]


@njit
def perfect_serve(q, r, now, cfg, clk, rq, rq_free, qb, qm, wake, g):
    """Perfect memory: serve request ``r`` at the head of SM source queue ``q`` without the memory side. A
    store or write-back that wants no acknowledgement is done; any other request becomes its reply (as
    ``l2_reply`` forms it: an ack, or the requested sectors) in the SM's ejection queue, ready
    ``C_PERFECT_LAT`` core cycles after now. False when that queue is full (nothing changed)."""
    kd = rq[r, R_KIND]
    sm = rq[r, R_SRC]
    if kd == PK_WBACK or (kd == PK_WRITE and cfg[C_WAIT_ACKS] == 0 and rq[r, R_MXD] < 0):
        q_pop(qb, qm, q)
        rq_release(rq_free, g, r)
        return True
    dq = cfg[C_Q_SMIN] + sm
    if q_space(qm, dq) <= 0:
        return False
    q_pop(qb, qm, q)
    ready = edge(clk, D_CORE, cyc_at(clk, D_CORE, now) + cfg[C_PERFECT_LAT])
    if kd == PK_WRITE:
        rq[r, R_KIND] = PK_ACK
        rq[r, R_BYTES] = 0
    else:
        rq[r, R_BYTES] = popcount(rq[r, R_SECT]) * 32
    rq[r, R_LEVEL] = 2
    rq[r, R_T1] = now
    rq[r, R_T2] = now
    rq[r, R_T3] = now
    rq[r, R_T4] = ready
    rq[r, R_T5] = ready
    rq[r, R_T6] = ready
    rq[r, R_READY] = ready
    q_push(qb, qm, dq, r)
    if ready < wake[sm]:
        wake[sm] = ready
    return True


@njit
def l2_input_full(q, now, cfg, rq, qb, qm):
    """Whether slice input queue ``q`` holds ``C_L2_INQ`` requests past their ROP delay (``l2.input_queue`` less
    the room a request needs, plus one: GPGPU-Sim's memory partition takes no request off the network then). Its
    entries' READY times rise from the head, so that is whether the entry at that place is ready."""
    th = cfg[C_L2_INQ]
    if qm[q, Q_COUNT] < th:
        return False
    e = qb[q, (qm[q, Q_HEAD] + th - 1) % qm[q, Q_CAP]]
    return rq[e, R_READY] <= now


@njit_inline
def head_ports(net, s, r, cfg, rq, netd):
    """Where head packet ``r`` of source ``s`` goes: its destination (slice or SM), whether it takes a stack SM's
    own path, its source port, its destination port and its destination queue."""
    d = rq[r, R_SLICE] if net == NET_REQ else rq[r, R_SRC]
    ssm = stack_path(r, cfg, rq)
    sp = cfg[C_PB_VAULT] + s if ssm and net == NET_REP else s
    dp = cfg[C_PB_VAULT] + d if ssm and net == NET_REQ else d
    # (an SM inside a stack reaches the vault controller beside the slice: its own queue, no ROP delay)
    dqid = cfg[C_Q_L2VIN] + d if net == NET_REQ and ssm else netd[net, N_DSTQ] + d
    return d, ssm, sp, dp, dqid


@njit_inline
def dst_has_room(net, dp, now, k, cfg, clk, pbusy):
    """Whether destination port ``dp`` (a GPU SM's or a slice's) takes a packet from the switch now: free, or
    (``icnt.output_buffer``) with at most that many flits still to eject and no packet taken in this cycle."""
    if cfg[C_IC_OBUF] == 0:
        return pbusy[net, PB_DST, dp] <= now
    return pbusy[net, PB_DST, dp] <= edge(clk, D_ICNT, k + cfg[C_IC_OBUF]) and pbusy[net, PB_KX, dp] != k + 1


@njit_inline
def dst_take(net, dp, sent, now, k, clk, pbusy):
    """Destination port ``dp`` takes ``sent`` flits now: they are ejected after the ones waiting there, one a
    cycle. Returns the icnt cycle their ejection starts."""
    k0 = max(k, cyc_at(clk, D_ICNT, pbusy[net, PB_DST, dp])) if pbusy[net, PB_DST, dp] > now else k
    pbusy[net, PB_DST, dp] = edge(clk, D_ICNT, k0 + sent)
    pbusy[net, PB_KX, dp] = k + 1
    return k0


@njit_inline
def head_can_cross(net, r, now, k, cfg, clk, rq, qb, qm, pbusy, ssm, sp, dp, dqid):
    """Whether head packet ``r`` may cross now: its two ports free (the narrow port, one flit a cycle, now; a
    stack SM's own wide port within this cycle) and its destination queue with room."""
    if ssm and net == NET_REQ:
        if pbusy[net, PB_SRC, sp] >= edge(clk, D_ICNT, k + 1) or pbusy[net, PB_DST, dp] > now:
            return False
    elif ssm:
        if pbusy[net, PB_SRC, sp] > now or pbusy[net, PB_DST, dp] >= edge(clk, D_ICNT, k + 1):
            return False
    elif pbusy[net, PB_SRC, sp] > now or not dst_has_room(net, dp, now, k, cfg, clk, pbusy):
        return False
    if q_space(qm, dqid) <= 0:
        return False
    if net == NET_REQ and not ssm and cfg[C_L2_INQ] > 0 and l2_input_full(dqid, now, cfg, rq, qb, qm):
        return False
    return True


@njit
def islip_grants(net, p, now, k, cfg, clk, rq, qb, qm, netd, pbusy):
    """One iSLIP iteration among the sources' head packets of class ``p`` (``icnt.allocator: islip``): each source
    asks for the destination port of its head packet alone (one virtual channel, a FIFO), if that packet could
    cross now; each destination port grants the asking source nearest at or after its grant pointer
    (``pbusy[net, PB_GRANT]``), and since a source asks for one port only, every grant is accepted. The winners
    go to ``pbusy[net, PB_WIN]`` (-1: no grant); the pointer moves past a winner when its packet crosses."""
    nsrc = netd[net, N_NSRC]
    sq = netd[net, N_SRCQ]
    for j in range(pbusy.shape[2]):
        pbusy[net, PB_WIN, j] = -1
    for s in range(nsrc):
        q = sq + s
        if qm[q, Q_COUNT] == 0:
            continue
        r = q_head(qb, qm, q)
        if rq[r, R_READY] > now or (cfg[C_IC_PRIO] != 0 and rq[r, R_PRIO] != p):
            continue
        if net == NET_REQ and cfg[C_PERFECT_LAT] > 0 and rq[r, R_KIND] < PK_OFFLOAD:
            continue
        d, ssm, sp, dp, dqid = head_ports(net, s, r, cfg, rq, netd)
        if not head_can_cross(net, r, now, k, cfg, clk, rq, qb, qm, pbusy, ssm, sp, dp, dqid):
            continue
        w = pbusy[net, PB_WIN, dp]
        ptr = pbusy[net, PB_GRANT, dp]
        if w < 0 or (s - ptr) % nsrc < (w - ptr) % nsrc:
            pbusy[net, PB_WIN, dp] = s


@njit
def icnt_tick(net, now, k, cfg, clk, rq, rq_free, qb, qm, netd, pbusy, wake, g, nst, kst):
    """One icnt cycle of network ``net``: the sources' head packets cross to their destinations' queues, each
    port moving one flit a cycle. Who wins a contended destination port: ``icnt.allocator`` (round robin from one
    pointer over the sources, or iSLIP's per-port pointers); higher priority classes first
    (``icnt.priority_arbitration``)."""
    nsrc = netd[net, N_NSRC]
    sq = netd[net, N_SRCQ]
    delay = netd[net, N_DST_DELAY]
    hdr = cfg[C_IC_HDR]
    lat = cfg[C_IC_LAT]
    rr = netd[net, N_RR]
    islip = cfg[C_IC_ISLIP] != 0
    maxp = 0
    if cfg[C_IC_PRIO] != 0:
        for s in range(nsrc):
            q = sq + s
            if qm[q, Q_COUNT] > 0:
                r = q_head(qb, qm, q)
                if rq[r, R_READY] <= now and rq[r, R_PRIO] > maxp:
                    maxp = rq[r, R_PRIO]
    progress = False
    for p in range(maxp, -1, -1):
        if islip:
            islip_grants(net, p, now, k, cfg, clk, rq, qb, qm, netd, pbusy)
        for i in range(nsrc):
            s = (rr + i) % nsrc
            q = sq + s
            if qm[q, Q_COUNT] == 0:
                continue
            r = q_head(qb, qm, q)
            if rq[r, R_READY] > now:
                continue
            if cfg[C_IC_PRIO] != 0 and rq[r, R_PRIO] != p:
                continue
            if net == NET_REQ and cfg[C_PERFECT_LAT] > 0 and rq[r, R_KIND] < PK_OFFLOAD:
                full = q_space(qm, q) <= cfg[C_L1_MQ_SLACK]
                if perfect_serve(q, r, now, cfg, clk, rq, rq_free, qb, qm, wake, g):
                    if full and now < wake[s]:
                        wake[s] = now  # the SM may be blocked on this full queue
                    progress = True
                continue
            d, ssm, sp, dp, dqid = head_ports(net, s, r, cfg, rq, netd)
            if islip:
                # granted in islip_grants (which found its ports free and its queue with room; nothing granted
                # since touches its ports or queue) or not at all
                if pbusy[net, PB_WIN, dp] != s:
                    continue
                pbusy[net, PB_GRANT, dp] = (s + 1) % nsrc
            elif not head_can_cross(net, r, now, k, cfg, clk, rq, qb, qm, pbusy, ssm, sp, dp, dqid):
                continue
            vault_side = net == NET_REQ and ssm
            if net == NET_REQ and q_space(qm, q) <= cfg[C_L1_MQ_SLACK] and now < wake[s]:
                wake[s] = now  # the SM may be blocked on this full queue (or too full for a load's miss)
            piece = sector_train(r, cfg, rq) if net == NET_REP and not ssm else 0
            flits = piece * popcount(rq[r, R_SECT]) if piece > 0 else packet_flits(r, cfg, rq)
            sent = flits  # the flits crossing the ports now: the whole packet, or (a sector train) one sector's
            if piece > 0:
                # l2.sector_replies: one sector's packet now; the others wait at the head of the queue, as the
                # sectors' own packets queue behind one another, each arbitrating for the ports again; the last
                # one delivers the reply below
                if rq[r, R_FSENT] == 0:
                    rq[r, R_T5] = now
                rq[r, R_FSENT] += piece
                sent = piece
                if rq[r, R_FSENT] < flits:
                    pbusy[net, PB_SRC, sp] = edge(clk, D_ICNT, k + piece)
                    dst_take(net, dp, piece, now, k, clk, pbusy)
                    nst[net, 0, s] += piece
                    nst[net, 1, d] += piece
                    progress = True
                    continue
            q_pop(qb, qm, q)
            if net == NET_REP:
                slice_reply_taken(q, now, cfg, qm, wake)
            done = edge(clk, D_ICNT, k + sent)
            arrive = edge(clk, D_ICNT, k + lat + sent - 1)
            if ssm:
                # the stack SM's port moves the stack's internal bandwidth: it frees when the packet's bytes
                # (header and data, no flit padding) have passed at that rate after the ones already on it; the
                # slice's port moves one flit a cycle
                wside = 0 if net == NET_REQ else 1
                wport = sp if net == NET_REQ else dp
                wend = max(pbusy[net, wside, wport], now) + (hdr + rq[r, R_BYTES]) * 1000000 // cfg[C_SSM_MBPS]
                pbusy[net, wside, wport] = wend
                pbusy[net, 1 - wside, dp if net == NET_REQ else sp] = done  # (the other side)
                arrive = max(arrive, edge(clk, D_ICNT, cyc_at(clk, D_ICNT, wend) + lat - 1))
            else:
                pbusy[net, PB_SRC, sp] = done
                k0 = dst_take(net, dp, sent, now, k, clk, pbusy)
                if k0 > k:  # (icnt.output_buffer) ejected after the flits waiting at the port
                    arrive = edge(clk, D_ICNT, k0 + lat + sent - 1)
            # the destination's fixed delay (L2 ROP queue) counts whole L2 cycles after arrival
            if delay == 0 or vault_side:
                rq[r, R_READY] = arrive
            else:
                rq[r, R_READY] = edge(clk, D_L2, cyc_at(clk, D_L2, arrive) + delay)
            if net == NET_REQ:
                rq[r, R_T1] = now
                rq[r, R_T2] = arrive
                wcomp = cfg[C_WK_SL] + d
            else:
                if piece == 0:
                    rq[r, R_T5] = now
                rq[r, R_T6] = arrive
                wcomp = d
            q_push(qb, qm, dqid, r)
            if rq[r, R_READY] < wake[wcomp]:
                wake[wcomp] = rq[r, R_READY]
            nst[net, 0, s] += sent
            nst[net, 1, d] += sent
            kd = rq[r, R_KIND]
            kst[kd, 2 * net] += 1
            kst[kd, 2 * net + 1] += flits
            progress = True
    netd[net, N_RR] = (rr + 1) % nsrc
    if progress:
        g[G_LAST_PROGRESS] = now
    nxt = edge(clk, D_ICNT, k + 1)
    w = INF
    for s in range(nsrc):
        q = sq + s
        if qm[q, Q_COUNT] > 0:
            r = q_head(qb, qm, q)
            sp = cfg[C_PB_VAULT] + s if net == NET_REP and stack_path(r, cfg, rq) else s
            t = max(rq[r, R_READY], pbusy[net, PB_SRC, sp], nxt)
            if t < w:
                w = t
    wake[cfg[C_WK_NET] + net] = w


@njit
def net_push(q, r, cfg, qb, qm, wake, net, rq):
    """Push packet ``r`` into source queue ``q`` of network ``net`` and wake the network. Under the L1D's latency
    pipeline (``l1d.miss_after_hit_latency``) an SM's outbound queue is kept in order of readiness: its L1D
    requests wait there until they leave the pipeline, and others ready sooner pass them."""
    rq[r, R_FSENT] = 0
    if cfg[C_L1_QLAT] > 0 and net == NET_REQ and cfg[C_Q_SMOUT] <= q < cfg[C_Q_SMOUT] + cfg[C_NSM]:
        q_push_by_ready(qb, qm, q, r, rq)
    else:
        q_push(qb, qm, q, r)
    w = cfg[C_WK_NET] + net
    if rq[r, R_READY] < wake[w]:
        wake[w] = rq[r, R_READY]


@njit
def sm_port_waiting(sm, now, cfg, qb, qm, rq):
    """Whether SM ``sm`` has a request at its network port now: its outbound queue holds one that has left the
    L1D's latency pipeline (``l1d.miss_after_hit_latency``; without the pipeline, any it holds)."""
    q = cfg[C_Q_SMOUT] + sm
    if qm[q, Q_COUNT] == 0:
        return False
    return cfg[C_L1_QLAT] == 0 or rq[q_head(qb, qm, q), R_READY] <= now


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


def metrics(st, put, ratio) -> None:
    """The interconnect's packets, flits and port utilisation per network and packet kind; L2 bandwidth."""
    K = st.consts
    secs = st.time_ps * 1e-12
    flit = K["flit_bytes"]
    tot_flits = 0
    for net, nname in ((0, "icnt.request"), (1, "icnt.reply")):
        pk = int(st.packet_kinds[:, 2 * net].sum())
        fl = int(st.packet_kinds[:, 2 * net + 1].sum())
        tot_flits += fl
        put(nname, "packets", pk, "packets")
        put(nname, "flits", fl, "flits")
        put(nname, "bytes", fl * flit, "bytes")
        icyc = st.time_ps / (1e6 / K["icnt_mhz"])
        ports = st.net_ports[net]
        put(nname, "max_port_utilisation", ratio(float(ports.max()) if ports.size else 0.0, icyc), "fraction")
        for kd in range(NPK):
            if st.packet_kinds[kd, 2 * net]:
                kn = st.packet_names.get(kd, f"type{kd}")
                put(nname + ".kind." + kn, "packets", int(st.packet_kinds[kd, 2 * net]), "packets")
                put(nname + ".kind." + kn, "flits", int(st.packet_kinds[kd, 2 * net + 1]), "flits")
    put("icnt", "flits", tot_flits, "flits")
    put("l2", "bandwidth", ratio(tot_flits * flit, secs) / 1e9, "GB/s")
