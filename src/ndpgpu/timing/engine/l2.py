"""The L2 slice: tag lookup with MSHR merging, write policy, DRAM requests, fills and replies; the
memory-side execution of placed instructions (offload packets).
"""

from . import hooks
from .caches import c_find, c_set, c_victim, expand
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .links import dram_enqueue, dram_space, src_stack
from .mapping import map_addr, rq_map
from .queues import edge, popcount, q_head, q_pop, q_space, rq_alloc, rq_release, slice_asleep
from .xbar import net_push


@njit
def l2_reply(j, r, ready, now, cfg, rq, rq_free, qb, qm, wake, g, mx):
    """Turn request ``r`` into its reply and queue it toward the SM (caller checked the space); a reply to a
    mechanism's request goes to the mechanism first."""
    kd = rq[r, R_KIND]
    if kd == PK_WRITE:
        rq[r, R_KIND] = PK_ACK
        rq[r, R_BYTES] = 0
    elif kd >= PK_OFFLOAD:
        rq[r, R_BYTES] = rq[r, R_RBYTES]
    else:
        rq[r, R_BYTES] = popcount(rq[r, R_SECT]) * 32
    rq[r, R_T4] = ready
    rq[r, R_READY] = ready
    if rq[r, R_MXD] >= 0 and cfg[C_MECH] != 0:
        if hooks.l2_deliver(cfg[C_HK_L2_DELIVER], j, r, ready, now, cfg, rq, rq_free, g, mx) != 0:
            return
    net_push(cfg[C_Q_L2OUT] + j, r, cfg, qb, qm, wake, NET_REP, rq)


@njit
def l2_evict_needs_wb(l2t, vi, cfg):
    return cfg[C_L2_WPOL] == WP_BACK and l2t[vi, LN_VALID] != 0 and l2t[vi, LN_DIRTY] != 0


@njit
def l2_writeback(vi, now, cfg, clk, rq, rq_free, l2t, dq, chs, wake, g, ctr, slst, mapd, mrange, j, at_fill):
    """Write the dirty atoms of victim line ``vi`` to DRAM (caller checked DRAM queue space). A fill's write-back
    (``at_fill``) goes straight into the scheduler's queue, into the room it keeps beyond its size for them."""
    d = rq_alloc(rq, rq_free, g)
    if d < 0:
        return False
    line = l2t[vi, LN_TAG]
    rq[d, R_KIND] = PK_DWRITE
    rq[d, R_LINE] = line
    rq[d, R_SECT] = l2t[vi, LN_DIRTY]
    rq_map(rq, d, mapd, mrange, cfg[C_NRANGE], line)
    dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g, at_fill)
    ctr[T_L2_WB] += 1
    slst[j, SLS_WB] += 1
    return True


@njit
def l2_lookup(j, line, key, cfg, l2t):
    sets = cfg[C_L2_SETS]
    assoc = cfg[C_L2_ASSOC]
    s = c_set(key, sets, cfg[C_L2_SETIDX], cfg[C_L2_XOR_BITS], 0)
    base = (j * sets + s) * assoc
    return base, c_find(l2t, base, assoc, line)


@njit
def l2_install(l2t, idx, line, valid, dirty, g):
    """Line ``line`` in row ``idx`` (a new line there, if it held another) with sectors ``valid`` filled (now
    readable) and ``dirty`` modified."""
    if l2t[idx, LN_TAG] != line or l2t[idx, LN_VALID] == 0:
        l2t[idx, LN_TAG] = line
        l2t[idx, LN_VALID] = 0
        l2t[idx, LN_DIRTY] = 0
        l2t[idx, LN_UNRD] = 0
        g[G_STAMP] += 1
        l2t[idx, LN_STAMP] = g[G_STAMP]
    l2t[idx, LN_VALID] |= valid
    l2t[idx, LN_DIRTY] |= dirty
    l2t[idx, LN_UNRD] &= ~valid


@njit_inline
def l2_write_unreadable(l2t, idx, sect, part):
    """``l2.lazy_fetch_on_read``: a write of sectors ``sect`` (``part`` of them covered only in part) into line row
    ``idx``, after its sectors were marked valid. A sector that was valid and readable stays readable (a write hit);
    any other (a write miss, or a write to an unreadable sector, which misses again) is readable only if this write
    covered it whole (GPGPU-Sim 4.0: tag_array::probe, wr_miss_wa_lazy_fetch_on_read)."""
    u = l2t[idx, LN_UNRD]
    chg = sect & ~(l2t[idx, LN_VALID] & ~u)
    l2t[idx, LN_UNRD] = (u & ~chg) | (part & chg)


