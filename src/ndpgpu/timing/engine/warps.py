"""Warp and CTA bookkeeping on an SM: starting warps, barriers, exits and occupancy.
"""

from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .ldst import wake_warp, warp_maybe_exit_flag
from .queues import edge, ld_alloc


@njit
def occ_update(sm, k, smt):
    """Close the occupancy interval of SM ``sm`` at core cycle ``k`` (before its warp count changes)."""
    dt = k - smt[sm, S_OCC_T]
    if dt > 0:
        smt[sm, S_OCC_ACC] += smt[sm, S_WARPS] * dt
        if smt[sm, S_CTAS] > 0:
            smt[sm, S_BUSY_T] += dt
    smt[sm, S_OCC_T] = k


@njit
def warp_exit(sm, slot, now, k, cfg, wt, ctat, smt, wake, g, ctr, smst):
    cs = wt[slot, W_CTA_SLOT]
    wt[slot, W_STATE] = WS_FREE
    wt[slot, W_READY] = INF
    occ_update(sm, k, smt)
    smt[sm, S_WARPS] -= 1
    if cs < 0:  # a warp running an offloaded block (its mechanism acknowledges it: hooks.guest_done)
        return
    ctat[cs, CT_WARPS] -= 1
    if ctat[cs, CT_WARPS] == 0:
        occ_update(sm, k, smt)
        smt[sm, S_CTAS] -= 1
        smt[sm, S_THREADS] -= ctat[cs, CT_THREADS]
        smt[sm, S_REGS] -= ctat[cs, CT_REGS]
        smt[sm, S_SMEM] -= ctat[cs, CT_SMEM]
        if ctat[cs, CT_PRE_NEXT] < ctat[cs, CT_PRE_END]:
            smt[sm, S_PRE_PENDING] -= 1  # the CTA ended before its preload list: drop the rest
        ctat[cs, CT_CTA] = -1
        if cfg[C_BATCH_REFILL] != 0:  # the SM's batch is finishing: no new CTA until the last of it is done
            smt[sm, S_BATCH_SHUT] = 1 if smt[sm, S_CTAS] > 0 else 0
        g[G_CTAS_DONE] += 1
        g[G_LIVE_CTAS] -= 1
        wd = cfg[C_WK_DISP]
        if now < wake[wd]:
            wake[wd] = now


@njit
def barrier_release(sm, cs, k, cfg, clk, wt, subt):
    nsl = cfg[C_NSLOT]
    t = edge(clk, D_CORE, k + 1)
    for j in range(nsl):
        s = sm * nsl + j
        if wt[s, W_STATE] == WS_BARRIER and wt[s, W_CTA_SLOT] == cs:
            wt[s, W_STATE] = WS_ACTIVE
            wt[s, W_READY] = INF
            wake_warp(s, t, cfg, wt, subt)


@njit
def warp_done_issuing(sm, slot, k, cfg, clk, wt, ctat, smt, subt):
    cs = wt[slot, W_CTA_SLOT]
    wt[slot, W_STATE] = WS_DRAIN
    wt[slot, W_READY] = INF
    if cs < 0:  # an offloaded block's warp belongs to no CTA
        warp_maybe_exit_flag(slot, wt, smt, cfg)
        return
    ctat[cs, CT_LIVE] -= 1
    if ctat[cs, CT_LIVE] > 0 and ctat[cs, CT_BAR_COUNT] >= ctat[cs, CT_LIVE]:
        ctat[cs, CT_BAR_COUNT] = 0
        barrier_release(sm, cs, k, cfg, clk, wt, subt)
    warp_maybe_exit_flag(slot, wt, smt, cfg)


@njit
def stream_done(slot, wt):
    """Has the warp issued its whole stream (up to (SEG_END, END_OFF); END_OFF is 0 except for a block)?"""
    si = wt[slot, W_SEG]
    return si > wt[slot, W_SEG_END] or (si == wt[slot, W_SEG_END] and wt[slot, W_SEG_OFF] >= wt[slot, W_END_OFF])


