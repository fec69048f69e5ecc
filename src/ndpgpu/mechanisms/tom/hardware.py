"""TOM's block offload, the compiled side: the hooks through which the engine runs it.

A GPU warp at a candidate block's decision point may send the block to an SM inside the memory stack of
its first access (``decide``, ``divert``); that SM starts it as a guest warp (``sm_tick``), runs the block's
stretch of the warp's stream against its own vaults (and other stacks' over cross-stack links), and
acknowledges it (``guest_done``): live-outs and written lines back on the link, the GPU's stale copies
invalidated, the host warp resumed. The Python side, :mod:`.unit`, lays out the state vector ``mx``
for each launch and reads the counters back.
"""

from ...timing.engine.caches import c_find
from ...timing.engine.l2 import l2_lookup
from ...timing.engine.layout import *  # noqa: F403  (the engine's columns and codes)
from ...timing.engine.ldst import l1_base, wake_warp
from ...timing.engine.links import link_send
from ...timing.engine.mapping import map_addr
from ...timing.engine.queues import edge, popcount
from ...timing.engine.warps import init_warp, occ_update

MECHANISM = "tom"
HOOKS = ("decide", "divert", "guest_issued", "guest_done", "sm_tick", "warp_start")

# One row per candidate-block instance of a warp. Positions are (segment, offset) pairs in the warp's trace
# stream: the instance starts at (SEG0, OFF0), the controller decides at (DSEG, DOFF) (its first memory
# instruction), and the warp continues at (SEG1, OFF1).
(
    OI_WARP, OI_SEG0, OI_OFF0, OI_DSEG, OI_DOFF, OI_SEG1, OI_OFF1, OI_REC0, OI_REC1, OI_LINE, OI_ALLOWED,
    OI_ADDS_TX, OI_ADDS_RX, OI_REQ_FL, OI_ACK_FL, OI_WL0, OI_WL1, OI_ARRIVE, OI_STACK, OI_T0, OI_HOST
) = range(21)
NOI = 21
# ``mx``: the controller's parameters, then the counters, per-stack state, the per-stack arrival FIFOs,
# per-warp first-instance indices, the written lines and the instance rows (offsets into one int64 vector).
(
    OF_MODE, OF_THR, OF_WINDOW_PS, OF_PEND_LIMIT, OF_PIPE, OF_COHERENT, OF_NINST, OF_STK0, OF_Q0, OF_WF0, OF_WL0,
    OF_OI0, OF_CTR0, OF_HDR
) = range(14)
OFS_PEND, OFS_QHEAD, OFS_QTAIL, OFS_MARK_T, OFS_MARK_TX, OFS_MARK_RX, OFS_UTIL_TX, OFS_UTIL_RX, OFS_RR = range(9)
NOFS = 9
BO_OFF, BO_ALWAYS, BO_CTRL, BO_IDEAL = 0, 1, 2, 3
# counters, at mx[OF_CTR0 + BC_*]; declined_* in the order of ``bo_decide``'s reasons
COUNTER_NAMES = ("BO_SEEN", "BO_SENT", "BO_NO_MEM", "BO_NO_COND", "BO_NO_BUSY", "BO_NO_PEND", "BO_WINSTS",
                 "BO_TINSTS", "BO_INVAL_L1", "BO_INVAL_L2", "BO_RTT_PS", "BO_REQ_FLITS", "BO_ACK_FLITS", "BO_DONE",
                 "BO_WAIT_PS")
(
    BC_SEEN, BC_SENT, BC_NO_MEM, BC_NO_COND, BC_NO_BUSY, BC_NO_PEND, BC_WINSTS, BC_TINSTS, BC_INVAL_L1, BC_INVAL_L2,
    BC_RTT_PS, BC_REQ_FLITS, BC_ACK_FLITS, BC_DONE, BC_WAIT_PS
) = range(len(COUNTER_NAMES))


@njit
def bo_row(i, mx):
    """Offset of instance ``i``'s row (``OI_*`` columns) in ``mx``."""
    return mx[OF_OI0] + i * NOI


@njit
def bo_next(i, mx):
    """The instance after ``i`` of the same warp, or -1."""
    o = bo_row(i, mx)
    if i + 1 < mx[OF_NINST] and mx[o + NOI + OI_WARP] == mx[o + OI_WARP]:
        return i + 1
    return -1


@njit
def bo_at_decision(slot, i, wt, mx):
    """Is warp ``slot`` at instance ``i``'s decision point?"""
    o = bo_row(i, mx)
    return wt[slot, W_SEG] == mx[o + OI_DSEG] and wt[slot, W_SEG_OFF] == mx[o + OI_DOFF]