@njit
def l2_touch(l2t, idx, cfg, g):
    if cfg[C_L2_REPL] == 0:  # LRU
        g[G_STAMP] += 1
        l2t[idx, LN_STAMP] = g[G_STAMP]


@njit
def l2_count_miss(j, r, kd, rq, ctr, slst, pcst):
    """Count an L2 miss of request ``r`` (kind ``kd``) at slice ``j``: totals, the slice, its PC, atomics."""
    ctr[T_L2_ACC] += 1
    ctr[T_L2_MISS] += 1
    slst[j, SLS_ACC] += 1
    slst[j, SLS_MISS] += 1
    pc = rq[r, R_PC]
    if pc >= 0 and kd == PK_READ:
        pcst[pc, PCS_L2_MISS] += 1
    if kd == PK_ATOMIC:
        ctr[T_L2_ATOM] += 1


@njit_inline
def l2_miss_read(j, line, sect, e, head, prio, now, cfg, clk, rq, rq_free, l2m, dq, chs, wake, g, mapd, mrange):
    """Send slice ``j``'s DRAM read of ``sect`` of ``line`` for MSHR entry ``e``, whose first waiter is request
    ``head`` (-1: none, a write-allocate's read)."""
    d = rq_alloc(rq, rq_free, g)
    rq[d, R_KIND] = PK_DREAD
    rq[d, R_LINE] = line
    rq[d, R_SECT] = sect
    rq[d, R_PRIO] = prio
    rq[d, R_MSHR] = e
    rq_map(rq, d, mapd, mrange, cfg[C_NRANGE], line)
    rq[d, R_SLICE] = j
    dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g, False)
    l2m[e, M_LINE] = line
    l2m[e, M_SECT] = sect
    l2m[e, M_NWAIT] = 1 if head >= 0 else 0
    l2m[e, M_NREQ] = 1
    l2m[e, M_HEAD] = head
    l2m[e, M_TAIL] = head
    l2m[e, M_DREQ] = d


@njit_inline
def l2_fetch_entry(j, line, cfg, l2m):
    """For a write miss under ``l2.write_miss_fetch``: the free MSHR entry of slice ``j`` its line's read would
    take (-1 if none), and the entry of a miss to ``line`` already outstanding (-1 if none; then no read is sent:
    the write joins that entry, whose fill allocates the line)."""
    nm = cfg[C_L2_MSHR]
    free_e = -1
    for m in range(j * nm, (j + 1) * nm):
        if l2m[m, M_NREQ] > 0:
            if l2m[m, M_LINE] == line:
                return -1, m
        elif free_e < 0:
            free_e = m
    return free_e, -1