@njit
def advance(slot, seg, wt):
    off = wt[slot, W_SEG_OFF] + 1
    si = wt[slot, W_SEG]
    if off >= seg[si, 1]:
        wt[slot, W_SEG] = si + 1
        wt[slot, W_SEG_OFF] = 0
    else:
        wt[slot, W_SEG_OFF] = off


@njit
def operands_ready(slot, pc, pct, regrdy):
    """When every source and destination register of warp ``slot``'s instruction ``pc`` is ready (the
    scoreboard, the guard predicate included; INF while a load is outstanding)."""
    dep = 0
    r = pct[pc, P_GUARD]
    if r >= 0:
        dep = regrdy[slot, r]
    for j in range(4):
        r = pct[pc, P_S0 + j]
        if r >= 0 and regrdy[slot, r] > dep:
            dep = regrdy[slot, r]
        r = pct[pc, P_D0 + j]
        if r >= 0 and regrdy[slot, r] > dep:
            dep = regrdy[slot, r]
    return dep


@njit
def load_open(sm, slot, pc, now, level, nout, pct, regrdy, wt, ldo, ld_free, g):
    """Open a load operation for warp ``slot``'s instruction ``pc`` with ``nout`` parts outstanding (``level``:
    where it was served, for the load-to-use statistics): its destination registers wait for it and the warp
    counts one more pending load. Returns the operation (the SM's issue stage and a mechanism's core share it)."""
    ldop = ld_alloc(ldo, ld_free, g)
    ldo[ldop, L_SLOT] = slot
    ldo[ldop, L_PC] = pc
    ldo[ldop, L_OUT] = nout
    ldo[ldop, L_HIT_READY] = 0
    ldo[ldop, L_T0] = now
    ldo[ldop, L_LEVEL] = level
    ldo[ldop, L_SM] = sm
    ldo[ldop, L_ATOM] = 0
    for j in range(4):
        r = pct[pc, P_D0 + j]
        ldo[ldop, L_D0 + j] = r
        if r >= 0:
            regrdy[slot, r] = INF
    wt[slot, W_PEND_LD] += 1
    return ldop


@njit
def lsu_take(sm, slot, ri, tx0, ntx, ldop, kind, k, smt):
    """The SM's load/store unit takes record ``ri`` (transactions ``tx0`` .. ``tx0 + ntx``) of warp ``slot``."""
    smt[sm, S_LDST_REC] = ri
    smt[sm, S_LDST_TX] = tx0
    smt[sm, S_LDST_TXEND] = tx0 + ntx
    smt[sm, S_LDST_LDOP] = ldop
    smt[sm, S_LDST_SLOT] = slot
    smt[sm, S_LDST_KIND] = kind
    smt[sm, S_LDST_START] = k
    smt[sm, S_LDST_BLOCK] = 0


@njit
def dests_ready(slot, pc, pct, regrdy, t):
    """Warp ``slot``'s instruction ``pc`` writes its destination registers at ``t``."""
    for j in range(4):
        r = pct[pc, P_D0 + j]
        if r >= 0:
            regrdy[slot, r] = t


@njit
def barrier_arrive(sm, slot, k, cfg, clk, wt, ctat, smt, subt):
    """Warp ``slot`` (its stream already past the ``bar``) arrives at its CTA's barrier: it waits, or its
    stream ends there, or it is the last to arrive and releases the CTA's warps."""
    cs = wt[slot, W_CTA_SLOT]
    if stream_done(slot, wt):
        warp_done_issuing(sm, slot, k, cfg, clk, wt, ctat, smt, subt)
        return
    ctat[cs, CT_BAR_COUNT] += 1
    wt[slot, W_STATE] = WS_BARRIER
    wt[slot, W_READY] = INF
    if ctat[cs, CT_BAR_COUNT] >= ctat[cs, CT_LIVE]:
        ctat[cs, CT_BAR_COUNT] = 0
        barrier_release(sm, cs, k, cfg, clk, wt, subt)


@njit
def warp_pc(slot, seg, wt):
    return seg[wt[slot, W_SEG], 0] + wt[slot, W_SEG_OFF]


