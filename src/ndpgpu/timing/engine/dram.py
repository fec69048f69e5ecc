"""The DRAM channel: a controller queue scheduled FR-FCFS or FCFS over bank state, with the full set
of timing constraints, open or closed pages, refresh and subarray-level parallelism.
"""

from . import hooks
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .links import dram_place, link_data_flits, link_send
from .queues import cyc_at, edge, popcount, q_push, q_space, rq_release


@njit
def return_queue(r, slice, cfg, rq):
    """The queue at ``slice`` that takes DRAM read ``r``'s data: a stack SM's own (its data crosses no GPU link,
    so it must not wait behind the GPU's), else the slice's return queue."""
    if rq[r, R_XSTK] >= 0:
        return cfg[C_Q_L2VRET] + slice
    return cfg[C_Q_L2RET] + slice


@njit
def dram_log(dlog, g, cfg, k, c, cmd, bank, row, mx):
    if cfg[C_HK_DRAM_COMMAND] != 0:
        hooks.dram_command(cfg[C_HK_DRAM_COMMAND], c, cmd, bank, row, k, mx)
    if cfg[C_RECORD_DLOG] != 0:
        n = g[G_DLOG_N]
        if n < dlog.shape[0]:
            dlog[n, 0] = k
            dlog[n, 1] = c
            dlog[n, 2] = cmd
            dlog[n, 3] = bank
            dlog[n, 4] = row
            g[G_DLOG_N] = n + 1


@njit
def sa_cap_state(bank, b0, nsa, k):
    """Open-subarray cap (``dram.max_open_subarrays``) of the bank whose first row-buffer unit is ``b0``.

    Returns (open units, units holding a row latch: open or precharged less than tRP ago, the
    least-recently-used open unit (last ACT or column command; ties: the lower subarray), the earliest
    latch release of a precharging unit)."""
    nopen = 0
    nocc = 0
    lru = -1
    lru_t = INF
    free_t = INF
    for s in range(nsa):
        bi = b0 + s
        if bank[bi, B_ROW] >= 0:
            nopen += 1
            nocc += 1
            if bank[bi, B_USE] < lru_t:
                lru_t = bank[bi, B_USE]
                lru = bi
        elif bank[bi, B_FREE] > k:
            nocc += 1
            if bank[bi, B_FREE] < free_t:
                free_t = bank[bi, B_FREE]
    return nopen, nocc, lru, free_t


@njit_inline
def dram_next_cmd(c, now, k, cfg, clk, dq, bank, bgt, chs, faw):
    """Time (ps) of the earliest DRAM edge after cycle ``k`` at which channel ``c`` could issue any command.

    A lower bound from the channel's own timing state alone (it ignores the scheduling order, the
    L2 return queue's space and which bank a PRE may close), so a tick then may still issue nothing.
    Valid only while the channel's state is unchanged: arrivals lower the wake in ``dram_enqueue``."""
    nsa = cfg[C_NSA]
    nb_ = cfg[C_NBANK] * nsa  # row-buffer units (bank x subarray); DQ_BANK holds the unit
    base = c * nb_
    gbase = c * cfg[C_NBG]
    capo = cfg[C_MAXOPEN]
    kb = INF
    minready = INF
    for i in range(cfg[C_DQ_SLOTS]):
        if dq[c, i, DQ_RID] < 0:
            continue
        rr = dq[c, i, DQ_READY]
        if rr > now:
            minready = min(minready, rr)
            continue
        bi = base + dq[c, i, DQ_BANK]
        grp = gbase + dq[c, i, DQ_BG]
        orow = bank[bi, B_ROW]
        if orow == dq[c, i, DQ_ROW]:
            e = max(bank[bi, B_RCD_READY], chs[c, H_LAST_COL] + cfg[C_tCCD_S], bgt[grp, BG_LAST_COL] + cfg[C_tCCD_L])
            if dq[c, i, DQ_WR] != 0:
                e = max(e, chs[c, H_LAST_RD] + cfg[C_tRTW], chs[c, H_BUS_FREE] - cfg[C_tCWL])
            else:
                e = max(e, chs[c, H_LAST_WR_END] + cfg[C_tWTR], chs[c, H_BUS_FREE] - cfg[C_tCL])
        elif orow < 0:
            e = max(bank[bi, B_ACT_READY], chs[c, H_LAST_ACT] + cfg[C_tRRD_S], bgt[grp, BG_LAST_ACT] + cfg[C_tRRD_L])
            if cfg[C_tFAW] != 0:
                e = max(e, faw[c, chs[c, H_FAW_I]] + cfg[C_tFAW])
            if capo > 0:
                nopen, nocc, lru, free_t = sa_cap_state(bank, bi - dq[c, i, DQ_BANK] % nsa, nsa, k)
                if nopen >= capo:
                    e = bank[lru, B_PRE_READY]  # it needs the LRU subarray's PRE first
                elif nocc >= capo:
                    e = max(e, free_t)
        else:
            e = bank[bi, B_PRE_READY]
        if e < kb:
            kb = e
            if kb <= k + 1:
                break
    ref = INF
    if cfg[C_REFRESH] != 0 and chs[c, H_REF_PENDING] == 0:
        ref = chs[c, H_NEXT_REF]
    if kb >= INF:
        # no ready request: like a tick at k + 1 that finds none, sleep until one is ready (or an arrival);
        # a refresh due by then is noticed at k + 1, one due later only at that wake
        if ref <= k + 1:
            return edge(clk, D_DRAM, k + 1)
        return minready
    return min(minready, edge(clk, D_DRAM, max(min(kb, ref), k + 1)))