@njit_inline
def l2_access(j, r, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst, mapd,
              mrange, ptype, mx):
    """Serve the request at the head of slice ``j``'s input queue; False when blocked (nothing changed)."""
    kd = rq[r, R_KIND]
    line = rq[r, R_LINE]
    c = rq[r, R_CHAN]
    qout = cfg[C_Q_L2OUT] + j
    xs = src_stack(rq[r, R_SRC], cfg)
    en = cfg[C_L2_EN] != 0 and xs < 0  # SMs in the stacks bypass the GPU's L2
    line_atoms = 1 << (cfg[C_L1_LINE_SHIFT] - 5)
    rq[r, R_T3] = now
    if kd >= PK_MECH:  # a mechanism's packet for its unit at this slice
        hooks.l2_serve(cfg[C_HK_L2_SERVE], j, r, now, k, cfg, clk, rq, rq_free, g, mx)
        return True
    if kd >= PK_OFFLOAD:
        if q_space(qm, qout) <= 0:
            g[G_L2_WHY] = WHY_OUT
            return False
        rq[r, R_LEVEL] = 2
        l2_reply(j, r, edge(clk, D_L2, k + ptype[kd, 0]), now, cfg, rq, rq_free, qb, qm, wake, g, mx)
        return True
    if kd == PK_WRITE or kd == PK_WBACK:
        need_ack = kd == PK_WRITE and (cfg[C_WAIT_ACKS] != 0 or rq[r, R_MXD] >= 0)
        if need_ack and q_space(qm, qout) <= 0:
            g[G_L2_WHY] = WHY_OUT
            return False
        sect = rq[r, R_SECT]
        through = (not en) or cfg[C_L2_WPOL] != WP_BACK
        base = 0
        idx = -1
        if en:
            base, idx = l2_lookup(j, line, rq[r, R_KEY], cfg, l2t)
        # l2.write_miss_fetch (GPGPU-Sim 3.x's write-allocate): a miss is written through and its line read in
        fetch = en and idx < 0 and cfg[C_L2_WFETCH] != 0
        fe = -1  # the MSHR entry the line's read takes (-1: none needed, a miss to the line is outstanding)
        pe = -1  # the line's outstanding MSHR entry this write joins (-1: none)
        if fetch:
            fe, pe = l2_fetch_entry(j, line, cfg, l2m)
            if fe < 0 and pe < 0:
                g[G_L2_WHY] = WHY_MSHR
                g[G_L2_OWN] = 1
                return False
            if pe >= 0 and l2m[pe, M_NREQ] >= cfg[C_L2_MERGE]:
                # the entry holds mshr_merge requests already: the write waits at the head of the queue for the
                # fill, after which it hits (GPGPU-Sim's wr_miss_wa reservation failure)
                g[G_L2_WHY] = WHY_PEND
                return False
        alloc = en and idx < 0 and cfg[C_L2_WALLOC] != 0 and not fetch
        vi = -1
        wb = False
        if alloc:
            vi = c_victim(l2t, base, cfg[C_L2_ASSOC])
            wb = l2_evict_needs_wb(l2t, vi, cfg)
        if not en or (idx < 0 and not alloc):
            through = True
        need_dq = (1 if through else 0) + (1 if wb else 0) + (1 if fe >= 0 else 0)
        if dram_space(cfg, chs, c) < need_dq or (wb and dram_space(cfg, chs, rq[r, R_CHAN]) < need_dq):
            g[G_L2_WHY] = WHY_DQ
            return False
        if g[G_RQ_TOP] < need_dq + 1:
            g[G_L2_WHY] = WHY_MSHR
            g[G_L2_OWN] = 0
            return False
        if wb:
            vch = map_addr(mapd, mrange, cfg[C_NRANGE], l2t[vi, LN_TAG])[0]
            if dram_space(cfg, chs, vch) < 1 + (1 if (through and vch == c) else 0):
                g[G_L2_WHY] = WHY_DQ
                return False
            l2_writeback(vi, now, cfg, clk, rq, rq_free, l2t, dq, chs, wake, g, ctr, slst, mapd, mrange, j, False)
        if xs < 0:
            ctr[T_L2_ST] += 1
            ctr[T_L2_ACC] += 1
            slst[j, SLS_ACC] += 1
        if en:
            if idx >= 0:
                ctr[T_L2_HIT] += 1
                slst[j, SLS_HIT] += 1
                l2_touch(l2t, idx, cfg, g)
                if cfg[C_L2_LAZY] != 0:
                    l2_write_unreadable(l2t, idx, sect, rq[r, R_PART])
                if cfg[C_L2_WPOL] == WP_BACK:
                    l2t[idx, LN_DIRTY] |= sect
                l2t[idx, LN_VALID] |= sect
            elif alloc:
                ctr[T_L2_MISS] += 1
                slst[j, SLS_MISS] += 1
                l2_install(l2t, vi, line, sect, sect if cfg[C_L2_WPOL] == WP_BACK else 0, g)
                if cfg[C_L2_LAZY] != 0:
                    l2t[vi, LN_UNRD] = rq[r, R_PART] & sect
            else:
                ctr[T_L2_MISS] += 1
                slst[j, SLS_MISS] += 1
        if through:
            d = rq_alloc(rq, rq_free, g)
            rq[d, R_KIND] = PK_DWRITE
            rq[d, R_LINE] = line
            rq[d, R_SECT] = sect
            rq[d, R_PRIO] = rq[r, R_PRIO]
            rq[d, R_XSTK] = xs
            rq_map(rq, d, mapd, mrange, cfg[C_NRANGE], line)
            dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g, False)
        if pe >= 0:  # counted against the entry's merge limit, as GPGPU-Sim adds the write's read to it
            l2m[pe, M_NREQ] += 1
        if fe >= 0:  # the write-allocate read of the written sectors (an unsectored L2: the line), no waiter
            l2_miss_read(j, line, expand(sect, cfg[C_L2_SECT_ATOMS], line_atoms), fe, -1, rq[r, R_PRIO], now, cfg,
                         clk, rq, rq_free, l2m, dq, chs, wake, g, mapd, mrange)
        if need_ack:
            rq[r, R_LEVEL] = 2
            l2_reply(j, r, edge(clk, D_L2, k + cfg[C_L2_LAT]), now, cfg, rq, rq_free, qb, qm, wake, g, mx)
        else:
            rq_release(rq_free, g, r)
        return True
    # reads, prefetches, preloads, atomics: need data
    sect = rq[r, R_SECT]
    if not en:
        if dram_space(cfg, chs, c) < 1 or g[G_RQ_TOP] < 1:
            g[G_L2_WHY] = WHY_DQ if dram_space(cfg, chs, c) < 1 else WHY_MSHR
            g[G_L2_OWN] = 0
            return False
        d = rq_alloc(rq, rq_free, g)
        rq[d, R_KIND] = PK_DREAD
        rq[d, R_LINE] = line
        rq[d, R_SECT] = sect
        rq[d, R_PRIO] = rq[r, R_PRIO]
        rq[d, R_ORIG] = r
        rq[d, R_SLICE] = j
        rq[d, R_XSTK] = xs
        rq_map(rq, d, mapd, mrange, cfg[C_NRANGE], line)
        rq[d, R_SLICE] = j
        dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g, False)
        rq[r, R_TDQ] = now
        if xs < 0:  # (a stack SM's request passes the L2 by)
            ctr[T_L2_ACC] += 1
            ctr[T_L2_MISS] += 1
            slst[j, SLS_ACC] += 1
            slst[j, SLS_MISS] += 1
            if kd == PK_ATOMIC:
                ctr[T_L2_ATOM] += 1
        return True
    base, idx = l2_lookup(j, line, rq[r, R_KEY], cfg, l2t)
    present = (l2t[idx, LN_VALID] & ~l2t[idx, LN_UNRD]) if idx >= 0 else 0  # (unreadable sectors are fetched)
    if (sect & ~present) == 0:
        if q_space(qm, qout) <= 0:
            g[G_L2_WHY] = WHY_OUT
            return False
        ctr[T_L2_ACC] += 1
        ctr[T_L2_HIT] += 1
        slst[j, SLS_ACC] += 1
        slst[j, SLS_HIT] += 1
        l2_touch(l2t, idx, cfg, g)
        lat = cfg[C_L2_LAT]
        if kd == PK_ATOMIC:
            lat += cfg[C_L2_ATOM_LAT]
            l2t[idx, LN_DIRTY] |= sect
            ctr[T_L2_ATOM] += 1
        rq[r, R_LEVEL] = 2
        l2_reply(j, r, edge(clk, D_L2, k + lat), now, cfg, rq, rq_free, qb, qm, wake, g, mx)
        return True
    mm = expand(sect & ~present, cfg[C_L2_SECT_ATOMS], line_atoms)
    nm = cfg[C_L2_MSHR]
    mb = j * nm
    ent = -1
    free_e = -1
    pending = False  # the line has a miss outstanding that cannot take this request
    covered = 0  # the sectors of the line's outstanding misses
    for m in range(mb, mb + nm):
        if l2m[m, M_NREQ] > 0:
            if l2m[m, M_LINE] == line:
                # M_NREQ counts every request the entry holds: the waiting reads and, under write_miss_fetch, the
                # write-allocate read and the writes that joined it (the same as M_NWAIT where reads alone merge)
                if (mm & ~l2m[m, M_SECT]) == 0 and l2m[m, M_NREQ] < cfg[C_L2_MERGE]:
                    ent = m
                    break
                pending = True
                covered |= l2m[m, M_SECT]
        elif free_e < 0:
            free_e = m
    if ent < 0 and pending and cfg[C_L2_SECT_MSHR] != 0 and (mm & covered) == 0:
        # l2.sector_mshrs: sectors no outstanding miss of the line covers take an entry of their own
        pending = False
    if ent < 0 and pending:
        # the line's entry is full (mshr_merge requests) or lacks some of these sectors: the request waits at
        # the head of the queue until the fill (as GPGPU-Sim's reservation failure); never a second DRAM read
        g[G_L2_WHY] = WHY_PEND
        return False
    if ent >= 0:
        # merge into the outstanding miss
        dr = l2m[ent, M_DREQ]
        if rq[r, R_PRIO] > rq[dr, R_PRIO]:
            rq[dr, R_PRIO] = rq[r, R_PRIO]
            ch = rq[dr, R_CHAN]
            for i in range(cfg[C_DQ_SLOTS]):
                if dq[ch, i, DQ_RID] == dr:
                    dq[ch, i, DQ_KEY] = (NPRIO - 1 - rq[dr, R_PRIO]) * (1 << 48) + rq[dr, R_SEQ]
                    break
        rq[r, R_NEXT] = -1
        if l2m[ent, M_TAIL] >= 0:
            rq[l2m[ent, M_TAIL], R_NEXT] = r
        else:  # the first request on a write-allocate read
            l2m[ent, M_HEAD] = r
        l2m[ent, M_TAIL] = r
        l2m[ent, M_NWAIT] += 1
        l2m[ent, M_NREQ] += 1
        ctr[T_L2_MERGE] += 1
        l2_count_miss(j, r, kd, rq, ctr, slst, pcst)
        rq[r, R_TDQ] = now
        return True
    if free_e < 0 or g[G_RQ_TOP] < 1:
        g[G_L2_WHY] = WHY_MSHR
        g[G_L2_OWN] = 1 if free_e < 0 else 0
        return False
    if dram_space(cfg, chs, c) < 1:
        qm[cfg[C_Q_L2IN] + j, Q_BLOCK] = c + 1
        g[G_L2_WHY] = WHY_DQ
        return False
    l2_miss_read(j, line, mm, free_e, r, rq[r, R_PRIO], now, cfg, clk, rq, rq_free, l2m, dq, chs, wake, g, mapd,
                 mrange)
    rq[r, R_NEXT] = -1
    rq[r, R_TDQ] = now
    l2_count_miss(j, r, kd, rq, ctr, slst, pcst)
    return True


