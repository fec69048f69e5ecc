"""The SM's issue stage: the scoreboard and unit checks, the warp schedulers of each sub-core, and the
SM's per-cycle tick. Mechanisms act here through the hook points of :mod:`.hooks`.
"""

from ...trace.format import OP_CLASSES
from . import hooks
from .caches import c_find
from .icache import ic_access
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .ldst import (
    l1_base,
    l1_mshr_cap,
    l1_send_miss,
    sm_fill,
    tx_process,
    wake_warp,
    warp_maybe_exit_flag,
)
from .memq import ldst_idle, ldst_start, mq_holds, mq_issue_wait, mq_port, mq_start_head
from .queues import edge, popcount, q_head, q_pop, q_space, rq_alloc, wake_sleeping_slices
from .warps import (
    advance,
    barrier_arrive,
    dests_ready,
    load_open,
    operands_ready,
    stream_done,
    warp_done_issuing,
    warp_exit,
    warp_pc,
)
from .xbar import net_push


@njit_inline
def check_issue(sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, mx, chs, ctr):
    """Could warp ``slot`` issue its next instruction now? 0 yes, else 1 + stall reason (READY updated)."""
    g[G_IT_TRY] += 1
    if wt[slot, W_MX] >= 0 and wt[slot, W_HOST] < 0:
        # the mechanism decides whether the warp's next stretch runs here
        d = hooks.decide(cfg[C_HK_DECIDE], slot, now, wt, chs, mx)
        if d == -3 or (d == 0 and wt[slot, W_PEND_LD] > 0):
            # the mechanism waits (for the warp's stores, say), or the stretch's live-ins are not back yet
            wt[slot, W_READY] = edge(clk, D_CORE, k + 4)
            return 1 + R_MEM
        if d == 0:
            wt[slot, W_DIVERT] = 1
            return 0
        if d == -2:  # the warp waits for the mechanism (which wakes it)
            wt[slot, W_READY] = INF
            return 1 + R_MEM
    wt[slot, W_DIVERT] = 0
    if cfg[C_BR_HAZ] != 0 and wt[slot, W_BRHAZ] == 2:  # its buffer holds the path after a taken branch: flushed
        wt[slot, W_BRHAZ] = 0
        wt[slot, W_IBUF] = 0
        wt[slot, W_READY] = WAIT_FETCH
        smt[sm, S_FETCH_WANT] = 1
        return 1 + R_FETCH
    if cfg[C_IBUF] > 0 and wt[slot, W_IBUF] <= 0:  # nothing decoded: the fetch stage wakes the warp
        wt[slot, W_READY] = WAIT_FETCH
        smt[sm, S_FETCH_WANT] = 1
        return 1 + R_FETCH
    if cfg[C_ATOM_WAIT] != 0:
        if wt[slot, W_PEND_ATOM] > 0:  # a global atomic: its completion wakes the warp (ld_complete)
            wt[slot, W_READY] = INF
            return 1 + R_MEM
        if wt[slot, W_ATOM_UNTIL] > now:  # a shared-memory atomic: until its value is back
            wt[slot, W_READY] = wt[slot, W_ATOM_UNTIL]
            return 1 + R_MEM
    pc = seg[wt[slot, W_SEG], 0] + wt[slot, W_SEG_OFF]
    dep = operands_ready(slot, pc, pct, regrdy)
    if dep > now:
        wt[slot, W_READY] = dep
        return 1 + (R_MEM if dep >= INF else R_SB)
    kind = pct[pc, P_KIND]
    if kind == IK_BARRIER:
        return 0
    if pct[pc, P_PLACE] >= 0 and kind == IK_ALU:
        if g[G_LD_TOP] < 1 or g[G_RQ_TOP] < 1 or q_space(qm, cfg[C_Q_SMOUT] + sm) <= 0:
            wt[slot, W_READY] = edge(clk, D_CORE, k + 1)
            return 1 + R_MEMSTRUCT
        return 0
    ri = wt[slot, W_REC]
    has_rec = ri < wt[slot, W_REC_END] and rec[ri, RC_PC] == pc
    if kind == IK_PARAM or (kind >= IK_LOAD and kind <= IK_ATOMIC and has_rec):
        if cfg[C_MEMQ] != 0 and smt[sm, mq_port(sub, cfg)] == k + 1:  # one issued this cycle (memq.py)
            wt[slot, W_READY] = edge(clk, D_CORE, k + 1)
            return 1 + R_LDST
        if cfg[C_MEMQ] != 0 and not ldst_idle(sm, now, smt):  # core.mem_queue: it waits there (memq.py)
            if smt[sm, S_MQ_N] >= cfg[C_MEMQ]:
                wt[slot, W_READY] = WAIT_LDST
                smt[sm, S_LDST_WAITERS] = 1
                return 1 + R_LDST
        elif smt[sm, S_LDST_REC] >= 0:
            wt[slot, W_READY] = WAIT_LDST
            smt[sm, S_LDST_WAITERS] = 1
            return 1 + R_LDST
        elif smt[sm, S_LDST_FREE] > now:
            wt[slot, W_READY] = smt[sm, S_LDST_FREE]
            return 1 + R_LDST
        if kind == IK_PARAM:
            if cfg[C_PARAM_CC] != 0 and g[G_LD_TOP] < 1:
                wt[slot, W_READY] = edge(clk, D_CORE, k + 1)
                return 1 + R_MEMSTRUCT
        elif kind != IK_STORE and rec[ri, RC_SPACE] != SP_SHARED and g[G_LD_TOP] < 1:
            wt[slot, W_READY] = edge(clk, D_CORE, k + 1)
            return 1 + R_MEMSTRUCT
        return 0
    unit = pct[pc, P_UNIT]
    nunit = cfg[C_UCNT_SP + unit]
    if cfg[C_SUB_UNITS] != 0:
        t = ufree[sm, unit, sub % nunit]
    else:
        t = INF
        for u in range(nunit):
            if ufree[sm, unit, u] < t:
                t = ufree[sm, unit, u]
    if t > now:
        wt[slot, W_READY] = t
        return 1 + R_UNIT
    return 0


@njit_inline
def can_issue(core, sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, mx, chs, ctr):
    """``check_issue`` on the engine's SM (``core`` 0); on a mechanism's core (``core.model``) that core's own
    check. Callers pass ``core`` as a constant so that the compiled SM tick holds no trace of the other path."""
    if core != 0:
        return hooks.core_check(cfg[C_HK_CORE_CHECK], sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree,
                                smt, g, mx)
    return check_issue(sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, mx, chs, ctr)