@njit
def bo_util(s, rx, now, chs, mx):
    """Channel busy monitor: stack ``s``'s TX (rx=0) or RX utilisation, per mille, over the last window.

    A window closes at the first look after it has lasted ``OF_WINDOW_PS``; busy time includes packets
    already queued for later serialisation, so a backlogged channel reads above 1000."""
    b = mx[OF_STK0] + s * NOFS
    dt = now - mx[b + OFS_MARK_T]
    if dt >= mx[OF_WINDOW_PS]:
        mx[b + OFS_UTIL_TX] = (chs[s, H_LK_TX_BUSY] - mx[b + OFS_MARK_TX]) * 1000 // dt
        mx[b + OFS_UTIL_RX] = (chs[s, H_LK_RX_BUSY] - mx[b + OFS_MARK_RX]) * 1000 // dt
        mx[b + OFS_MARK_T] = now
        mx[b + OFS_MARK_TX] = chs[s, H_LK_TX_BUSY]
        mx[b + OFS_MARK_RX] = chs[s, H_LK_RX_BUSY]
    return mx[b + OFS_UTIL_TX + rx]


@njit
def bo_decide(i, now, mx, chs):
    """0: offload instance ``i``; else the reason not to (1 no memory access, 2 condition, 3 busy, 4 pending).

    The destination (``OI_STACK``, the stack of the first access) is mapped when the launch starts."""
    o = bo_row(i, mx)
    if mx[o + OI_LINE] < 0:
        return 1
    if mx[o + OI_ALLOWED] == 0:
        return 2
    s = mx[o + OI_STACK]
    if mx[OF_MODE] == BO_CTRL:
        thr = mx[OF_THR]
        if mx[o + OI_ADDS_TX] != 0 and bo_util(s, 0, now, chs, mx) >= thr:
            return 3
        if mx[o + OI_ADDS_RX] != 0 and bo_util(s, 1, now, chs, mx) >= thr:
            return 3
    lim = mx[OF_PEND_LIMIT]  # (0 under "always": every stack SM queues what it cannot start)
    if lim > 0 and mx[mx[OF_STK0] + s * NOFS + OFS_PEND] >= lim:
        return 4
    return 0


@njit
def decide(slot, now, wt, chs, mx):
    """At a candidate block's decision point, the offload controller decides: 0 offload, -3 not yet (its stores
    are still in flight), else -1 (not at the point) or the reason not to (counted, and the warp moves on to
    its next instance)."""
    i = wt[slot, W_MX]
    if not bo_at_decision(slot, i, wt, mx):
        return -1
    why = bo_decide(i, now, mx, chs)
    if why == 0:
        if mx[OF_COHERENT] != 0 and wt[slot, W_PEND_ST] > 0:
            return -3  # section 4.4.2, step 1: the warp's earlier stores reach memory (write-through) first
        return 0
    c = mx[OF_CTR0]
    mx[c + BC_SEEN] += 1
    mx[c + BC_NO_MEM + why - 1] += 1
    wt[slot, W_MX] = bo_next(i, mx)
    return why


@njit
def guest_issued(slot, mask, wt, mx):
    """An instruction of an offloaded block, on a stack SM."""
    c = mx[OF_CTR0]
    mx[c + BC_WINSTS] += 1
    mx[c + BC_TINSTS] += popcount(mask)


@njit
def warp_start(gwarp, mx):
    """A GPU warp's first candidate-block instance (-1: none)."""
    return mx[mx[OF_WF0] + gwarp]


@njit
def divert(sm, slot, now, k, cfg, clk, wt, chs, wake, mx):
    """Send warp ``slot``'s block to its stack: live-ins out on TX; the warp skips the block and waits."""
    i = wt[slot, W_MX]
    o = bo_row(i, mx)
    s = mx[o + OI_STACK]
    t = edge(clk, D_CORE, k + mx[OF_PIPE])
    if mx[OF_MODE] != BO_IDEAL:
        t = link_send(s, 0, mx[o + OI_REQ_FL], t, chs)
        mx[mx[OF_CTR0] + BC_REQ_FLITS] += mx[o + OI_REQ_FL]
    mx[o + OI_ARRIVE] = t
    mx[o + OI_T0] = now
    mx[o + OI_HOST] = slot
    b = mx[OF_STK0] + s * NOFS
    mx[mx[OF_Q0] + s * mx[OF_NINST] + mx[b + OFS_QTAIL]] = i
    mx[b + OFS_QTAIL] += 1
    mx[b + OFS_PEND] += 1
    for j in range(cfg[C_SPS]):
        w = cfg[C_NGPU] + s * cfg[C_SPS] + j
        if t < wake[w]:
            wake[w] = t
    wt[slot, W_SEG] = mx[o + OI_SEG1]
    wt[slot, W_SEG_OFF] = mx[o + OI_OFF1]
    wt[slot, W_REC] = mx[o + OI_REC1]
    wt[slot, W_READY] = INF
    wt[slot, W_DIVERT] = 0
    wt[slot, W_MX] = bo_next(i, mx)
    mx[mx[OF_CTR0] + BC_SEEN] += 1
    mx[mx[OF_CTR0] + BC_SENT] += 1