@njit
def wake_channel_slices(c, now, cfg, qm, wake):
    """Room has freed for channel ``c``'s requests: wake its slices (not one asleep on a refusal that no DRAM
    room lifts, ``Q_WAITK``: its tick would only be refused again)."""
    spc = cfg[C_SLICES_PER_CH]
    for j in range(c * spc, c * spc + spc):
        if j < cfg[C_NSL] and now < wake[cfg[C_WK_SL] + j] and qm[cfg[C_Q_L2IN] + j, Q_WAITK] == 0:
            wake[cfg[C_WK_SL] + j] = now


@njit_inline
def pq_tick(c, now, k, cfg, clk, rq, dq, chs, qm, wake):
    """The memory-partition front end's DRAM cycle (``dram.partition_queue``; GPGPU-Sim's
    memory_partition_unit::dram_cycle): while the scheduler's queue has room, the L2-to-DRAM queue's oldest request
    enters the latency queue, ready after ``controller_latency``; then the latency queue's head, if ready, enters
    the scheduler's queue. One request a cycle each way."""
    n = chs[c, H_PQ_N]
    if n == 0:
        return
    ring = cfg[C_PQ_RING]
    base = cfg[C_DQ_SLOTS]
    head = chs[c, H_PQ_HEAD]
    adm = chs[c, H_PQ_ADM]
    room = chs[c, H_NQ] - chs[c, H_NSVC] < cfg[C_DQ_SIZE]  # (requests a bank serves leave the queue's count)
    if n > adm and room and adm < cfg[C_CTRL_LAT] + 2:
        d = dq[c, base + (head + adm) % ring, DQ_RID]
        rq[d, R_READY] = edge(clk, D_DRAM, k + cfg[C_CTRL_LAT])
        chs[c, H_PQ_ADM] = adm + 1
        if n - adm >= cfg[C_PQ_CAP]:  # it was full: the slices blocked on it may go on
            wake_channel_slices(c, now, cfg, qm, wake)
    if chs[c, H_PQ_ADM] > 0 and room:
        d = dq[c, base + head, DQ_RID]
        if rq[d, R_READY] <= now:
            dq[c, base + head, DQ_RID] = -1
            chs[c, H_PQ_HEAD] = (head + 1) % ring
            chs[c, H_PQ_N] = n - 1
            chs[c, H_PQ_ADM] -= 1
            dram_place(d, c, cfg, rq, dq, chs)


@njit_inline
def pq_wake(c, now, k, cfg, clk, rq, dq, chs):
    """When channel ``c`` must tick again for its front end: the next cycle while a request waits to move and the
    scheduler's queue has room, else at the latency queue head's ready time; never while that queue is full
    (the command that frees an entry sets the channel's next tick)."""
    n = chs[c, H_PQ_N]
    if n == 0 or chs[c, H_NQ] - chs[c, H_NSVC] >= cfg[C_DQ_SIZE]:
        return INF
    adm = chs[c, H_PQ_ADM]
    if n > adm:
        return edge(clk, D_DRAM, k + 1)
    t = rq[dq[c, cfg[C_DQ_SLOTS] + chs[c, H_PQ_HEAD], DQ_RID], R_READY]
    return t if t > now else edge(clk, D_DRAM, k + 1)


@njit_inline
def col_timing_ok(c, i, k, cfg, dq, bank, bgt, chs, bi, grp):
    """Whether the column command of the request in channel ``c``'s slot ``i`` (its row open in unit ``bi``, bank
    group row ``grp``) meets every timing constraint at DRAM cycle ``k``: tRCD, tCCD_S/L, the turnaround and the
    data bus."""
    if k < bank[bi, B_RCD_READY] or k < chs[c, H_LAST_COL] + cfg[C_tCCD_S]:
        return False
    if k < bgt[grp, BG_LAST_COL] + cfg[C_tCCD_L]:
        return False
    if dq[c, i, DQ_WR] != 0:
        return k >= chs[c, H_LAST_RD] + cfg[C_tRTW] and k + cfg[C_tCWL] >= chs[c, H_BUS_FREE]
    return k >= chs[c, H_LAST_WR_END] + cfg[C_tWTR] and k + cfg[C_tCL] >= chs[c, H_BUS_FREE]