@njit_inline
def ibuf_take(sm, slot, cfg, seg, wt, smt):
    """Warp ``slot`` issued one decoded instruction; an emptied buffer asks the fetch stage for more. With
    ``core.branch_refetch``, an instruction that left its trace segment for another PC (a taken branch) leaves
    the instructions after it to be flushed first: in the buffer when its fetch group had slots past it
    (W_BRWRONG), else as the warp's next fetch (layout.py, W_BRHAZ)."""
    if cfg[C_IBUF] > 0:
        wt[slot, W_IBUF] -= 1
        if wt[slot, W_IBUF] <= 0:
            if cfg[C_BR_HAZ] != 0:
                si = wt[slot, W_SEG]
                if (wt[slot, W_SEG_OFF] == 0 and si > 0 and not stream_done(slot, wt)
                        and seg[si, 0] != seg[si - 1, 0] + seg[si - 1, 1]):
                    if wt[slot, W_BRWRONG] > 0:
                        wt[slot, W_IBUF] = wt[slot, W_BRWRONG]
                        wt[slot, W_BRWRONG] = 0
                        wt[slot, W_BRHAZ] = 2
                        return
                    wt[slot, W_BRHAZ] = 1
                wt[slot, W_BRWRONG] = 0
            smt[sm, S_FETCH_WANT] = 1


@njit_inline
def ibuf_flush(sm, slot, cfg, wt, smt):
    """The warp's stream moved on without issuing here (a mechanism sent its stretch elsewhere)."""
    if cfg[C_IBUF] > 0:
        wt[slot, W_IBUF] = 0
        wt[slot, W_BRHAZ] = 0
        wt[slot, W_BRWRONG] = 0
        smt[sm, S_FETCH_WANT] = 1


@njit
def fetch_stage(sm, now, k, cfg, clk, seg, pct, wt, smt, subt, ctr, mx, rq, rq_free, l1t, l1m, l1w, qb, qm, wake,
                g, mapd, mrange):
    """Fetch and decode for one warp of SM ``sm`` this cycle (``core.ibuffer`` > 0).

    The warp is one whose instruction buffer is empty: the one a mechanism gave fetch priority, else the
    next in round-robin order after the last one fetched. Up to ``core.ibuffer`` instructions are decoded,
    never past a control-flow change (the end of the warp's current trace segment; with ``core.branch_refetch``,
    as GPGPU-Sim's fetch reads PCs, on into the next segment when only the active mask starts it, and past a
    taken branch as W_BRWRONG slots); they can issue from
    the next cycle; with ``core.fetch_at_barrier`` a warp waiting at a barrier is fetched too (its next
    instructions are then ready when the barrier releases it). With an instruction cache (``l1i``) the
    fetch first looks up the line of the warp's next instruction: a miss (or a reservation failure) takes
    this cycle's fetch and decodes nothing, the warp waiting for the fill; a warp whose line came back
    takes the fetch ahead of the others when ``l1i.fill_to_fetch``. Returns whether the stage did anything
    (nothing left: it sleeps until a buffer empties or a fill comes back).
    """
    nsl = cfg[C_NSLOT]
    base = sm * nsl
    pick = -1
    delivered = False
    if cfg[C_IC_EN] != 0 and smt[sm, S_IC_READY] > 0:  # a returned line goes to its warp first
        for j in range(nsl):
            slot = base + j
            if wt[slot, W_IMISS] == 2:
                pick = slot
                delivered = True
                wt[slot, W_IMISS] = 0
                smt[sm, S_IC_READY] -= 1
                break
    prio = smt[sm, S_FETCH_PRIO] - 1
    if pick < 0 and prio >= 0:
        if wt[prio, W_STATE] == WS_ACTIVE and wt[prio, W_IBUF] <= 0 and wt[prio, W_IMISS] == 0:
            pick = prio
        elif wt[prio, W_STATE] != WS_ACTIVE:
            smt[sm, S_FETCH_PRIO] = 0
    if pick < 0:
        start = smt[sm, S_FETCH_RR]
        for j in range(nsl):
            slot = base + (start + 1 + j) % nsl
            state = wt[slot, W_STATE]
            if ((state == WS_ACTIVE or (state == WS_BARRIER and cfg[C_FETCH_BAR] != 0)) and wt[slot, W_IBUF] <= 0
                    and wt[slot, W_IMISS] == 0):
                pick = slot
                smt[sm, S_FETCH_RR] = (start + 1 + j) % nsl
                break
    if pick < 0:
        smt[sm, S_FETCH_WANT] = 0
        return False
    si = wt[pick, W_SEG]
    off = wt[pick, W_SEG_OFF]
    wrong = cfg[C_BR_HAZ] != 0 and wt[pick, W_BRHAZ] == 1
    fpc = seg[si, 0] + off
    if wrong:  # after a taken branch the warp's fetch PC is still the branch's next one
        fpc = seg[si - 1, 0] + seg[si - 1, 1]
    if cfg[C_IC_EN] != 0 and not delivered:
        res = ic_access(sm, pick, fpc, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, mapd,
                        mrange)
        if res == 2:
            wt[pick, W_IMISS] = 1
        if res != 1:
            return True
    n = seg[si, 1] - off
    last = si  # the last segment the fetch group reaches
    if cfg[C_BR_HAZ] != 0 and not wrong:  # a fetch reads PCs: it runs on into a segment only the mask starts
        while n < cfg[C_IBUF]:
            nx = last + 1
            tail = nx == wt[pick, W_SEG_END]  # the stream's last segment: END_OFF instructions of it (0: none)
            if nx > wt[pick, W_SEG_END] or (tail and wt[pick, W_END_OFF] <= 0):
                break
            if seg[nx, 0] != seg[last, 0] + seg[last, 1]:
                break
            n += wt[pick, W_END_OFF] if tail else seg[nx, 1]
            last = nx
    if n > cfg[C_IBUF]:
        n = cfg[C_IBUF]
    if n < 1:
        n = 1
    ctr[T_FETCHES] += 1
    if wrong:  # decoded for the scheduler to flush (check_issue)
        wt[pick, W_IBUF] = cfg[C_IBUF]
        wt[pick, W_BRHAZ] = 2
        ctr[T_FETCH_WRONG] += 1
    else:
        wt[pick, W_IBUF] = n
        if cfg[C_BR_HAZ] != 0:  # the group's slots past its last segment's end, when a taken branch ends it
            nx = last + 1
            more = nx < wt[pick, W_SEG_END] or (nx == wt[pick, W_SEG_END] and wt[pick, W_END_OFF] > 0)
            if n < cfg[C_IBUF] and more and seg[nx, 0] != seg[last, 0] + seg[last, 1]:
                wt[pick, W_BRWRONG] = cfg[C_IBUF] - n
            else:
                wt[pick, W_BRWRONG] = 0
    if pick == prio and not wrong:
        ctr[T_FETCH_PRIO] += 1
    if cfg[C_MECH] != 0 and wt[pick, W_HOST] < 0 and not wrong:
        p = hooks.fetched(cfg[C_HK_FETCHED], sm, pick, seg[si, 0] + off, n, mx)
        if p > 0:
            smt[sm, S_FETCH_PRIO] = pick + 1
        elif p == 0 and smt[sm, S_FETCH_PRIO] == pick + 1:
            smt[sm, S_FETCH_PRIO] = 0
    t = edge(clk, D_CORE, k + 1)  # decoded this cycle, issuable from the next
    if wt[pick, W_READY] == WAIT_FETCH:
        wt[pick, W_READY] = INF
        wake_warp(pick, t, cfg, wt, subt)
    elif wt[pick, W_READY] < t:
        wt[pick, W_READY] = t
    return True


