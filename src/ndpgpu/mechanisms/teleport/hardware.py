"""TELEPORT, the compiled side: the preload table and controller, the per-core buffer carved from unused
shared memory, thread-block gating and loads served from the buffer (seed 002, Sec. 3.2).

* **Controller** (:func:`cta_start`, :func:`core_service`): when a block is dispatched, each valid table
  row's range is computed from the row's coefficients and the block's ``blockIdx`` (Eqs. 2/3), and its
  128-B lines are requested one per cycle, row after row (back to back), as ordinary reads that carry
  ``R_MXD = block`` and the controller's priority class, addressed to the block's core. A line already in
  the core's buffer is not requested.
* **Buffer**: ``sets`` x ``ways`` tags, LRU within a set (the realistic buffer: 48 KB = 4 sets x 96 ways of
  128 B, ways given up to the kernel's own shared memory), or an ideal unlimited fully-associative
  buffer (the I-/S-/R-machines), a bitmap over the launch's preload lines.
* **Gating** (:func:`decide`): a block's warps wait until every expected line has arrived
  (:func:`sm_receive` counts them); a block with nothing to fetch starts at once.
* **Loads** (:func:`intercept`): a global load whose lines are all in the buffer is served from it
  (shared-memory latency, no L1/L2 traffic); otherwise it goes to L1 as usual.

* **MTHWP** (:func:`l1_access`; Lee et al., MICRO 2010, the paper's Sec. 5.4 comparison), when enabled: per
  SM, a per-warp stride table (PWS, 32 entries), a global stride table (GS, 32, promoted from PWS) and an
  inter-warp table (IP, 128), trained on the demand accesses the L1 sees, predicting one line per access
  (GS > IP > PWS), throttled per period by its early-eviction rate (docs/teleport.md lists every choice).

Nothing here reads the trace's future: the controller uses the table and the launch's grid, the buffer sees
the addresses of the load being issued, and MTHWP the demand addresses already looked up in L1.
"""

from ...timing.engine.layout import *  # noqa: F403  (the engine's columns and codes)
from ...timing.engine.ldst import wake_warp
from ...timing.engine.mapping import rq_map
from ...timing.engine.memq import ldst_hold
from ...timing.engine.queues import edge, q_space, rq_alloc, rq_release
from ...timing.engine.xbar import net_push, sm_port_waiting

MECHANISM = "teleport"
HOOKS = ("warp_start", "decide", "cta_start", "intercept", "core_service", "sm_receive", "l2_deliver", "l1_access")

PK_TFILL = PK_MECH  # a preload line's data on its way to the core
PACKET_NAMES = {PK_TFILL: "teleport_fill"}
MODE_REAL, MODE_I, MODE_S, MODE_R, MODE_OFF = 0, 1, 2, 3, 4  # OFF: no preloading (MTHWP alone)
RQ_RESERVE = 512  # request-pool entries the controller never takes (the L2 needs them to reach DRAM)
ARB_TPREF, ARB_CPREF, ARB_ALT = 0, 1, 2

(
    F_MODE, F_NSM, F_NSLOT, F_WPC, F_GX, F_GY, F_NCTA, F_NROW, F_ROW0, F_CTA0, F_Q0, F_QCAP, F_SMS0, F_TAG0,
    F_SETS, F_WAYS, F_UL0, F_NUL, F_BM0, F_NW, F_PC0, F_NPC, F_WK0, F_WKCAP, F_SMEM_LAT, F_PRIO, F_ARB, F_LSHIFT,
    F_STAMP, F_MAXOUT, F_CTR0, F_MT, F_MT0, F_MT_RINGN, F_MT_GAP, F_MT_PERIOD, F_SHARED, F_SEQN, F_SEQHEAD, F_GOUT,
    F_SHOLD, F_MT_GID, F_GW0, F_TLAST, F_NHELD, F_TBLK, F_UBLK, F_HDR
) = range(48)
# F_TLAST: when the controller sent the launch's last request so far (ps; -1: none yet); F_NHELD: S-machine
# blocks whose lines are not all requested; F_TBLK/F_UBLK: when every block of the launch had finished while the
# controller still had lines to request (ps; -1: never), and the requests sent by then
# table rows: base, typesize, min products x/y/z, min offset, max products x/y/z, max offset
RW_BASE, RW_TS, RW_MINX, RW_MINY, RW_MINZ, RW_MINOFF, RW_MAXX, RW_MAXY, RW_MAXZ, RW_MAXOFF = range(10)
NRW = 10
# per block
CT_EXPECT, CT_RECV, CT_READY, CT_SM, CT_ROW, CT_NEXT, CT_END, CT_T0, CT_ISSUED, CT_SEQ, CT_T1 = range(11)
NCT = 11
# per SM: controller FIFO head/count, pending buffer-hit wakes
SS_QH, SS_QN, SS_NWK, SS_OUT = range(4)
NSS = 4
# buffer tag entries: tag (-1 empty), LRU stamp, read since filled
TG_TAG, TG_STAMP, TG_USED = range(3)
NTG = 3