@njit_inline
def dram_issue_col(c, col, now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, qb, qm, wake, g, ctr, chst, bkst, dlog,
                   mx, base, gbase, nsa, nslot, dqs, pq):
    """Issue the column command of the request in channel ``c``'s slot ``col``; on its last burst the request
    leaves the queue (a read's data to its slice's return queue, a write acknowledged)."""
    r = dq[c, col, DQ_RID]
    b = rq[r, R_BANK]
    u = dq[c, col, DQ_BANK]
    bi = base + u
    grp = gbase + rq[r, R_BG]
    is_wr = rq[r, R_KIND] == PK_DWRITE
    bc = cfg[C_BURST_CYC]
    chs[c, H_LAST_COL] = k
    bgt[grp, BG_LAST_COL] = k
    bank[bi, B_LAST_COL] = k
    bank[bi, B_USE] = k
    dirn = 2 if is_wr else 1
    if chs[c, H_LAST_DIR] != 0 and chs[c, H_LAST_DIR] != dirn:
        if is_wr:
            ctr[T_DR_RTW] += 1
        else:
            ctr[T_DR_WTR] += 1
    chs[c, H_LAST_DIR] = dirn
    if rq[r, R_TDS] < 0:
        rq[r, R_TDS] = now
        h = rq[r, R_HIT]
        if h == 0:
            ctr[T_DR_ROWHIT] += 1
            chst[c, CHS_ROWHIT] += 1
            bkst[c * cfg[C_NBANK] + b, BKS_ROWHIT] += 1
        elif h == 1:
            ctr[T_DR_ROWMISS] += 1
        else:
            ctr[T_DR_ROWCONF] += 1
    if is_wr:
        ctr[T_DR_WBURST] += 1
        dend = k + cfg[C_tCWL] + bc
        chs[c, H_LAST_WR_END] = dend
        bank[bi, B_PRE_READY] = max(bank[bi, B_PRE_READY], dend + cfg[C_tWR])
        dram_log(dlog, g, cfg, k, c, CMD_WR, b, rq[r, R_ROW], mx)
    else:
        dend = k + cfg[C_tCL] + bc
        chs[c, H_LAST_RD] = k
        bank[bi, B_PRE_READY] = max(bank[bi, B_PRE_READY], k + cfg[C_tRTP])
        dram_log(dlog, g, cfg, k, c, CMD_RD, b, rq[r, R_ROW], mx)
    chs[c, H_BUS_FREE] = dend
    ctr[T_DR_BURST] += 1
    chst[c, CHS_BUSY] += bc
    rq[r, R_BURSTS] -= 1
    if rq[r, R_BURSTS] <= 0:
        dq[c, col, DQ_RID] = -1
        if bank[bi, B_SVC] == col:
            # the per-bank scheduler: the bank is free for its next request (its queue entry was freed when taken)
            bank[bi, B_SVC] = -1
            chs[c, H_NSVC] -= 1
        elif chs[c, H_NQ] >= dqs and not pq:  # (with the front end, its L2-to-DRAM queue's room: pq_tick)
            wake_channel_slices(c, now, cfg, qm, wake)
        chs[c, H_NQ] -= 1
        nbytes = popcount(rq[r, R_SECT]) * 32
        chst[c, CHS_BYTES] += nbytes
        bkst[c * cfg[C_NBANK] + b, BKS_REQ] += 1
        if cfg[C_PAGE_POLICY] == PAGE_CLOSED:
            other = False
            for i in range(nslot):
                if dq[c, i, DQ_RID] >= 0 and dq[c, i, DQ_BANK] == u and dq[c, i, DQ_ROW] == rq[r, R_ROW]:
                    other = True
                    break
            if not other:
                bank[bi, B_ROW] = -1
                bank[bi, B_ACT_READY] = max(bank[bi, B_ACT_READY], bank[bi, B_PRE_READY] + cfg[C_tRP])
                bank[bi, B_FREE] = bank[bi, B_PRE_READY] + cfg[C_tRP]
                ctr[T_DR_PRE] += 1
        if is_wr:
            ctr[T_DR_WR] += 1
            ctr[T_DR_WR_BYTES] += nbytes
            chst[c, CHS_WR] += 1
            ls = rq[r, R_LROW]
            if ls >= 0:  # the write acknowledgement returns over RX
                link_send(ls, 1 - rq[r, R_LDIR], chs[ls, H_LK_ACK_FL], edge(clk, D_DRAM, dend), chs)
            rq_release(rq_free, g, r)
        else:
            ctr[T_DR_RD] += 1
            ctr[T_DR_RD_BYTES] += nbytes
            chst[c, CHS_RD] += 1
            t = edge(clk, D_DRAM, dend)
            ls = rq[r, R_LROW]
            if ls >= 0:  # read data returns over RX before the L2 fill
                t = link_send(ls, 1 - rq[r, R_LDIR], chs[ls, H_LK_RESP_HDR] + link_data_flits(ls, nbytes, chs), t,
                              chs)
            rq[r, R_READY] = t
            rq[r, R_T4] = t
            q = return_queue(r, rq[r, R_SLICE], cfg, rq)
            q_push(qb, qm, q, r)
            w = cfg[C_WK_SL] + rq[r, R_SLICE]
            if t < wake[w]:
                wake[w] = t


