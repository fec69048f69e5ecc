"""The loop that composes the components: it advances time to the earliest wake-up of any component,
ticks each clock domain at its edges, samples the time series, and stops on completion or a stop code.
"""

from typing import NamedTuple

import numpy as np

from .dispatch import dispatch_tick
from .dram import dram_ticks
from .issue import account_skipped, core_model_tick, sm_ticks
from .l2 import l2_ticks
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .mesh import mesh_tick
from .queues import cyc_at, edge
from .warps import occ_update
from .xbar import icnt_tick


@njit
def ts_sample(now, clk, cfg, g, ctr, nst, smt, ts, chs):
    n = g[G_TS_N]
    # link columns after the NTS fixed ones: per stack, TX then RX busy time (ps) up to the sample time
    # (reservations run FIFO, so the part of a channel's busy time after the sample is free - t)
    t_s = g[G_TS_NEXT]
    for i in range(ts.shape[1] - NTS):
        s = i // 2
        col = i % 2
        ts[n, NTS + i] = chs[s, H_LK_TX_BUSY + col] - max(0, chs[s, H_LK_TX_FREE + col] - t_s)
    ts[n, 0] = cyc_at(clk, D_CORE, g[G_TS_NEXT]) - cyc_at(clk, D_CORE, ctr[T_BEGIN_PS])
    ts[n, 1] = ctr[T_WARP_INSTS]
    ts[n, 2] = ctr[T_L1_MISS]
    ts[n, 3] = ctr[T_L2_ACC]
    ts[n, 4] = ctr[T_L2_MISS]
    ts[n, 5] = ctr[T_DR_RD_BYTES]
    ts[n, 6] = ctr[T_DR_WR_BYTES]
    ts[n, 7] = nst[0, 0, :].sum()
    ts[n, 8] = nst[1, 0, :].sum()
    ts[n, 9] = smt[:, S_WARPS].sum()
    g[G_TS_N] = n + 1


class LaunchTables(NamedTuple):
    """One launch's trace in engine form: warp streams, memory records, static per-PC table, CTA order."""

    seg: np.ndarray
    wseg: np.ndarray
    rec: np.ndarray
    wrec: np.ndarray
    txl: np.ndarray
    txs: np.ndarray
    txp: np.ndarray  # per transaction: its sectors covered only in part (l2.lazy_fetch_on_read)
    pct: np.ndarray
    cta_order: np.ndarray
    cta_sm: np.ndarray
    pre_start: np.ndarray
    pre_lines: np.ndarray
    regrdy: np.ndarray


class CoreState(NamedTuple):
    """The SMs: warp slots, units, SM and sub-core tables, resident CTAs, load operations, L1 tables."""

    wt: np.ndarray
    ufree: np.ndarray
    smt: np.ndarray
    subt: np.ndarray
    ctat: np.ndarray
    ldo: np.ndarray
    ld_free: np.ndarray
    l1t: np.ndarray
    l1m: np.ndarray
    l1w: np.ndarray


class MemoryState(NamedTuple):
    """The request pool and queues, L2 slices, DRAM channels, banks and links, and the address mapping."""

    rq: np.ndarray
    rq_free: np.ndarray
    qb: np.ndarray
    qm: np.ndarray
    l2t: np.ndarray
    l2m: np.ndarray
    dq: np.ndarray
    bank: np.ndarray
    bgt: np.ndarray
    chs: np.ndarray
    faw: np.ndarray
    mapd: np.ndarray
    mrange: np.ndarray
    ptype: np.ndarray
    dlog: np.ndarray
    hitpend: np.ndarray


class NetworkState(NamedTuple):
    """The interconnect: crossbar networks and port occupancy, or the mesh's routers."""

    netd: np.ndarray
    pbusy: np.ndarray
    mcfg: np.ndarray
    mvc: np.ndarray
    mvq: np.ndarray
    mport: np.ndarray
    msw: np.ndarray
    mst: np.ndarray
    mkst: np.ndarray


class StatsTables(NamedTuple):
    """The statistics the components write: counters, per SM/slice/channel/PC/class/priority, networks."""

    ctr: np.ndarray
    smst: np.ndarray
    slst: np.ndarray
    chst: np.ndarray
    pcst: np.ndarray
    clst: np.ndarray
    prst: np.ndarray
    nst: np.ndarray
    kst: np.ndarray
    ts: np.ndarray
    bkst: np.ndarray


