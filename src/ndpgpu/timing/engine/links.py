"""Serial links between the GPU and memory stacks (HMC-style): one TX and one RX channel per stack.
Their configuration and state live in ``chs`` rows: channel c is behind a link when chs[c, H_LK_STACK]
is its stack + 1 (0: no links); row s holds stack s's link parameters and counters. Also the DRAM
controller's input (``dram_enqueue``), which crosses a link where there is one.
"""

from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .queues import cyc_at, edge, popcount

# Their configuration and state live in ``chs`` rows: channel c is behind a link when chs[c, H_LK_STACK]
# is its stack + 1 (0: no links, nothing below runs); row s holds stack s's link parameters and counters.


@njit
def link_send(s, rx, flits, t, chs):
    """Serialise a packet of ``flits`` on stack ``s``'s TX (rx=0) or RX (rx=1) channel, FIFO, from time ``t``.

    The channel is busy ``bytes / bandwidth`` from max(t, free); the packet arrives ``latency`` after its
    last bit. Returns the arrival time (ps)."""
    nbytes = flits * chs[s, H_LK_FLIT]
    mbps = chs[s, H_LK_TX_MBPS + rx]
    ser = (nbytes * 1000000 + mbps - 1) // mbps
    start = max(t, chs[s, H_LK_TX_FREE + rx])
    chs[s, H_LK_TX_FREE + rx] = start + ser
    chs[s, H_LK_TX_BUSY + rx] += ser
    chs[s, H_LK_TX_BYTES + rx] += nbytes
    chs[s, H_LK_TX_PKTS + rx] += 1
    return start + ser + chs[s, H_LK_TX_LAT + rx]


@njit
def pair_index(a, b, n):
    """Index of the stack pair a < b among the n * (n - 1) / 2 pairs (cross-stack link rows)."""
    return a * n - a * (a + 1) // 2 + (b - a - 1)


@njit
def src_stack(sm, cfg):
    """The stack whose logic layer holds SM ``sm``, or -1 for an SM of the GPU."""
    if sm < cfg[C_NGPU]:
        return -1
    return (sm - cfg[C_NGPU]) // cfg[C_SPS]


@njit
def link_data_flits(s, nbytes, chs):
    f = chs[s, H_LK_FLIT]
    return (nbytes + f - 1) // f


@njit
def dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g):
    """Put DRAM request ``d`` (kind DREAD/DWRITE, mapped) into its channel's scheduler queue."""
    c = rq[d, R_CHAN]
    slot = 0
    for i in range(cfg[C_DQ_SIZE]):
        if dq[c, i, DQ_RID] < 0:
            slot = i
            break
    chs[c, H_NQ] += 1
    rq[d, R_SEQ] = g[G_DQ_SEQ]
    g[G_DQ_SEQ] += 1
    t_in = now
    ls = chs[c, H_LK_STACK] - 1
    ldir = 0
    xs = rq[d, R_XSTK]
    if xs >= 0:  # from an SM inside stack xs: its own vaults directly, another stack's over a cross link
        ls = -1
        ts_ = c // cfg[C_VPS]
        if ts_ != xs and cfg[C_XL0] >= 0:
            ls = cfg[C_XL0] + pair_index(min(xs, ts_), max(xs, ts_), cfg[C_NSTK])
            ldir = 0 if xs < ts_ else 1
    rq[d, R_LROW] = ls
    rq[d, R_LDIR] = ldir
    if ls >= 0:  # behind a serial link: the request (a write with its data) crosses TX first
        if rq[d, R_KIND] == PK_DWRITE:
            t_in = link_send(ls, ldir, chs[ls, H_LK_WR_HDR] + link_data_flits(ls, popcount(rq[d, R_SECT]) * 32, chs),
                             now, chs)
        else:
            t_in = link_send(ls, ldir, chs[ls, H_LK_REQ_FL], now, chs)
    # whole DRAM cycles from the first DRAM edge at or after ``now`` (a rounded period would drift)
    rq[d, R_READY] = edge(clk, D_DRAM, cyc_at(clk, D_DRAM, t_in) + cfg[C_CTRL_LAT])
    dq[c, slot, DQ_RID] = d
    dq[c, slot, DQ_READY] = rq[d, R_READY]
    dq[c, slot, DQ_BANK] = rq[d, R_BANK] * cfg[C_NSA] + rq[d, R_ROW] % cfg[C_NSA]  # row-buffer unit
    dq[c, slot, DQ_ROW] = rq[d, R_ROW]
    dq[c, slot, DQ_KEY] = (NPRIO - 1 - rq[d, R_PRIO]) * (1 << 48) + rq[d, R_SEQ]
    dq[c, slot, DQ_WR] = 1 if rq[d, R_KIND] == PK_DWRITE else 0
    dq[c, slot, DQ_BG] = rq[d, R_BG]
    dq[c, slot, DQ_SLICE] = rq[d, R_SLICE]
    rq[d, R_TDQ] = now
    rq[d, R_TDS] = -1
    rq[d, R_HIT] = 0
    # bursts: distinct DRAM atoms touched by the requested 32-B sectors
    apb = cfg[C_ATOM_BYTES] // 32
    if apb <= 1:
        rq[d, R_BURSTS] = popcount(rq[d, R_SECT]) * (32 // cfg[C_ATOM_BYTES])
    else:
        m = rq[d, R_SECT]
        full = (1 << apb) - 1
        nb_ = 0
        for i in range(0, 8, apb):
            if m & (full << i):
                nb_ += 1
        rq[d, R_BURSTS] = nb_
    w = cfg[C_WK_CH] + c
    if rq[d, R_READY] < wake[w]:
        wake[w] = rq[d, R_READY]


@njit
def dram_space(cfg, chs, c):
    return cfg[C_DQ_SIZE] - chs[c, H_NQ]