@njit_inline
def dram_issue_row(c, row_i, row_cmd, row_u, k, cfg, rq, dq, bank, bgt, chs, faw, ctr, chst, bkst, dlog, g, mx, base,
                   gbase, nsa):
    """Issue an ACT (of the request in slot ``row_i``'s row) or a PRE (of row-buffer unit ``row_u``) on channel
    ``c``."""
    r = dq[c, row_i, DQ_RID]
    b = rq[r, R_BANK]
    u = row_u  # the request's unit; for a PRE at the bank's cap, the LRU unit of its bank
    bi = base + u
    grp = gbase + rq[r, R_BG]
    if row_cmd == CMD_ACT:
        bank[bi, B_ROW] = rq[r, R_ROW]
        bank[bi, B_USE] = k
        bank[bi, B_RCD_READY] = k + cfg[C_tRCD]
        bank[bi, B_PRE_READY] = max(bank[bi, B_PRE_READY], k + cfg[C_tRAS])
        bank[bi, B_ACT_READY] = k + cfg[C_tRC]
        chs[c, H_LAST_ACT] = k
        bgt[grp, BG_LAST_ACT] = k
        fi = chs[c, H_FAW_I]
        faw[c, fi] = k
        chs[c, H_FAW_I] = (fi + 1) % 4
        if rq[r, R_HIT] == 0:
            rq[r, R_HIT] = 1
        ctr[T_DR_ACT] += 1
        chst[c, CHS_ACT] += 1
        bkst[c * cfg[C_NBANK] + b, BKS_ACT] += 1
        dram_log(dlog, g, cfg, k, c, CMD_ACT, b, rq[r, R_ROW], mx)
    else:
        bank[bi, B_ROW] = -1
        bank[bi, B_ACT_READY] = max(bank[bi, B_ACT_READY], k + cfg[C_tRP])
        bank[bi, B_FREE] = k + cfg[C_tRP]
        rq[r, R_HIT] = 2
        ctr[T_DR_PRE] += 1
        dram_log(dlog, g, cfg, k, c, CMD_PRE, b, -1 - u % nsa, mx)
    if rq[r, R_TDS] < 0:
        rq[r, R_TDS] = -2  # marks "row command issued" without counting it as the data start
    # (a row command alone is not progress: a read that can never return its data may have its row
    # closed by a refresh and opened again, forever; only data moved counts for the watchdog)