@njit  # not inlined: the rule is off on most machines, and its body would weigh on every issue's code
def alu_start(sm, sub, unit, nunit, k, lat, ii, cfg, clk, ufree, ctr):
    """``core.result_buses``: the cycle an ALU instruction issued at core cycle ``k`` starts executing, and on which
    instance of its unit, as GPGPU-Sim's execute stage takes it (``shader_core_ctx::execute``): in issue order
    through the unit's port, on an instance whose dispatch is free, whose own result slot ``lat`` cycles on is free
    (``simd_function_unit::occupied``) and for which a result bus is free then (``test_res_bus``); the slots are
    reserved. Returns ``start * MAXU + instance``."""
    base = cfg[C_UF_BASE]
    ring = base + 2 * MAXU
    port = base + MAXU
    u0 = 0
    u1 = nunit
    if cfg[C_SUB_UNITS] != 0:
        u0 = sub % nunit
        u1 = u0 + 1
        port += u0
    last = ufree[sm, unit, port]
    c = max(k, last // MAXU) if last >= 0 else k
    nbus = cfg[C_RBUS]
    while True:
        s = c + lat
        e = s % RB_RING
        bus = -1
        for b in range(nbus):
            if ufree[sm, U_SP, ring + (base + b) * RB_RING + e] != s:
                bus = b
                break
        if bus >= 0:
            for u in range(u0, u1):
                if last >= 0 and c == last // MAXU and u <= last % MAXU:
                    continue  # the port passed this instance in this cycle
                if ufree[sm, unit, base + u] > c or ufree[sm, unit, u] > edge(clk, D_CORE, c):
                    continue
                if ufree[sm, unit, ring + u * RB_RING + e] == s:
                    continue
                ufree[sm, U_SP, ring + (base + bus) * RB_RING + e] = s
                ufree[sm, unit, ring + u * RB_RING + e] = s
                ufree[sm, unit, base + u] = c + ii
                ufree[sm, unit, port] = c * MAXU + u
                if c > k:
                    ctr[T_WB_DELAYED] += 1
                    ctr[T_WB_DELAY] += c - k
                return c * MAXU + u
        c += 1


@njit_inline
def do_issue(sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, ctat, ldo, ld_free,
             rq, rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, subt, mx, xt):
    """Issue warp ``slot``'s next instruction (``check_issue`` said it can)."""
    si = wt[slot, W_SEG]
    pc = seg[si, 0] + wt[slot, W_SEG_OFF]
    mask = seg[si, 2]
    kind = pct[pc, P_KIND]
    ri = wt[slot, W_REC]
    has_rec = ri < wt[slot, W_REC_END] and rec[ri, RC_PC] == pc
    hold = 0  # core.atomic_wait: a shared-memory atomic holds the warp until its value is back (W_ATOM_UNTIL)
    if kind == IK_BARRIER:
        ctr[T_BARRIERS] += 1
        advance(slot, seg, wt)
        issued_stats(sm, slot, pc, mask, k, cfg, wt, ctr, smst, pcst, clst, pct, mx)
        barrier_arrive(sm, slot, k, cfg, clk, wt, ctat, smt, subt)
        return
    if cfg[C_MECH] != 0 and wt[slot, W_MX] >= 0 and wt[slot, W_HOST] < 0:
        txl, txs, l1t, mapd, mrange, _core = xt
        took = hooks.intercept(cfg[C_HK_INTERCEPT], sm, slot, pc, now, k, cfg, clk, rec, txl, txs, wt, smt, l1t,
                               mapd, mrange, mx)
        if took != 0:  # the mechanism took the instruction: the warp moves on (or waits for the mechanism)
            if has_rec:
                wt[slot, W_REC] = ri + 1
            advance(slot, seg, wt)
            issued_stats(sm, slot, pc, mask, k, cfg, wt, ctr, smst, pcst, clst, pct, mx)
            wt[slot, W_READY] = INF if took == 2 else edge(clk, D_CORE, k + 1)
            if stream_done(slot, wt):
                warp_done_issuing(sm, slot, k, cfg, clk, wt, ctat, smt, subt)
            return
    if pct[pc, P_PLACE] >= 0 and kind == IK_ALU:
        # execution placed on a memory-side unit: operands out, results back, as packets
        ldop = load_open(sm, slot, pc, now, 0, 1, pct, regrdy, wt, ldo, ld_free, g)
        nact = popcount(mask)
        nsrc = 0
        ndst = 0
        for j in range(4):
            if pct[pc, P_S0 + j] >= 0:
                nsrc += 1
            if pct[pc, P_D0 + j] >= 0:
                ndst += 1
        r = rq_alloc(rq, rq_free, g)
        rq[r, R_KIND] = pct[pc, P_PKIND]  # PK_OFFLOAD or a registered user packet type
        rq[r, R_SRC] = sm
        rq[r, R_SLICE] = pct[pc, P_PLACE]
        rq[r, R_BYTES] = nact * 4 * nsrc
        rq[r, R_RBYTES] = nact * 4 * ndst
        rq[r, R_LDOP] = ldop
        rq[r, R_PC] = pc
        rq[r, R_T0] = now
        rq[r, R_READY] = edge(clk, D_CORE, k + 1)
        net_push(cfg[C_Q_SMOUT] + sm, r, cfg, qb, qm, wake, NET_REQ, rq)
        ctr[T_OFFLOADS] += 1
        if has_rec:
            wt[slot, W_REC] = ri + 1
    elif kind == IK_PARAM or (kind >= IK_LOAD and kind <= IK_ATOMIC and has_rec):
        # a memory instruction: what issue does (a load operation opened for what the memory system returns,
        # the record passed), then the LD/ST unit takes it now or, busy, after those waiting (memq.py)
        ldop = -1
        mri = ri
        if kind == IK_PARAM:
            mri = pct[pc, P_PREC]  # ld.param through the constant cache (l1c.kernel_params): the launch's record
            if mri >= 0:
                ldop = load_open(sm, slot, pc, now, 1, rec[mri, RC_NTX], pct, regrdy, wt, ldo, ld_free, g)
        else:
            if rec[ri, RC_SPACE] != SP_SHARED:
                if kind == IK_LOAD or kind == IK_ATOMIC:
                    ldop = load_open(sm, slot, pc, now, 1, rec[ri, RC_NTX], pct, regrdy, wt, ldo, ld_free, g)
                if kind == IK_ATOMIC:
                    ldo[ldop, L_ATOM] = 1
                    wt[slot, W_PEND_ATOM] += 1
            if kind == IK_LOAD:
                ctr[T_LOADS] += 1
            elif kind == IK_STORE:
                ctr[T_STORES] += 1
            else:
                ctr[T_ATOMICS] += 1
            wt[slot, W_REC] = ri + 1
        if cfg[C_MEMQ] != 0:
            smt[sm, mq_port(sub, cfg)] = k + 1
        if cfg[C_MEMQ] == 0 or ldst_idle(sm, now, smt):
            hold = ldst_start(sm, slot, pc, kind, mri, ldop, k, False, cfg, clk, rec, pct, wt, regrdy, smt, subt,
                              ctr)
        else:
            hold = mq_issue_wait(sm, slot, pc, kind, mri, ldop, k, cfg, pct, wt, regrdy, smt)
    else:
        # ALU / control / predicated-off memory instruction: its unit, its latency
        unit = pct[pc, P_UNIT]
        nunit = cfg[C_UCNT_SP + unit]
        inst = 0
        if cfg[C_SUB_UNITS] != 0:
            inst = sub % nunit
        else:
            best = INF
            for u in range(nunit):
                if ufree[sm, unit, u] < best:
                    best = ufree[sm, unit, u]
                    inst = u
        ks = k
        if cfg[C_RBUS] != 0 and unit != U_LDST and pct[pc, P_LAT] < RB_RING:
            # writeback hazards: the instruction may start later and on another instance; the scheduler keeps
            # seeing the instance free after the interval (GPGPU-Sim's operand collector holds what waits)
            x = alu_start(sm, sub, unit, nunit, k, pct[pc, P_LAT], pct[pc, P_II], cfg, clk, ufree, ctr)
            ks = x // MAXU
            inst = x % MAXU
        ufree[sm, unit, inst] = edge(clk, D_CORE, k + pct[pc, P_II])
        t = edge(clk, D_CORE, ks + pct[pc, P_LAT])
        dests_ready(slot, pc, pct, regrdy, t)
        if has_rec:
            wt[slot, W_REC] = ri + 1
    advance(slot, seg, wt)
    issued_stats(sm, slot, pc, mask, k, cfg, wt, ctr, smst, pcst, clst, pct, mx)
    wt[slot, W_READY] = max(edge(clk, D_CORE, k + 1), hold)
    if stream_done(slot, wt):
        warp_done_issuing(sm, slot, k, cfg, clk, wt, ctat, smt, subt)


@njit
def issued_stats(sm, slot, pc, mask, k, cfg, wt, ctr, smst, pcst, clst, pct, mx):
    ctr[T_WARP_INSTS] += 1
    ctr[T_THREAD_INSTS] += popcount(mask)
    smst[sm, SMS_INSTS] += 1
    pcst[pc, PCS_ISSUED] += 1
    clst[pct[pc, P_CLASS]] += 1
    wt[slot, W_ISSUED] += 1
    wt[slot, W_LAST_ISSUE] = k
    if wt[slot, W_HOST] >= 0:
        hooks.guest_issued(cfg[C_HK_GUEST_ISSUED], slot, mask, wt, mx)


@njit_inline
def waiting_reason(b0, nsub, per, seg, wt):
    """Why a sub-core whose warps (slots ``b0``, ``b0 + nsub``, ...) were not asked this cycle cannot issue, and
    the PC it is charged to: the oldest active warp's wait (``memory``, ``ldst_busy``, ``fetch`` or
    ``scoreboard``), else ``barrier`` (a warp waits at one), ``drain`` or ``idle``."""
    reason = -1
    rpc = -1
    best = INF
    has_bar = -1
    has_drain = False
    for i in range(per):
        slot = b0 + i * nsub
        st = wt[slot, W_STATE]
        if st == WS_ACTIVE:
            if wt[slot, W_AGE] < best:
                best = wt[slot, W_AGE]
                rd = wt[slot, W_READY]
                reason = R_MEM if rd >= INF else (
                    R_LDST if rd == WAIT_LDST else (R_FETCH if rd == WAIT_FETCH else R_SB))
                rpc = warp_pc(slot, seg, wt)
        elif st == WS_BARRIER:
            has_bar = slot
        elif st == WS_DRAIN:
            has_drain = True
    if reason < 0:
        if has_bar >= 0:
            reason = R_BAR
            rpc = warp_pc(has_bar, seg, wt)
        elif has_drain:
            reason = R_DRAIN
        else:
            reason = R_IDLE
    return reason, rpc


@njit_inline
def sub_issue(sm, s, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free,
              rq, rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, mx, chs, xt):
    """One cycle of sub-core ``s``'s warp scheduler; returns instructions issued. On a mechanism's core
    (``xt``'s last item, a constant of the caller: 1) the core's hooks check and issue the warps this
    scheduler picks."""
    nsub = cfg[C_NSUB]
    nsl = cfg[C_NSLOT]
    per = nsl // nsub
    sb = sm * nsub + s
    b0 = sm * nsl + s
    sched = cfg[C_SCHED]
    core = xt[5]
    first_reason = -1
    first_pc = -1
    first_age = INF
    chosen = -1
    minr = INF
    if sched == SCHED_GTO:
        cand = subt[sb, SB_LAST]
        if cand >= 0 and wt[cand, W_STATE] == WS_ACTIVE and wt[cand, W_READY] <= now:
            res = can_issue(core, sm, s, cand, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, mx, chs,
                            ctr)
            if res == 0:
                chosen = cand
                minr = now  # the other warps were not scanned: look again next cycle
            else:
                first_reason = res - 1
                first_pc = warp_pc(cand, seg, wt)
                first_age = -1
        if chosen < 0:
            best_age = INF
            for i in range(per):
                slot = b0 + i * nsub
                if slot == cand or wt[slot, W_STATE] != WS_ACTIVE:
                    continue
                rd = wt[slot, W_READY]
                if rd > now:
                    if rd < minr:
                        minr = rd
                    continue
                age = wt[slot, W_AGE]
                if age >= best_age:
                    minr = now
                    continue
                res = can_issue(core, sm, s, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, mx,
                                chs, ctr)
                if res == 0:
                    if chosen >= 0:
                        minr = now
                    best_age = age
                    chosen = slot
                else:
                    if wt[slot, W_READY] < minr:
                        minr = wt[slot, W_READY]
                    if age < first_age:
                        first_reason = res - 1
                        first_pc = warp_pc(slot, seg, wt)
                        first_age = age
            if cand >= 0 and chosen != cand and wt[cand, W_STATE] == WS_ACTIVE and wt[cand, W_READY] < minr:
                minr = wt[cand, W_READY]
    else:
        two = sched == SCHED_TWO_LEVEL
        if two:
            pool = cfg[C_ACTIVE_POOL]
            for i in range(per):
                slot = b0 + i * nsub
                if wt[slot, W_ACTIVE_POOL] != 0 and (wt[slot, W_STATE] != WS_ACTIVE or wt[slot, W_READY] >= INF):
                    wt[slot, W_ACTIVE_POOL] = 0
                    subt[sb, SB_NACTIVE] -= 1
            while subt[sb, SB_NACTIVE] < pool:
                best = INF
                pick = -1
                for i in range(per):
                    slot = b0 + i * nsub
                    if (wt[slot, W_STATE] == WS_ACTIVE and wt[slot, W_ACTIVE_POOL] == 0
                            and wt[slot, W_READY] < INF and wt[slot, W_AGE] < best):
                        best = wt[slot, W_AGE]
                        pick = slot
                if pick < 0:
                    break
                wt[pick, W_ACTIVE_POOL] = 1
                subt[sb, SB_NACTIVE] += 1
        last = subt[sb, SB_LAST]
        start = 0 if last < 0 else ((last - b0) // nsub + 1)
        for j in range(per):
            i = (start + j) % per
            slot = b0 + i * nsub
            if wt[slot, W_STATE] != WS_ACTIVE:
                continue
            rd = wt[slot, W_READY]
            if chosen >= 0 or rd > now or (two and wt[slot, W_ACTIVE_POOL] == 0):
                if rd < minr:
                    minr = rd
                continue
            res = can_issue(core, sm, s, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, mx, chs,
                            ctr)
            if res == 0:
                chosen = slot
                continue
            if wt[slot, W_READY] < minr:
                minr = wt[slot, W_READY]
            if first_reason < 0:
                first_reason = res - 1
                first_pc = warp_pc(slot, seg, wt)
    ctr[T_SCHED_CYCLES] += 1
    if chosen >= 0:
        if core != 0:  # a mechanism's core issues it
            hooks.core_issue(cfg[C_HK_CORE_ISSUE], sm, s, chosen, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree,
                             smt, subt, ctat, ldo, ld_free, g, ctr, smst, pcst, clst, mx)
        elif wt[chosen, W_DIVERT] != 0:  # the warp's next stretch runs elsewhere
            hooks.divert(cfg[C_HK_DIVERT], sm, chosen, now, k, cfg, clk, wt, chs, wake, mx)
            ibuf_flush(sm, chosen, cfg, wt, smt)
        else:
            do_issue(sm, s, chosen, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, ctat, ldo, ld_free, rq,
                     rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, subt, mx, xt)
            ibuf_take(sm, chosen, cfg, seg, wt, smt)
        issued = 1
        subt[sb, SB_LAST] = chosen
        for _x in range(cfg[C_ISSUE_W] - 1):
            if wt[chosen, W_STATE] != WS_ACTIVE or wt[chosen, W_READY] >= INF:  # done, at a barrier, or offloaded
                break
            if can_issue(core, sm, s, chosen, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, mx, chs,
                         ctr) != 0:
                wt[chosen, W_READY] = edge(clk, D_CORE, k + 1)
                break
            if core != 0:
                hooks.core_issue(cfg[C_HK_CORE_ISSUE], sm, s, chosen, now, k, cfg, clk, seg, rec, pct, wt, regrdy,
                                 ufree, smt, subt, ctat, ldo, ld_free, g, ctr, smst, pcst, clst, mx)
                issued += 1
                continue
            if wt[chosen, W_DIVERT] != 0:
                hooks.divert(cfg[C_HK_DIVERT], sm, chosen, now, k, cfg, clk, wt, chs, wake, mx)
                ibuf_flush(sm, chosen, cfg, wt, smt)
                break
            do_issue(sm, s, chosen, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, ctat, ldo, ld_free,
                     rq, rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, subt, mx, xt)
            ibuf_take(sm, chosen, cfg, seg, wt, smt)
            issued += 1
        ctr[T_ISSUE_SLOTS] += 1
        if wt[chosen, W_STATE] == WS_ACTIVE and wt[chosen, W_READY] < minr:
            minr = wt[chosen, W_READY]
        subt[sb, SB_MINREADY] = minr
        if minr > edge(clk, D_CORE, k + 1):
            # no warp can issue next cycle (the issuing warp reached a barrier, exited or waits): the cycles
            # until one can are held as a cycle that issued nothing would count them
            if first_reason < 0:
                first_reason, first_pc = waiting_reason(b0, nsub, per, seg, wt)
            subt[sb, SB_REASON] = first_reason
            subt[sb, SB_RPC] = first_pc
        else:
            subt[sb, SB_REASON] = R_SB
            subt[sb, SB_RPC] = -1
        return issued
    reason = first_reason
    rpc = first_pc
    if reason < 0:
        reason, rpc = waiting_reason(b0, nsub, per, seg, wt)
    ctr[T_ST_IDLE + reason] += 1
    if rpc >= 0:
        pcst[rpc, PCS_STALL] += 1
    subt[sb, SB_REASON] = reason
    subt[sb, SB_RPC] = rpc
    subt[sb, SB_MINREADY] = minr
    return 0


@njit_inline
def schedulers(sm, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, rq, rq_free,
               qb, qm, wake, g, ctr, smst, pcst, clst, mx, chs, xt):
    """One cycle of the core's warp schedulers, one per sub-core; True when any issued."""
    progress = False
    nsub = cfg[C_NSUB]
    first = k % nsub if cfg[C_SCHED_ROT] != 0 else 0  # which scheduler goes first this cycle
    for i in range(nsub):
        s = i if first == 0 else (first + i) % nsub
        sb = sm * nsub + s
        if subt[sb, SB_MINREADY] > now:
            # nothing can issue: the last cycle's stall reason still holds
            ctr[T_SCHED_CYCLES] += 1
            ctr[T_ST_IDLE + subt[sb, SB_REASON]] += 1
            if subt[sb, SB_RPC] >= 0:
                pcst[subt[sb, SB_RPC], PCS_STALL] += 1
            continue
        if sub_issue(sm, s, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free,
                     rq, rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, mx, chs, xt) > 0:
            progress = True
    return progress


@njit
def account_skipped(sm, cycles, cfg, smt, subt, ctr, pcst):
    """Count the cycles SM ``sm`` skipped as its ticks would have: each scheduler stalled for its last reason, and
    an LD/ST unit asleep on a refusal only a fill lifts (``S_LDST_STOP``) refused once a cycle."""
    if cycles <= 0:
        return
    stop = smt[sm, S_LDST_STOP]
    if stop >= STOP_MERGE_CAP:
        ctr[T_CC_MSHR_FULL if stop == STOP_CC_MSHR else T_L1_MSHR_FULL] += cycles
    nsub = cfg[C_NSUB]
    for s in range(nsub):
        sb = sm * nsub + s
        ctr[T_ST_IDLE + subt[sb, SB_REASON]] += cycles
        ctr[T_SCHED_CYCLES] += cycles
        pc = subt[sb, SB_RPC]
        if pc >= 0:
            pcst[pc, PCS_STALL] += cycles


@njit_inline
def sm_tick(sm, now, k, cfg, clk, wake, g, mx, launch, core, mem, stats):
    """One cycle of SM ``sm``: fills, fetch, the warp schedulers, the LD/ST unit, CTA preloads, the mechanism's
    service, retirement and the SM's next wake-up. ``launch``, ``core``, ``mem`` and ``stats`` are the loop's state
    groups (``loop.py``), taken whole because an inlined call takes at most 30 arguments."""
    seg, rec, pct, txl, txs, txp = launch.seg, launch.rec, launch.pct, launch.txl, launch.txs, launch.txp
    pre_lines, regrdy = launch.pre_lines, launch.regrdy
    wt, ufree, smt, subt, ctat = core.wt, core.ufree, core.smt, core.subt, core.ctat
    ldo, ld_free, l1t, l1m, l1w = core.ldo, core.ld_free, core.l1t, core.l1m, core.l1w
    rq, rq_free, qb, qm = mem.rq, mem.rq_free, mem.qb, mem.qm
    mapd, mrange, chs, l2t = mem.mapd, mem.mrange, mem.chs, mem.l2t
    ctr, smst, pcst, clst, prst = stats.ctr, stats.smst, stats.pcst, stats.clst, stats.prst
    nsub = cfg[C_NSUB]
    nsl = cfg[C_NSLOT]
    if k - smt[sm, S_LAST_TICK] > 1:  # (a call only when cycles were skipped: most ticks follow the last)
        account_skipped(sm, k - smt[sm, S_LAST_TICK] - 1, cfg, smt, subt, ctr, pcst)
    smt[sm, S_LAST_TICK] = k
    progress = False
    arrival = INF
    if cfg[C_HK_SM_TICK] != 0:  # a mechanism may start guest warps here (no call when it has no such hook)
        arrival = hooks.sm_tick(cfg[C_HK_SM_TICK], sm, now, k, cfg, clk, wt, regrdy, smt, subt, l1t, g, mx)
    # replies from the network
    qi = cfg[C_Q_SMIN] + sm
    for _p in range(cfg[C_L1_FILL_PORTS]):
        if qm[qi, Q_COUNT] == 0:
            break
        r = q_head(qb, qm, qi)
        if rq[r, R_READY] > now:
            break
        if not sm_fill(sm, r, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, ldo, ld_free, qb, qm, wake, g, ctr,
                       prst, pcst, wt, regrdy, smt, mapd, mrange, subt, mx):
            break
        q_pop(qb, qm, qi)
        progress = True
    if cfg[C_IBUF] > 0 and smt[sm, S_FETCH_WANT] != 0 and fetch_stage(sm, now, k, cfg, clk, seg, pct, wt, smt, subt,
                                                                       ctr, mx, rq, rq_free, l1t, l1m, l1w, qb, qm,
                                                                       wake, g, mapd, mrange):
        progress = True
    # warp schedulers (what a mechanism's ``intercept`` reads goes down as one tuple: an inlined call takes
    # at most 30 arguments; its last item, 0, says these are the engine's SMs)
    xt = (txl, txs, l1t, mapd, mrange, 0)
    if schedulers(sm, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, rq, rq_free,
                  qb, qm, wake, g, ctr, smst, pcst, clst, mx, chs, xt):
        progress = True
    # LD/ST unit: the oldest instruction waiting for it (core.mem_queue), then the transactions of its current
    # memory instruction against L1
    if smt[sm, S_MQ_N] > 0 and smt[sm, S_LDST_REC] < 0 and smt[sm, S_LDST_FREE] <= now:
        if mq_start_head(sm, now, k, cfg, clk, rec, pct, wt, regrdy, smt, subt, ctr):
            progress = True
    smt[sm, S_LDST_STOP] = 0
    if smt[sm, S_LDST_REC] >= 0:
        nports = cfg[C_CC_PORTS] if rec[smt[sm, S_LDST_REC], RC_SPACE] == SP_CONST else cfg[C_L1_PORTS]
        for _p in range(nports):
            if smt[sm, S_LDST_TX] >= smt[sm, S_LDST_TXEND]:
                break
            blk = smt[sm, S_LDST_BLOCK]
            if blk == 1 and smt[sm, S_MSHR_USED] >= l1_mshr_cap(sm, cfg):
                break
            if blk == 2 and q_space(qm, cfg[C_Q_SMOUT] + sm) <= smt[sm, S_LDST_QHOLD]:
                break
            if not tx_process(sm, now, k, cfg, clk, rec, txl, txs, txp, rq, rq_free, l1t, l1m, l1w, ldo, ld_free, qb,
                              qm, wake, g, ctr, smst, pcst, wt, regrdy, smt, mapd, mrange, subt, mx):
                break
            smt[sm, S_LDST_BLOCK] = 0
            smt[sm, S_LDST_QHOLD] = 0
            smt[sm, S_LDST_TX] += 1
            progress = True
        if smt[sm, S_LDST_TX] >= smt[sm, S_LDST_TXEND]:
            smt[sm, S_LDST_REC] = -1
            warp_maybe_exit_flag(smt[sm, S_LDST_SLOT], wt, smt, cfg)
            if smt[sm, S_LDST_WAITERS] != 0:
                smt[sm, S_LDST_WAITERS] = 0
                t = edge(clk, D_CORE, k + 1)
                for j in range(nsl):
                    slot = sm * nsl + j
                    if wt[slot, W_READY] == WAIT_LDST:
                        wt[slot, W_READY] = INF
                        wake_warp(slot, t, cfg, wt, subt)
    # CTA preloads (one line per cycle)
    freed = False  # a warp retired: its slot is free for what a mechanism's hook starts at the next tick
    pre_busy = smt[sm, S_PRE_PENDING] > 0
    if pre_busy:
        ncs = cfg[C_NCTA_SLOTS]
        for j in range(ncs):
            cs = sm * ncs + j
            if ctat[cs, CT_CTA] >= 0 and ctat[cs, CT_PRE_NEXT] < ctat[cs, CT_PRE_END]:
                line = pre_lines[ctat[cs, CT_PRE_NEXT]]
                if c_find(l1t, l1_base(sm, line, cfg), cfg[C_L1_ASSOC], line) >= 0:
                    ctat[cs, CT_PRE_NEXT] += 1
                else:
                    full = (1 << ((1 << cfg[C_L1_LINE_SHIFT]) // 32)) - 1
                    if l1_send_miss(sm, line, full, PK_PRELOAD, cfg[C_PRELOAD_PRIO], -1, -1, cfg[C_PRELOAD_TO_L1],
                                    now, k, cfg, clk, rq, rq_free, l1m, l1w, qb, qm, wake, g, mapd, mrange,
                                    smt) != 0:
                        ctat[cs, CT_PRE_NEXT] += 1
                        ctr[T_PRELOADS] += 1
                        progress = True
                if ctat[cs, CT_PRE_NEXT] >= ctat[cs, CT_PRE_END]:
                    smt[sm, S_PRE_PENDING] -= 1
                break
    # the mechanism's work here, after the SM's own (its idle units are the mechanism's)
    svc = INF
    if cfg[C_HK_CORE_SERVICE] != 0:  # (the hook's default is INF: no call when the mechanism has none)
        svc = hooks.core_service(cfg[C_HK_CORE_SERVICE], sm, now, k, cfg, clk, ufree, wt, subt, smt, rq, rq_free, qb,
                                 qm, wake, g, mapd, mrange, mx)
    # retire drained warps; next wake
    if smt[sm, S_RETIRE] != 0:
        smt[sm, S_RETIRE] = 0
        for j in range(nsl):
            slot = sm * nsl + j
            if (wt[slot, W_STATE] == WS_DRAIN and wt[slot, W_PEND_LD] == 0 and wt[slot, W_PEND_ST] == 0
                    and not (smt[sm, S_LDST_REC] >= 0 and smt[sm, S_LDST_SLOT] == slot)
                    and not (smt[sm, S_MQ_N] > 0 and mq_holds(sm, slot, smt))):
                # (a warp whose last memory instruction is still in the LD/ST unit, or waits for it, has not
                # sent it yet)
                if wt[slot, W_HOST] >= 0:
                    hooks.guest_done(cfg[C_HK_GUEST_DONE], sm, slot, now, k, cfg, clk, wt, subt, chs, l1t, l2t, mapd,
                                     mrange, wake, mx)
                    wake_sleeping_slices(now, cfg, qm, wake)  # (it may have dropped lines a refusal depended on)
                warp_exit(sm, slot, now, k, cfg, wt, ctat, smt, wake, g, ctr, smst)
                progress = True
                freed = True
    w = INF
    for s in range(nsub):
        t = subt[sm * nsub + s, SB_MINREADY]
        if t < w:
            w = t
    nxt = edge(clk, D_CORE, k + 1)
    ldst_poll = smt[sm, S_LDST_REC] >= 0 and not (
        (smt[sm, S_LDST_BLOCK] == 1 and smt[sm, S_MSHR_USED] >= l1_mshr_cap(sm, cfg))
        or (smt[sm, S_LDST_BLOCK] == 2 and q_space(qm, cfg[C_Q_SMOUT] + sm) <= smt[sm, S_LDST_QHOLD])
        or smt[sm, S_LDST_STOP] >= STOP_MERGE_CAP)  # (4-6: only this SM's fill lifts it, and wakes the SM)
    if pre_busy or ldst_poll or freed:
        w = nxt
    if smt[sm, S_LDST_FREE] > now and smt[sm, S_LDST_FREE] < w:
        w = smt[sm, S_LDST_FREE]
    if smt[sm, S_MQ_N] > 0 and smt[sm, S_LDST_REC] < 0:  # the unit takes the next waiting one when free
        t = max(nxt, smt[sm, S_LDST_FREE], edge(clk, D_CORE, smt[sm, S_MQ0 + MQ_W * smt[sm, S_MQ_HEAD] + MQF_K]))
        if t < w:
            w = t
    if arrival < w:
        w = arrival
    if svc < w:
        w = svc
    if qm[qi, Q_COUNT] > 0:
        t = rq[q_head(qb, qm, qi), R_READY]
        if t < w:
            w = t
    if w >= WAIT_FETCH:
        w = INF  # only replies (which wake the SM on delivery), the LD/ST unit or the fetch stage can unblock it
    if smt[sm, S_FETCH_WANT] != 0:
        w = nxt
    if w < nxt:
        w = nxt
    if progress:
        g[G_LAST_PROGRESS] = now
    wake[sm] = w


@njit
def core_model_tick(sm, now, k, cfg, clk, seg, rec, pct, txl, txs, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free,
                    rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smst, pcst, clst, prst, mapd, mrange, pre_lines,
                    mx, chs, l2t):
    """One tick of a mechanism's core (``core.model``) in place of the SM's: the mechanism's ``core_receive``,
    then this engine's warp schedulers (``sub_issue``, which check and issue through ``core_check`` and
    ``core_issue``), then its ``core_tick`` (sends, retirement, the core's next wake time). Called once per
    due core: inlined into one call per cycle, as the SM's tick is, it measured 1.12-1.15x slower
    (benchmarks/README.md)."""
    if k - smt[sm, S_LAST_TICK] > 1:  # (a call only when cycles were skipped: most ticks follow the last)
        account_skipped(sm, k - smt[sm, S_LAST_TICK] - 1, cfg, smt, subt, ctr, pcst)
    smt[sm, S_LAST_TICK] = k
    progress = hooks.core_receive(cfg[C_HK_CORE_RECEIVE], sm, now, k, cfg, clk, wt, regrdy, smt, subt, ldo, ld_free,
                                  rq, rq_free, qb, qm, g, ctr, pcst, mx) != 0
    xt = (txl, txs, l1t, mapd, mrange, 1)  # (1: the mechanism's core hooks check and issue)
    if schedulers(sm, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, rq, rq_free,
                  qb, qm, wake, g, ctr, smst, pcst, clst, mx, chs, xt):
        progress = True
    if progress:
        g[G_LAST_PROGRESS] = now
    hooks.core_tick(cfg[C_HK_CORE_TICK], sm, now, k, cfg, clk, seg, rec, pct, txl, txs, wt, regrdy, ufree, smt, subt,
                    ctat, ldo, ld_free, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smst, pcst, clst, prst, mapd,
                    mrange, pre_lines, mx, chs, l2t)


@njit
def sm_ticks(now, k, cfg, clk, wake, g, mx, launch, core, mem, stats):
    """Tick, in SM order, every SM due at ``now`` (core cycle ``k``): one call per core cycle, each SM's tick
    inlined here, since a call passes each array as several scalars (docs/timing.md, "Speed").
    The order and the due test are those of one call per SM: the statistics do not change."""
    for sm in range(cfg[C_NSM]):
        if wake[sm] <= now:
            wake[sm] = INF
            g[G_IT_SM] += 1
            sm_tick(sm, now, k, cfg, clk, wake, g, mx, launch, core, mem, stats)


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


STALL_NAMES = ("idle", "memory", "scoreboard", "barrier", "unit_busy", "ldst_busy", "memory_structural", "drain",
               "fetch")


def metrics(st, put, ratio) -> None:
    """The kernel (cycles, instructions, IPC), the cores (occupancy, issue, stalls, instruction mix) and
    each PC's issue, stall and miss counts."""
    c, K = st.c, st.consts
    cyc = max(st.cycles, 1)
    wi, ti = c("WARP_INSTS"), c("THREAD_INSTS")
    put("kernel", "cycles", st.cycles, "cycles")
    put("kernel", "time", st.time_ps / 1000.0, "ns")
    put("kernel", "launches", st.launches, "launches")
    put("kernel", "warp_instructions", wi, "warp-instr")
    put("kernel", "thread_instructions", ti, "thread-instr")
    put("kernel", "ipc_warp", ratio(wi, cyc), "warp-instr/cycle")
    put("kernel", "ipc_thread", ratio(ti, cyc), "thread-instr/cycle")
    put("kernel", "ctas", c("CTAS_LAUNCHED"), "CTAs")
    put("kernel", "warps", c("WARPS_LAUNCHED"), "warps")
    put("kernel", "capped", int(st.capped), "flag")
    nsm, maxw = K["num_sms"], K["max_warps"]
    occ = float(st.per_sm[:nsm, SMS_OCC].sum())  # the GPU's SMs (stack SMs run no CTAs)
    busy = float(st.per_sm[:nsm, SMS_BUSY].sum())
    put("core", "occupancy", ratio(occ, nsm * maxw * cyc), "fraction")
    put("core", "occupancy_active", ratio(occ, maxw * busy), "fraction")
    for k, v in st.occupancy.items():
        put("core", k, v, "fraction" if k == "occupancy_theoretical" else ("CTAs" if k == "ctas_per_sm" else ""))
    sched = c("SCHED_CYCLES")
    put("core.issue", "scheduler_cycles", sched, "cycles")
    put("core.issue", "issue_cycles", c("ISSUE_SLOTS"), "cycles")
    put("core.issue", "issue_rate", ratio(c("ISSUE_SLOTS"), sched), "fraction")
    put("core.issue", "fetches", c("FETCHES"), "fetches")  # 0 with an ideal front end (core.ibuffer 0)
    put("core.issue", "fetches_with_priority", c("FETCH_PRIO"), "fetches")
    put("core.issue", "wrong_path_fetches", c("FETCH_WRONG"), "fetches")  # core.branch_refetch: after taken branches
    # core.result_buses: ALU instructions that started executing after their issue cycle, and the cycles they waited
    put("core.issue", "writeback_delayed", c("WB_DELAYED"), "warp-instr")
    put("core.issue", "writeback_delay_cycles", c("WB_DELAY"), "cycles")
    for i, name in enumerate(STALL_NAMES):
        v = int(st.ctr[T_ST_IDLE + i])
        put("core.stalls", name, v, "cycles")
        put("core.stalls", name + "_fraction", ratio(v, sched), "fraction")
    for i, name in enumerate(OP_CLASSES):
        if st.per_class[i]:
            put("core.instructions", name, int(st.per_class[i]), "warp-instr")
    put("core", "loads", c("LOADS"), "warp-instr")
    put("core", "stores", c("STORES"), "warp-instr")
    put("core", "atomics", c("ATOMICS"), "warp-instr")
    put("core", "barriers", c("BARRIERS"), "warp-instr")
    if st.per_pc is not None:
        for pc in range(st.per_pc.shape[0]):
            row = st.per_pc[pc]
            if not row.any():
                continue
            p = f"pc.{pc}"
            if st.pc_info is not None and pc < len(st.pc_info):
                put(p, "opcode", st.pc_info[pc][0], "")
                put(p, "ptx_line", st.pc_info[pc][1], "line")
            put(p, "issued", int(row[PCS_ISSUED]), "warp-instr")
            put(p, "stall_cycles", int(row[PCS_STALL]), "cycles")
            put(p, "l1_misses", int(row[PCS_L1_MISS]), "transactions")
            put(p, "l2_misses", int(row[PCS_L2_MISS]), "requests")