COUNTER_NAMES = ("TP_CTAS", "TP_LINES", "TP_REQS", "TP_SKIPPED", "TP_ARRIVED", "TP_FILLED", "TP_EVICTED",
                 "TP_USED", "TP_WASTED", "TP_HIT_LD", "TP_HIT_TX", "TP_MISS_LD", "TP_MISS_TX", "TP_GATED_CTAS",
                 "TP_GATE_PS", "TP_MAX_LINES", "TP_START_PS", "TP_STARTED", "TP_HIT_READS",
                 "MT_ACCESSES", "MT_TRAIN", "MT_GS", "MT_IP", "MT_PWS", "MT_PROMOTED", "MT_THROTTLED", "MT_REQUESTED",
                 "MT_TRACKED", "MT_USEFUL", "MT_MISSED", "MT_EXPIRED", "MT_UNUSED_END", "MT_PERIODS", "MT_LEVEL_SUM")
(
    TC_CTAS, TC_LINES, TC_REQS, TC_SKIPPED, TC_ARRIVED, TC_FILLED, TC_EVICTED, TC_USED, TC_WASTED, TC_HIT_LD,
    TC_HIT_TX, TC_MISS_LD, TC_MISS_TX, TC_GATED, TC_GATE_PS, TC_MAX_LINES, TC_START_PS, TC_STARTED, TC_HIT_READS,
    MC_ACCESSES, MC_TRAIN, MC_GS, MC_IP, MC_PWS, MC_PROMOTED, MC_THROTTLED, MC_REQUESTED, MC_TRACKED, MC_USEFUL,
    MC_MISSED, MC_EXPIRED, MC_UNUSED_END, MC_PERIODS, MC_LEVEL_SUM
) = range(len(COUNTER_NAMES))

# MTHWP, per SM: a header, the three tables (fully associative, LRU by a stamp) and the accounting ring
MS_LSLOT, MS_LPC, MS_LLINE, MS_LNOW, MS_LEVEL, MS_NACC, MS_PUSE, MS_PEXP, MS_PREQ, MS_CAND, MS_RHEAD, MS_CLOCK = \
    range(12)
NMS = 12
PWS_N, GS_N, IP_N = 32, 32, 128  # entries (the paper's Sec. 5.4 configuration)
PW_SLOT, PW_PC, PW_LAST, PW_STRIDE, PW_CONF, PW_STAMP = range(6)
NPW = 6
GS_PC, GS_STRIDE, GS_STAMP = range(3)
NGS = 3
IP_PC, IP_SLOT, IP_LINE, IP_STRIDE, IP_CONF, IP_STAMP = range(6)
NIP = 6
PROMOTE = 3  # PWS entries (warps) of one PC agreeing on a stride promote it to GS
MAX_LEVEL = 3  # throttle levels: a candidate issued 1 in 2**level, none at MAX_LEVEL


@njit
def mt_size(ringn):
    """Words of one SM's MTHWP state."""
    return NMS + PWS_N * NPW + GS_N * NGS + IP_N * NIP + 2 * ringn


@njit
def ctr_add(mx, c, v):
    mx[mx[F_CTR0] + c] += v


@njit
def cta_base(c, mx):
    return mx[F_CTA0] + c * NCT


@njit
def sms_base(sm, mx):
    return mx[F_SMS0] + sm * NSS