@njit_inline
def dram_tick_banks(c, now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, faw, qb, qm, wake, g, ctr, chst, bkst, dlog,
                    hitpend, mx, pq):
    """Channel ``c``'s cycle under GPGPU-Sim's scheduler (``frfcfs_bank``; 3.2.2 and 4.0 ``dram.cc``
    ``dram_t::cycle``, ``dram_sched.cc``): each bank serves one request at a time. First, at most one bank without
    one, in round robin from the channel's pointer, takes the best of its queued requests (priority class, then its
    open row's, then the oldest), which leaves the queue's count; then, banks in round robin from the pointer, the
    first served request that may issue a command does (a read or write to its open row, an ACT of an idle bank, a
    PRE of a bank open on another row; with a dual command bus one column and one row command), an ACT or PRE
    moving the pointer past its bank. A bank's request is done at its last column command."""
    nb_ = cfg[C_NBANK]  # one row buffer per bank (the spec refuses subarrays with this scheduler)
    base = c * nb_
    gbase = c * cfg[C_NBG]
    nslot = cfg[C_DQ_SLOTS]
    dqs = cfg[C_DQ_SIZE]
    # ------------------------------------------------ a free bank takes a request: per bank, the best queued one
    for b in range(nb_):
        hitpend[b] = INF
        hitpend[nb_ + b] = -1
    minready = INF
    for i in range(nslot):
        if dq[c, i, DQ_RID] < 0:
            continue
        b = dq[c, i, DQ_BANK]
        if bank[base + b, B_SVC] >= 0:
            continue  # its bank is serving (this request or another)
        rr = dq[c, i, DQ_READY]
        if rr > now:
            minready = min(minready, rr)
            continue
        key = dq[c, i, DQ_KEY]
        # class, then a row hit, then age: the class in the top bits, the row-miss flag below them
        rank = ((key >> 48) << 50) + (0 if dq[c, i, DQ_ROW] == bank[base + b, B_ROW] else 1 << 49) + (
            key & ((1 << 48) - 1))
        if rank < hitpend[b]:
            hitpend[b] = rank
            hitpend[nb_ + b] = i
    prio = chs[c, H_DPRIO]
    assigned = False
    waiting = 0  # free banks with a request for them, after this cycle's one assignment
    for j in range(nb_):
        b = (j + prio) % nb_
        if hitpend[nb_ + b] < 0:
            continue
        if not assigned:
            assigned = True
            bank[base + b, B_SVC] = hitpend[nb_ + b]
            if chs[c, H_NQ] - chs[c, H_NSVC] >= dqs and not pq:
                wake_channel_slices(c, now, cfg, qm, wake)  # the queue had been full
            chs[c, H_NSVC] += 1
            chs[c, H_DPRIO] = (prio + 1) % nb_
        else:
            waiting += 1
    # ------------------------------------------------ one command (one column and one row with a dual bus)
    prio = chs[c, H_DPRIO]
    dual = cfg[C_DUAL_CMD] != 0
    issued_col = False
    issued_row = False
    ret_blocked = False
    for j in range(nb_):
        b = (j + prio) % nb_
        bi = base + b
        i = bank[bi, B_SVC]
        if i < 0:
            continue
        grp = gbase + dq[c, i, DQ_BG]
        orow = bank[bi, B_ROW]
        if orow == dq[c, i, DQ_ROW]:
            if issued_col or not col_timing_ok(c, i, k, cfg, dq, bank, bgt, chs, bi, grp):
                continue
            if dq[c, i, DQ_WR] == 0:
                r = dq[c, i, DQ_RID]
                if rq[r, R_BURSTS] == 1 and q_space(qm, return_queue(r, dq[c, i, DQ_SLICE], cfg, rq)) <= 0:
                    ret_blocked = True  # its data has nowhere to go: the bank waits, polling
                    continue
            dram_issue_col(c, i, now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, qb, qm, wake, g, ctr, chst, bkst,
                           dlog, mx, base, gbase, 1, nslot, dqs, pq)
            g[G_LAST_PROGRESS] = now
            issued_col = True
        else:
            if issued_row or (issued_col and not dual):
                continue
            if orow < 0:
                if k < bank[bi, B_ACT_READY] or k < chs[c, H_LAST_ACT] + cfg[C_tRRD_S]:
                    continue
                if k < bgt[grp, BG_LAST_ACT] + cfg[C_tRRD_L]:
                    continue
                if cfg[C_tFAW] != 0 and k < faw[c, chs[c, H_FAW_I]] + cfg[C_tFAW]:
                    continue
                dram_issue_row(c, i, CMD_ACT, b, k, cfg, rq, dq, bank, bgt, chs, faw, ctr, chst, bkst, dlog, g, mx,
                               base, gbase, 1)
            else:
                if k < bank[bi, B_PRE_READY]:
                    continue
                dram_issue_row(c, i, CMD_PRE, b, k, cfg, rq, dq, bank, bgt, chs, faw, ctr, chst, bkst, dlog, g, mx,
                               base, gbase, 1)
            chs[c, H_DPRIO] = (b + 1) % nb_
            issued_row = True
        if not dual or (issued_col and issued_row):
            break
    # ------------------------------------------------ the next tick
    if waiting > 0 or ret_blocked:
        w = edge(clk, D_DRAM, k + 1)
    else:
        w = dram_next_cmd(c, now, k, cfg, clk, dq, bank, bgt, chs, faw)
        # a bank freed by this cycle's last column command takes its next request in the next cycle
        if issued_col:
            w = min(w, edge(clk, D_DRAM, k + 1))
        w = min(w, minready)
    if pq:
        w = min(w, pq_wake(c, now, k, cfg, clk, rq, dq, chs))
    wake[cfg[C_WK_CH] + c] = w



