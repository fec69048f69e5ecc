"""LLC-Compute / Omni-Compute, the compiled side: offload queues at the cores, service queues at the LLC
slices (and, for Omni-Compute, at the cores), and the packets between them on the mesh (seed 001, Sec. 4).

A warp reaching the first instruction (tag ``01``) of a tagged chain asks its core's offload queue: when
the chain's loads all miss in L1, the OQSR has room and an Earliest Meet Node exists (for LLC-Compute: all
operands in one LLC slice), the chain's instructions are taken into the queue as they issue (they count as
issued, nothing executes at the core) and the last one (``11``) stalls the warp. One ComputePacket per line
tuple (1 flit, plus a mask flit under memory divergence) goes to the EMN. There a service-queue entry is
reserved, the operands are loaded (at an LLC from its own banks, or over the mesh), computed on the
32-wide ALU (an LLC's own; a core's idle SP units, the core's own work first), the result stored, and the
reply (ack, bitmap or data; Table 1) sent back. When the service queue is full the EMN sends the loads on
with their data addressed to the source core, which finishes the chain itself (Sec. 4.4, scenario 3).

Packet kinds (``PK_MECH`` + 0..2): ComputePacket, operand data / store ack returned to a service queue,
offload reply. A request the mechanism makes carries ``R_MXD = row * 4 + role`` (role 0/1 operand a/b,
2 store), so the L2 hands its reply to :func:`l2_deliver`. The Python side, :mod:`.unit`, lays out ``mx``.

Message classes keep the two subnets free of protocol cycles: whatever needs an answer (ComputePackets, a
service queue's loads and stores, also a slice's to another slice) travels on the request network; whatever
only gets consumed (operand data, store acks, offload replies) on the reply network, which ejects into queues
that always drain (an SM's input; at a slice, its reply-network input, apart from the requests of l2_in).
"""

from ...timing.engine.caches import c_find
from ...timing.engine.layout import *  # noqa: F403  (the engine's columns and codes)
from ...timing.engine.ldst import l1_base, wake_warp, warp_maybe_exit_flag
from ...timing.engine.mapping import map_addr, rq_map
from ...timing.engine.queues import edge, popcount, q_push, q_push_front, q_space, q_space_head, rq_alloc, rq_release
from ...timing.engine.xbar import net_push

MECHANISM = "llc"
HOOKS = ("warp_start", "decide", "intercept", "core_service", "sm_receive", "l2_serve", "l2_deliver", "slice_tick",
         "fetched")

PK_MCOMP, PK_MDATA, PK_MREPLY = PK_MECH, PK_MECH + 1, PK_MECH + 2
PACKET_NAMES = {PK_MCOMP: "compute", PK_MDATA: "sq_data", PK_MREPLY: "offload_reply"}
MODE_LLC, MODE_OMNI = 1, 2
MAXPK = 32  # line tuples (packets) per chain instance: one per lane at most

# header of ``mx``
(
    F_MODE, F_NSM, F_NSL, F_NSLOT, F_OQ_CAP, F_SQ_CAP, F_BUF, F_ALU_LAT, F_LLC_RD, F_DED_CYC, F_PT0, F_CI0, F_EMN0,
    F_WS0, F_RW0, F_NROW, F_FREE0, F_FREE_TOP, F_SI0, F_RDY0, F_RDY_CAP, F_SND0, F_SND_CAP, F_INJ0, F_INJ_CAP,
    F_BUFS0, F_CTR0, F_SMEM_LAT, F_NPC, F_ACK_STORE, F_HDR
) = range(31)
# per-PC table: chain, tag (1 first, 2 middle, 3 last)
PT_CHAIN, PT_TAG = 0, 1
NPT = 2
# per-chain table
(CI_PATTERN, CI_NINST, CI_NOPS, CI_REPLY_FL, CI_NMEM, CI_PC0, CI_PC1, CI_PC2, CI_ROLE0, CI_ROLE1, CI_ROLE2) = range(11)
NCI = 11
ROLE_A, ROLE_B, ROLE_ST = 0, 1, 2
# ``R_MXD`` role of a slice's buffer read (Sec. 4.4.2 step 9: "the SQ sends load requests to the LLC"): an L2
# request of its own, through the slice's port like any other (role 3 is otherwise a reply's, never an L2 request's)
ROLE_BUF = 3
# per warp slot
WS_CHAIN, WS_NROWS, WS_OUT, WS_ROWS = 0, 1, 2, 3
NWS = 3 + MAXPK
# rows: one per ComputePacket in flight (OQSR entries of all cores)
(
    RW_SRC, RW_SLOT, RW_CHAIN, RW_EMN, RW_SITE, RW_LA, RW_LB, RW_LS, RW_SA, RW_SB, RW_SS, RW_NEED, RW_HAVE,
    RW_HELD, RW_T0, RW_TREADY, RW_TDONE, RW_OPS, RW_FLITS, RW_TARR, RW_TSENT, RW_TOPS, RW_TBUF, RW_TST, RW_TACK,
    RW_TREP, RW_RFL, RW_NRD, RW_TRD
) = range(29)
NRW = 29
# per site (slices 0..nsl-1, then cores nsl..nsl+nsm-1)
(
    SI_SQ, SI_RDY_H, SI_RDY_N, SI_SND_H, SI_SND_N, SI_INJ_H, SI_INJ_N, SI_ALU_FREE, SI_OQ, SI_OQ_MAX, SI_SQ_MAX
) = range(11)
NSI = 11
# sends queued at a site: row * 8 + op
OP_LOAD_A, OP_LOAD_B, OP_STORE, OP_REPLY = 0, 1, 2, 3
# ``R_MXD`` of a store whose acknowledgement only returns to its meet node (the entry was freed when the result
# was computed): this plus the site, no row
MXD_DETACHED = 1 << 40