@njit
def l2_fill(j, d, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, mapd, mrange, mx):
    """A DRAM read returned to slice ``j``: fill the line and reply to every merged request."""
    qout = cfg[C_Q_L2OUT] + j
    ready = edge(clk, D_L2, k + 1)
    m = rq[d, R_MSHR]
    g[G_FILL_OUT] = 1
    if m < 0:  # no L2: reply to the one request
        if q_space(qm, qout) <= 0:
            return False
        o = rq[d, R_ORIG]
        rq[o, R_LEVEL] = 3
        rq[o, R_TDS] = rq[d, R_TDS]
        l2_reply(j, o, ready, now, cfg, rq, rq_free, qb, qm, wake, g, mx)
        rq_release(rq_free, g, d)
        return True
    if q_space(qm, qout) < l2m[m, M_NWAIT]:
        return False
    line = rq[d, R_LINE]
    base, idx = l2_lookup(j, line, rq[d, R_KEY], cfg, l2t)
    if idx < 0:
        vi = c_victim(l2t, base, cfg[C_L2_ASSOC])
        if l2_evict_needs_wb(l2t, vi, cfg):
            vch = map_addr(mapd, mrange, cfg[C_NRANGE], l2t[vi, LN_TAG])[0]
            # the write-back may take the channel's room beyond its queue (a slot per slice): a fill that
            # waited for an ordinary slot could wait forever on reads that wait for this slice's return queue
            # (with the memory-partition front end too: a write-back that waited behind its L2-to-DRAM queue could
            # wait forever on reads the scheduler cannot finish while their slice's return queue is full)
            if cfg[C_DQ_SLOTS] - chs[vch, H_NQ] < 1 or g[G_RQ_TOP] < 1:
                g[G_FILL_OUT] = 0
                return False
            l2_writeback(vi, now, cfg, clk, rq, rq_free, l2t, dq, chs, wake, g, ctr, slst, mapd, mrange, j, True)
        idx = vi
    dirty = 0
    r = l2m[m, M_HEAD]
    while r >= 0:
        if rq[r, R_KIND] == PK_ATOMIC:
            dirty |= rq[r, R_SECT]
        r = rq[r, R_NEXT]
    l2_install(l2t, idx, line, rq[d, R_SECT], dirty, g)
    n = l2m[m, M_NWAIT]
    i = 0
    r = l2m[m, M_HEAD]
    while r >= 0:
        nx = rq[r, R_NEXT]
        rq[r, R_LEVEL] = 3
        rq[r, R_TDS] = rq[d, R_TDS]
        rdy = ready
        if cfg[C_L2_SECT_REQ] != 0 and n > 1:
            # the sector requests of the merged requests are answered sector by sector, one a cycle, so request i
            # has its last sector (of s) after (s - 1) * n + i others
            ns = popcount(rq[r, R_SECT] & rq[d, R_SECT])
            if ns > 1:
                rdy = edge(clk, D_L2, k + 1 + (ns - 1) * n + i)
        l2_reply(j, r, rdy, now, cfg, rq, rq_free, qb, qm, wake, g, mx)
        i += 1
        r = nx
    l2m[m, M_NREQ] = 0
    l2m[m, M_NWAIT] = 0
    l2m[m, M_LINE] = -1
    l2m[m, M_HEAD] = -1
    ctr[T_L2_FILL] += 1
    rq_release(rq_free, g, d)
    return True