@njit_inline
def dram_tick(c, now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, faw, qb, qm, wake, g, ctr, chst, bkst, dlog,
              hitpend, mx):
    # the bank table and DQ_BANK index row-buffer units: unit = bank x subarrays_per_bank + subarray
    nsa = cfg[C_NSA]
    nb_ = cfg[C_NBANK] * nsa
    base = c * nb_
    gbase = c * cfg[C_NBG]
    dqs = cfg[C_DQ_SIZE]  # admission capacity; the slots (C_DQ_SLOTS) add the fills' write-back room
    nslot = cfg[C_DQ_SLOTS]
    capo = cfg[C_MAXOPEN]
    pq = cfg[C_PQ_CAP] > 0
    if pq:
        pq_tick(c, now, k, cfg, clk, rq, dq, chs, qm, wake)
    n = chs[c, H_NQ]
    progress = False
    # ---------------------------------------------------------------- refresh
    if cfg[C_REFRESH] != 0 and k >= chs[c, H_NEXT_REF] and chs[c, H_REF_PENDING] == 0:
        refi = cfg[C_tREFI]
        if n == 0 and k >= chs[c, H_NEXT_REF] + refi:
            # idle through one or more intervals: those refreshes happened in the background
            missed = (k - chs[c, H_NEXT_REF]) // refi + 1
            last = chs[c, H_NEXT_REF] + (missed - 1) * refi
            for b in range(nb_):
                bi = base + b
                bank[bi, B_ROW] = -1
                bank[bi, B_ACT_READY] = max(bank[bi, B_ACT_READY], last + cfg[C_tRFC])
            ctr[T_DR_REF] += missed
            chs[c, H_NEXT_REF] = last + refi
        elif n > 0 and k >= chs[c, H_NEXT_REF] + refi:
            # the channel woke with requests after sleeping through whole intervals: the refreshes due
            # before its oldest request arrived happened while it was idle (in the background, rows left as
            # they were: an approximation), the later ones are still to do (one now, the rest on time)
            first = INF
            for i in range(nslot):
                if dq[c, i, DQ_RID] >= 0 and dq[c, i, DQ_READY] < first:
                    first = dq[c, i, DQ_READY]
            arrived = cyc_at(clk, D_DRAM, first) - cfg[C_CTRL_LAT]
            if arrived > chs[c, H_NEXT_REF]:
                missed = (min(arrived - 1, k) - chs[c, H_NEXT_REF]) // refi + 1
                ctr[T_DR_REF] += missed
                chs[c, H_NEXT_REF] += missed * refi
            if k >= chs[c, H_NEXT_REF] + refi:
                chs[c, H_NEXT_REF] = k - (k - chs[c, H_NEXT_REF]) % refi  # overdue ones collapse into one
        if k >= chs[c, H_NEXT_REF]:
            chs[c, H_REF_PENDING] = 1
    if chs[c, H_REF_PENDING] != 0:
        all_closed = True
        for b in range(nb_):
            bi = base + b
            if bank[bi, B_ROW] >= 0:
                all_closed = False
                if k >= bank[bi, B_PRE_READY]:
                    bank[bi, B_ROW] = -1
                    bank[bi, B_ACT_READY] = max(bank[bi, B_ACT_READY], k + cfg[C_tRP])
                    bank[bi, B_FREE] = k + cfg[C_tRP]
                    ctr[T_DR_PRE] += 1
                    dram_log(dlog, g, cfg, k, c, CMD_PRE, b // nsa, -1 - b % nsa, mx)
                    break
        if all_closed:
            ready = 0
            for b in range(nb_):
                ready = max(ready, bank[base + b, B_ACT_READY])
            if k >= ready:
                for b in range(nb_):
                    bank[base + b, B_ACT_READY] = k + cfg[C_tRFC]
                chs[c, H_REF_PENDING] = 0
                chs[c, H_NEXT_REF] += cfg[C_tREFI]
                ctr[T_DR_REF] += 1
                dram_log(dlog, g, cfg, k, c, CMD_REF, -1, -1, mx)
        # refresh is housekeeping, not progress: a channel whose requests can never be served still refreshes
        # every tREFI, and must not keep the watchdog from firing
        wake[cfg[C_WK_CH] + c] = edge(clk, D_DRAM, k + 1)
        return
    if n == 0:
        wake[cfg[C_WK_CH] + c] = pq_wake(c, now, k, cfg, clk, rq, dq, chs) if pq else INF
        return
    if cfg[C_DRAM_SCHED] == DS_FRFCFS_BANK:
        dram_tick_banks(c, now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, faw, qb, qm, wake, g, ctr, chst, bkst,
                        dlog, hitpend, mx, pq)
        return
    # ---------------------------------------------------------------- candidates (one pass)
    # hitpend[b]: the best key of a ready request hitting bank b's open row (INF: none); [nb_ + b]: best PRE
    # candidate key for bank b
    fcfs = cfg[C_DRAM_SCHED] == DS_FCFS
    for b in range(nb_):
        hitpend[b] = INF
        hitpend[nb_ + b] = INF
        hitpend[2 * nb_ + b] = -1
    minready = INF
    col = -1
    col_key = INF
    act_i = -1
    act_key = INF
    oldest_key = INF
    oldest = -1
    ret_blocked = False
    for i in range(nslot):
        if dq[c, i, DQ_RID] < 0:
            continue
        rr = dq[c, i, DQ_READY]
        if rr > now:
            if rr < minready:
                minready = rr
            continue
        if (dq[c, i, DQ_WR] == 0 and rq[dq[c, i, DQ_RID], R_BURSTS] == 1
                and q_space(qm, return_queue(dq[c, i, DQ_RID], dq[c, i, DQ_SLICE], cfg, rq)) <= 0):
            # a read whose data has nowhere to go is no candidate: it neither holds its row open against the
            # bank's other requests nor claims the oldest's turn (the write-back that frees its slice's return
            # queue may need that bank); the channel polls until the queue has room
            ret_blocked = True
            continue
        key = dq[c, i, DQ_KEY]
        if key < oldest_key:
            oldest_key = key
            oldest = i
        b = dq[c, i, DQ_BANK]
        bi = base + b
        orow = bank[bi, B_ROW]
        if orow == dq[c, i, DQ_ROW]:
            if key < hitpend[b]:
                hitpend[b] = key
            if key >= col_key:
                continue
            if not col_timing_ok(c, i, k, cfg, dq, bank, bgt, chs, bi, gbase + dq[c, i, DQ_BG]):
                continue
            col = i
            col_key = key
        elif orow < 0:
            if capo > 0:
                nopen, nocc, lru, _f = sa_cap_state(bank, bi - b % nsa, nsa, k)
                if nopen >= capo:
                    # the bank is at its cap: this request's ACT needs the LRU open subarray precharged first
                    v = lru - base
                    if key < hitpend[nb_ + v] and k >= bank[lru, B_PRE_READY]:
                        hitpend[nb_ + v] = key
                        hitpend[2 * nb_ + v] = i
                    continue
                if nocc >= capo:
                    continue  # a precharging subarray still holds the last latch
            if key < act_key and k >= bank[bi, B_ACT_READY]:
                act_i = i
                act_key = key
        elif key < hitpend[nb_ + b] and k >= bank[bi, B_PRE_READY]:
            hitpend[nb_ + b] = key
            hitpend[2 * nb_ + b] = i
    if oldest < 0:
        w = min(minready, edge(clk, D_DRAM, k + 1)) if ret_blocked else minready
        if pq:
            w = min(w, pq_wake(c, now, k, cfg, clk, rq, dq, chs))
        wake[cfg[C_WK_CH] + c] = w
        return
    # FR-FCFS with priority classes: among the commands ready this cycle the best class goes first (a row hit
    # before a row command of the same class, the oldest within each), and a channel with any ready command
    # issues one. A top-class row miss opens its row when its bank is free of row hits of its class or better;
    # it never holds back another class's ready row hit on another bank
    strict = fcfs
    if strict:
        # only the oldest request may be served
        if col != oldest:
            col = -1
        b = dq[c, oldest, DQ_BANK]
        if act_i != oldest:
            act_i = -1
        for bb in range(nb_):
            if hitpend[2 * nb_ + bb] != oldest:  # (the oldest's PRE: of its own unit, or of its bank's LRU)
                hitpend[2 * nb_ + bb] = -1
    # the best row command: an ACT (channel-level ACT constraints), or a PRE of a bank nobody hits
    row_i = -1
    row_key = INF
    row_cmd = 0
    row_u = -1
    if act_i >= 0:
        grp = gbase + dq[c, act_i, DQ_BG]
        if (k >= chs[c, H_LAST_ACT] + cfg[C_tRRD_S] and k >= bgt[grp, BG_LAST_ACT] + cfg[C_tRRD_L]
                and (cfg[C_tFAW] == 0 or k >= faw[c, chs[c, H_FAW_I]] + cfg[C_tFAW])):
            row_i = act_i
            row_key = act_key
            row_cmd = CMD_ACT
            row_u = dq[c, act_i, DQ_BANK]
    for b in range(nb_):
        pi = hitpend[2 * nb_ + b]
        if pi >= 0 and (strict or (hitpend[nb_ + b] >> 48) < (hitpend[b] >> 48)) and hitpend[nb_ + b] < row_key:
            row_i = pi
            row_key = hitpend[nb_ + b]
            row_cmd = CMD_PRE
            row_u = b
    if col >= 0 and row_i >= 0 and cfg[C_DUAL_CMD] == 0 and (row_key >> 48) < (col_key >> 48):
        col = -1  # one command bus: a better class's ACT or PRE goes before a lesser class's column command
    issued_col = False
    if col >= 0:
        dram_issue_col(c, col, now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, qb, qm, wake, g, ctr, chst, bkst,
                       dlog, mx, base, gbase, nsa, nslot, dqs, pq)
        issued_col = True
        progress = True
    if row_i >= 0 and (not issued_col or cfg[C_DUAL_CMD] != 0):
        dram_issue_row(c, row_i, row_cmd, row_u, k, cfg, rq, dq, bank, bgt, chs, faw, ctr, chst, bkst, dlog, g, mx,
                       base, gbase, nsa)
    if progress:
        g[G_LAST_PROGRESS] = now
    # the channel's state cannot change until a command's timing allows one (or an arrival lowers the wake)
    w = dram_next_cmd(c, now, k, cfg, clk, dq, bank, bgt, chs, faw)
    if ret_blocked:
        w = min(w, edge(clk, D_DRAM, k + 1))
    if pq:
        w = min(w, pq_wake(c, now, k, cfg, clk, rq, dq, chs))
    wake[cfg[C_WK_CH] + c] = w


@njit
def dram_ticks(now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, faw, qb, qm, wake, g, ctr, chst, bkst, dlog, hitpend,
               mx):
    """Tick, in channel order, every DRAM channel due at ``now`` (DRAM cycle ``k``), each tick inlined here."""
    wk = cfg[C_WK_CH]
    for c in range(cfg[C_NCH]):
        if wake[wk + c] <= now:
            wake[wk + c] = INF
            g[G_IT_DRAM] += 1
            dram_tick(c, now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, faw, qb, qm, wake, g, ctr, chst, bkst, dlog,
                      hitpend, mx)


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


def metrics(st, put, ratio) -> None:
    """DRAM: requests, commands, row-buffer locality, turnarounds, bandwidth, per-channel counts."""
    c, K = st.c, st.consts
    secs = st.time_ps * 1e-12
    rd, wr = c("DR_RD"), c("DR_WR")
    rb, wb = c("DR_RD_BYTES"), c("DR_WR_BYTES")
    put("dram", "reads", rd, "requests")
    put("dram", "writes", wr, "requests")
    put("dram", "read_bytes", rb, "bytes")
    put("dram", "write_bytes", wb, "bytes")
    put("dram", "bytes", rb + wb, "bytes")
    put("dram", "activates", c("DR_ACT"), "commands")
    put("dram", "precharges", c("DR_PRE"), "commands")
    put("dram", "refreshes", c("DR_REF"), "commands")
    bursts = c("DR_BURST")
    put("dram", "bursts", bursts, "bursts")
    put("dram", "read_bursts", bursts - c("DR_WBURST"), "bursts")
    put("dram", "write_bursts", c("DR_WBURST"), "bursts")
    hits = c("DR_ROWHIT")
    put("dram", "row_hits", hits, "requests")
    put("dram", "row_misses", c("DR_ROWMISS"), "requests")
    put("dram", "row_conflicts", c("DR_ROWCONF"), "requests")
    put("dram", "row_buffer_hit_rate", ratio(hits, rd + wr), "fraction")
    put("dram", "row_locality", ratio(rd + wr, c("DR_ACT")), "accesses/activate")
    put("dram", "read_to_write_turnarounds", c("DR_RTW"), "events")
    put("dram", "write_to_read_turnarounds", c("DR_WTR"), "events")
    put("dram", "bandwidth", ratio(rb + wb, secs) / 1e9, "GB/s")
    put("dram", "peak_bandwidth", K["dram_peak_gbs"], "GB/s")
    dcyc = st.time_ps / (1e6 / K["dram_mhz"])
    busy_c = float(st.per_channel[:, CHS_BUSY].sum())
    put("dram", "bus_utilisation", ratio(busy_c, K["channels"] * dcyc), "fraction")
    put("dram", "efficiency", ratio(rb + wb, bursts * K["dram_atom_bytes"]), "fraction")
    for ch in range(st.per_channel.shape[0]):
        p = f"dram.channel{ch}"
        put(p, "reads", int(st.per_channel[ch, CHS_RD]), "requests")
        put(p, "writes", int(st.per_channel[ch, CHS_WR]), "requests")
        put(p, "activates", int(st.per_channel[ch, CHS_ACT]), "commands")
        put(p, "bytes", int(st.per_channel[ch, CHS_BYTES]), "bytes")
        put(p, "bus_utilisation", ratio(float(st.per_channel[ch, CHS_BUSY]), dcyc), "fraction")
    # the busiest bank (most requests served) and how far it stands above the mean bank: one hot bank bounds its
    # channel long before the channel's bus is busy
    per_bank = st.per_bank
    if per_bank is not None and len(per_bank) and int(per_bank[:, BKS_REQ].sum()) > 0:
        banks_per_channel = len(per_bank) // st.per_channel.shape[0]
        hot = int(per_bank[:, BKS_REQ].argmax())
        put("dram.banks", "busiest_channel", hot // banks_per_channel, "index")
        put("dram.banks", "busiest_bank", hot % banks_per_channel, "index")
        put("dram.banks", "busiest_requests", int(per_bank[hot, BKS_REQ]), "requests")
        put("dram.banks", "busiest_activates", int(per_bank[hot, BKS_ACT]), "commands")
        put("dram.banks", "busiest_row_buffer_hit_rate",
            ratio(int(per_bank[hot, BKS_ROWHIT]), int(per_bank[hot, BKS_REQ])), "fraction")
        put("dram.banks", "request_imbalance",
            ratio(float(per_bank[hot, BKS_REQ]), float(per_bank[:, BKS_REQ].mean())), "x mean")
        put("dram.banks", "max_activates", int(per_bank[:, BKS_ACT].max()), "commands")
