"""The SM's memory side: L1 lookups and misses, the LD/ST unit's transactions, fills, load completion
and the next-line prefetcher.
"""

from . import hooks
from .caches import c_find, c_find_rsv, c_set, c_victim, c_victim_free, expand, mshr_find
from .ccache import cc_access, cc_fill
from .icache import ic_fill
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .mapping import rq_map
from .queues import edge, ld_release, popcount, q_space, rq_alloc, rq_release
from .xbar import net_push


@njit
def l1_base(sm, line, cfg):
    sets = cfg[C_L1_SETS]
    key = line >> cfg[C_L1_LINE_SHIFT]
    s = c_set(key, sets, cfg[C_L1_SETIDX], cfg[C_L1_XOR_BITS], cfg[C_L1_LINE_SHIFT])
    return (sm * sets + s) * cfg[C_L1_ASSOC]


@njit
def new_request(sm, kind, line, sect, nbytes, prio, pc, slot, now, k, cfg, clk, rq, rq_free, g, mapd, mrange):
    r = rq_alloc(rq, rq_free, g)
    if r < 0:
        return -1
    rq[r, R_KIND] = kind
    rq[r, R_LINE] = line
    rq[r, R_SECT] = sect
    rq[r, R_BYTES] = nbytes
    rq[r, R_SRC] = sm
    rq[r, R_PRIO] = prio
    rq[r, R_PC] = pc
    rq[r, R_SLOT] = slot
    rq[r, R_T0] = now
    rq[r, R_READY] = edge(clk, D_CORE, k + cfg[C_L1_MISS_LAT])
    rq_map(rq, r, mapd, mrange, cfg[C_NRANGE], line)
    return r


@njit
def l1_pipeline(r, k, cfg, clk, rq):
    """Request ``r`` of an L1D access made at cycle ``k`` leaves after the L1D's latency pipeline
    (``l1d.miss_after_hit_latency``: the access meets the tags only at the pipeline's head); else unchanged."""
    if cfg[C_L1_QLAT] > 0:
        rq[r, R_READY] = edge(clk, D_CORE, k + cfg[C_L1_MISS_LAT] + cfg[C_L1_QLAT])


@njit
def l1_mshr_cap(sm, cfg):
    """The L1 MSHRs of SM ``sm`` (an SM inside a memory stack has its own count)."""
    if sm >= cfg[C_NGPU] and cfg[C_SSM_MSHR] > 0:
        return cfg[C_SSM_MSHR]
    return cfg[C_L1_MSHR]


@njit
def l1_send_miss(sm, line, mm, kind, prio, ldop, pc, alloc, now, k, cfg, clk, rq, rq_free, l1m, l1w, qb, qm,
                 wake, g, mapd, mrange, smt):
    """Allocate or extend an L1 MSHR for ``mm`` atoms of ``line`` and send the request.

    Returns 1 on success, 2 when merged without a new request, 0 when blocked (nothing changed).
    """
    ent, free_e = mshr_find(l1m, sm * cfg[C_L1_MSHR_STRIDE], l1_mshr_cap(sm, cfg), line)
    if ent >= 0:
        if ldop >= 0 and l1m[ent, M_NWAIT] >= cfg[C_L1_MERGE]:
            smt[sm, S_LDST_BLOCK] = 4
            return 0
        extra = mm & ~l1m[ent, M_SECT]
        if extra == 0:
            if ldop >= 0:
                l1w[ent, l1m[ent, M_NWAIT]] = ldop
                l1m[ent, M_NWAIT] += 1
            return 2
        mm = extra
    elif free_e < 0:
        smt[sm, S_LDST_BLOCK] = 1
        return 0
    qo = cfg[C_Q_SMOUT] + sm
    if q_space(qm, qo) <= 0:
        smt[sm, S_LDST_BLOCK] = 2
        return 0
    r = new_request(sm, kind, line, mm, 0, prio, pc, -1, now, k, cfg, clk, rq, rq_free, g, mapd, mrange)
    if r < 0:
        smt[sm, S_LDST_BLOCK] = 3
        return 0
    m = ent if ent >= 0 else free_e
    if ent < 0:
        l1m[m, M_LINE] = line
        l1m[m, M_SECT] = 0
        l1m[m, M_NWAIT] = 0
        l1m[m, M_NREQ] = 0
        l1m[m, M_ALLOC] = alloc
        l1m[m, M_KIND] = kind
        smt[sm, S_MSHR_USED] += 1
    l1m[m, M_SECT] |= mm
    l1m[m, M_NREQ] += 1
    if ldop >= 0:
        l1w[m, l1m[m, M_NWAIT]] = ldop
        l1m[m, M_NWAIT] += 1
    rq[r, R_MSHR] = m
    if alloc == 1:
        l1_pipeline(r, k, cfg, clk, rq)
    net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
    return 1


