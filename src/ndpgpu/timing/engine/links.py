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
def dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g, direct):
    """Put DRAM request ``d`` (kind DREAD/DWRITE, mapped) into its channel's scheduler queue, or, with the
    memory-partition front end (``dram.partition_queue``) and not ``direct`` (an L2 fill's write-back, which
    takes the scheduler's room beyond its size), at the tail of its L2-to-DRAM queue (``dram.pq_tick`` moves it
    on)."""
    c = rq[d, R_CHAN]
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
    rq[d, R_TDQ] = now
    rq[d, R_TDS] = -1
    rq[d, R_HIT] = 0
    # bursts: distinct DRAM atoms touched by the requested 32-B sectors (or, with C_SECTOR_BURSTS, one whole
    # atom per sector read: GPGPU-Sim's model, where each sector miss is a DRAM read of at least one atom)
    apb = cfg[C_ATOM_BYTES] // 32
    if apb <= 1 or (cfg[C_SECTOR_BURSTS] and rq[d, R_KIND] != PK_DWRITE):
        rq[d, R_BURSTS] = popcount(rq[d, R_SECT]) * max(1, 32 // cfg[C_ATOM_BYTES])
    else:
        m = rq[d, R_SECT]
        full = (1 << apb) - 1
        nb_ = 0
        for i in range(0, 8, apb):
            if m & (full << i):
                nb_ += 1
        rq[d, R_BURSTS] = nb_
    w = cfg[C_WK_CH] + c
    if cfg[C_PQ_CAP] > 0 and not direct:
        # the front end: waits in the L2-to-DRAM queue; the channel looks at it from its next edge
        dq[c, cfg[C_DQ_SLOTS] + (chs[c, H_PQ_HEAD] + chs[c, H_PQ_N]) % cfg[C_PQ_RING], DQ_RID] = d
        chs[c, H_PQ_N] += 1
        rq[d, R_READY] = INF
        t = edge(clk, D_DRAM, cyc_at(clk, D_DRAM, now + 1))
        if t < wake[w]:
            wake[w] = t
        return
    # whole DRAM cycles from the first DRAM edge at or after ``now`` (a rounded period would drift)
    rq[d, R_READY] = edge(clk, D_DRAM, cyc_at(clk, D_DRAM, t_in) + cfg[C_CTRL_LAT])
    dram_place(d, c, cfg, rq, dq, chs)
    if rq[d, R_READY] < wake[w]:
        wake[w] = rq[d, R_READY]


@njit
def dram_place(d, c, cfg, rq, dq, chs):
    """Request ``d`` takes a free entry of channel ``c``'s scheduler queue."""
    slot = 0
    for i in range(cfg[C_DQ_SLOTS]):
        if dq[c, i, DQ_RID] < 0:
            slot = i
            break
    chs[c, H_NQ] += 1
    dq[c, slot, DQ_RID] = d
    dq[c, slot, DQ_READY] = rq[d, R_READY]
    dq[c, slot, DQ_BANK] = rq[d, R_BANK] * cfg[C_NSA] + rq[d, R_ROW] % cfg[C_NSA]  # row-buffer unit
    dq[c, slot, DQ_ROW] = rq[d, R_ROW]
    dq[c, slot, DQ_KEY] = (NPRIO - 1 - rq[d, R_PRIO]) * (1 << 48) + rq[d, R_SEQ]
    dq[c, slot, DQ_WR] = 1 if rq[d, R_KIND] == PK_DWRITE else 0
    dq[c, slot, DQ_BG] = rq[d, R_BG]
    dq[c, slot, DQ_SLICE] = rq[d, R_SLICE]


@njit
def dram_space(cfg, chs, c):
    """Requests channel ``c`` can take now: room in its scheduler's queue, or with the memory-partition front end
    in its L2-to-DRAM queue."""
    if cfg[C_PQ_CAP] > 0:
        return cfg[C_PQ_CAP] - (chs[c, H_PQ_N] - chs[c, H_PQ_ADM])
    return cfg[C_DQ_SIZE] - (chs[c, H_NQ] - chs[c, H_NSVC])


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


def metrics(st, put, ratio) -> None:
    """Memory stacks (per-stack vault bandwidth), serial links (per channel), cross-stack links, the SMs
    inside the stacks, and logic-die metadata."""
    K = st.consts
    secs = st.time_ps * 1e-12
    sk = K.get("stacks")
    if sk:
        vps = sk["vaults_per_stack"]
        put("stacks", "count", sk["count"], "stacks")
        put("stacks", "vaults_per_stack", vps, "vaults")
        put("stacks", "tsvs_per_vault", sk["tsvs_per_vault"], "TSVs")
        put("stacks", "tsv_rate", sk["tsv_gbps"], "Gb/s")
        put("stacks", "vault_peak_bandwidth", sk["vault_gbs"], "GB/s")
        put("stacks", "internal_peak_bandwidth", sk["vault_gbs"] * vps, "GB/s")
        put("stacks", "tsv_bits", 8 * int(st.per_channel[:, CHS_BYTES].sum()), "bits")
        for s in range(sk["count"]):
            b = int(st.per_channel[s * vps:(s + 1) * vps, CHS_BYTES].sum())
            put(f"stacks.stack{s}", "bytes", b, "bytes")
            put(f"stacks.stack{s}", "bandwidth", ratio(b, secs) / 1e9, "GB/s")
    lk = K.get("links")
    if lk:
        x = st.extra
        for name in ("tx", "rx"):
            tb = tbusy = 0
            for s in range(sk["count"]):
                p = f"link.stack{s}.{name}"
                busy = x.get(f"link{s}.{name}.busy_ps", 0)
                nb = x.get(f"link{s}.{name}.bytes", 0)
                put(p, "packets", x.get(f"link{s}.{name}.packets", 0), "packets")
                put(p, "flits", nb // lk["flit_bytes"], "flits")
                put(p, "bytes", nb, "bytes")
                put(p, "busy_time", busy / 1000.0, "ns")
                put(p, "utilisation", ratio(busy, st.time_ps), "fraction")
                tb += nb
                tbusy += busy
            put("link", f"{name}_bytes", tb, "bytes")
            put("link", f"{name}_bandwidth", ratio(tb, secs) / 1e9, "GB/s")
            put("link", f"{name}_utilisation", ratio(tbusy, st.time_ps * sk["count"]), "fraction")
            put("link", f"{name}_peak_bandwidth", lk[f"{name}_gbs"] * sk["count"], "GB/s")
    xl = K.get("cross_links")
    if xl:  # a logic die's links to the other stacks: row t holds home -> t (tx) and t -> home (rx)
        x, h = st.extra, xl["home"]
        tb = tbusy = 0
        for s in range(sk["count"]):
            if s == h:
                continue
            for name, p in (("tx", f"cross_link.stack{h}to{s}"), ("rx", f"cross_link.stack{s}to{h}")):
                busy = x.get(f"link{s}.{name}.busy_ps", 0)
                nb = x.get(f"link{s}.{name}.bytes", 0)
                put(p, "packets", x.get(f"link{s}.{name}.packets", 0), "packets")
                put(p, "flits", nb // xl["flit_bytes"], "flits")
                put(p, "bytes", nb, "bytes")
                put(p, "busy_time", busy / 1000.0, "ns")
                put(p, "utilisation", ratio(busy, st.time_ps), "fraction")
                tb += nb
                tbusy += busy
        nlinks = 2 * (sk["count"] - 1)
        put("cross_link", "links", nlinks, "links")
        put("cross_link", "bytes", tb, "bytes")
        put("cross_link", "bandwidth", ratio(tb, secs) / 1e9, "GB/s")
        put("cross_link", "utilisation", ratio(tbusy, st.time_ps * nlinks), "fraction")
        put("cross_link", "peak_bandwidth", xl["gbs"] * nlinks, "GB/s")
    ld = K.get("logic_die")
    if ld:
        put("logic_die", "stack", ld["stack"], "index")
        put("logic_die", "area_budget_min", ld["area_budget_mm2_min"], "mm^2")
        put("logic_die", "area_budget_max", ld["area_budget_mm2_max"], "mm^2")
        put("logic_die", "power_budget", ld["power_budget_w"], "W")
        put("logic_die", "area_estimate", ld["area_mm2"], "mm^2")
    if K.get("stack_sms"):
        _stack_metrics(st, put, ratio, secs)


def _stack_metrics(st, put, ratio, secs: float) -> None:
    """The SMs inside the memory stacks, and the cross-stack links between them."""
    K, x = st.consts, st.extra
    ss = K["stack_sms"]
    first = ss["first"]
    for i in range(ss["count"]):
        put(f"offload.stack_sm{i}", "warp_instructions", int(st.per_sm[first + i, SMS_INSTS]), "warp-instr")
    tb = tbusy = 0
    for a, b in ss["pairs"]:
        for u, v in ((a, b), (b, a)):
            busy = x.get(f"xlink{u}to{v}.busy_ps", 0)
            nb = x.get(f"xlink{u}to{v}.bytes", 0)
            q = f"cross_link.stack{u}to{v}"
            put(q, "packets", x.get(f"xlink{u}to{v}.packets", 0), "packets")
            put(q, "flits", nb // ss["cross_flit_bytes"], "flits")
            put(q, "bytes", nb, "bytes")
            put(q, "utilisation", ratio(busy, st.time_ps), "fraction")
            tb += nb
            tbusy += busy
    nlinks = 2 * len(ss["pairs"])
    if nlinks:
        put("cross_link", "links", nlinks, "links")
        put("cross_link", "bytes", tb, "bytes")
        put("cross_link", "bandwidth", ratio(tb, secs) / 1e9, "GB/s")
        put("cross_link", "utilisation", ratio(tbusy, st.time_ps * nlinks), "fraction")
        put("cross_link", "peak_bandwidth", ss["cross_gbs"] * nlinks, "GB/s")