COUNTER_NAMES = ("CH_SEEN", "CH_OFFLOADED", "CH_NO_L1", "CH_NO_OQ", "CH_NO_EMN", "CH_NO_LLC", "CH_NO_TRACE",
                 "CH_ABSORBED", "CH_PACKETS", "CH_MASK_FLITS", "CH_AT_LLC", "CH_AT_CORE", "CH_FALLBACK",
                 "CH_ALU_OPS", "CH_ALU_WAIT", "CH_LLC_READS", "CH_SMEM", "CH_STORES", "CH_REPLIES",
                 "CH_REPLY_FLITS", "CH_RTT_PS", "CH_DONE", "CH_OQ_MAX", "CH_SQ_MAX", "CH_EMN_LLC", "CH_EMN_CORE",
                 "CH_NET_OPERANDS")
(
    CC_SEEN, CC_OFFLOADED, CC_NO_L1, CC_NO_OQ, CC_NO_EMN, CC_NO_LLC, CC_NO_TRACE, CC_ABSORBED, CC_PACKETS,
    CC_MASK_FLITS, CC_AT_LLC, CC_AT_CORE, CC_FALLBACK, CC_ALU_OPS, CC_ALU_WAIT, CC_LLC_READS, CC_SMEM, CC_STORES,
    CC_REPLIES, CC_REPLY_FLITS, CC_RTT_PS, CC_DONE, CC_OQ_MAX, CC_SQ_MAX, CC_EMN_LLC, CC_EMN_CORE, CC_NET_OPERANDS
) = range(len(COUNTER_NAMES))
# a completed packet's time per step (ps), by where it was computed: at a slice, at a core (its EMN), or at its
# source core (service queue full): to the meet node, the loads' wait for the send port, the operands' fetch,
# the wait for the buffer, buffer to result (shared memory or LLC read, ALU wait, ALU), result to reply sent
# (store and its ack), the reply's way back; and the packets, and their stores' round trips
PHASES = ("to_emn", "send_wait", "fetch", "buffer_wait", "alu", "store", "reply", "n", "store_rt", "n_store")
SITE_CLASSES = ("llc", "core", "source")
CC_PH0 = len(COUNTER_NAMES)
NPH = len(PHASES)
COUNTER_NAMES = COUNTER_NAMES + tuple(f"CH_PH_{c.upper()}_{p.upper()}" for c in SITE_CLASSES for p in PHASES)


@njit
def ctr_add(mx, c, v):
    mx[mx[F_CTR0] + c] += v


@njit
def site_base(site, mx):
    return mx[F_SI0] + site * NSI


@njit
def row_base(w, mx):
    return mx[F_RW0] + w * NRW


@njit
def chain_base(c, mx):
    return mx[F_CI0] + c * NCI


@njit
def ws_base(slot, mx):
    return mx[F_WS0] + slot * NWS


@njit
def fifo_push(mx, site, start_f, cap_f, head_c, n_c, v):
    """Append ``v`` to ``site``'s FIFO (ring at ``mx[start_f]``, ``mx[cap_f]`` entries per site); False if full."""
    b = site_base(site, mx)
    cap = mx[cap_f]
    if mx[b + n_c] >= cap:
        return False
    mx[mx[start_f] + site * cap + (mx[b + head_c] + mx[b + n_c]) % cap] = v
    mx[b + n_c] += 1
    return True


@njit
def fifo_head(mx, site, start_f, cap_f, head_c):
    cap = mx[cap_f]
    return mx[mx[start_f] + site * cap + mx[site_base(site, mx) + head_c]]


@njit
def fifo_pop(mx, site, cap_f, head_c, n_c):
    b = site_base(site, mx)
    mx[b + head_c] = (mx[b + head_c] + 1) % mx[cap_f]
    mx[b + n_c] -= 1


@njit
def home_slice(line, mapd, mrange, cfg):
    """The LLC slice that holds ``line``."""
    return map_addr(mapd, mrange, cfg[C_NRANGE], line)[1]


@njit
def l1_holds(sm, line, sect, cfg, l1t):
    if cfg[C_L1_EN] == 0 or cfg[C_L1_CACHE_GLOBAL] == 0:
        return False
    idx = c_find(l1t, l1_base(sm, line, cfg), cfg[C_L1_ASSOC], line)
    return idx >= 0 and (l1t[idx, LN_VALID] & sect) == sect


@njit
def warp_start(gwarp, mx):
    """Every warp may meet a chain."""
    return 0


@njit
def decide(slot, now, wt, chs, mx):
    """A warp whose offloaded chain has not replied yet waits (its ``11`` stalls it, Sec. 4.3)."""
    return -2 if mx[ws_base(slot, mx) + WS_OUT] > 0 else -1


# ------------------------------------------------------------------------------------------------------
# the source core: the offload queue's decision and the chain's instructions