@njit
def run_loop(cfg, clk, g, wake, launch, core, mem, network, stats, mx):
    """Advance the machine until the launch completes or a stop condition; returns a status code.

    ``launch``, ``core``, ``mem``, ``network`` and ``stats`` are the named state groups above; ``mx`` is the
    attached mechanism's state vector (``hooks``). The components take their tables one by one, except the
    SMs' ticks, which take the groups whole (one call per cycle, each SM's tick inlined into it): a group passed
    down the call tree would be passed as all of its arrays' fields at every call."""
    seg, wseg, rec, wrec = launch.seg, launch.wseg, launch.rec, launch.wrec
    txl, txs, pct = launch.txl, launch.txs, launch.pct
    cta_order, cta_sm, pre_start, pre_lines, regrdy = (launch.cta_order, launch.cta_sm, launch.pre_start,
                                                        launch.pre_lines, launch.regrdy)
    wt, ufree, smt, subt = core.wt, core.ufree, core.smt, core.subt
    ctat, ldo, ld_free = core.ctat, core.ldo, core.ld_free
    l1t, l1m, l1w = core.l1t, core.l1m, core.l1w
    rq, rq_free, qb, qm, l2t, l2m, dq, bank = mem.rq, mem.rq_free, mem.qb, mem.qm, mem.l2t, mem.l2m, mem.dq, mem.bank
    bgt, chs, faw, mapd, mrange, ptype, dlog, hitpend = (mem.bgt, mem.chs, mem.faw, mem.mapd, mem.mrange, mem.ptype,
                                                         mem.dlog, mem.hitpend)
    netd, pbusy, mcfg, mvc, mvq, mport, msw, mst, mkst = (network.netd, network.pbusy, network.mcfg, network.mvc,
                                                         network.mvq, network.mport, network.msw, network.mst,
                                                         network.mkst)
    ctr, smst, slst, chst, pcst, clst, prst, nst, kst, ts = (stats.ctr, stats.smst, stats.slst, stats.chst, stats.pcst,
                                                             stats.clst, stats.prst, stats.nst, stats.kst, stats.ts)
    bkst = stats.bkst
    nsm = cfg[C_NSM]
    nsl = cfg[C_NSL]
    nch = cfg[C_NCH]
    wk_sl = cfg[C_WK_SL]
    wk_ch = cfg[C_WK_CH]
    wk_net = cfg[C_WK_NET]
    wk_disp = cfg[C_WK_DISP]
    tsi = cfg[C_TS_INTERVAL_PS]
    cap = g[G_CAP]
    while True:
        if g[G_CTAS_DONE] >= cfg[C_NCTAS]:
            if cfg[C_DRAIN] == 0:
                return ST_DONE
            if g[G_RQ_TOP] >= cfg[C_NRQP]:  # (sim.drain_memory) the last of its requests has completed
                ctr[T_END_PS] = max(ctr[T_END_PS], g[G_NOW])
                return ST_DONE
        if g[G_SAMPLE_AT] > 0 and g[G_NEXT_CTA] >= g[G_SAMPLE_AT]:
            g[G_SAMPLE_AT] = 0
            return ST_SAMPLE
        if g[G_SAMPLE_INSTS] > 0 and ctr[T_WARP_INSTS] >= g[G_SAMPLE_INSTS]:
            g[G_SAMPLE_INSTS] = 0
            return ST_SAMPLE
        m_core = wake[wk_disp]
        for i in range(nsm):
            if wake[i] < m_core:
                m_core = wake[i]
        m_l2 = INF
        for j in range(nsl):
            if wake[wk_sl + j] < m_l2:
                m_l2 = wake[wk_sl + j]
        if g[G_L2_SLEEPERS] > 0:  # slices asleep on a refusal: the L2 domain runs every cycle, as when they polled
            m_l2 = min(m_l2, edge(clk, D_L2, clk[D_L2, K_NEXT]))
        m_dram = INF
        for c in range(nch):
            if wake[wk_ch + c] < m_dram:
                m_dram = wake[wk_ch + c]
        m_net = min(wake[wk_net], wake[wk_net + 1])
        tn = INF
        if m_core < INF:
            tn = min(tn, edge(clk, D_CORE, max(cyc_at(clk, D_CORE, m_core), clk[D_CORE, K_NEXT])))
        if m_l2 < INF:
            tn = min(tn, edge(clk, D_L2, max(cyc_at(clk, D_L2, m_l2), clk[D_L2, K_NEXT])))
        if m_dram < INF:
            tn = min(tn, edge(clk, D_DRAM, max(cyc_at(clk, D_DRAM, m_dram), clk[D_DRAM, K_NEXT])))
        if m_net < INF:
            tn = min(tn, edge(clk, D_ICNT, max(cyc_at(clk, D_ICNT, m_net), clk[D_ICNT, K_NEXT])))
        if tn >= INF:
            if g[G_CTAS_DONE] >= cfg[C_NCTAS]:  # draining, and nothing left that moves
                return ST_DONE
            return ST_DEADLOCK
        now = tn
        g[G_NOW] = now
        g[G_IT_LOOP] += 1
        # (work left from the previous launch may be simulated at times before this launch's start, its
        # progress stamped then: the watchdog counts from the later of the two)
        if now - max(g[G_LAST_PROGRESS], g[G_START_PS]) > cfg[C_WATCHDOG_PS]:
            return ST_WATCHDOG
        if tsi > 0:
            while g[G_TS_NEXT] <= now:
                if g[G_TS_N] >= ts.shape[0]:
                    return ST_TS_FULL
                ts_sample(now, clk, cfg, g, ctr, nst, smt, ts, chs)
                g[G_TS_NEXT] += tsi
        # DRAM domain
        kk = cyc_at(clk, D_DRAM, now)
        if m_dram <= now and edge(clk, D_DRAM, kk) == now and kk >= clk[D_DRAM, K_NEXT]:
            clk[D_DRAM, K_NEXT] = kk + 1
            dram_ticks(now, kk, cfg, clk, rq, rq_free, dq, bank, bgt, chs, faw, qb, qm, wake, g, ctr, chst, bkst, dlog,
                       hitpend, mx)
        # L2 domain
        kk = cyc_at(clk, D_L2, now)
        if m_l2 <= now and edge(clk, D_L2, kk) == now and kk >= clk[D_L2, K_NEXT]:
            clk[D_L2, K_NEXT] = kk + 1
            l2_ticks(now, kk, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst, mapd, mrange,
                     ptype, mx, ufree)
        # interconnect domain
        kk = cyc_at(clk, D_ICNT, now)
        if m_net <= now and edge(clk, D_ICNT, kk) == now and kk >= clk[D_ICNT, K_NEXT]:
            clk[D_ICNT, K_NEXT] = kk + 1
            for net in range(2):
                if wake[wk_net + net] <= now:
                    wake[wk_net + net] = INF
                    g[G_IT_NET] += 1
                    if mcfg[MC_ON] != 0:
                        mesh_tick(net, now, kk, cfg, clk, rq, qb, qm, netd, wake, g, nst, kst, mcfg, mvc, mvq,
                                  mport, msw, mst, mkst)
                    else:
                        icnt_tick(net, now, kk, cfg, clk, rq, rq_free, qb, qm, netd, pbusy, wake, g, nst, kst)
        # core domain
        kk = cyc_at(clk, D_CORE, now)
        if m_core <= now and edge(clk, D_CORE, kk) == now and kk >= clk[D_CORE, K_NEXT]:
            clk[D_CORE, K_NEXT] = kk + 1
            if wake[wk_disp] <= now:
                wake[wk_disp] = INF
                dispatch_tick(now, kk, cfg, clk, wt, regrdy, smt, subt, ctat, cta_order, cta_sm, wseg, wrec, wake, g,
                              ctr, smst, pre_start, mx)
            if cfg[C_CORE_MODEL] != 0:  # the cores are a mechanism's (core.model): its tick replaces the SM's
                for sm in range(nsm):
                    if wake[sm] <= now:
                        wake[sm] = INF
                        g[G_IT_SM] += 1
                        core_model_tick(sm, now, kk, cfg, clk, seg, rec, pct, txl, txs, wt, regrdy, ufree, smt, subt,
                                        ctat, ldo, ld_free, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smst,
                                        pcst, clst, prst, mapd, mrange, pre_lines, mx, chs, l2t)
            else:
                sm_ticks(now, kk, cfg, clk, wake, g, mx, launch, core, mem, stats)
            if g[G_CTAS_DONE] >= cfg[C_NCTAS]:
                ctr[T_END_PS] = now
                if cfg[C_DRAIN] == 0:
                    return ST_DONE
            if cap > 0 and ctr[T_WARP_INSTS] >= cap:
                ctr[T_END_PS] = now
                return ST_CAP


@njit
def finalize(k_end, cfg, smt, subt, ctr, pcst, smst):
    """Close per-SM occupancy and stall accounting at core cycle ``k_end`` (inclusive)."""
    for sm in range(cfg[C_NSM]):
        account_skipped(sm, k_end - smt[sm, S_LAST_TICK], cfg, smt, subt, ctr, pcst)
        smt[sm, S_LAST_TICK] = k_end
        occ_update(sm, k_end + 1, smt)
        smst[sm, SMS_OCC] = smt[sm, S_OCC_ACC]
        smst[sm, SMS_BUSY] = smt[sm, S_BUSY_T]
