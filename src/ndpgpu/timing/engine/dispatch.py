"""The CTA dispatcher: which SM gets the next CTA (round-robin, static plan or greedy) and when.
"""

from . import hooks
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .queues import edge
from .warps import cta_fits, cta_fits_two, init_warp, occ_update


@njit
def launch_cta(sm, c, now, k, cfg, clk, wt, regrdy, smt, subt, ctat, wseg, wrec, wake, g, ctr, smst, pre_start,
               mx):
    ncs = cfg[C_NCTA_SLOTS]
    nsl = cfg[C_NSLOT]
    nsub = cfg[C_NSUB]
    wpc = cfg[C_WARPS_PER_CTA]
    cs = -1
    for j in range(ncs):
        if ctat[sm * ncs + j, CT_CTA] < 0:
            cs = sm * ncs + j
            break
    occ_update(sm, k, smt)
    ctat[cs, CT_CTA] = c
    ctat[cs, CT_LIVE] = wpc
    ctat[cs, CT_WARPS] = wpc
    ctat[cs, CT_BAR_COUNT] = 0
    ctat[cs, CT_THREADS] = cfg[C_CTA_THREADS]
    ctat[cs, CT_REGS] = cfg[C_CTA_REGS]
    ctat[cs, CT_SMEM] = cfg[C_CTA_SMEM]
    ctat[cs, CT_PRE_NEXT] = pre_start[c]
    ctat[cs, CT_PRE_END] = pre_start[c + 1]
    if pre_start[c + 1] > pre_start[c]:
        smt[sm, S_PRE_PENDING] += 1
    smt[sm, S_CTAS] += 1
    smt[sm, S_THREADS] += cfg[C_CTA_THREADS]
    smt[sm, S_REGS] += cfg[C_CTA_REGS]
    smt[sm, S_SMEM] += cfg[C_CTA_SMEM]
    smt[sm, S_WARPS] += wpc
    t0 = edge(clk, D_CORE, k + cfg[C_CTA_LAUNCH_LAT])
    j = 0
    for w in range(wpc):
        gw = c * wpc + w
        while wt[sm * nsl + j, W_STATE] != WS_FREE:
            j += 1
        slot = sm * nsl + j
        init_warp(slot, j, sm, gw, cs, wseg[gw], 0, wseg[gw + 1], 0, wrec[gw], wrec[gw + 1],
                  hooks.warp_start(cfg[C_HK_WARP_START], gw, mx) if cfg[C_MECH] != 0 else -1, -1, t0, nsub, wt,
                  regrdy, subt, g)
        if wseg[gw] >= wseg[gw + 1]:
            wt[slot, W_STATE] = WS_DRAIN
            ctat[cs, CT_LIVE] -= 1
            wt[slot, W_READY] = INF
            smt[sm, S_RETIRE] = 1
        j += 1
    if t0 < wake[sm]:
        wake[sm] = t0
    if cfg[C_MECH] != 0:
        hooks.cta_start(cfg[C_HK_CTA_START], sm, c, cs, now, k, cfg, ctat, smt, mx)
    ctr[T_CTAS_LAUNCHED] += 1
    ctr[T_WARPS_LAUNCHED] += wpc
    smst[sm, SMS_CTAS] += 1
    g[G_LIVE_CTAS] += 1


@njit
def dispatch_tick(now, k, cfg, clk, wt, regrdy, smt, subt, ctat, cta_order, cta_sm, wseg, wrec, wake, g, ctr, smst,
                  pre_start, mx):
    nctas = cfg[C_NCTAS]
    wd = cfg[C_WK_DISP]
    if g[G_NEXT_CTA] >= nctas:
        wake[wd] = INF
        return
    if now < g[G_DISPATCH_AT]:
        wake[wd] = g[G_DISPATCH_AT]
        return
    nsm = cfg[C_NGPU]  # SMs inside memory stacks take no CTAs
    mode = cfg[C_DISPATCH_MODE]
    placed = 0
    while placed < cfg[C_DISPATCH_PER_CYCLE] and g[G_NEXT_CTA] < nctas:
        c = cta_order[g[G_NEXT_CTA]]
        target = -1
        if (mode == DISP_STATIC or mode == DISP_BLOCK) and cta_sm[c] >= 0:
            if cta_fits(cta_sm[c], cfg, smt):
                target = cta_sm[c]
        elif mode == DISP_BLOCK:  # the first of a pair: an SM with room for both; its partner will follow it
            pos = g[G_NEXT_CTA]
            pair = pos % 2 == 0 and pos + 1 < nctas
            for i in range(nsm):
                sm = (g[G_RR_SM] + i) % nsm
                if cta_fits_two(sm, cfg, smt) if pair else cta_fits(sm, cfg, smt):
                    target = sm
                    g[G_RR_SM] = (sm + 1) % nsm
                    if pair:
                        cta_sm[cta_order[pos + 1]] = sm
                    break
        elif mode == DISP_GREEDY:
            for sm in range(nsm):
                if cta_fits(sm, cfg, smt):
                    target = sm
                    break
        else:
            for i in range(nsm):
                sm = (g[G_RR_SM] + i) % nsm
                if cta_fits(sm, cfg, smt):
                    target = sm
                    g[G_RR_SM] = (sm + 1) % nsm
                    break
        if target < 0:
            break
        launch_cta(target, c, now, k, cfg, clk, wt, regrdy, smt, subt, ctat, wseg, wrec, wake, g, ctr, smst, pre_start,
                   mx)
        g[G_NEXT_CTA] += 1
        placed += 1
    if placed > 0 and g[G_NEXT_CTA] < nctas:
        wake[wd] = edge(clk, D_CORE, k + 1)
    else:
        wake[wd] = INF
    if placed > 0:
        g[G_LAST_PROGRESS] = now