@njit
def cta_fits(sm, cfg, smt):
    """Whether SM ``sm`` can take one more CTA now (resources, and with batch refill, a batch still filling)."""
    return (smt[sm, S_CTAS] < cfg[C_NCTA_SLOTS]
            and smt[sm, S_BATCH_SHUT] == 0
            and smt[sm, S_THREADS] + cfg[C_CTA_THREADS] <= cfg[C_MAX_THREADS]
            and smt[sm, S_REGS] + cfg[C_CTA_REGS] <= cfg[C_REGFILE]
            and smt[sm, S_SMEM] + cfg[C_CTA_SMEM] <= cfg[C_SMEM_SIZE])


@njit
def cta_fits_two(sm, cfg, smt):
    """Whether SM ``sm`` can take two more CTAs now (block CTA scheduling places a pair together)."""
    return (smt[sm, S_CTAS] + 2 <= cfg[C_NCTA_SLOTS]
            and smt[sm, S_BATCH_SHUT] == 0
            and smt[sm, S_THREADS] + 2 * cfg[C_CTA_THREADS] <= cfg[C_MAX_THREADS]
            and smt[sm, S_REGS] + 2 * cfg[C_CTA_REGS] <= cfg[C_REGFILE]
            and smt[sm, S_SMEM] + 2 * cfg[C_CTA_SMEM] <= cfg[C_SMEM_SIZE])


@njit
def init_warp(slot, j, sm, gwarp, cta_slot, seg0, off0, seg_end, end_off, rec0, rec_end, mx_value, host, t0, nsub, wt,
              regrdy, subt, g):
    """Start warp slot ``slot`` (the ``j``-th of SM ``sm``) on its trace stream, ready at ``t0``: a CTA's warp
    (``cta_slot`` >= 0, ``host`` -1) or an offloaded block (no CTA, ``host`` the waiting GPU warp)."""
    for f in range(NWT):
        wt[slot, f] = 0
    wt[slot, W_STATE] = WS_ACTIVE
    wt[slot, W_GWARP] = gwarp
    wt[slot, W_CTA_SLOT] = cta_slot
    wt[slot, W_SEG] = seg0
    wt[slot, W_SEG_OFF] = off0
    wt[slot, W_SEG_END] = seg_end
    wt[slot, W_END_OFF] = end_off
    wt[slot, W_REC] = rec0
    wt[slot, W_REC_END] = rec_end
    wt[slot, W_MX] = mx_value
    wt[slot, W_HOST] = host
    wt[slot, W_READY] = t0
    wt[slot, W_AGE] = g[G_AGE]
    g[G_AGE] += 1
    wt[slot, W_SUB] = j % nsub
    sb = sm * nsub + j % nsub
    if t0 < subt[sb, SB_MINREADY]:
        subt[sb, SB_MINREADY] = t0
    for r in range(regrdy.shape[1]):
        regrdy[slot, r] = 0


@njit
def end_streams(k, cfg, clk, g, wt, ctat, smt, subt, wake):
    """Sampled timing stops the launch's issue at core cycle ``k``: every CTA warp still issuing (active, or
    waiting at a barrier) ends its stream where it stands and drains as a warp that issued its last instruction
    does; CTAs not yet dispatched never are. Warps without a CTA (offloaded blocks) finish their streams."""
    nsl = cfg[C_NSLOT]
    cfg[C_NCTAS] = g[G_NEXT_CTA]
    t = edge(clk, D_CORE, k + 1)
    for sm in range(cfg[C_NSM]):
        for j in range(nsl):
            s = sm * nsl + j
            state = wt[s, W_STATE]
            if wt[s, W_CTA_SLOT] < 0 or (state != WS_ACTIVE and state != WS_BARRIER):
                continue
            if state == WS_BARRIER:  # it no longer waits: take it off the barrier's count
                ctat[wt[s, W_CTA_SLOT], CT_BAR_COUNT] -= 1
            wt[s, W_SEG_END] = wt[s, W_SEG]
            wt[s, W_END_OFF] = wt[s, W_SEG_OFF]
            warp_done_issuing(sm, s, k, cfg, clk, wt, ctat, smt, subt)
        if wake[sm] > t:
            wake[sm] = t
    wd = cfg[C_WK_DISP]
    if wake[wd] > t:
        wake[wd] = t