@njit
def row_range(c, row, mx):
    """Eqs. 2/3: block ``c``'s first and last line of table row ``row``."""
    o = mx[F_ROW0] + row * NRW
    gx = mx[F_GX]
    gy = mx[F_GY]
    bx = c % gx
    by = (c // gx) % gy
    bz = c // (gx * gy)
    ts = mx[o + RW_TS]
    lo = mx[o + RW_BASE] + ts * (bx * mx[o + RW_MINX] + by * mx[o + RW_MINY] + bz * mx[o + RW_MINZ] + mx[o + RW_MINOFF])
    hi = mx[o + RW_BASE] + ts * (bx * mx[o + RW_MAXX] + by * mx[o + RW_MAXY] + bz * mx[o + RW_MAXZ]
                                 + mx[o + RW_MAXOFF]) + ts - 1
    sh = mx[F_LSHIFT]
    return (lo >> sh) << sh, (hi >> sh) << sh


# ------------------------------------------------------------------------------------------------------
# the buffer


@njit
def ul_index(line, mx):
    """Position of ``line`` among the launch's preload lines (ideal buffer), -1 if none."""
    lo = 0
    hi = mx[F_NUL]
    b = mx[F_UL0]
    while lo < hi:
        mid = (lo + hi) // 2
        if mx[b + mid] < line:
            lo = mid + 1
        else:
            hi = mid
    if lo < mx[F_NUL] and mx[b + lo] == line:
        return lo
    return -1


@njit
def tag_set(sm, line, mx):
    s = (line >> mx[F_LSHIFT]) % mx[F_SETS]
    return mx[F_TAG0] + ((sm * mx[F_SETS] + s) * mx[F_WAYS]) * NTG


@njit
def buf_find(sm, line, mx):
    """The buffer slot holding ``line`` at SM ``sm`` (an mx offset), or -1."""
    if mx[F_MODE] != MODE_REAL:
        u = ul_index(line, mx)
        if u < 0:
            return -1
        w = mx[F_BM0] + (sm * mx[F_NW] + u // 32) * 2  # bit pairs: present, used
        return w if (mx[w] >> (u % 32)) & 1 else -1
    b = tag_set(sm, line, mx)
    for wy in range(mx[F_WAYS]):
        if mx[b + wy * NTG + TG_TAG] == line:
            return b + wy * NTG
    return -1


@njit
def buf_use(sm, line, slot, mx):
    """Mark the entry read (and most recently used)."""
    if mx[F_MODE] != MODE_REAL:
        u = ul_index(line, mx)
        mx[slot + 1] |= 1 << (u % 32)
        return
    mx[F_STAMP] += 1
    mx[slot + TG_STAMP] = mx[F_STAMP]
    mx[slot + TG_USED] = 1


@njit
def buf_fill(sm, line, mx):
    """Put ``line`` into SM ``sm``'s buffer (LRU victim in its set); False when it has no ways."""
    if buf_find(sm, line, mx) >= 0:
        return True
    if mx[F_MODE] != MODE_REAL:
        u = ul_index(line, mx)
        if u < 0:
            return False
        w = mx[F_BM0] + (sm * mx[F_NW] + u // 32) * 2
        mx[w] |= 1 << (u % 32)
        ctr_add(mx, TC_FILLED, 1)
        return True
    if mx[F_WAYS] == 0:
        return False
    b = tag_set(sm, line, mx)
    best = b
    for wy in range(mx[F_WAYS]):
        e = b + wy * NTG
        if mx[e + TG_TAG] < 0:
            best = e
            break
        if mx[e + TG_STAMP] < mx[best + TG_STAMP]:
            best = e
    if mx[best + TG_TAG] >= 0:
        ctr_add(mx, TC_EVICTED, 1)
        if mx[best + TG_USED] != 0:
            ctr_add(mx, TC_USED, 1)
        else:
            ctr_add(mx, TC_WASTED, 1)
    mx[F_STAMP] += 1
    mx[best + TG_TAG] = line
    mx[best + TG_STAMP] = mx[F_STAMP]
    mx[best + TG_USED] = 0
    ctr_add(mx, TC_FILLED, 1)
    return True


# ------------------------------------------------------------------------------------------------------
# blocks: dispatch, gating, wake-up


@njit
def warp_start(gwarp, mx):
    """Every warp is watched: its block may be gated, its loads may hit the buffer (none without preloading;
    MTHWP with global warp ids watches every warp to learn its id)."""
    return -1 if mx[F_MODE] == MODE_OFF and mx[F_MT_GID] == 0 else gwarp


@njit
def decide(slot, now, wt, chs, mx):
    """A warp of a block whose preloads have not all arrived waits (the block is gated)."""
    if mx[F_MT_GID] != 0:
        mx[mx[F_GW0] + slot] = wt[slot, W_MX]  # the slot's global warp id, for MTHWP's inter-warp table
        if mx[F_MODE] == MODE_OFF:
            return -1
    c = wt[slot, W_MX] // mx[F_WPC]
    return -1 if mx[cta_base(c, mx) + CT_READY] != 0 else -2


@njit
def cta_ready(sm, c, now, k, cfg, clk, wt, subt, mx):
    """Block ``c``'s preloads are complete: its warps may issue."""
    o = cta_base(c, mx)
    if mx[o + CT_READY] != 0:
        return
    mx[o + CT_READY] = 1
    mx[mx[F_CTR0] + TC_GATE_PS] += now - mx[o + CT_T0]
    t = edge(clk, D_CORE, k + 1)
    nsl = mx[F_NSLOT]
    wpc = mx[F_WPC]
    for j in range(nsl):
        slot = sm * nsl + j
        st = wt[slot, W_STATE]
        if (st == WS_ACTIVE and wt[slot, W_ISSUED] == 0 and wt[slot, W_MX] >= 0 and wt[slot, W_MX] // wpc == c
                and wt[slot, W_READY] >= INF):
            wake_warp(slot, t, cfg, wt, subt)


@njit
def fill_all(sm, c, mx):
    """The ideal machines' instant fill: every line of every row of block ``c`` into the buffer."""
    n = 0
    for row in range(mx[F_NROW]):
        lo, hi = row_range(c, row, mx)
        step = 1 << mx[F_LSHIFT]
        ln = lo
        while ln <= hi:
            buf_fill(sm, ln, mx)
            n += 1
            ln += step
    return n


@njit
def table_lines(ctas, mx):
    """The lines the table gives blocks ``ctas`` (rows counted apart, as the controller requests them)."""
    n = 0
    sh = mx[F_LSHIFT]
    for c in ctas:
        for row in range(mx[F_NROW]):
            lo, hi = row_range(c, row, mx)
            if hi >= lo:
                n += ((hi - lo) >> sh) + 1
    return n


@njit
def cta_start(sm, cta, cslot, now, k, cfg, ctat, smt, mx):
    """The dispatcher hands block ``cta`` to the controller (Eqs. 2/3 are evaluated row by row)."""
    o = cta_base(cta, mx)
    mx[o + CT_EXPECT] = 0
    mx[o + CT_RECV] = 0
    mx[o + CT_SM] = sm
    mx[o + CT_ROW] = -1
    mx[o + CT_NEXT] = 1
    mx[o + CT_END] = 0
    mx[o + CT_T0] = now
    mx[o + CT_T1] = -1
    mx[o + CT_ISSUED] = 0
    ctr_add(mx, TC_CTAS, 1)
    mode = mx[F_MODE]
    if mode == MODE_OFF:
        mx[o + CT_READY] = 1
        mx[o + CT_ISSUED] = 1
        return
    if mode == MODE_I or mode == MODE_S:
        n = fill_all(sm, cta, mx)
        ctr_add(mx, TC_LINES, n)
        mx[o + CT_READY] = 1
        if mode == MODE_I or mx[F_NROW] == 0:
            mx[o + CT_ISSUED] = 1
            return
        mx[F_SHOLD] += 1  # the launch lasts until the controller has issued this block's lines (core_service)
        mx[F_NHELD] += 1
    elif mx[F_NROW] == 0:
        mx[o + CT_READY] = 1
        mx[o + CT_ISSUED] = 1
        return
    else:
        mx[o + CT_READY] = 0
        ctr_add(mx, TC_GATED, 1)
    b = sms_base(sm, mx)
    cap = mx[F_QCAP]
    mx[mx[F_Q0] + sm * cap + (mx[b + SS_QH] + mx[b + SS_QN]) % cap] = cta
    mx[b + SS_QN] += 1
    mx[o + CT_SEQ] = mx[F_SEQN]  # the shared controller serves blocks in dispatch order
    mx[F_SEQN] += 1


# ------------------------------------------------------------------------------------------------------
# the controller's requests, and the replies


@njit
def next_line(c, mx):
    """The next line block ``c`` must request (-1: its rows are done); advances row by row."""
    o = cta_base(c, mx)
    while mx[o + CT_NEXT] > mx[o + CT_END]:
        mx[o + CT_ROW] += 1
        if mx[o + CT_ROW] >= mx[F_NROW]:
            return -1
        lo, hi = row_range(c, mx[o + CT_ROW], mx)
        mx[o + CT_NEXT] = lo
        mx[o + CT_END] = hi
    return mx[o + CT_NEXT]


@njit
def issue_done(sm, c, now, k, cfg, clk, wt, subt, g, mx):
    """Every line of block ``c`` is requested: an S-machine block releases its hold on the launch's end."""
    o = cta_base(c, mx)
    mx[o + CT_ISSUED] = 1
    if mx[F_MODE] == MODE_S:
        g[G_CTAS_DONE] += 1
        mx[F_NHELD] -= 1
    if mx[o + CT_EXPECT] > mx[mx[F_CTR0] + TC_MAX_LINES]:
        mx[mx[F_CTR0] + TC_MAX_LINES] = mx[o + CT_EXPECT]
    if mx[o + CT_RECV] >= mx[o + CT_EXPECT]:
        cta_ready(sm, c, now, k, cfg, clk, wt, subt, mx)


@njit
def wake_seq_head(sm, now, wake, mx):
    """The shared controller moved on to the next block in dispatch order: wake the core that holds it (now: a
    core after ``sm`` ticks later in this cycle, one before it at the next, as when the cores waited by polling)."""
    cap = mx[F_QCAP]
    for s in range(mx[F_NSM]):
        if s == sm:
            continue
        b = sms_base(s, mx)
        if mx[b + SS_QN] > 0 and mx[cta_base(mx[mx[F_Q0] + s * cap + mx[b + SS_QH]], mx) + CT_SEQ] == mx[F_SEQHEAD]:
            if now < wake[s]:
                wake[s] = now
            return


@njit
def core_service(sm, now, k, cfg, clk, ufree, wt, subt, smt, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """Buffer hits' wake-ups; the controller's next line request for this core's oldest waiting block.

    The S-machine's blocks are not gated, so one may end before its lines are requested: each queued block
    holds the launch's end (one CTA less counted done) until its last line is issued (:func:`issue_done`)."""
    if mx[F_SHOLD] > 0:
        g[G_CTAS_DONE] -= mx[F_SHOLD]
        mx[F_SHOLD] = 0
    if mx[F_NHELD] > 0 and mx[F_TBLK] < 0 and g[G_CTAS_DONE] + mx[F_NHELD] >= cfg[C_NCTAS]:
        mx[F_TBLK] = now  # every block has finished; the launch waits for the controller alone
        mx[F_UBLK] = mx[mx[F_CTR0] + TC_REQS]
    b = sms_base(sm, mx)
    nw = mx[b + SS_NWK]
    if nw > 0:
        w0 = mx[F_WK0] + sm * mx[F_WKCAP] * 2
        for i in range(nw):
            wake_warp(mx[w0 + 2 * i], mx[w0 + 2 * i + 1], cfg, wt, subt)
        mx[b + SS_NWK] = 0
    if mx[b + SS_QN] == 0:
        return INF
    nxt = edge(clk, D_CORE, k + 1)
    cap = mx[F_QCAP]
    qout = cfg[C_Q_SMOUT] + sm
    arb = mx[F_ARB]
    core_first = arb == ARB_CPREF or (arb == ARB_ALT and k % 2 == 1)
    step = 1 << mx[F_LSHIFT]
    while mx[b + SS_QN] > 0:
        c = mx[mx[F_Q0] + sm * cap + mx[b + SS_QH]]
        o = cta_base(c, mx)
        shared = mx[F_SHARED] != 0
        if shared and mx[o + CT_SEQ] != mx[F_SEQHEAD]:
            # one controller for every core: an earlier block (another core's) is being served; this core sleeps
            # until that block is done (wake_seq_head)
            return INF
        ln = next_line(c, mx)
        if ln < 0:
            mx[b + SS_QH] = (mx[b + SS_QH] + 1) % cap
            mx[b + SS_QN] -= 1
            if shared:
                mx[F_SEQHEAD] += 1
                wake_seq_head(sm, now, wake, mx)
            issue_done(sm, c, now, k, cfg, clk, wt, subt, g, mx)
            continue
        if mx[F_MODE] == MODE_REAL and buf_find(sm, ln, mx) >= 0:
            mx[o + CT_NEXT] += step  # already here (a neighbour block's line): not requested
            ctr_add(mx, TC_SKIPPED, 1)
            continue
        full = False
        if mx[F_MAXOUT] > 0:  # an optional cap (0, the default: only the queues bound the requests)
            full = mx[F_GOUT] >= mx[F_MAXOUT] * mx[F_NSM] if shared else mx[b + SS_OUT] >= mx[F_MAXOUT]
        if q_space(qm, qout) <= 0 or g[G_RQ_TOP] <= RQ_RESERVE or full:
            return nxt  # (the request pool's last entries stay with the L2's DRAM requests: no deadlock)
        if core_first and sm_port_waiting(sm, now, cfg, qb, qm, rq):
            return nxt  # the core's requests at its port go first this cycle
        r = rq_alloc(rq, rq_free, g)
        rq[r, R_KIND] = PK_READ
        rq[r, R_LINE] = ln
        rq[r, R_SECT] = (1 << (step // 32)) - 1
        rq[r, R_BYTES] = 0
        rq[r, R_SRC] = sm
        rq[r, R_PC] = -1
        rq[r, R_T0] = now
        rq[r, R_READY] = nxt
        rq[r, R_PRIO] = 0 if core_first else mx[F_PRIO]
        rq[r, R_MXD] = c
        rq_map(rq, r, mapd, mrange, cfg[C_NRANGE], ln)
        net_push(qout, r, cfg, qb, qm, wake, NET_REQ, rq)
        mx[F_TLAST] = now
        if mx[o + CT_T1] < 0:  # the block's first request
            mx[o + CT_T1] = now
            ctr_add(mx, TC_START_PS, now - mx[o + CT_T0])
            ctr_add(mx, TC_STARTED, 1)
        mx[o + CT_NEXT] += step
        mx[o + CT_EXPECT] += 1
        mx[b + SS_OUT] += 1
        mx[F_GOUT] += 1
        ctr_add(mx, TC_REQS, 1)
        if mx[F_MODE] != MODE_S:
            ctr_add(mx, TC_LINES, 1)
        return nxt  # one request per cycle
    return INF


@njit
def l2_deliver(slice, r, ready, now, cfg, rq, rq_free, g, mx):
    """A preload line's data leaves the L2 for the block's core as the buffer's fill packet."""
    rq[r, R_KIND] = PK_TFILL
    return 0


@njit
def sm_receive(sm, r, now, k, cfg, clk, wt, subt, smt, rq, rq_free, g, mx):
    """A preload line arrived: into the buffer (the S-machine filled it at dispatch); the block's count."""
    c = rq[r, R_MXD]
    line = rq[r, R_LINE]
    rq_release(rq_free, g, r)
    b = sms_base(sm, mx)
    if mx[b + SS_OUT] > 0:
        mx[b + SS_OUT] -= 1
        mx[F_GOUT] -= 1
    if c < 0 or c >= mx[F_NCTA]:
        return 0  # (a reply that outlived its launch: the S-machine's launch may end before its data arrives)
    ctr_add(mx, TC_ARRIVED, 1)
    if mx[F_MODE] != MODE_S:
        buf_fill(sm, line, mx)
    o = cta_base(c, mx)
    mx[o + CT_RECV] += 1
    if mx[o + CT_ISSUED] != 0 and mx[o + CT_RECV] >= mx[o + CT_EXPECT]:
        cta_ready(sm, c, now, k, cfg, clk, wt, subt, mx)
    return 0


# ------------------------------------------------------------------------------------------------------
# loads served from the buffer


@njit
def hit_passes(t0, n, txs):
    """Shared-memory passes of a buffer hit on lines ``txl[t0:t0+n]``: a buffered line spans the 32 banks once,
    so lines whose read sectors share banks are read one after another; at the trace's 32-B sector resolution,
    the most lines reading any one sector position (N for N fully read lines; at least 1)."""
    best = 1
    for s in range(4):
        m = 0
        for t in range(t0, t0 + n):
            if (txs[t] >> s) & 1:
                m += 1
        if m > best:
            best = m
    return best


@njit
def intercept(sm, slot, pc, now, k, cfg, clk, rec, txl, txs, wt, smt, l1t, mapd, mrange, mx):
    """A global load whose lines are all in the buffer is served from it as a shared-memory access: one pass
    per line (per bank conflict, :func:`hit_passes`), each holding the LD/ST port a cycle, the data after the
    shared-memory latency plus the extra passes."""
    if mx[F_MODE] == MODE_OFF or pc >= mx[F_NPC] or mx[mx[F_PC0] + pc] == 0:
        return 0
    ri = wt[slot, W_REC]
    if ri >= wt[slot, W_REC_END] or rec[ri, RC_PC] != pc or rec[ri, RC_SPACE] != SP_GLOBAL:
        return 0
    t0 = rec[ri, RC_TXS]
    n = rec[ri, RC_NTX]
    if n < 1:
        return 0
    for t in range(t0, t0 + n):
        if buf_find(sm, txl[t], mx) < 0:
            ctr_add(mx, TC_MISS_LD, 1)
            ctr_add(mx, TC_MISS_TX, n)
            return 0
    for t in range(t0, t0 + n):
        buf_use(sm, txl[t], buf_find(sm, txl[t], mx), mx)
    passes = hit_passes(t0, n, txs)
    ctr_add(mx, TC_HIT_LD, 1)
    ctr_add(mx, TC_HIT_TX, n)
    ctr_add(mx, TC_HIT_READS, passes)
    # the LD/ST port held a cycle per pass (core.mem_queue: after the instructions waiting for it, which then
    # wake the warp); the data after the shared-memory latency plus the extra passes
    woken = ldst_hold(sm, slot, pc, passes, max(1, mx[F_SMEM_LAT]) + passes - 1, now, k, cfg, clk, wt, smt)
    if woken < 0:
        return 2
    b = sms_base(sm, mx)
    i = mx[b + SS_NWK]
    if i >= mx[F_WKCAP]:
        return 1  # (cannot happen: one entry per warp slot) served without the latency
    w0 = mx[F_WK0] + sm * mx[F_WKCAP] * 2
    mx[w0 + 2 * i] = slot
    mx[w0 + 2 * i + 1] = woken
    mx[b + SS_NWK] = i + 1
    return 2


# ------------------------------------------------------------------------------------------------------
# MTHWP (Lee et al., MICRO 2010): the L1's many-thread-aware stride prefetcher


@njit
def mt_base(sm, mx):
    return mx[F_MT0] + sm * mt_size(mx[F_MT_RINGN])


@njit
def mt_stamp(b, mx):
    mx[b + MS_CLOCK] += 1
    return mx[b + MS_CLOCK]


@njit
def ring_put(b, line, flag, mx):
    """Push ``line`` into the SM's accounting ring (an L1-sized FIFO: the lines the L1 probably holds); a
    prefetched line pushed out unread counts as evicted unused."""
    n = mx[F_MT_RINGN]
    if n <= 0:
        return
    r0 = b + NMS + PWS_N * NPW + GS_N * NGS + IP_N * NIP
    h = mx[b + MS_RHEAD]
    if mx[r0 + 2 * h + 1] != 0:
        ctr_add(mx, MC_EXPIRED, 1)
        mx[b + MS_PEXP] += 1
    mx[r0 + 2 * h] = line
    mx[r0 + 2 * h + 1] = flag
    mx[b + MS_RHEAD] = (h + 1) % n


@njit
def ring_find(b, line, mx):
    """The ring slot (an mx offset) holding ``line``, or -1."""
    r0 = b + NMS + PWS_N * NPW + GS_N * NGS + IP_N * NIP
    for i in range(mx[F_MT_RINGN]):
        if mx[r0 + 2 * i] == line:
            return r0 + 2 * i
    return -1


@njit
def ring_demand(b, line, hit, mx):
    """A demand access: a prefetched line's first demand counts useful (an L1 hit) or missed (late, dropped or
    evicted); a missed line enters the ring."""
    e = ring_find(b, line, mx)
    if e >= 0:
        if mx[e + 1] != 0:
            mx[e + 1] = 0
            if hit != 0:
                ctr_add(mx, MC_USEFUL, 1)
                mx[b + MS_PUSE] += 1
            else:
                ctr_add(mx, MC_MISSED, 1)
        return
    if hit == 0:
        ring_put(b, line, 0, mx)


@njit
def pws_train(b, slot, pc, line, mx):
    """Per-warp stride: the stride of (warp, PC) confirmed when seen twice; returns the entry (mx offset)."""
    t0 = b + NMS
    victim = t0
    for i in range(PWS_N):
        e = t0 + i * NPW
        if mx[e + PW_STAMP] > 0 and mx[e + PW_PC] == pc and mx[e + PW_SLOT] == slot:
            delta = line - mx[e + PW_LAST]
            if delta != 0:
                if delta == mx[e + PW_STRIDE]:
                    mx[e + PW_CONF] = min(mx[e + PW_CONF] + 1, 3)
                else:
                    mx[e + PW_STRIDE] = delta
                    mx[e + PW_CONF] = 0
                mx[e + PW_LAST] = line
            mx[e + PW_STAMP] = mt_stamp(b, mx)
            return e
        if mx[e + PW_STAMP] < mx[victim + PW_STAMP]:
            victim = e
    mx[victim + PW_SLOT] = slot
    mx[victim + PW_PC] = pc
    mx[victim + PW_LAST] = line
    mx[victim + PW_STRIDE] = 0
    mx[victim + PW_CONF] = 0
    mx[victim + PW_STAMP] = mt_stamp(b, mx)
    return victim


@njit
def gs_find(b, pc, mx):
    g0 = b + NMS + PWS_N * NPW
    for i in range(GS_N):
        e = g0 + i * NGS
        if mx[e + GS_STAMP] > 0 and mx[e + GS_PC] == pc:
            return e
    return -1


@njit
def gs_promote(b, pc, stride, mx):
    """Promote (pc, stride) to GS when PROMOTE warps' PWS entries agree on it."""
    if gs_find(b, pc, mx) >= 0:
        return
    t0 = b + NMS
    n = 0
    for i in range(PWS_N):
        e = t0 + i * NPW
        if mx[e + PW_STAMP] > 0 and mx[e + PW_PC] == pc and mx[e + PW_CONF] >= 1 and mx[e + PW_STRIDE] == stride:
            n += 1
    if n < PROMOTE:
        return
    g0 = b + NMS + PWS_N * NPW
    victim = g0
    for i in range(GS_N):
        e = g0 + i * NGS
        if mx[e + GS_STAMP] < mx[victim + GS_STAMP]:
            victim = e
    mx[victim + GS_PC] = pc
    mx[victim + GS_STRIDE] = stride
    mx[victim + GS_STAMP] = mt_stamp(b, mx)
    ctr_add(mx, MC_PROMOTED, 1)


@njit
def ip_train(b, slot, pc, line, mx):
    """Inter-warp stride of a PC: (line - last line) / (warp - last warp), confirmed when seen twice."""
    i0 = b + NMS + PWS_N * NPW + GS_N * NGS
    victim = i0
    for i in range(IP_N):
        e = i0 + i * NIP
        if mx[e + IP_STAMP] > 0 and mx[e + IP_PC] == pc:
            ds = slot - mx[e + IP_SLOT]
            if ds != 0:
                dl = line - mx[e + IP_LINE]
                if dl % ds == 0 and dl != 0 and dl // ds == mx[e + IP_STRIDE]:
                    mx[e + IP_CONF] = min(mx[e + IP_CONF] + 1, 3)
                else:
                    mx[e + IP_STRIDE] = dl // ds if dl % ds == 0 else 0
                    mx[e + IP_CONF] = 0
            mx[e + IP_SLOT] = slot
            mx[e + IP_LINE] = line
            mx[e + IP_STAMP] = mt_stamp(b, mx)
            return e
        if mx[e + IP_STAMP] < mx[victim + IP_STAMP]:
            victim = e
    mx[victim + IP_PC] = pc
    mx[victim + IP_SLOT] = slot
    mx[victim + IP_LINE] = line
    mx[victim + IP_STRIDE] = 0
    mx[victim + IP_CONF] = 0
    mx[victim + IP_STAMP] = mt_stamp(b, mx)
    return victim


@njit
def mt_period_end(b, mx):
    """Adaptive throttling, once per period of the SM's L1 accesses: early-eviction rate (prefetched lines
    evicted unused / used) high -> no prefetching, medium -> fewer, low -> more; after a silent period at the
    top level, one level down (a probe)."""
    lvl = mx[b + MS_LEVEL]
    use = mx[b + MS_PUSE]
    exp = mx[b + MS_PEXP]
    if lvl >= MAX_LEVEL and mx[b + MS_PREQ] == 0:
        lvl = MAX_LEVEL - 1
    elif use + exp > 0:
        if exp > use:
            lvl = MAX_LEVEL
        elif 4 * exp > use:
            lvl = min(lvl + 1, MAX_LEVEL)
        else:
            lvl = max(lvl - 1, 0)
    mx[b + MS_LEVEL] = lvl
    mx[b + MS_NACC] = 0
    mx[b + MS_PUSE] = 0
    mx[b + MS_PEXP] = 0
    mx[b + MS_PREQ] = 0
    ctr_add(mx, MC_PERIODS, 1)
    ctr_add(mx, MC_LEVEL_SUM, lvl)


@njit
def l1_access(sm, slot, pc, line, hit, d, now, mx):
    """MTHWP: train on this demand access, predict one line (GS > IP > PWS), throttle."""
    if mx[F_MT] == 0 or d != 0:
        return -1
    b = mt_base(sm, mx)
    ctr_add(mx, MC_ACCESSES, 1)
    ring_demand(b, line, hit, mx)
    # a warp instruction's transactions come one after another: train on its first line only
    same = (mx[b + MS_LSLOT] == slot and mx[b + MS_LPC] == pc and line > mx[b + MS_LLINE]
            and now - mx[b + MS_LNOW] <= mx[F_MT_GAP])
    mx[b + MS_LSLOT] = slot
    mx[b + MS_LPC] = pc
    mx[b + MS_LLINE] = line
    mx[b + MS_LNOW] = now
    g = gs_find(b, pc, mx)
    if not same:
        ctr_add(mx, MC_TRAIN, 1)
        # IP's warp id: the warp slot of this SM (default), or the warp's global id (its next warp may run on
        # another SM)
        ip_train(b, mx[mx[F_GW0] + slot] if mx[F_MT_GID] != 0 else slot, pc, line, mx)
        if g < 0:  # a promoted PC trains no more per warp
            pw = pws_train(b, slot, pc, line, mx)
            if mx[pw + PW_CONF] >= 1:
                gs_promote(b, pc, mx[pw + PW_STRIDE], mx)
    mx[b + MS_NACC] += 1
    if mx[b + MS_NACC] >= mx[F_MT_PERIOD]:
        mt_period_end(b, mx)
    # predict (a stride is a difference of lines, so the target is a line)
    stride = 0
    if g >= 0:
        stride = mx[g + GS_STRIDE]
        ctr_add(mx, MC_GS, 1)
    else:
        i0 = b + NMS + PWS_N * NPW + GS_N * NGS
        for i in range(IP_N):
            e = i0 + i * NIP
            if mx[e + IP_STAMP] > 0 and mx[e + IP_PC] == pc:
                if mx[e + IP_CONF] >= 1:
                    stride = mx[e + IP_STRIDE]
                break
        if stride != 0:
            ctr_add(mx, MC_IP, 1)
        else:
            t0 = b + NMS
            for i in range(PWS_N):
                e = t0 + i * NPW
                if mx[e + PW_STAMP] > 0 and mx[e + PW_PC] == pc and mx[e + PW_SLOT] == slot:
                    if mx[e + PW_CONF] >= 1:
                        stride = mx[e + PW_STRIDE]
                    break
            if stride != 0:
                ctr_add(mx, MC_PWS, 1)
    target = line + stride
    if stride == 0 or target < 0:
        return -1
    lvl = mx[b + MS_LEVEL]
    mx[b + MS_CAND] += 1
    if lvl >= MAX_LEVEL or mx[b + MS_CAND] % (1 << lvl) != 0:
        ctr_add(mx, MC_THROTTLED, 1)
        return -1
    ctr_add(mx, MC_REQUESTED, 1)
    mx[b + MS_PREQ] += 1
    if ring_find(b, target, mx) < 0:
        ring_put(b, target, 1, mx)
        ctr_add(mx, MC_TRACKED, 1)
    return target