@njit
def oq_decide(sm, slot, c, now, cfg, rec, txl, txs, wt, l1t, mapd, mrange, mx):
    """At chain ``c``'s first instruction: 0 offload (rows allocated, one per line tuple), else why not."""
    cb = chain_base(c, mx)
    nmem = mx[cb + CI_NMEM]
    ri = wt[slot, W_REC]
    if ri + nmem > wt[slot, W_REC_END]:
        return CC_NO_TRACE
    npk = 1
    for m in range(nmem):
        if rec[ri + m, RC_PC] != mx[cb + CI_PC0 + m] or rec[ri + m, RC_NTX] < 1:
            return CC_NO_TRACE
        npk = max(npk, rec[ri + m, RC_NTX])
    if npk > MAXPK:
        return CC_NO_TRACE
    # L1 locality first: a chain whose load hits in L1 runs at the core
    for m in range(nmem):
        if mx[cb + CI_ROLE0 + m] != ROLE_ST:
            t0 = rec[ri + m, RC_TXS]
            for t in range(t0, t0 + rec[ri + m, RC_NTX]):
                if l1_holds(sm, txl[t], txs[t], cfg, l1t):
                    return CC_NO_L1
    sb = site_base(mx[F_NSL] + sm, mx)
    if mx[sb + SI_OQ] + npk > mx[F_OQ_CAP] or mx[F_FREE_TOP] < npk:
        return CC_NO_OQ
    # the EMN of every line tuple
    nsl = mx[F_NSL]
    for p in range(npk):
        la = lb = ls = -1
        for m in range(nmem):
            t = rec[ri + m, RC_TXS] + min(p, rec[ri + m, RC_NTX] - 1)
            role = mx[cb + CI_ROLE0 + m]
            if role == ROLE_A:
                la = txl[t]
            elif role == ROLE_B:
                lb = txl[t]
            else:
                ls = txl[t]
        ha = home_slice(la, mapd, mrange, cfg)
        hb = home_slice(lb, mapd, mrange, cfg) if lb >= 0 else -1
        hs = home_slice(ls, mapd, mrange, cfg) if ls >= 0 else -1
        e = -1
        if mx[F_MODE] == MODE_LLC:
            if (hb < 0 or hb == ha) and (hs < 0 or hs == ha):
                e = ha
            else:
                return CC_NO_LLC
        else:
            k1 = hb if hb >= 0 else (hs if hs >= 0 else ha)
            e = mx[mx[F_EMN0] + (sm * nsl + ha) * nsl + k1]
            if e < 0:
                return CC_NO_EMN
        mx[ws_base(slot, mx) + WS_ROWS + p] = e  # (the EMNs, until the rows exist)
    # offload: one row per line tuple; the source's L1 drops its copies of the lines the chain stores
    for m in range(nmem):
        if mx[cb + CI_ROLE0 + m] == ROLE_ST and cfg[C_L1_EN] != 0:
            t0 = rec[ri + m, RC_TXS]
            for t in range(t0, t0 + rec[ri + m, RC_NTX]):
                idx = c_find(l1t, l1_base(sm, txl[t], cfg), cfg[C_L1_ASSOC], txl[t])
                if idx >= 0:
                    l1t[idx, LN_VALID] = 0
                    l1t[idx, LN_DIRTY] = 0
    wsb = ws_base(slot, mx)
    for p in range(npk):
        e = mx[wsb + WS_ROWS + p]
        mx[F_FREE_TOP] -= 1
        w = mx[mx[F_FREE0] + mx[F_FREE_TOP]]
        o = row_base(w, mx)
        for col in range(NRW):
            mx[o + col] = -1
        mx[o + RW_SRC] = sm
        mx[o + RW_SLOT] = slot
        mx[o + RW_CHAIN] = c
        mx[o + RW_EMN] = e
        mx[o + RW_NEED] = 0
        mx[o + RW_HAVE] = 0
        mx[o + RW_HELD] = 0
        mx[o + RW_OPS] = 0
        mx[o + RW_FLITS] = 1 if npk == 1 else 2
        nres = 0  # the reply's result bytes: the packet's active lanes (the widest operand record's share)
        for m in range(nmem):
            t = rec[ri + m, RC_TXS] + min(p, rec[ri + m, RC_NTX] - 1)
            role = mx[cb + CI_ROLE0 + m]
            mx[o + RW_LA + role] = txl[t]
            mx[o + RW_SA + role] = txs[t]
            if role != ROLE_ST:
                mx[o + RW_NEED] |= 1 << role
                nres = max(nres, tuple_bytes(rec[ri + m, RC_BYTES], txs, rec[ri + m, RC_TXS], rec[ri + m, RC_NTX], p))
        mx[o + RW_RFL] = reply_flits(mx[cb + CI_REPLY_FL], nres, cfg[C_IC_FLIT], cfg[C_IC_HDR])
        mx[wsb + WS_ROWS + p] = w
        if e < nsl:
            ctr_add(mx, CC_EMN_LLC, 1)
        else:
            ctr_add(mx, CC_EMN_CORE, 1)
    mx[wsb + WS_NROWS] = npk
    mx[sb + SI_OQ] += npk
    if mx[sb + SI_OQ] > mx[sb + SI_OQ_MAX]:
        mx[sb + SI_OQ_MAX] = mx[sb + SI_OQ]
    return 0


@njit
def fetched(sm, slot, pc, n, mx):
    """Offload-aware fetch (Sec. 3.3): decoding a chain's ``01`` gives the warp fetch priority until its ``11``
    is decoded, so that the chain's instructions reach the offload queue back to back."""
    r = -1
    for i in range(n):
        if pc + i >= mx[F_NPC]:
            break
        pt = mx[F_PT0] + (pc + i) * NPT
        if mx[pt + PT_CHAIN] < 0:
            continue
        tag = mx[pt + PT_TAG]
        if tag == 1:
            r = 1
        elif tag == 3:
            r = 0
    return r


