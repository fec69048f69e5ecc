"""Router networks (``icnt.impl: mesh``, ``butterfly`` and ``hmesh``): the same two networks as two subnets of
routers with virtual channels and credit flow control. The topology is data (``timing/topology.py``, laid out
in ``mcfg``): per subnet a routing table (router, destination terminal) -> output port, a link table (router,
output port) -> (next router and its input port, or ejection) and the injection router and port of each
terminal; and one table of each output port's link latency and width. The mesh's tables give dimension-order
routing; the butterfly's destination-tag routing; the hierarchical mesh's dimension-order routing within and
between chips.
"""

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .queues import cyc_at, edge, packet_flits, q_head, q_next_busy, q_pop, q_push, q_space, slice_reply_taken


@njit
def mesh_endpoint(net, d, cfg, netd):
    """Destination queue and wake component of endpoint ``d`` of subnet ``net``: the natural destinations
    (slices on the request network, SMs on the reply network), then the others (``R_DEST``): on the request
    network the SMs, then each slice's mechanism input (a header bit at the slice's network interface sends
    the packet to the mechanism's unit there, not into the L2's request queue)."""
    nat = netd[net, N_NDST]
    if d < nat:
        return netd[net, N_DSTQ] + d, (cfg[C_WK_SL] + d if net == NET_REQ else d)
    e = d - nat
    if net == NET_REQ:
        if e < cfg[C_NSM]:  # an SM
            return netd[NET_REP, N_DSTQ] + e, e
        e -= cfg[C_NSM]  # a slice's mechanism unit: its reply-network input, which takes mechanism packets
    return cfg[C_Q_L2RIN] + e, cfg[C_WK_SL] + e  # a slice: its reply-network input, apart from its requests


@njit
def mesh_route(mcfg, net, node, dterm):
    """The routing table: output port at router ``node`` of subnet ``net`` towards terminal ``dterm``."""
    return mcfg[mcfg[MC_RT0] + (net * mcfg[MC_NNODE] + node) * mcfg[MC_NTERM] + dterm]


@njit
def mesh_next(mcfg, net, node, o):
    """The link table: (next router, its input port) behind output ``o`` of ``node``; next -1: ejection."""
    b = mcfg[MC_LK0] + ((net * mcfg[MC_NNODE] + node) * mcfg[MC_NPORT] + o) * 2
    return mcfg[b], mcfg[b + 1]


@njit
def mesh_entry(mcfg, net, term):
    """The injection table: (router, input port) where terminal ``term``'s packets enter subnet ``net``."""
    b = mcfg[MC_INJ0] + (net * mcfg[MC_NTERM] + term) * 2
    return mcfg[b], mcfg[b + 1]


@njit
def mesh_link(mcfg, node, o):
    """The link-cost table: (latency in cycles, bytes per cycle; 0: one flit per cycle) of output ``o``."""
    b = mcfg[MC_LC0] + (node * mcfg[MC_NPORT] + o) * 2
    return mcfg[b], mcfg[b + 1]


@njit
def mesh_serial(cfg, lb, fl):
    """Cycles ``fl`` flits take on a link of ``lb`` bytes per cycle (0: one flit per cycle)."""
    if lb == 0:
        return fl
    return (fl * cfg[C_IC_FLIT] + lb - 1) // lb


@njit
def mesh_count_wait(net, node, o, mcfg, mst, mport):
    """A head packet could not move this cycle: its ejection queue is full (``o`` ejects) or no downstream VC
    has room."""
    if mesh_next(mcfg, net, node, o)[0] < 0:
        mst[net, MS_EJ_WAIT] += 1
    else:
        mst[net, MS_CREDIT_WAIT] += 1
        mport[net, node * mcfg[MC_NPORT] + o, MP_WAIT] += 1


@njit
def mesh_credits(mvc, mvq, net, vi, vcbuf, now):
    """Return to VC ``vi`` the space of departed packets whose credit is visible by ``now``."""
    while mvq[net, vi, VQ_PEND] > 0:
        s = vi * vcbuf + (mvq[net, vi, VQ_HEAD] - mvq[net, vi, VQ_PEND] + vcbuf) % vcbuf
        if mvc[net, s, MV_READY] > now:
            return
        mvq[net, vi, VQ_USED] -= mvc[net, s, MV_FLITS]
        mvq[net, vi, VQ_PEND] -= 1