@njit
def l2_port_cycles(kind, sect, hit, probe, cfg):
    """Cycles of a slice's port that a request of ``kind`` over atoms ``sect`` takes (1 unless turned on):
    ``l2.sector_requests``, one per 32-B sector (the partition splits it into sector requests, each taken
    from the queue in a cycle of its own); ``l2.data_port_bytes``, a hit reading or writing its bytes through a
    data port that wide (not a ``probe``, which checks the tags and reads no data)."""
    if kind >= PK_OFFLOAD:
        return 1
    n = 1
    if cfg[C_L2_SECT_REQ] != 0:
        n = max(popcount(sect), 1)
    w = cfg[C_L2_PORT_BYTES]
    if hit and w > 0 and probe == 0:
        n = max(n, (popcount(sect) * 32 + w - 1) // w)
    return n


@njit_inline
def l2_tick(j, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst, mapd, mrange,
            ptype, mx, ufree):
    qi = cfg[C_Q_L2IN] + j
    if slice_asleep(qm, qi):
        g[G_L2_SLEEPERS] -= 1
    if qm[qi, Q_WAITK] > 0:  # it slept on a refusal: each cycle asleep was one
        l2_count_waits(qi, k - 1, qm, ctr)
        qm[qi, Q_WAITK] = 0
    qm[qi, Q_WAITOUT] = 0
    progress = False
    # read data returning from DRAM: the GPU's, then the stack SMs' (a queue of its own, see build); a fill refused
    # for want of room in the reply queue waits for the network to take a reply (``fill_out``)
    fill_out = 0
    for x in range(2):
        qr = cfg[C_Q_L2RET] + j if x == 0 else cfg[C_Q_L2VRET] + j
        if qm[qr, Q_COUNT] > 0:
            d = q_head(qb, qm, qr)
            if rq[d, R_READY] <= now:
                if l2_fill(j, d, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, mapd,
                           mrange, mx):
                    q_pop(qb, qm, qr)
                    progress = True
                elif g[G_FILL_OUT] != 0:
                    fill_out |= 1 << x
    blocked = False
    # the head's refusal, when only this slice's own events can lift it (-1: none such): every MSHR of the slice
    # taken, or the line's miss pending (both lifted by a fill of this slice, whose return wakes it), or no room in
    # its reply queue (lifted when the network takes a reply, which wakes it)
    sleep_why = -1
    refused = -1
    nports = cfg[C_L2_PORTS] if qm[qi, Q_BUSY] <= now else 0
    used = 0  # port-cycles the requests served this cycle take (one each unless l2_port_cycles says more)
    for _p in range(nports):
        if qm[qi, Q_COUNT] == 0 or used >= nports:
            break
        r = q_head(qb, qm, qi)
        if rq[r, R_READY] > now:
            break
        bc = qm[qi, Q_BLOCK] - 1
        if bc >= 0 and dram_space(cfg, chs, bc) <= 0:
            ctr[T_L2_BLOCK] += 1
            ctr[T_L2_BLK_DQ + WHY_DQ] += 1
            blocked = True
            break
        qm[qi, Q_BLOCK] = 0
        kind, line = rq[r, R_KIND], rq[r, R_LINE]
        sect = rq[r, R_SECT]
        probe = rq[r, R_PROBE]  # read now: a hit served here may release r
        hits = ctr[T_L2_HIT]
        if not l2_access(j, r, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst,
                         mapd, mrange, ptype, mx):
            ctr[T_L2_BLOCK] += 1
            ctr[T_L2_BLK_DQ + g[G_L2_WHY]] += 1
            blocked = True
            why = g[G_L2_WHY]
            if (why == WHY_MSHR and g[G_L2_OWN] == 1) or why == WHY_PEND or why == WHY_OUT:
                sleep_why = why
                refused = r
            break
        used += l2_port_cycles(kind, sect, ctr[T_L2_HIT] > hits, probe, cfg)
        q_pop(qb, qm, qi)
        if cfg[C_HK_L2_REQUEST] != 0:  # (hooks with nothing to return are called only when attached)
            hooks.l2_request(cfg[C_HK_L2_REQUEST], j, kind, line, now, mx)
        progress = True
    if used > nports:  # the port stays busy for the rest of what this cycle's requests took
        qm[qi, Q_BUSY] = edge(clk, D_L2, k + (used + nports - 1) // nports)
    # requests of SMs inside the stacks: straight to the vault (l2_access passes them by the L2), one a cycle
    qv = cfg[C_Q_L2VIN] + j
    vblocked = False
    if qm[qv, Q_COUNT] > 0:
        r = q_head(qb, qm, qv)
        if rq[r, R_READY] <= now:
            kind, line = rq[r, R_KIND], rq[r, R_LINE]
            if l2_access(j, r, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst,
                         mapd, mrange, ptype, mx):
                q_pop(qb, qm, qv)
                if cfg[C_HK_L2_REQUEST] != 0:
                    hooks.l2_request(cfg[C_HK_L2_REQUEST], j, kind, line, now, mx)
                progress = True
            else:
                vblocked = True
    # what the mesh's reply network brought this slice (a mechanism's data for its unit here): one a cycle
    qn = cfg[C_Q_L2RIN] + j
    nblocked = False
    if qm[qn, Q_COUNT] > 0:
        r = q_head(qb, qm, qn)
        if rq[r, R_READY] <= now:
            if l2_access(j, r, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst,
                         mapd, mrange, ptype, mx):
                q_pop(qb, qm, qn)
                progress = True
            else:
                nblocked = True
    if progress:
        g[G_LAST_PROGRESS] = now
    nxt = edge(clk, D_L2, k + 1)
    w = INF
    if cfg[C_HK_SLICE_TICK] != 0:  # the mechanism's unit here (it may queue requests to this slice: they count below)
        t = hooks.slice_tick(cfg[C_HK_SLICE_TICK], j, now, k, cfg, clk, ufree, rq, rq_free, qb, qm, wake, g, mapd,
                             mrange, mx)
        w = max(t, nxt) if t < INF else INF
    if qm[qv, Q_COUNT] > 0:
        w = min(w, nxt if vblocked else max(rq[q_head(qb, qm, qv), R_READY], nxt))
    # the head sleeps on its refusal while it is still the one refused (a mechanism's unit here may have put a
    # request before it) and the port is free
    head_sleeps = (sleep_why >= 0 and qm[qi, Q_COUNT] > 0 and q_head(qb, qm, qi) == refused
                   and qm[qi, Q_BUSY] <= nxt)
    for x in range(2):
        qr = cfg[C_Q_L2RET] + j if x == 0 else cfg[C_Q_L2VRET] + j
        if qm[qr, Q_COUNT] > 0:
            if fill_out & (1 << x) and (head_sleeps or not blocked):
                # the fill waits for the network to take a reply (a head refused otherwise keeps the slice
                # ticking every cycle, each refusal counted, as before)
                qm[qi, Q_WAITOUT] = 1
            else:
                w = min(w, max(rq[q_head(qb, qm, qr), R_READY], nxt))
    if qm[qn, Q_COUNT] > 0:
        w = min(w, nxt if nblocked else max(rq[q_head(qb, qm, qn), R_READY], nxt))
    if qm[qi, Q_COUNT] > 0:
        bc = qm[qi, Q_BLOCK] - 1
        if blocked and bc >= 0 and bc == j // cfg[C_SLICES_PER_CH] and dram_space(cfg, chs, bc) <= 0:
            t = INF  # the channel wakes its slices when a queue slot frees
        elif head_sleeps:
            # asleep until what lifts the refusal wakes it; the refusals it would have met each cycle meanwhile
            # are counted when it wakes
            t = INF
            qm[qi, Q_WAITK] = k + 1
            qm[qi, Q_WAITWHY] = sleep_why
            if sleep_why == WHY_OUT:
                qm[qi, Q_WAITOUT] = 1
        else:
            t = nxt if blocked else max(rq[q_head(qb, qm, qi), R_READY], nxt, qm[qi, Q_BUSY])
        if t < w:
            w = t
    if slice_asleep(qm, qi):
        g[G_L2_SLEEPERS] += 1
    wake[cfg[C_WK_SL] + j] = w


@njit
def l2_count_waits(qi, k, qm, ctr):
    """Count the refusals of the slice whose input queue is ``qi``, asleep on a refusal (``Q_WAITK``), from its
    first uncounted cycle through L2 cycle ``k``: one per cycle, under the refusal's reason."""
    w = qm[qi, Q_WAITK]
    if w > 0 and k >= w:
        ctr[T_L2_BLOCK] += k - w + 1
        ctr[T_L2_BLK_DQ + qm[qi, Q_WAITWHY]] += k - w + 1


@njit
def l2_close_waits(k, cfg, qm, ctr):
    """Count the refusals of slices asleep on a refusal (``Q_WAITK``) through L2 cycle ``k``; their count
    goes on from ``k + 1``. At a launch's end and where counts are read mid-launch (on a copy of ``qm``)."""
    for j in range(cfg[C_NSL]):
        qi = cfg[C_Q_L2IN] + j
        if qm[qi, Q_WAITK] > 0 and k >= qm[qi, Q_WAITK]:
            l2_count_waits(qi, k, qm, ctr)
            qm[qi, Q_WAITK] = k + 1


@njit
def l2_install_range(lo, hi, cfg, l2t, mapd, mrange, g):
    """Place the lines of [lo, hi) clean and valid in their L2 slices (host copies with place_in_l2)."""
    shift = cfg[C_L1_LINE_SHIFT]
    lb = 1 << shift
    full = (1 << (lb // 32)) - 1
    a = (lo >> shift) << shift
    n = 0
    while a < hi:
        _ch, sl, _bg, _bk, _row, key = map_addr(mapd, mrange, cfg[C_NRANGE], a)
        base, idx = l2_lookup(sl, a, key, cfg, l2t)
        if idx < 0:
            idx = c_victim(l2t, base, cfg[C_L2_ASSOC])
        l2_install(l2t, idx, a, full, 0, g)
        a += lb
        n += 1
    return n


@njit
def l2_ticks(now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst, mapd, mrange, ptype,
             mx, ufree):
    """Tick, in slice order, every L2 slice due at ``now`` (L2 cycle ``k``), each tick inlined here."""
    wk = cfg[C_WK_SL]
    for j in range(cfg[C_NSL]):
        if wake[wk + j] <= now:
            wake[wk + j] = INF
            g[G_IT_L2] += 1
            l2_tick(j, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst, mapd, mrange,
                    ptype, mx, ufree)


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


def metrics(st, put, ratio) -> None:
    """The L2 slices, and instructions placed on memory-side units."""
    c = st.c
    a2, h2 = c("L2_ACC"), c("L2_HIT")
    put("l2", "accesses", a2, "requests")
    put("l2", "hits", h2, "requests")
    put("l2", "misses", c("L2_MISS"), "requests")
    put("l2", "hit_rate", ratio(h2, a2), "fraction")
    put("l2", "miss_rate", ratio(c("L2_MISS"), a2), "fraction")
    put("l2", "mshr_merges", c("L2_MERGE"), "requests")
    put("l2", "writebacks", c("L2_WB"), "lines")
    put("l2", "fills", c("L2_FILL"), "lines")
    put("l2", "atomics", c("L2_ATOM"), "requests")
    put("l2", "blocked", c("L2_BLOCK"), "cycles")
    # why the head of a slice's input queue was refused in those cycles (they sum to ``blocked``)
    put("l2", "blocked_dram_queue", c("L2_BLK_DQ"), "cycles")
    put("l2", "blocked_reply_queue", c("L2_BLK_OUT"), "cycles")
    put("l2", "blocked_mshr", c("L2_BLK_MSHR"), "cycles")
    put("l2", "blocked_pending_line", c("L2_BLK_PEND"), "cycles")
    # per slice: where the accesses go and how busy its reply port is (a hot slice shows here: a line every
    # warp reads, or addresses the partition decoding folds onto one slice)
    K = st.consts
    icyc = st.time_ps / (1e6 / K["icnt_mhz"])
    for j in range(st.per_slice.shape[0]):
        p = f"l2.slice{j}"
        put(p, "accesses", int(st.per_slice[j, SLS_ACC]), "requests")
        put(p, "misses", int(st.per_slice[j, SLS_MISS]), "requests")
        put(p, "reply_flits", int(st.net_ports[1, 0, j]), "flits")  # injected on the reply network
        put(p, "reply_port_utilisation", ratio(float(st.net_ports[1, 0, j]), icyc), "fraction")
    put("offload", "instructions", c("OFFLOADS"), "warp-instr")