@njit
def l1_reserve(sm, vi, line, now, k, cfg, clk, rq, rq_free, l1t, qb, qm, wake, g, ctr, mapd, mrange):
    """Reserve L1 line ``vi`` for ``line``'s miss just sent (``l1d.allocate: miss``): its data is evicted now
    (a dirty one written back; the caller checked the room), and it stays out of replacement until the fill."""
    if l1t[vi, LN_VALID] != 0 and l1t[vi, LN_DIRTY] != 0:
        vs = l1t[vi, LN_DIRTY]
        w = new_request(sm, PK_WBACK, l1t[vi, LN_TAG], vs, popcount(vs) * 32, 0, -1, -1, now, k, cfg, clk, rq,
                        rq_free, g, mapd, mrange)
        if w >= 0:
            net_push(cfg[C_Q_SMOUT] + sm, w, cfg, qb, qm, wake, NET_REQ, rq)
            ctr[T_L1_WB] += 1
    if l1t[vi, LN_VALID] != 0:
        ctr[T_L1_EVICT] += 1
    g[G_STAMP] += 1
    l1t[vi, LN_TAG] = line
    l1t[vi, LN_VALID] = 0
    l1t[vi, LN_DIRTY] = 0
    l1t[vi, LN_PF] = 0
    l1t[vi, LN_RSV] = 1
    l1t[vi, LN_STAMP] = g[G_STAMP]