@njit
def mesh_port_credits(mvc, mvq, net, node, port, nport, nvc, vcbuf, now):
    """Return the due credits of every VC of input ``port`` of ``node`` (credit_delay > 0 only)."""
    base = (node * nport + port) * nvc
    for v in range(nvc):
        mesh_credits(mvc, mvq, net, base + v, vcbuf, now)


@njit
def mesh_pick_vc(mvq, net, node, port, nport, nvc, fl, vcbuf):
    """The VC of input ``port`` of ``node`` with room for ``fl`` flits (the emptiest), or -1 (no credit)."""
    base = (node * nport + port) * nvc
    best = -1
    for v in range(nvc):
        used = mvq[net, base + v, VQ_USED]
        if used + fl <= vcbuf or used == 0:
            if best < 0 or used < mvq[net, best, VQ_USED]:
                best = base + v
    return best


@njit
def mesh_push(mvc, mvq, mport, mcfg, net, vi, vcbuf, fl):
    """Append a packet to VC ``vi``; returns its slot (the caller fills the slot's columns)."""
    slot = vi * vcbuf + (mvq[net, vi, VQ_HEAD] + mvq[net, vi, VQ_COUNT]) % vcbuf
    if mvq[net, vi, VQ_COUNT] == 0:
        mesh_vc_mark(mport, mcfg, net, vi, True)
    mvq[net, vi, VQ_COUNT] += 1
    mvq[net, vi, VQ_USED] += fl
    return slot


@njit_inline
def mesh_arrival(mport, mvq, net, p0, vi, ready):
    """A packet ready at ``ready`` entered VC ``vi`` of the router whose port 0 is row ``p0`` (its count already
    raised): as its VC's new head it may be the router's earliest event (the only packet: it is)."""
    if mport[net, p0, MP_OCC] == 1:
        mport[net, p0, MP_WAKE] = ready
    elif mvq[net, vi, VQ_COUNT] == 1 and ready < mport[net, p0, MP_WAKE]:
        mport[net, p0, MP_WAKE] = ready