@njit
def sm_tick(sm, now, k, cfg, clk, wt, regrdy, smt, subt, l1t, g, mx):
    """Start arrived blocks on stack SM ``sm`` while it has warp room; returns the next arrival time."""
    if sm < cfg[C_NGPU]:
        return INF
    s = (sm - cfg[C_NGPU]) // cfg[C_SPS]
    b = mx[OF_STK0] + s * NOFS
    q = mx[OF_Q0] + s * mx[OF_NINST]
    nsl = cfg[C_NSLOT]
    nsub = cfg[C_NSUB]
    while mx[b + OFS_QHEAD] < mx[b + OFS_QTAIL]:
        i = mx[q + mx[b + OFS_QHEAD]]
        o = bo_row(i, mx)
        if mx[o + OI_ARRIVE] > now:
            return mx[o + OI_ARRIVE]
        if smt[sm, S_WARPS] >= cfg[C_SWARPS]:
            return INF  # a finishing warp makes progress, and the SM looks again the next cycle
        j = 0
        while wt[sm * nsl + j, W_STATE] != WS_FREE:
            j += 1
        slot = sm * nsl + j
        mx[b + OFS_QHEAD] += 1
        init_warp(slot, j, sm, mx[o + OI_WARP], -1, mx[o + OI_SEG0], mx[o + OI_OFF0], mx[o + OI_SEG1],
                  mx[o + OI_OFF1], mx[o + OI_REC0], mx[o + OI_REC1], i, mx[o + OI_HOST], edge(clk, D_CORE, k + 1),
                  nsub, wt, regrdy, subt, g)
        occ_update(sm, k, smt)
        smt[sm, S_WARPS] += 1
        if mx[OF_COHERENT] != 0:  # step 2: the stack SM invalidates its private cache before it runs a block
            n = cfg[C_L1_SETS] * cfg[C_L1_ASSOC]
            for x in range(sm * n, sm * n + n):
                l1t[x, LN_VALID] = 0
                l1t[x, LN_DIRTY] = 0
        g[G_LAST_PROGRESS] = now
    return INF


@njit
def guest_done(sm, slot, now, k, cfg, clk, wt, subt, chs, l1t, l2t, mapd, mrange, wake, mx):
    """A block finished on its stack SM: live-outs and written lines back on RX; the GPU drops its stale
    copies of those lines (L1 of the requester and L2) and resumes the warp when the acknowledgement lands."""
    i = wt[slot, W_MX]
    o = bo_row(i, mx)
    gs = wt[slot, W_HOST]
    s = mx[o + OI_STACK]
    t = now
    if mx[OF_MODE] != BO_IDEAL:
        t = link_send(s, 1, mx[o + OI_ACK_FL], now, chs)
        mx[mx[OF_CTR0] + BC_ACK_FLITS] += mx[o + OI_ACK_FL]
    gsm = gs // cfg[C_NSLOT]
    owl = mx[OF_WL0]
    w0, w1 = mx[o + OI_WL0], mx[o + OI_WL1]
    if mx[OF_COHERENT] == 0:  # step 3 off: nothing is invalidated
        w1 = w0
    for x in range(w0, w1):
        line = mx[owl + x]
        idx = c_find(l1t, l1_base(gsm, line, cfg), cfg[C_L1_ASSOC], line)
        if idx >= 0 and l1t[idx, LN_VALID] != 0:
            l1t[idx, LN_VALID] = 0
            mx[mx[OF_CTR0] + BC_INVAL_L1] += 1
        if cfg[C_L2_EN] != 0:
            mp = map_addr(mapd, mrange, cfg[C_NRANGE], line)
            idx = l2_lookup(mp[1], line, mp[5], cfg, l2t)[1]
            if idx >= 0 and l2t[idx, LN_VALID] != 0:
                l2t[idx, LN_VALID] = 0
                mx[mx[OF_CTR0] + BC_INVAL_L2] += 1
    mx[mx[OF_STK0] + s * NOFS + OFS_PEND] -= 1
    mx[mx[OF_CTR0] + BC_DONE] += 1
    mx[mx[OF_CTR0] + BC_RTT_PS] += t - mx[o + OI_T0]
    mx[mx[OF_CTR0] + BC_WAIT_PS] += now - mx[o + OI_ARRIVE]
    wake_warp(gs, t, cfg, wt, subt)
    if t < wake[gsm]:
        wake[gsm] = t