@njit
def wake_warp(slot, t, cfg, wt, subt):
    """Lower warp ``slot``'s READY to ``t`` and its sub-core's earliest-ready time with it."""
    if t < wt[slot, W_READY]:
        wt[slot, W_READY] = t
    sb = (slot // cfg[C_NSLOT]) * cfg[C_NSUB] + wt[slot, W_SUB]
    if t < subt[sb, SB_MINREADY]:
        subt[sb, SB_MINREADY] = t


@njit
def wb_slot(sm, kb, smt):
    """The first cycle at or after ``kb`` in which SM ``sm``'s LD/ST unit can write a memory result back, taken
    (``core.mem_writeback_port``: one a cycle, GPGPU-Sim's ``ldst_unit::writeback``)."""
    c = kb
    while smt[sm, S_WB0 + c % WB_RING] == c + 1:
        c += 1
    smt[sm, S_WB0 + c % WB_RING] = c + 1
    return c


@njit
def ld_complete(i, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt):
    slot = ldo[i, L_SLOT]
    t = ldo[i, L_HIT_READY]
    lvl = ldo[i, L_LEVEL]
    if lvl >= 2:
        t = max(t, edge(clk, D_CORE, k + cfg[C_FILL_TO_USE]))
    for j in range(4):
        d = ldo[i, L_D0 + j]
        if d >= 0:
            regrdy[slot, d] = t
    wake_warp(slot, t, cfg, wt, subt)
    wt[slot, W_PEND_LD] -= 1
    if ldo[i, L_ATOM] != 0:
        wt[slot, W_PEND_ATOM] -= 1
    lat = t - ldo[i, L_T0]
    if lvl == 1:
        ctr[T_LU_N1] += 1
        ctr[T_LU_S1] += lat
    elif lvl == 2:
        ctr[T_LU_N2] += 1
        ctr[T_LU_S2] += lat
    elif lvl == 3:
        ctr[T_LU_N3] += 1
        ctr[T_LU_S3] += lat
    else:
        ctr[T_LU_N0] += 1
        ctr[T_LU_S0] += lat
    pc = ldo[i, L_PC]
    if pc >= 0:
        pcst[pc, PCS_LAT] += lat
    ld_release(ld_free, g, i)
    return slot


@njit_inline
def tx_process(sm, now, k, cfg, clk, rec, txl, txs, txp, rq, rq_free, l1t, l1m, l1w, ldo, ld_free, qb, qm, wake, g,
               ctr, smst, pcst, wt, regrdy, smt, mapd, mrange, subt, mx):
    """The LD/ST unit handles transaction ``S_LDST_TX`` of its current instruction; False when blocked."""
    g[G_IT_TX] += 1
    t = smt[sm, S_LDST_TX]
    ri = smt[sm, S_LDST_REC]
    kind = smt[sm, S_LDST_KIND]
    slot = smt[sm, S_LDST_SLOT]
    ldop = smt[sm, S_LDST_LDOP]
    line = txl[t]
    sect = txs[t]
    space = rec[ri, RC_SPACE]
    pc = rec[ri, RC_PC]
    if space == SP_CONST and kind == IK_LOAD:  # the constant cache (build sets SP_CONST only when it is on)
        res = cc_access(sm, line, ldop, pc, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smt,
                        mapd, mrange)
        if res == 0:
            smt[sm, S_LDST_STOP] = smt[sm, S_LDST_BLOCK]  # (cc_access set it)
            return False
        if res == 1:
            ready = edge(clk, D_CORE, k + cfg[C_CC_LAT])
            if ready > ldo[ldop, L_HIT_READY]:
                ldo[ldop, L_HIT_READY] = ready
            ldo[ldop, L_OUT] -= 1
            if ldo[ldop, L_OUT] == 0:
                s2 = ld_complete(ldop, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt)
                warp_maybe_exit_flag(s2, wt, smt, cfg)
        elif ldo[ldop, L_LEVEL] < 2:
            ldo[ldop, L_LEVEL] = 2
        return True
    en = cfg[C_L1_EN] != 0
    cached = en and (space == SP_LOCAL or cfg[C_L1_CACHE_GLOBAL] != 0)
    line_atoms = 1 << (cfg[C_L1_LINE_SHIFT] - 5)
    assoc = cfg[C_L1_ASSOC]
    base = l1_base(sm, line, cfg)
    idx = c_find(l1t, base, assoc, line) if en else -1
    present = l1t[idx, LN_VALID] if idx >= 0 else 0
    if kind == IK_LOAD:
        if cached and (sect & ~present) == 0:
            if cfg[C_L1_REPL] == 0:
                g[G_STAMP] += 1
                l1t[idx, LN_STAMP] = g[G_STAMP]
            ready = edge(clk, D_CORE, k + cfg[C_L1_LAT])
            if ready > ldo[ldop, L_HIT_READY]:
                ldo[ldop, L_HIT_READY] = ready
            ctr[T_L1_ACC] += 1
            ctr[T_L1_HIT] += 1
            smst[sm, SMS_L1_ACC] += 1
            if l1t[idx, LN_PF] != 0:  # the first demand of a prefetched line: the prefetch was used
                l1t[idx, LN_PF] = 0
                ctr[T_PF_USEFUL] += 1
            ldo[ldop, L_OUT] -= 1
            if ldo[ldop, L_OUT] == 0:
                s2 = ld_complete(ldop, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt)
                warp_maybe_exit_flag(s2, wt, smt, cfg)
            if cfg[C_MECH] != 0:  # a mechanism's access-trained prefetcher sees the hit
                mech_access_prefetch(sm, slot, pc, line, 1, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm,
                                     wake, g, ctr, mapd, mrange, smt, mx)
            return True
        mm = expand(sect & ~present, cfg[C_L1_SECT_ATOMS], line_atoms) if cached else sect
        vi = -1
        if cached and idx < 0 and cfg[C_L1_ALLOC_MISS] != 0 and c_find_rsv(l1t, base, assoc, line) < 0:
            # allocate on miss: the miss reserves a line of its set when it is sent; with every line of the set
            # reserved the access fails and is retried next cycle
            vi = c_victim_free(l1t, base, assoc)
            if vi < 0:
                ctr[T_L1_MSHR_FULL] += 1
                smt[sm, S_LDST_STOP] = STOP_SET_RESERVED
                return False
            if l1t[vi, LN_VALID] != 0 and l1t[vi, LN_DIRTY] != 0 and (
                    q_space(qm, cfg[C_Q_SMOUT] + sm) < 2 or g[G_RQ_TOP] < 2):
                return False  # (the victim's write-back and the miss both need room)
        slack = cfg[C_L1_MQ_SLACK]
        if cached and slack > 0 and q_space(qm, cfg[C_Q_SMOUT] + sm) <= slack:
            # GPGPU-Sim refuses a read miss, or a hit on a line still being fetched, unless its miss queue has room
            # for the request and ``slack`` more (data_cache::rd_miss_base, miss_queue_full(1)); retried
            smt[sm, S_LDST_BLOCK] = 2
            smt[sm, S_LDST_QHOLD] = slack
            ctr[T_L1_MSHR_FULL] += 1
            smt[sm, S_LDST_STOP] = 2
            return False
        res = l1_send_miss(sm, line, mm, PK_READ, 0, ldop, pc, 1 if cached else 0, now, k, cfg, clk, rq, rq_free,
                           l1m, l1w, qb, qm, wake, g, mapd, mrange, smt)
        if res == 0:
            ctr[T_L1_MSHR_FULL] += 1
            smt[sm, S_LDST_STOP] = smt[sm, S_LDST_BLOCK]  # (l1_send_miss set it)
            return False
        if vi >= 0:
            l1_reserve(sm, vi, line, now, k, cfg, clk, rq, rq_free, l1t, qb, qm, wake, g, ctr, mapd, mrange)
        ctr[T_L1_ACC] += 1
        ctr[T_L1_MISS] += 1
        smst[sm, SMS_L1_ACC] += 1
        smst[sm, SMS_L1_MISS] += 1
        pcst[pc, PCS_L1_MISS] += 1
        if present != 0:
            ctr[T_L1_SECT_MISS] += 1
        if res == 2:
            ctr[T_L1_MERGE] += 1
        if ldo[ldop, L_LEVEL] < 2:
            ldo[ldop, L_LEVEL] = 2
        if cfg[C_PF_KIND] == PF_NEXT_LINE and cached and res == 1:
            prefetch_next(sm, line, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, mapd, mrange,
                          smt)
        if cfg[C_MECH] != 0 and cached and res == 1:  # a mechanism's prefetcher sees the new miss
            for d in range(MAX_MECH_PREFETCH):
                pl = hooks.prefetch(cfg[C_HK_PREFETCH], sm, pc, line, d, now, mx)
                if pl < 0 or prefetch_line(sm, pl, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g,
                                           ctr, mapd, mrange, smt) == 0:
                    break
        if cfg[C_MECH] != 0 and cached:  # and an access-trained one the miss (new or merged)
            mech_access_prefetch(sm, slot, pc, line, 0, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g,
                                 ctr, mapd, mrange, smt, mx)
        return True
    nbytes = popcount(sect) * 32
    qo = cfg[C_Q_SMOUT] + sm
    if kind == IK_ATOMIC:
        if q_space(qm, qo) <= 0:
            smt[sm, S_LDST_BLOCK] = 2
            return False
        r = new_request(sm, PK_ATOMIC, line, sect, nbytes, 0, pc, slot, now, k, cfg, clk, rq, rq_free, g, mapd,
                        mrange)
        if r < 0:
            return False
        rq[r, R_LDOP] = ldop
        if idx >= 0:
            l1t[idx, LN_VALID] = 0
        if ldo[ldop, L_LEVEL] < 2:
            ldo[ldop, L_LEVEL] = 2
        net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
        ctr[T_L1_ACC] += 1
        ctr[T_L1_MISS] += 1
        return True
    # store
    wpol = cfg[C_L1_WPOL]
    if cached and wpol == WP_BACK and (idx >= 0 or cfg[C_L1_WALLOC] != 0):
        vi = idx
        if vi < 0:
            vi = c_victim(l1t, base, assoc)
            if l1t[vi, LN_VALID] != 0 and l1t[vi, LN_DIRTY] != 0:
                if q_space(qm, qo) <= 0:
                    return False
                vline = l1t[vi, LN_TAG]
                vs = l1t[vi, LN_DIRTY]
                r = new_request(sm, PK_WBACK, vline, vs, popcount(vs) * 32, 0, -1, -1, now, k, cfg, clk, rq,
                                rq_free, g, mapd, mrange)
                if r < 0:
                    return False
                net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
                ctr[T_L1_WB] += 1
            if l1t[vi, LN_VALID] != 0:
                ctr[T_L1_EVICT] += 1
            l1t[vi, LN_TAG] = line
            l1t[vi, LN_VALID] = 0
            l1t[vi, LN_DIRTY] = 0
            l1t[vi, LN_PF] = 0
            l1t[vi, LN_RSV] = 0
        g[G_STAMP] += 1
        l1t[vi, LN_STAMP] = g[G_STAMP]
        l1t[vi, LN_VALID] |= sect
        l1t[vi, LN_DIRTY] |= sect
        ctr[T_L1_ST] += 1
        ctr[T_L1_ST_HIT] += 1 if idx >= 0 else 0
        return True
    if q_space(qm, qo) <= 0:
        smt[sm, S_LDST_BLOCK] = 2
        return False
    r = new_request(sm, PK_WRITE, line, sect, nbytes, 0, pc, slot, now, k, cfg, clk, rq, rq_free, g, mapd, mrange)
    if r < 0:
        return False
    if cfg[C_L2_LAZY] != 0:
        rq[r, R_PART] = txp[t] & sect
    if cached:  # a store passes the L1D's latency pipeline too
        l1_pipeline(r, k, cfg, clk, rq)
    if idx >= 0:
        if wpol == WP_EVICT:
            l1t[idx, LN_VALID] = 0
        ctr[T_L1_ST_HIT] += 1
    ctr[T_L1_ST] += 1
    if cfg[C_WAIT_ACKS] != 0:
        wt[slot, W_PEND_ST] += 1
    net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
    return True


@njit
def warp_maybe_exit_flag(slot, wt, smt, cfg):
    """Flag a draining warp with nothing pending: its SM retires it at the end of the tick."""
    if wt[slot, W_STATE] == WS_DRAIN and wt[slot, W_PEND_LD] == 0 and wt[slot, W_PEND_ST] == 0:
        smt[slot // cfg[C_NSLOT], S_RETIRE] = 1


@njit
def prefetch_line(sm, pl, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, mapd, mrange, smt):
    """Prefetch line ``pl`` into SM ``sm``'s L1 (nothing when present); 0 when the L1 cannot take more now."""
    lb = 1 << cfg[C_L1_LINE_SHIFT]
    if c_find(l1t, l1_base(sm, pl, cfg), cfg[C_L1_ASSOC], pl) >= 0:
        return 1
    if smt[sm, S_MSHR_USED] >= l1_mshr_cap(sm, cfg) - 1:
        g[G_PF_DROP] += 1
        return 0
    res = l1_send_miss(sm, pl, (1 << (lb // 32)) - 1, PK_PREFETCH, cfg[C_PF_PRIO], -1, -1, 1, now, k, cfg, clk, rq,
                       rq_free, l1m, l1w, qb, qm, wake, g, mapd, mrange, smt)
    if res == 0:
        g[G_PF_DROP] += 1
        return 0
    if res == 1:
        ctr[T_PF_ISSUED] += 1
    return 1


@njit
def mech_access_prefetch(sm, slot, pc, line, hit, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr,
                         mapd, mrange, smt, mx):
    """Issue the lines the mechanism's ``l1_access`` hook names for warp ``slot``'s load of ``line``."""
    for d in range(MAX_MECH_PREFETCH):
        pl = hooks.l1_access(cfg[C_HK_L1_ACCESS], sm, slot, pc, line, hit, d, now, mx)
        if pl < 0 or prefetch_line(sm, pl, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, mapd,
                                   mrange, smt) == 0:
            return


@njit
def prefetch_next(sm, line, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, mapd, mrange, smt):
    """The next-line prefetcher: lines ``line + d`` for d = 1 .. ``PF_DEGREE``, stopping when the L1 is full."""
    lb = 1 << cfg[C_L1_LINE_SHIFT]
    for dgr in range(1, cfg[C_PF_DEGREE] + 1):
        if prefetch_line(sm, line + dgr * lb, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr,
                         mapd, mrange, smt) == 0:
            return


@njit_inline
def sm_fill(sm, r, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, ldo, ld_free, qb, qm, wake, g, ctr, prst, pcst, wt,
            regrdy, smt, mapd, mrange, subt, mx):
    """Accept reply ``r`` at SM ``sm``; False when blocked (nothing changed)."""
    kd = rq[r, R_KIND]
    if kd >= PK_MECH:  # a mechanism's packet for its unit at this SM
        hooks.sm_receive(cfg[C_HK_SM_RECEIVE], sm, r, now, k, cfg, clk, wt, subt, smt, rq, rq_free, g, mx)
        return True
    if kd == PK_ACK:
        s = rq[r, R_SLOT]
        wt[s, W_PEND_ST] -= 1
        warp_maybe_exit_flag(s, wt, smt, cfg)
        rq_release(rq_free, g, r)
        return True
    if kd == PK_ATOMIC or kd >= PK_OFFLOAD:
        i = rq[r, R_LDOP]
        if rq[r, R_LEVEL] > ldo[i, L_LEVEL]:
            ldo[i, L_LEVEL] = rq[r, R_LEVEL]
        if kd == PK_ATOMIC and cfg[C_WB_PORT] != 0:  # the atomic's old value takes a writeback cycle
            tq = edge(clk, D_CORE, wb_slot(sm, k + cfg[C_FILL_TO_USE], smt))
            if tq > ldo[i, L_HIT_READY]:
                ldo[i, L_HIT_READY] = tq
        ldo[i, L_OUT] -= 1
        if ldo[i, L_OUT] == 0:
            s = ld_complete(i, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt)
            warp_maybe_exit_flag(s, wt, smt, cfg)
        rq_release(rq_free, g, r)
        return True
    m = rq[r, R_MSHR]
    line = rq[r, R_LINE]
    if l1m[m, M_ALLOC] == MA_INST:  # an instruction-cache fill: the waiting warps may fetch (engine/icache.py)
        ic_fill(sm, m, cfg, l1t, l1m, l1w, wt, smt, g)
        rq_release(rq_free, g, r)
        return True
    if l1m[m, M_ALLOC] == MA_CONST:
        cc_fill(sm, l1m[m, M_LINE], cfg, l1t, g)
    elif l1m[m, M_ALLOC] != 0 and cfg[C_L1_EN] != 0:
        assoc = cfg[C_L1_ASSOC]
        base = l1_base(sm, line, cfg)
        idx = c_find(l1t, base, assoc, line)
        rsv = 0
        if idx < 0 and cfg[C_L1_ALLOC_MISS] != 0:
            idx = c_find_rsv(l1t, base, assoc, line)  # the line its miss reserved (it keeps that stamp)
            rsv = 1 if idx >= 0 else 0
        if idx < 0:
            vi = c_victim(l1t, base, assoc)
            if l1t[vi, LN_VALID] != 0 and l1t[vi, LN_DIRTY] != 0:
                qo = cfg[C_Q_SMOUT] + sm
                if q_space(qm, qo) <= 0:
                    return False
                vs = l1t[vi, LN_DIRTY]
                w = new_request(sm, PK_WBACK, l1t[vi, LN_TAG], vs, popcount(vs) * 32, 0, -1, -1, now, k, cfg, clk,
                                rq, rq_free, g, mapd, mrange)
                if w < 0:
                    return False
                net_push(qo, w, cfg, qb, qm, wake, NET_REQ, rq)
                ctr[T_L1_WB] += 1
            if l1t[vi, LN_VALID] != 0:
                ctr[T_L1_EVICT] += 1
            l1t[vi, LN_TAG] = line
            l1t[vi, LN_VALID] = 0
            l1t[vi, LN_DIRTY] = 0
            l1t[vi, LN_RSV] = 0
            idx = vi
        g[G_STAMP] += 1
        if rsv == 0 and (cfg[C_L1_REPL] == 0 or l1t[idx, LN_VALID] == 0):
            l1t[idx, LN_STAMP] = g[G_STAMP]
        l1t[idx, LN_RSV] = 0
        l1t[idx, LN_VALID] |= rq[r, R_SECT]
        # a prefetch no demand has merged into yet: its first demand hit counts it used
        l1t[idx, LN_PF] = 1 if l1m[m, M_KIND] == PK_PREFETCH and l1m[m, M_NWAIT] == 0 else 0
    # latency statistics of demand reads
    pr = rq[r, R_PRIO]
    total = now - rq[r, R_T0]
    if kd == PK_READ:
        net_t = (rq[r, R_T2] - rq[r, R_T1]) + (rq[r, R_T6] - rq[r, R_T5])
        svc = rq[r, R_T4] - rq[r, R_T3]
        ctr[T_LAT_N] += 1
        ctr[T_LAT_SUM] += total
        ctr[T_LAT_NET] += net_t
        ctr[T_LAT_SVC] += svc
        ctr[T_LAT_Q] += total - net_t - svc
        if rq[r, R_TDS] >= 0:
            ctr[T_LAT_DQ] += rq[r, R_TDS] - rq[r, R_TDQ]
    prst[pr, PRS_N] += 1
    prst[pr, PRS_LAT] += total
    if rq[r, R_LEVEL] == 3:
        prst[pr, PRS_DRAM] += 1
    l1m[m, M_NREQ] -= 1
    if l1m[m, M_NREQ] == 0:
        lvl = rq[r, R_LEVEL]
        # (l1d.miss_after_hit_latency delays the request before it is sent, l1_send_miss: nothing to add here)
        port = cfg[C_WB_PORT] != 0
        for w in range(l1m[m, M_NWAIT]):
            i = l1w[m, w]
            if lvl > ldo[i, L_LEVEL]:
                ldo[i, L_LEVEL] = lvl
            if port:  # each access the fill answers is written back in a cycle of its own
                tq = edge(clk, D_CORE, wb_slot(sm, k + cfg[C_FILL_TO_USE], smt))
                if tq > ldo[i, L_HIT_READY]:
                    ldo[i, L_HIT_READY] = tq
            ldo[i, L_OUT] -= 1
            if ldo[i, L_OUT] == 0:
                s = ld_complete(i, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt)
                warp_maybe_exit_flag(s, wt, smt, cfg)
        if l1m[m, M_KIND] == PK_PREFETCH and l1m[m, M_NWAIT] > 0:  # demands merged into the prefetch: used once
            ctr[T_PF_USEFUL] += 1
        l1m[m, M_NWAIT] = 0
        l1m[m, M_LINE] = -1
        if l1m[m, M_ALLOC] != MA_CONST:  # (the constant MSHRs are not the L1's)
            smt[sm, S_MSHR_USED] -= 1
    elif rq[r, R_LEVEL] > 0:
        # remember the deepest level any part of this miss reached
        for w in range(l1m[m, M_NWAIT]):
            i = l1w[m, w]
            if rq[r, R_LEVEL] > ldo[i, L_LEVEL]:
                ldo[i, L_LEVEL] = rq[r, R_LEVEL]
    rq_release(rq_free, g, r)
    return True


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


def metrics(st, put, ratio) -> None:
    """The L1 data caches and shared memory, memory latency (fetch and load-to-use) and priority classes,
    the prefetcher and preloads."""
    c, K = st.c, st.consts
    core_ps = 1e6 / K["core_mhz"]
    acc, hit = c("L1_ACC"), c("L1_HIT")
    put("l1d", "accesses", acc, "transactions")
    put("l1d", "hits", hit, "transactions")
    put("l1d", "misses", c("L1_MISS"), "transactions")
    put("l1d", "hit_rate", ratio(hit, acc), "fraction")
    put("l1d", "sector_misses", c("L1_SECT_MISS"), "transactions")
    put("l1d", "mshr_merges", c("L1_MERGE"), "transactions")
    put("l1d", "reservation_fails", c("L1_MSHR_FULL"), "events")
    put("l1d", "stores", c("L1_ST"), "transactions")
    put("l1d", "store_hits", c("L1_ST_HIT"), "transactions")
    put("l1d", "evictions", c("L1_EVICT"), "lines")
    put("l1d", "writebacks", c("L1_WB"), "lines")
    put("smem", "accesses", c("SMEM_ACC"), "warp-instr")
    put("smem", "bank_conflict_cycles", c("SMEM_CONF_CYC"), "cycles")
    n = c("LAT_N")
    put("latency", "memory_fetches", n, "requests")
    put("latency", "average", ratio(c("LAT_SUM"), n) / core_ps, "cycles")
    put("latency", "queueing", ratio(c("LAT_Q"), n) / core_ps, "cycles")
    put("latency", "network", ratio(c("LAT_NET"), n) / core_ps, "cycles")
    put("latency", "service", ratio(c("LAT_SVC"), n) / core_ps, "cycles")
    put("latency", "dram_queueing", ratio(c("LAT_DQ"), n) / core_ps, "cycles")
    for lvl, name in ((1, "l1"), (2, "l2"), (3, "dram"), (0, "other")):
        cnt = c(f"LU_N{lvl}")
        put("latency.load_to_use." + name, "loads", cnt, "warp-instr")
        put("latency.load_to_use." + name, "average", ratio(c(f"LU_S{lvl}"), cnt) / core_ps, "cycles")
    for p in range(NPRIO):
        if st.per_prio[p, PRS_N]:
            put(f"priority.class{p}", "requests", int(st.per_prio[p, PRS_N]), "requests")
            put(f"priority.class{p}", "average_latency",
                ratio(st.per_prio[p, PRS_LAT], st.per_prio[p, PRS_N]) / core_ps, "cycles")
            put(f"priority.class{p}", "dram_served", int(st.per_prio[p, PRS_DRAM]), "requests")
    put("prefetch", "issued", c("PF_ISSUED"), "requests")
    # used: a prefetch a demand merged into in flight, or whose filled line a demand hit before eviction (once each)
    put("prefetch", "useful", c("PF_USEFUL"), "requests")
    put("prefetch", "accuracy", ratio(c("PF_USEFUL"), c("PF_ISSUED")), "fraction")
    put("prefetch", "dropped", st.extra.get("pf_drop", 0), "requests")
    put("preload", "lines", c("PRELOADS"), "lines")