@njit_inline
def mesh_vc_mark(mport, mcfg, net, vi, busy):
    """Set (``busy``) or clear VC ``vi``'s bit in its router's mask of non-empty VCs."""
    nin = mcfg[MC_NPORT] * mcfg[MC_NVC]
    if nin <= VC_MASK_MAX:
        row = (vi // nin) * mcfg[MC_NPORT]
        if busy:
            mport[net, row, MP_VMASK] |= np.int64(1) << (vi % nin)
        else:
            mport[net, row, MP_VMASK] &= ~(np.int64(1) << (vi % nin))


@njit_inline
def mesh_target(net, node, v, o, now, cfg, qm, netd, mcfg, mvc, mvq):
    """Where the packet in slot ``v`` at ``node`` can go through output ``o`` now: the next router's VC
    with room for it, 0 for an ejection with room in the destination queue, or -1 (it must wait)."""
    nb, ip = mesh_next(mcfg, net, node, o)
    if nb < 0:
        dqid = mesh_endpoint(net, mvc[net, v, MV_DID], cfg, netd)[0]
        return -1 if q_space(qm, dqid) <= 0 else 0
    if mcfg[MC_CDEL] > 0:
        mesh_port_credits(mvc, mvq, net, nb, ip, mcfg[MC_NPORT], mcfg[MC_NVC], mcfg[MC_VCBUF], now)
    return mesh_pick_vc(mvq, net, nb, ip, mcfg[MC_NPORT], mcfg[MC_NVC], mvc[net, v, MV_FLITS], mcfg[MC_VCBUF])


@njit_inline
def mesh_move(net, now, k, node, vi, ip, o, nvi, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc, mvq, mport, mst,
              mkst):
    """Grant the head packet of VC ``vi`` (input port ``ip`` of ``node``) to output ``o``: eject it into its
    destination queue (its tail arrives when it has left the output, plus the ejection link's latency) or push
    it into VC ``nvi`` of the next router; free its slot (credit now, or after ``credit_delay``) and hold both
    ports for its flits. The tail leaves the output ``fl`` flits at the link's width after the head, and not
    before the router pipeline after the tail arrived. Returns the earliest time something here moves."""
    vcbuf = mcfg[MC_VCBUF]
    nport = mcfg[MC_NPORT]
    p0 = node * nport
    v = vi * vcbuf + mvq[net, vi, VQ_HEAD]
    r = mvc[net, v, MV_PKT]
    fl = mvc[net, v, MV_FLITS]
    llat, lb = mesh_link(mcfg, node, o)
    tail = max(k + mesh_serial(cfg, lb, fl), mvc[net, v, MV_TAIL] + mcfg[MC_RLAT])
    done = edge(clk, D_ICNT, tail)
    nb = mesh_next(mcfg, net, node, o)[0]
    if nb < 0:
        d = mvc[net, v, MV_DID]
        delay = netd[net, N_DST_DELAY] if d < netd[net, N_NDST] else 0  # (the L2's ROP queue: its requests only)
        arr = done if mcfg[MC_TLAT] == 0 else edge(clk, D_ICNT, tail + mcfg[MC_TLAT])
        rq[r, R_READY] = arr if delay == 0 else edge(clk, D_L2, cyc_at(clk, D_L2, arr) + delay)
        if net == NET_REQ:
            rq[r, R_T2] = arr
        else:
            rq[r, R_T6] = arr
        dqid, wcomp = mesh_endpoint(net, d, cfg, netd)
        rq[r, R_DEST] = -1
        q_push(qb, qm, dqid, r)
        if rq[r, R_READY] < wake[wcomp]:
            wake[wcomp] = rq[r, R_READY]
        if d < netd[net, N_NDST]:
            nst[net, 1, d] += fl
        h = mvc[net, v, MV_HOPS]
        kd = rq[r, R_KIND]
        mkst[net, kd, 0] += 1
        mkst[net, kd, 1] += h
        mkst[net, kd, 2] += h * fl
        mst[net, MS_EJ] += 1
        mport[net, p0, MP_OCC] -= 1
        wk = INF
    else:
        nv = mesh_push(mvc, mvq, mport, mcfg, net, nvi, vcbuf, fl)
        for col in range(NMV):
            mvc[net, nv, col] = mvc[net, v, col]
        mvc[net, nv, MV_READY] = edge(clk, D_ICNT, k + llat + mcfg[MC_RLAT])
        mvc[net, nv, MV_TAIL] = tail + llat
        mvc[net, nv, MV_HOPS] += 1
        mvc[net, nv, MV_OUT] = mesh_route(mcfg, net, nb, mvc[net, v, MV_DNODE])
        mport[net, p0, MP_OCC] -= 1
        mport[net, nb * nport, MP_OCC] += 1
        mesh_arrival(mport, mvq, net, nb * nport, nvi, mvc[net, nv, MV_READY])
        if mport[net, nb * nport, MP_OCC] > mst[net, MS_MAX_OCC]:
            mst[net, MS_MAX_OCC] = mport[net, nb * nport, MP_OCC]
        wk = mvc[net, nv, MV_READY]
    # the packet leaves its VC; its space is credited back at once, or after credit_delay cycles
    mvc[net, v, MV_PKT] = -1
    mvq[net, vi, VQ_BLOCKED] = 0
    mport[net, p0 + ip, MP_DEPART] += 1
    mvq[net, vi, VQ_HEAD] = (mvq[net, vi, VQ_HEAD] + 1) % vcbuf
    mvq[net, vi, VQ_COUNT] -= 1
    if mvq[net, vi, VQ_COUNT] == 0:
        mesh_vc_mark(mport, mcfg, net, vi, False)
    cdel = mcfg[MC_CDEL]
    if cdel == 0:
        mvq[net, vi, VQ_USED] -= fl
    else:
        mvq[net, vi, VQ_PEND] += 1
        mvc[net, v, MV_READY] = edge(clk, D_ICNT, k + cdel)
    if mvq[net, vi, VQ_COUNT] > 0:  # the next packet of this VC
        t2 = max(mvc[net, vi * vcbuf + mvq[net, vi, VQ_HEAD], MV_READY], done)
        if t2 < wk:
            wk = t2
    mport[net, p0 + ip, MP_IN_BUSY] = done
    mport[net, p0 + o, MP_OUT_BUSY] = done
    mport[net, p0 + o, MP_FLITS] += fl
    mport[net, p0 + o, MP_PKTS] += 1
    return wk


@njit
def mesh_head_prio(net, vi, vcbuf, rq, mvc, mvq):
    """Priority class of the head packet of VC ``vi``."""
    return rq[mvc[net, vi * vcbuf + mvq[net, vi, VQ_HEAD], MV_PKT], R_PRIO]


@njit
def mesh_islip(net, now, k, node, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc, mvq, mport, msw, mst, mkst):
    """One iSLIP iteration at ``node``'s router. Request: each free input port asks, for each free output
    its ready head packets route to (and that has room downstream), with one VC (the first from the input's
    VC pointer; with priority arbitration the highest class first). Grant: each output grants the first
    requesting input from its grant pointer (highest class first). Accept: each input accepts the first
    granting output from its accept pointer (highest class first). Accepted pairs move; the output's grant
    pointer goes to one past the input, the input's accept pointer to one past the output, its VC pointer to
    one past the VC. Returns (the earliest time something here may move, whether a packet moved)."""
    nvc = mcfg[MC_NVC]
    vcbuf = mcfg[MC_VCBUF]
    prio = mcfg[MC_PRIO]
    nport = mcfg[MC_NPORT]
    gr = SW_REQ + nport  # the grant mask's column
    nxt = edge(clk, D_ICNT, k + 1)
    p0 = node * nport
    wk = INF
    nreq = 0
    ncand = 0  # ready head packets with free ports: each either moves this cycle or is looked at again next
    # request
    for ip in range(nport):
        pr = p0 + ip
        for o in range(nport):
            msw[net, pr, SW_REQ + o] = -1
        msw[net, pr, gr] = 0
        ib = mport[net, pr, MP_IN_BUSY]
        vp = msw[net, pr, SW_VP]
        for j in range(nvc):
            vi = pr * nvc + (vp + j) % nvc
            if mvq[net, vi, VQ_COUNT] == 0:
                continue
            v = vi * vcbuf + mvq[net, vi, VQ_HEAD]
            t = mvc[net, v, MV_READY]
            if t > now:
                if t < wk:
                    wk = t
                continue
            if ib > now:
                if ib < wk:
                    wk = ib
                break  # the input port is sending: none of its VCs may request
            o = mvc[net, v, MV_OUT]
            ob = mport[net, p0 + o, MP_OUT_BUSY]
            if ob > now:
                if ob < wk:
                    wk = ob
                continue
            ncand += 1
            cur = msw[net, pr, SW_REQ + o]
            if cur >= 0 and (prio == 0 or mesh_head_prio(net, cur, vcbuf, rq, mvc, mvq)
                             >= rq[mvc[net, v, MV_PKT], R_PRIO]):
                continue
            if mesh_target(net, node, v, o, now, cfg, qm, netd, mcfg, mvc, mvq) < 0:
                mesh_count_wait(net, node, o, mcfg, mst, mport)
                wk = min(wk, nxt)
                continue
            if cur < 0:
                nreq += 1
            msw[net, pr, SW_REQ + o] = vi
    if nreq == 0:
        return wk, False
    # grant
    for o in range(nport):
        po = p0 + o
        gp = msw[net, po, SW_GP]
        best = -1
        bestc = -1
        for j in range(nport):
            ip = (gp + j) % nport
            vi = msw[net, p0 + ip, SW_REQ + o]
            if vi < 0:
                continue
            c = mesh_head_prio(net, vi, vcbuf, rq, mvc, mvq) if prio != 0 else 0
            if c > bestc:
                best = ip
                bestc = c
        if best >= 0:
            msw[net, p0 + best, gr] |= 1 << o
    # accept
    moved = 0
    for ip in range(nport):
        pr = p0 + ip
        gm = msw[net, pr, gr]
        if gm == 0:
            continue
        ap = msw[net, pr, SW_AP]
        best = -1
        bestc = -1
        for j in range(nport):
            o = (ap + j) % nport
            if (gm >> o) & 1 == 0:
                continue
            c = mesh_head_prio(net, msw[net, pr, SW_REQ + o], vcbuf, rq, mvc, mvq) if prio != 0 else 0
            if c > bestc:
                best = o
                bestc = c
        o = best
        vi = msw[net, pr, SW_REQ + o]
        v = vi * vcbuf + mvq[net, vi, VQ_HEAD]
        nvi = mesh_target(net, node, v, o, now, cfg, qm, netd, mcfg, mvc, mvq)  # as in the request: outputs differ
        if nvi < 0:
            continue
        t = mesh_move(net, now, k, node, vi, ip, o, nvi, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc, mvq,
                      mport, mst, mkst)
        if t < wk:
            wk = t
        msw[net, p0 + o, SW_GP] = (ip + 1) % nport
        msw[net, pr, SW_AP] = (o + 1) % nport
        msw[net, pr, SW_VP] = (vi - pr * nvc + 1) % nvc
        moved += 1
    if moved < ncand:  # packets not served this cycle (not granted, not accepted, or not offered) compete again
        wk = min(wk, nxt)
    return wk, moved > 0


@njit_inline
def mesh_inject(net, q, term, port, wcomp, now, k, cfg, clk, rq, qb, qm, wake, nst, kst, mcfg, mvc, mvq, mport, mst):
    """Move the head of source queue ``q`` (at terminal ``term``; ``port`` its per-port statistics row, -1
    none; ``wcomp`` the component woken when its full queue frees) into a VC of the terminal's input port
    (the mesh's local port; a butterfly's stage-0 input). Returns (the earliest time this source may move
    again, whether a packet entered)."""
    if qm[q, Q_COUNT] == 0:
        return INF, False
    nvc = mcfg[MC_NVC]
    vcbuf = mcfg[MC_VCBUF]
    nport = mcfg[MC_NPORT]
    node, ip = mesh_entry(mcfg, net, term)
    pin = node * nport + ip
    nxt = edge(clk, D_ICNT, k + 1)
    r = q_head(qb, qm, q)
    t = max(rq[r, R_READY], mport[net, pin, MP_INJ_BUSY])
    if t > now:
        return t, False
    fl = packet_flits(r, cfg, rq)
    if mcfg[MC_CDEL] > 0:
        mesh_port_credits(mvc, mvq, net, node, ip, nport, nvc, vcbuf, now)
    vi = mesh_pick_vc(mvq, net, node, ip, nport, nvc, fl, vcbuf)
    if vi < 0:
        mst[net, MS_INJ_WAIT] += 1
        return nxt, False
    if net == NET_REQ and q_space(qm, q) <= cfg[C_L1_MQ_SLACK] and now < wake[wcomp]:
        wake[wcomp] = now  # the source may be blocked on this full queue (or too full for a load's miss)
    q_pop(qb, qm, q)
    if net == NET_REP:
        slice_reply_taken(q, now, cfg, qm, wake)
    d = rq[r, R_SLICE] if net == NET_REQ else rq[r, R_SRC]
    if rq[r, R_DEST] >= 0:
        d = rq[r, R_DEST]
    dst_base = MC_HDR + cfg[C_NSM] if net == NET_REQ else MC_HDR
    dnode = mcfg[dst_base + d]
    v = mesh_push(mvc, mvq, mport, mcfg, net, vi, vcbuf, fl)
    mvc[net, v, MV_PKT] = r
    mvc[net, v, MV_READY] = edge(clk, D_ICNT, k + mcfg[MC_TLAT] + mcfg[MC_RLAT])
    mvc[net, v, MV_OUT] = mesh_route(mcfg, net, node, dnode)
    mvc[net, v, MV_FLITS] = fl
    mvc[net, v, MV_HOPS] = 0
    mvc[net, v, MV_DNODE] = dnode
    mvc[net, v, MV_DID] = d
    ser = mesh_serial(cfg, mesh_link(mcfg, node, ip)[1], fl)
    mvc[net, v, MV_TAIL] = k + ser + mcfg[MC_TLAT]
    mport[net, pin, MP_INJ_BUSY] = edge(clk, D_ICNT, k + ser)
    mport[net, node * nport, MP_OCC] += 1
    mesh_arrival(mport, mvq, net, node * nport, vi, mvc[net, v, MV_READY])
    if mport[net, node * nport, MP_OCC] > mst[net, MS_MAX_OCC]:
        mst[net, MS_MAX_OCC] = mport[net, node * nport, MP_OCC]
    if net == NET_REQ:
        rq[r, R_T1] = now
    else:
        rq[r, R_T5] = now
    if port >= 0:
        nst[net, 0, port] += fl
    kd = rq[r, R_KIND]
    kst[kd, 2 * net] += 1
    kst[kd, 2 * net + 1] += fl
    mst[net, MS_INJ] += 1
    wk = mvc[net, v, MV_READY]
    if qm[q, Q_COUNT] > 0:
        r2 = q_head(qb, qm, q)
        t2 = max(rq[r2, R_READY], mport[net, pin, MP_INJ_BUSY], nxt)
        if t2 < wk:
            wk = t2
    return wk, True


@njit
def mesh_tick(net, now, k, cfg, clk, rq, qb, qm, netd, wake, g, nst, kst, mcfg, mvc, mvq, mport, msw, mst, mkst):
    """One interconnect cycle of subnet ``net`` of the router network: hops and ejections (routers in id
    order), then injections."""
    nsrc = netd[net, N_NSRC]
    sq = netd[net, N_SRCQ]
    nnode = mcfg[MC_NNODE]
    nvc = mcfg[MC_NVC]
    vcbuf = mcfg[MC_VCBUF]
    prio = mcfg[MC_PRIO]
    islip = mcfg[MC_ISLIP] != 0
    nport = mcfg[MC_NPORT]
    src_base = MC_HDR if net == NET_REQ else MC_HDR + cfg[C_NSM]
    nxt = edge(clk, D_ICNT, k + 1)
    nin = nport * nvc
    masked = nin <= VC_MASK_MAX
    cdel = mcfg[MC_CDEL]
    eager = mcfg[MC_EAGER]
    wk = INF
    progress = False
    for node in range(nnode):
        p0 = node * nport
        if mport[net, p0, MP_OCC] == 0:
            continue
        if islip:
            t, mv = mesh_islip(net, now, k, node, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc, mvq, mport, msw,
                               mst, mkst)
            if t < wk:
                wk = t
            progress = progress or mv
            continue
        rw = mport[net, p0, MP_WAKE]
        if rw > now and eager == 0:
            # no head can move before ``rw``, the router's next event as its last allocation found it (lowered by
            # each new head since: mesh_arrival); an allocation now would only advance the RR pointer and give
            # ``rw`` again, so that is all that is done (the loop's next mesh cycle stays the same)
            mport[net, p0, MP_RR] = (mport[net, p0, MP_RR] + 1) % nin
            if rw < wk:
                wk = rw
            continue
        rw = INF
        moved = False
        rr = mport[net, p0, MP_RR]
        maxp = 0
        if prio != 0:  # the highest class among the ready head packets goes first
            for vi in range(node * nin, node * nin + nin):
                if mvq[net, vi, VQ_COUNT] > 0 and mvc[net, vi * vcbuf + mvq[net, vi, VQ_HEAD], MV_READY] <= now:
                    maxp = max(maxp, mesh_head_prio(net, vi, vcbuf, rq, mvc, mvq))
        for p in range(maxp, -1, -1):
            # the VCs in round-robin order from ``rr``: with the router's mask, only the non-empty ones (those
            # at or after ``rr``, then those before it); without one (more VCs than the mask holds), all of them
            m = mport[net, p0, MP_VMASK]
            below = (np.int64(1) << rr) - 1 if masked else 0
            m_hi = m & ~below
            m_lo = m & below
            i = 0
            while True:
                if masked:
                    if m_hi != 0:
                        iv = trailing_zeros(m_hi)
                        m_hi &= m_hi - 1
                    elif m_lo != 0:
                        iv = trailing_zeros(m_lo)
                        m_lo &= m_lo - 1
                    else:
                        break
                else:
                    if i == nin:
                        break
                    iv = (rr + i) % nin
                    i += 1
                vi = node * nin + iv
                if mvq[net, vi, VQ_COUNT] == 0:
                    continue
                v = vi * vcbuf + mvq[net, vi, VQ_HEAD]
                r = mvc[net, v, MV_PKT]
                t = mvc[net, v, MV_READY]
                if t > now:
                    if t < rw:
                        rw = t
                    continue
                if prio != 0 and rq[r, R_PRIO] != p:
                    continue
                ip = iv // nvc
                o = mvc[net, v, MV_OUT]
                b = max(mport[net, p0 + ip, MP_IN_BUSY], mport[net, p0 + o, MP_OUT_BUSY])
                if b > now:
                    if b < rw:
                        rw = b
                    continue
                # a head that found no room downstream stays blocked until a packet leaves that input port (with
                # credits returned at departure: the VCs' space changes no other way)
                nb, nip = mesh_next(mcfg, net, node, o)
                dport = nb * nport + nip
                if nb >= 0 and cdel == 0 and mvq[net, vi, VQ_BLOCKED] == mport[net, dport, MP_DEPART] + 1:
                    mesh_count_wait(net, node, o, mcfg, mst, mport)
                    rw = min(rw, nxt)
                    continue
                nvi = mesh_target(net, node, v, o, now, cfg, qm, netd, mcfg, mvc, mvq)
                if nvi < 0:
                    if nb >= 0:
                        mvq[net, vi, VQ_BLOCKED] = mport[net, dport, MP_DEPART] + 1
                    mesh_count_wait(net, node, o, mcfg, mst, mport)
                    rw = min(rw, nxt)
                    continue
                t = mesh_move(net, now, k, node, vi, ip, o, nvi, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc,
                              mvq, mport, mst, mkst)
                if t < rw:
                    rw = t
                progress = True
                moved = True
        mport[net, p0, MP_RR] = (rr + 1) % nin
        # without a move the router's contents and ports are as it found them, so ``rw`` is its next event
        # exactly (a later allocation before then would find the same); after a move it looks again next cycle
        mport[net, p0, MP_WAKE] = now if moved else rw
        if rw < wk:
            wk = rw
    # injection: the head of each source's queue enters a VC of its terminal's input port
    # (sources with empty queues have nothing to inject: only the non-empty ones are visited, in the same
    # round-robin order from ``rr``; an injection pops only its own source's queue)
    rr = netd[net, N_RR]
    for half in range(2):
        lo, hi = (rr, nsrc) if half == 0 else (0, rr)
        s = q_next_busy(qm, sq, lo, hi)
        while s >= 0:
            t, moved = mesh_inject(net, sq + s, mcfg[src_base + s], s, s, now, k, cfg, clk, rq, qb, qm, wake, nst,
                                   kst, mcfg, mvc, mvq, mport, mst)
            wk = min(wk, t)
            progress = progress or moved
            s = q_next_busy(qm, sq, s + 1, hi)
    sq2 = netd[net, N_SRCQ2]
    s = q_next_busy(qm, sq2, 0, netd[net, N_NSRC2])  # the second family (own terminals: no port shared with
    while s >= 0:                                      # the first)
        t, moved = mesh_inject(net, sq2 + s, mcfg[netd[net, N_SRC2_NODE] + s], -1, netd[net, N_SRC2_WAKE] + s, now,
                               k, cfg, clk, rq, qb, qm, wake, nst, kst, mcfg, mvc, mvq, mport, mst)
        wk = min(wk, t)
        progress = progress or moved
        s = q_next_busy(qm, sq2, s + 1, netd[net, N_NSRC2])
    netd[net, N_RR] = (rr + 1) % nsrc
    if progress:
        g[G_LAST_PROGRESS] = now
    wake[cfg[C_WK_NET] + net] = max(wk, nxt) if wk < INF else INF


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


def link_name(ms, pi: int) -> str:
    """The name of port row ``pi`` of a router network's snapshot: the mesh's ``x6y5.north`` (or ``.eject``),
    the butterfly's ``s1r7.p2`` (stage 1, router 7 of the stage, output 2; the last stage's ``.eject2``), the
    hierarchical mesh's ``c3x1y2.east`` (chip 3, node (1, 2)), ``.eject1`` (its second local port) or
    ``.off_west`` (an off-chip link of a gateway)."""
    if ms.get("topology", "mesh") == "hmesh":
        npc = ms["nodes_x"] * ms["nodes_y"]
        router, o = divmod(pi, ms["nport"])
        chip, node = divmod(router, npc)
        off0 = ms["nport"] - 4
        name = MESH_DIRS[o] if o < 4 else (f"eject{o - 4}" if o < off0 else "off_" + MESH_DIRS[o - off0])
        return f"c{chip}x{node % ms['nodes_x']}y{node // ms['nodes_x']}.{name}"
    if ms.get("topology", "mesh") == "butterfly":
        k, n = ms["radix"], ms["stages"]
        router, o = divmod(pi, k)
        stage, idx = divmod(router, k ** (n - 1))
        return f"s{stage}r{idx}." + (f"eject{o}" if stage == n - 1 else f"p{o}")
    w = ms["width"]
    node, d = divmod(pi, 5)
    return f"x{node % w}y{node // w}.{MESH_DIRS[d] if d < 4 else 'eject'}"


def metrics(st, put, ratio) -> None:
    """Router network (mesh, butterfly or hmesh): per subnet totals, hops (router-to-router links) and weighted hops
    (flits x hops) per packet kind, per-link flits. Rows ``mesh.*``, ``butterfly.*`` or ``hmesh.*``. A link's
    utilisation is its busy fraction: flits per cycle on the mesh and the butterfly; on the hierarchical mesh
    bytes over the link's width (``link_bytes`` in the snapshot), and its flits are also summed over the on-chip
    and the off-chip links (``onchip_flits``, ``offchip_flits``: for energy per bit)."""
    ms = st.mesh
    if not ms:
        return
    K = st.consts
    icyc = st.time_ps / (1e6 / K["icnt_mhz"])
    top = ms.get("topology", "mesh")
    hops = whops = 0
    for net, nname in ((0, top + ".request"), (1, top + ".reply")):
        for i, name in enumerate(MS_NAMES):
            put(nname, name, int(ms["totals"][net, i]), "packets" if i < 2 or i == 5 else "events")
        kinds = ms["kinds"][net]
        put(nname, "hops", int(kinds[:, 1].sum()), "hops")
        put(nname, "weighted_hops", int(kinds[:, 2].sum()), "flit-hops")
        hops += int(kinds[:, 1].sum())
        whops += int(kinds[:, 2].sum())
        for kd in range(NPK):
            if kinds[kd, 0]:
                p = nname + ".kind." + st.packet_names.get(kd, f"type{kd}")
                put(p, "packets", int(kinds[kd, 0]), "packets")
                put(p, "hops", int(kinds[kd, 1]), "hops")
                put(p, "weighted_hops", int(kinds[kd, 2]), "flit-hops")
                put(p, "average_hops", ratio(kinds[kd, 1], kinds[kd, 0]), "hops/packet")
        ports = ms["ports"][net]
        busy = ports[:, 0].astype(float)  # flit-cycles of each output
        if "link_bytes" in ms:
            lb = np.asarray(ms["link_bytes"], float)
            busy = busy * np.where(lb > 0, K["flit_bytes"] / np.maximum(lb, 1.0), 1.0)
            off = np.asarray(ms["offchip"], bool)
            put(nname, "onchip_flits", int(ports[~off, 0].sum()), "flits")
            put(nname, "offchip_flits", int(ports[off, 0].sum()), "flits")
        busiest = int(np.argmax(busy)) if ports.size else 0
        put(nname, "max_link_utilisation", ratio(float(busy[busiest]), icyc), "fraction")
        for pi in np.nonzero(ports[:, 0])[0]:
            p = f"{nname}.link.{link_name(ms, int(pi))}"
            put(p, "flits", int(ports[pi, 0]), "flits")
            put(p, "packets", int(ports[pi, 1]), "packets")
            put(p, "credit_waits", int(ports[pi, 2]), "events")
            put(p, "utilisation", ratio(float(busy[pi]), icyc), "fraction")
    put(top, "hops", hops, "hops")
    put(top, "weighted_hops", whops, "flit-hops")