@njit
def intercept(sm, slot, pc, now, k, cfg, clk, rec, txl, txs, wt, smt, l1t, mapd, mrange, mx):
    """Chain instructions: decide at ``01``, take the offloaded chain's instructions, stall at ``11``."""
    if pc >= mx[F_NPC]:
        return 0
    pt = mx[F_PT0] + pc * NPT
    c = mx[pt + PT_CHAIN]
    wsb = ws_base(slot, mx)
    if c < 0:
        return 0
    tag = mx[pt + PT_TAG]
    if tag == 1:
        ctr_add(mx, CC_SEEN, 1)
        why = oq_decide(sm, slot, c, now, cfg, rec, txl, txs, wt, l1t, mapd, mrange, mx)
        if why != 0:
            ctr_add(mx, why, 1)
            mx[wsb + WS_CHAIN] = -1
            return 0
        ctr_add(mx, CC_OFFLOADED, 1)
        mx[wsb + WS_CHAIN] = c
        ctr_add(mx, CC_ABSORBED, 1)
        return 1
    if mx[wsb + WS_CHAIN] != c:
        return 0
    ctr_add(mx, CC_ABSORBED, 1)
    if tag != 3:
        return 1
    # the last instruction: the ComputePackets go to the injection queue; the warp waits for the replies
    mx[wsb + WS_CHAIN] = -1
    n = mx[wsb + WS_NROWS]
    mx[wsb + WS_OUT] = n
    site = mx[F_NSL] + sm
    t = edge(clk, D_CORE, k + 1)  # packetizing
    for p in range(n):
        w = mx[wsb + WS_ROWS + p]
        mx[row_base(w, mx) + RW_T0] = t
        fifo_push(mx, site, F_INJ0, F_INJ_CAP, SI_INJ_H, SI_INJ_N, w)
    wt[slot, W_PEND_LD] += 1
    return 2


# ------------------------------------------------------------------------------------------------------
# packets


@njit
def pkt_bytes(flits, cfg):
    """Payload bytes that make a packet of ``flits`` flits."""
    return max(0, flits * cfg[C_IC_FLIT] - cfg[C_IC_HDR])


@njit
def reply_flits(table_flits, nbytes, flit, hdr):
    """Flits of one ComputePacket's reply: an ack or bitmap (Table 1: 1 flit) stays one flit; a data reply
    carries the results of the packet's active lanes (``nbytes``, one result per lane as wide as its operand),
    a header and no more (32 lanes of 4 B: 8 + 128 B in 32-B flits, Table 1's 5)."""
    if table_flits <= 1:
        return 1
    return max(1, (hdr + nbytes + flit - 1) // flit)


@njit
def tuple_bytes(nbytes, sects, t0, ntx, p):
    """The active lanes' bytes of a record's ``p``-th line tuple: the record's bytes (its active lanes',
    ``nbytes``) shared over its ``ntx`` transactions by the sectors each touches; 0 past its last."""
    if p >= ntx:
        return 0
    tot = 0
    for t in range(t0, t0 + ntx):
        tot += popcount(sects[t])
    if tot == 0:
        return 0
    return nbytes * popcount(sects[t0 + p]) // tot


@njit
def is_core_site(site, mx):
    return site >= mx[F_NSL]


@njit
def send_op(site, v, now, k, cfg, clk, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """Send queued operation ``v`` (row * 8 + op) from ``site``: 1 sent, 0 its queue or the pool is full,
    2 the reply of a chain its source core finished itself (the caller completes it)."""
    w = v // 8
    op = v % 8
    o = row_base(w, mx)
    nsl = mx[F_NSL]
    src = mx[o + RW_SRC]
    core = is_core_site(site, mx)
    sm = site - nsl
    if core:
        dom = D_CORE
        qout = cfg[C_Q_SMOUT] + sm
        net = NET_REQ
    else:
        dom = D_L2
        qout = cfg[C_Q_L2OUT] + site
        net = NET_REP
    t = edge(clk, dom, k + 1)
    if op == OP_REPLY:
        if core and sm == src:  # the source finished the chain itself
            release_sq(site, w, now, mx)
            mx[o + RW_TREP] = now
            return 2
        if core:  # a core's answer leaves on the reply network, from the core's own reply-side queue
            qout = cfg[C_Q_SMREP] + sm
            net = NET_REP
        if q_space(qm, qout) <= 0 or g[G_RQ_TOP] < 1:
            return 0
        ctr_add(mx, CC_REPLIES, 1)
        ctr_add(mx, CC_REPLY_FLITS, mx[o + RW_RFL])
        r = rq_alloc(rq, rq_free, g)
        rq[r, R_KIND] = PK_MREPLY
        rq[r, R_MXD] = w * 4 + 3
        rq[r, R_SRC] = src  # the reply network's natural destination: the source core
        rq[r, R_BYTES] = pkt_bytes(mx[o + RW_RFL], cfg)
        rq[r, R_T0] = now
        rq[r, R_READY] = t
        net_push(qout, r, cfg, qb, qm, wake, net, rq)
        release_sq(site, w, now, mx)
        mx[o + RW_TREP] = t
        return 1
    role = op
    line = mx[o + RW_LA + role]
    sect = mx[o + RW_SA + role]
    h = home_slice(line, mapd, mrange, cfg)
    local = (not core) and h == site
    if local:
        q = cfg[C_Q_L2IN] + site
    elif core:
        q = qout
    else:  # slice to slice: a request, so on the request network (never queued behind this slice's replies)
        q = cfg[C_Q_L2REQ] + site
        net = NET_REQ
    if q_space(qm, q) <= 0 or g[G_RQ_TOP] < 1:
        return 0
    r = rq_alloc(rq, rq_free, g)
    rq[r, R_KIND] = PK_WRITE if op == OP_STORE else PK_READ
    rq[r, R_LINE] = line
    rq[r, R_SECT] = sect
    rq[r, R_BYTES] = popcount(sect) * 32 if op == OP_STORE else 0
    rq[r, R_SRC] = sm if core else src
    rq[r, R_PC] = -1
    rq[r, R_T0] = now
    rq_map(rq, r, mapd, mrange, cfg[C_NRANGE], line)
    rq[r, R_MXD] = w * 4 + role
    if op == OP_STORE and mx[F_ACK_STORE] == 0:
        rq[r, R_MXD] = MXD_DETACHED + site
    if op == OP_STORE:
        ctr_add(mx, CC_STORES, 1)
    if local:
        # a load the service queue makes in its own partition waits the ROP delay as every request that
        # entered the partition from the network does (GPGPU-Sim 3.2.2 l2cache.cc:549-555): the ComputePacket's
        # one pass, paid by its loads (in parallel); the store, issued after the compute, is not delayed again
        rop = cfg[C_L2_ROP] if op != OP_STORE else 0
        rq[r, R_READY] = edge(clk, D_L2, k + 1 + rop)
        if op != OP_STORE:
            # steps 7-8 of Sec. 4.4.2: the load makes the line present and the LLC "sends signals to the SQ to
            # update the availability bit"; the data is read into the buffer at step 9 (buffer_reads). So this
            # access checks the tags (and fills a miss) but reads no data through the slice's data port
            rq[r, R_PROBE] = 1
        q_push(qb, qm, q, r)
        if rq[r, R_READY] < wake[cfg[C_WK_SL] + site]:
            wake[cfg[C_WK_SL] + site] = rq[r, R_READY]
    else:
        rq[r, R_READY] = t
        net_push(q, r, cfg, qb, qm, wake, net, rq)
    if op == OP_STORE:
        mx[o + RW_TST] = rq[r, R_READY]
    elif rq[r, R_READY] > mx[o + RW_TSENT]:
        mx[o + RW_TSENT] = rq[r, R_READY]
    return 1


@njit
def release_sq(site, w, now, mx):
    o = row_base(w, mx)
    if mx[o + RW_HELD] != 0:
        mx[site_base(site, mx) + SI_SQ] -= 1
        mx[o + RW_HELD] = 0


@njit
def next_send(site, now, k, cfg, clk, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """Send the oldest operation ``site`` has queued: -1 nothing queued, -2 blocked (its queue is full),
    -3 sent, or a row whose chain the source core finished itself (the caller completes it)."""
    b = site_base(site, mx)
    if mx[b + SI_SND_N] == 0:
        return -1
    v = fifo_head(mx, site, F_SND0, F_SND_CAP, SI_SND_H)
    res = send_op(site, v, now, k, cfg, clk, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx)
    if res == 0:
        return -2
    fifo_pop(mx, site, F_SND_CAP, SI_SND_H, SI_SND_N)
    return v // 8 if res == 2 else -3


@njit
def queue_op(site, w, op, mx):
    if not fifo_push(mx, site, F_SND0, F_SND_CAP, SI_SND_H, SI_SND_N, w * 8 + op):
        return False
    return True


@njit
def arrive(site, w, now, mx):
    """A ComputePacket of row ``w`` reached its EMN ``site``: reserve a service-queue entry and load the
    operands, or (queue full) send the loads on with their data addressed to the source core."""
    o = row_base(w, mx)
    b = site_base(site, mx)
    if mx[b + SI_SQ] < mx[F_SQ_CAP]:
        mx[b + SI_SQ] += 1
        if mx[b + SI_SQ] > mx[b + SI_SQ_MAX]:
            mx[b + SI_SQ_MAX] = mx[b + SI_SQ]
        mx[o + RW_HELD] = 1
        mx[o + RW_SITE] = site
        if is_core_site(site, mx):
            ctr_add(mx, CC_AT_CORE, 1)
        else:
            ctr_add(mx, CC_AT_LLC, 1)
    else:
        mx[o + RW_SITE] = mx[F_NSL] + mx[o + RW_SRC]
        ctr_add(mx, CC_FALLBACK, 1)
    mx[o + RW_TREADY] = now
    mx[o + RW_TARR] = now
    if mx[o + RW_LA] >= 0:
        queue_op(site, w, OP_LOAD_A, mx)
    if mx[o + RW_LB] >= 0:
        queue_op(site, w, OP_LOAD_B, mx)


@njit
def operand(w, role, ready, mx):
    """Operand ``role`` (or the store's acknowledgement) of row ``w`` is at its site at ``ready``."""
    o = row_base(w, mx)
    site = mx[o + RW_SITE]
    if role == ROLE_ST:
        mx[o + RW_TACK] = ready
        queue_op(site, w, OP_REPLY, mx)
        return
    mx[o + RW_HAVE] |= 1 << role
    if ready > mx[o + RW_TREADY]:
        mx[o + RW_TREADY] = ready
    if is_core_site(site, mx):
        ctr_add(mx, CC_SMEM, 1)  # buffered in the core's shared memory
    if mx[o + RW_HAVE] == mx[o + RW_NEED]:
        mx[o + RW_TOPS] = mx[o + RW_TREADY]
        fifo_push(mx, site, F_RDY0, F_RDY_CAP, SI_RDY_H, SI_RDY_N, w)


@njit
def phase_times(w, now, mx):
    """Add row ``w``'s time per step (``PHASES``) to its site class's counters: its reply arrived ``now``."""
    o = row_base(w, mx)
    nsl = mx[F_NSL]
    site = mx[o + RW_SITE]
    cls = 0 if site < nsl else (2 if site == nsl + mx[o + RW_SRC] else 1)
    c0 = CC_PH0 + cls * NPH
    t_ops = max(mx[o + RW_TOPS], mx[o + RW_TSENT])
    marks = (mx[o + RW_T0], mx[o + RW_TARR], mx[o + RW_TSENT], t_ops, mx[o + RW_TBUF], mx[o + RW_TDONE],
             mx[o + RW_TREP], now)
    for i in range(7):
        ctr_add(mx, c0 + i, marks[i + 1] - marks[i])
    ctr_add(mx, c0 + 7, 1)
    if mx[o + RW_TST] >= 0 and mx[o + RW_TACK] >= 0:
        ctr_add(mx, c0 + 8, mx[o + RW_TACK] - mx[o + RW_TST])
        ctr_add(mx, c0 + 9, 1)


@njit
def reply_done(sm, w, now, k, cfg, clk, wt, subt, smt, mx):
    """The source core received row ``w``'s reply: free its OQSR entry; the warp resumes after its last."""
    o = row_base(w, mx)
    slot = mx[o + RW_SLOT]
    ctr_add(mx, CC_DONE, 1)
    ctr_add(mx, CC_RTT_PS, now - mx[o + RW_T0])
    phase_times(w, now, mx)
    mx[site_base(mx[F_NSL] + sm, mx) + SI_OQ] -= 1
    mx[mx[F_FREE0] + mx[F_FREE_TOP]] = w
    mx[F_FREE_TOP] += 1
    wsb = ws_base(slot, mx)
    mx[wsb + WS_OUT] -= 1
    if mx[wsb + WS_OUT] == 0:
        wt[slot, W_PEND_LD] -= 1
        wake_warp(slot, edge(clk, D_CORE, k + 1), cfg, wt, subt)
        warp_maybe_exit_flag(slot, wt, smt, cfg)


# ------------------------------------------------------------------------------------------------------
# service: the ready entries through the buffer and the ALU


@njit
def local_roles(site, w, cfg, mapd, mrange, mx):
    """The operands of row ``w`` that slice ``site`` holds in its own banks (a bitmask of roles). An operand
    whose home is another slice reached this service queue as data over the network (its load went to that
    slice, which replied to this one) and waits with the entry: there is no line of it in this slice to read,
    so only these are read from the slice into the buffer (step 9)."""
    o = row_base(w, mx)
    m = 0
    for role in range(2):
        if mx[o + RW_NEED] & (1 << role) and home_slice(mx[o + RW_LA + role], mapd, mrange, cfg) == site:
            m |= 1 << role
    return m


@njit
def buffer_reads(site, w, now, k, cfg, clk, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """Read row ``w``'s operands from the slice into its buffer: one L2 request per operand, through the slice's
    port, ``llc_read_cycles`` after the entry takes its buffer slot (at least one L2 cycle). The reads go to the
    head of the slice's request queue: the SQ sits at the slice and reads lines the LLC has just signalled present
    (Sec. 4.4.2, steps 8-9), so they do not wait behind the network's requests (a miss there may wait for DRAM).
    Only the operands this slice holds are read (:func:`local_roles`); one from another slice came as data.
    False when the queue or the request pool has no room for all of them (the entry waits a cycle more)."""
    o = row_base(w, mx)
    need = local_roles(site, w, cfg, mapd, mrange, mx)
    nrd = popcount(need)
    q = cfg[C_Q_L2IN] + site
    if q_space_head(qm, q) < nrd or g[G_RQ_TOP] < nrd:
        return False
    ready = edge(clk, D_L2, k + max(mx[F_LLC_RD], 1))
    for role in range(2):
        if need & (1 << role) == 0:
            continue
        r = rq_alloc(rq, rq_free, g)
        rq[r, R_KIND] = PK_READ
        rq[r, R_LINE] = mx[o + RW_LA + role]
        rq[r, R_SECT] = mx[o + RW_SA + role]
        rq[r, R_BYTES] = 0
        rq[r, R_SRC] = mx[o + RW_SRC]
        rq[r, R_PC] = -1
        rq[r, R_T0] = now
        rq_map(rq, r, mapd, mrange, cfg[C_NRANGE], mx[o + RW_LA + role])
        rq[r, R_MXD] = w * 4 + ROLE_BUF
        rq[r, R_READY] = ready
        q_push_front(qb, qm, q, r)
    if ready < wake[cfg[C_WK_SL] + site]:
        wake[cfg[C_WK_SL] + site] = ready
    mx[o + RW_NRD] = nrd
    mx[o + RW_TRD] = 0
    return True


@njit
def buffer_read_done(w, ready, mx):
    """One of row ``w``'s buffer reads returns at ``ready``: the entry's operands are in the buffer after its last."""
    o = row_base(w, mx)
    mx[o + RW_NRD] -= 1
    if ready > mx[o + RW_TRD]:
        mx[o + RW_TRD] = ready
    if mx[o + RW_NRD] == 0:
        mx[o + RW_TREADY] = mx[o + RW_TRD]
        if mx[o + RW_OPS] == 0:  # a copy: done when its operands are in the buffer
            mx[o + RW_TDONE] = mx[o + RW_TREADY]


@njit
def compute(site, now, k, cfg, clk, ufree, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """Move ready entries into the buffer and issue their ALU ops (one warp-op a cycle); finished entries
    store their result or reply. Returns the earliest time something here may move (INF: nothing)."""
    b = site_base(site, mx)
    core = is_core_site(site, mx)
    sm = site - mx[F_NSL]
    nb = mx[F_BUF]
    bufs = mx[F_BUFS0] + site * nb
    dom = D_CORE if core else D_L2
    nxt = edge(clk, dom, k + 1)
    wk = INF
    # fill the buffer (one entry a cycle, first come first served)
    if mx[b + SI_RDY_N] > 0:
        w = fifo_head(mx, site, F_RDY0, F_RDY_CAP, SI_RDY_H)
        o = row_base(w, mx)
        if mx[o + RW_TREADY] > now:
            wk = mx[o + RW_TREADY]
        else:
            for i in range(nb):
                if mx[bufs + i] < 0:
                    here = 0 if core else local_roles(site, w, cfg, mapd, mrange, mx)
                    if here != 0 and not buffer_reads(
                            site, w, now, k, cfg, clk, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
                        wk = nxt  # no room in the slice's queue: try again next cycle
                        break
                    mx[bufs + i] = w
                    mx[o + RW_TBUF] = now
                    fifo_pop(mx, site, F_RDY_CAP, SI_RDY_H, SI_RDY_N)
                    nops = mx[chain_base(mx[o + RW_CHAIN], mx) + CI_NOPS]
                    if core:
                        mx[o + RW_TDONE] = INF  # its ops wait for an idle SP unit
                        ctr_add(mx, CC_SMEM, 1)
                        mx[o + RW_TREADY] = edge(clk, D_CORE, k + mx[F_SMEM_LAT])
                    else:  # read from the LLC into the buffer (a second access per local operand, through the port)
                        nrd = popcount(here)
                        ctr_add(mx, CC_LLC_READS, nrd)
                        ctr_add(mx, CC_NET_OPERANDS, popcount(mx[o + RW_NEED]) - nrd)
                        mx[o + RW_TREADY] = INF if nrd > 0 else now  # until buffer_read_done has them all
                    mx[o + RW_OPS] = nops
                    if nops == 0:  # a copy: nothing to compute
                        mx[o + RW_TDONE] = mx[o + RW_TREADY]
                    wk = nxt
                    break
            if mx[b + SI_RDY_N] > 0 and wk > nxt:
                wk = nxt
    # the ALU: one warp-op a cycle over the buffer's entries, oldest first
    issued = False
    for i in range(nb):
        w = mx[bufs + i]
        if w < 0:
            continue
        o = row_base(w, mx)
        if mx[o + RW_OPS] > 0:
            if issued or mx[o + RW_TREADY] > now:
                wk = min(wk, max(mx[o + RW_TREADY], nxt))
                continue
            if core and mx[F_DED_CYC] == 0:
                u = -1
                for x in range(cfg[C_UCNT_SP]):
                    if ufree[sm, U_SP, x] <= now:
                        u = x
                        break
                if u < 0:  # the core's own work has the unit
                    ctr_add(mx, CC_ALU_WAIT, 1)
                    wk = min(wk, nxt)
                    continue
                ufree[sm, U_SP, u] = nxt
                step = 1
            else:
                step = mx[F_DED_CYC] if core else 1
                if mx[b + SI_ALU_FREE] > now:
                    wk = min(wk, mx[b + SI_ALU_FREE])
                    continue
                mx[b + SI_ALU_FREE] = edge(clk, dom, k + step)
            issued = True
            ctr_add(mx, CC_ALU_OPS, 1)
            mx[o + RW_OPS] -= 1
            if mx[o + RW_OPS] == 0:
                mx[o + RW_TDONE] = edge(clk, dom, k + step - 1 + mx[F_ALU_LAT])
                wk = min(wk, mx[o + RW_TDONE])
            else:
                wk = min(wk, nxt)
            continue
        if mx[o + RW_TDONE] > now:
            wk = min(wk, mx[o + RW_TDONE])
            continue
        # done: store the result and reply (Sec. 4.2: the entry is freed once the result is computed, then the
        # response is sent; the store's acknowledgement returns to this node and is dropped), or (ack_after_store)
        # reply when the store is acknowledged
        if mx[o + RW_LS] >= 0:
            queue_op(site, w, OP_STORE, mx)
        if mx[o + RW_LS] < 0 or mx[F_ACK_STORE] == 0:
            queue_op(site, w, OP_REPLY, mx)
            release_sq(site, w, now, mx)
        mx[bufs + i] = -1
        wk = min(wk, nxt)
    return wk


# ------------------------------------------------------------------------------------------------------
# hooks


@njit
def core_service(sm, now, k, cfg, clk, ufree, wt, subt, smt, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """The core's offload queue injects ComputePackets; its service queue (Omni-Compute) works."""
    site = mx[F_NSL] + sm
    b = site_base(site, mx)
    wk = INF
    nxt = edge(clk, D_CORE, k + 1)
    qout = cfg[C_Q_SMOUT] + sm
    while mx[b + SI_INJ_N] > 0:
        w = fifo_head(mx, site, F_INJ0, F_INJ_CAP, SI_INJ_H)
        o = row_base(w, mx)
        if mx[o + RW_T0] > now:
            wk = min(wk, mx[o + RW_T0])
            break
        if q_space(qm, qout) <= 0 or g[G_RQ_TOP] < 1:
            wk = min(wk, nxt)
            break
        fifo_pop(mx, site, F_INJ_CAP, SI_INJ_H, SI_INJ_N)
        r = rq_alloc(rq, rq_free, g)
        e = mx[o + RW_EMN]
        rq[r, R_KIND] = PK_MCOMP
        rq[r, R_SRC] = sm
        rq[r, R_MXD] = w * 4 + 3
        rq[r, R_BYTES] = pkt_bytes(mx[o + RW_FLITS], cfg)
        rq[r, R_T0] = now
        rq[r, R_READY] = now
        if e < mx[F_NSL]:
            rq[r, R_SLICE] = e  # (the crossbar delivers it to the slice's request queue)
            rq[r, R_DEST] = mx[F_NSL] + mx[F_NSM] + e  # a router network: the slice's service queue (Fig. 7)
        else:
            rq[r, R_SLICE] = 0
            rq[r, R_DEST] = e  # a core: request-network endpoint nsl + sm
        net_push(qout, r, cfg, qb, qm, wake, NET_REQ, rq)
        ctr_add(mx, CC_PACKETS, 1)
        if mx[o + RW_FLITS] > 1:
            ctr_add(mx, CC_MASK_FLITS, 1)
    if mx[b + SI_RDY_N] > 0 or has_buffered(site, mx):
        wk = min(wk, compute(site, now, k, cfg, clk, ufree, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx))
    while True:
        w = next_send(site, now, k, cfg, clk, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx)
        if w == -1:
            break
        if w == -2:
            wk = min(wk, nxt)
            break
        if w >= 0:
            reply_done(sm, w, now, k, cfg, clk, wt, subt, smt, mx)
    if wk < nxt:
        wk = nxt
    return wk


@njit
def has_buffered(site, mx):
    nb = mx[F_BUF]
    bufs = mx[F_BUFS0] + site * nb
    for i in range(nb):
        if mx[bufs + i] >= 0:
            return True
    return False


@njit
def sm_receive(sm, r, now, k, cfg, clk, wt, subt, smt, rq, rq_free, g, mx):
    """At a core: a ComputePacket (this core is the EMN), an operand or store ack for its service queue, or
    the reply to one of its own chains."""
    kd = rq[r, R_KIND]
    w = rq[r, R_MXD] // 4
    role = rq[r, R_MXD] % 4
    if rq[r, R_MXD] >= MXD_DETACHED:
        pass  # a store's acknowledgement: its entry is gone
    elif kd == PK_MCOMP:
        arrive(mx[F_NSL] + sm, w, now, mx)
    elif kd == PK_MDATA:
        operand(w, role, now, mx)
    else:
        reply_done(sm, w, now, k, cfg, clk, wt, subt, smt, mx)
    rq_release(rq_free, g, r)
    return 0


@njit
def l2_serve(slice, r, now, k, cfg, clk, rq, rq_free, g, mx):
    """At an LLC slice: a ComputePacket (this slice is the EMN), or an operand or store ack returned to its
    service queue from another slice."""
    kd = rq[r, R_KIND]
    w = rq[r, R_MXD] // 4
    if rq[r, R_MXD] >= MXD_DETACHED:
        pass  # a store's acknowledgement: its entry is gone
    elif kd == PK_MCOMP:
        arrive(slice, w, now, mx)
    else:
        operand(w, rq[r, R_MXD] % 4, now, mx)
    rq_release(rq_free, g, r)
    return 0


@njit
def address_to_site(r, site, rq, mx):
    """Address the L2's reply ``r`` to a remote site: a core, or another slice over the reply network."""
    rq[r, R_KIND] = PK_MDATA
    if is_core_site(site, mx):
        rq[r, R_SRC] = site - mx[F_NSL]
    else:
        rq[r, R_DEST] = mx[F_NSM] + site


@njit
def l2_deliver(slice, r, ready, now, cfg, rq, rq_free, g, mx):
    """The L2's reply to a service queue's load or store: kept here when this slice is the row's site, else
    addressed to the site (a core, or another slice over the reply network)."""
    if rq[r, R_MXD] >= MXD_DETACHED:  # a store's acknowledgement, to its meet node, where it is dropped
        site = rq[r, R_MXD] - MXD_DETACHED
        if site == slice:
            rq_release(rq_free, g, r)
            return 1
        address_to_site(r, site, rq, mx)
        return 0
    w = rq[r, R_MXD] // 4
    role = rq[r, R_MXD] % 4
    if role == ROLE_BUF:  # the slice's own read into its buffer
        buffer_read_done(w, ready, mx)
        rq_release(rq_free, g, r)
        return 1
    site = mx[row_base(w, mx) + RW_SITE]
    if site == slice:
        operand(w, role, ready, mx)
        rq_release(rq_free, g, r)
        return 1
    address_to_site(r, site, rq, mx)
    return 0


@njit
def slice_tick(slice, now, k, cfg, clk, ufree, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """The slice's service queue: buffer, ALU and sends."""
    b = site_base(slice, mx)
    if mx[b + SI_RDY_N] == 0 and mx[b + SI_SND_N] == 0 and not has_buffered(slice, mx):
        return INF
    nxt = edge(clk, D_L2, k + 1)
    wk = compute(slice, now, k, cfg, clk, ufree, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx)
    while True:
        w = next_send(slice, now, k, cfg, clk, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx)
        if w == -1:
            break
        if w == -2:
            wk = min(wk, nxt)
            break
    return max(wk, nxt)
