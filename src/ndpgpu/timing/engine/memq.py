"""The memory instructions waiting for an SM's LD/ST unit (``core.mem_queue``): GPGPU-Sim's scheduler issues a
memory instruction into its memory pipeline register while the unit still works on an earlier one; it waits there,
in a memory collector unit or in OC_EX_MEM until the unit takes it, and its warp goes on issuing meanwhile
(``scheduler_unit::cycle`` checks only that ``m_mem_out`` has a free slot; ``shader_core_ctx::execute`` hands
OC_EX_MEM to the unit when its dispatch register is empty); ID_OC_MEM's one slot lets an SM issue one memory
instruction a cycle, whichever of its schedulers issues it. Here an instruction issued while the unit is busy
(or others wait) takes an entry of the SM's ring (layout.py, ``S_MQ0``); the SM's tick starts the oldest once the
unit is free, one a cycle. What an instruction does when the unit takes it is :func:`ldst_start`, the same code
an instruction that finds the unit free runs at issue.
"""

from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .ldst import wake_warp, warp_maybe_exit_flag, wb_slot
from .queues import edge
from .warps import dests_ready, lsu_take


@njit_inline
def ldst_idle(sm, now, smt):
    """Whether SM ``sm``'s LD/ST unit can take an instruction now, with none waiting for it."""
    return smt[sm, S_LDST_REC] < 0 and smt[sm, S_LDST_FREE] <= now and smt[sm, S_MQ_N] == 0


@njit_inline
def mq_port(sub, cfg):
    """The ``smt`` column that holds 1 + the cycle of the last memory instruction issued through sub-core ``sub``'s
    ID_OC_MEM slot: the SM's one slot, or the sub-core's own when sub-cores own their units."""
    return S_MQI0 + (sub if cfg[C_SUB_UNITS] != 0 else 0)


@njit
def mq_push(sm, slot, pc, kind, ri, ldop, k, a1, a2, smt):
    """Append an instruction to SM ``sm``'s queue (the issue stage checked there is room)."""
    e = (smt[sm, S_MQ_HEAD] + smt[sm, S_MQ_N]) % MQ_RING
    b = S_MQ0 + MQ_W * e
    smt[sm, b + MQF_SLOT] = slot
    smt[sm, b + MQF_PC] = pc
    smt[sm, b + MQF_KIND] = kind
    smt[sm, b + MQF_REC] = ri
    smt[sm, b + MQF_LDOP] = ldop
    smt[sm, b + MQF_K] = k
    smt[sm, b + MQF_A1] = a1
    smt[sm, b + MQF_A2] = a2
    smt[sm, S_MQ_N] += 1


@njit
def mq_holds(sm, slot, smt):
    """Whether warp ``slot`` has an instruction waiting in its SM's queue (it may not retire yet)."""
    for i in range(smt[sm, S_MQ_N]):
        if smt[sm, S_MQ0 + MQ_W * ((smt[sm, S_MQ_HEAD] + i) % MQ_RING) + MQF_SLOT] == slot:
            return True
    return False


@njit
def ldst_hold(sm, slot, pc, passes, wake_after, now, k, cfg, clk, wt, smt):
    """A mechanism's access through SM ``sm``'s LD/ST unit (a buffer read, say) by warp ``slot``, which waits
    for it: the unit is held ``passes`` cycles and the warp woken ``wake_after`` cycles after it starts. Returns
    the wake time when the unit takes it now (the caller wakes the warp), else -1: it waits in the queue, whose
    start wakes the warp."""
    if cfg[C_MEMQ] != 0:
        smt[sm, mq_port(wt[slot, W_SUB], cfg)] = k + 1
    if ldst_idle(sm, now, smt):
        smt[sm, S_LDST_FREE] = edge(clk, D_CORE, k + passes)
        return edge(clk, D_CORE, k + wake_after)
    mq_push(sm, slot, pc, MQK_HOLD, -1, -1, k, passes, wake_after, smt)
    return -1


@njit_inline
def ldst_start(sm, slot, pc, kind, ri, ldop, k, queued, cfg, clk, rec, pct, wt, regrdy, smt, subt, ctr):
    """The LD/ST unit takes warp ``slot``'s memory instruction ``pc`` at core cycle ``k``: a global, local or
    constant access (or ld.param through the constant cache) becomes the unit's current instruction; a
    shared-memory access holds it a cycle per pass and has its value after the shared-memory latency; ld.param at
    its fixed latency holds it a cycle. ``queued``: it waited in the queue, so its registers and its warp, which
    the issue stage left waiting, are released here. Returns the cycle until which the warp must wait (a
    shared-memory atomic under ``core.atomic_wait``), else 0."""
    hold = 0
    if kind == MQK_HOLD:  # a mechanism's access (ldst_hold): ri, ldop unused; A1, A2 in the entry, passed here
        return 0
    if kind == IK_PARAM and ri < 0:
        smt[sm, S_LDST_FREE] = edge(clk, D_CORE, k + 1)
        t = edge(clk, D_CORE, k + cfg[C_PARAM_LAT])
        dests_ready(slot, pc, pct, regrdy, t)
        if queued and wt[slot, W_READY] >= INF:
            wake_warp(slot, t, cfg, wt, subt)
    elif kind == IK_PARAM:
        lsu_take(sm, slot, ri, rec[ri, RC_TXS], rec[ri, RC_NTX], ldop, IK_LOAD, k, smt)
    elif rec[ri, RC_SPACE] == SP_SHARED:
        conf = rec[ri, RC_CONF]
        if conf < 1:
            conf = 1
        smt[sm, S_LDST_FREE] = edge(clk, D_CORE, k + conf)
        extra = conf - 1
        if kind == IK_ATOMIC:
            extra += conf
        kr = k + cfg[C_SMEM_LAT] + extra
        if cfg[C_WB_PORT] != 0 and kind != IK_STORE:  # a shared load's value takes a writeback cycle
            kr = wb_slot(sm, kr, smt)
        t = edge(clk, D_CORE, kr)
        dests_ready(slot, pc, pct, regrdy, t)
        if kind == IK_ATOMIC and cfg[C_ATOM_WAIT] != 0:
            wt[slot, W_ATOM_UNTIL] = t
            hold = t
        if queued and wt[slot, W_READY] >= INF and (kind != IK_STORE or hold > 0):
            wake_warp(slot, t, cfg, wt, subt)
        ctr[T_SMEM_ACC] += 1
        ctr[T_SMEM_CONF_CYC] += conf - 1
    else:
        lsu_take(sm, slot, ri, rec[ri, RC_TXS], rec[ri, RC_NTX], ldop, kind, k, smt)
    return hold


@njit
def mq_issue_wait(sm, slot, pc, kind, ri, ldop, k, cfg, pct, wt, regrdy, smt):
    """Warp ``slot``'s memory instruction found the LD/ST unit busy: it waits in the queue. What it writes
    without the unit's help (a shared or fixed-latency ld.param value, a shared atomic's) is not ready until the
    unit takes it. Returns the wait that holds the warp (INF for a shared atomic under core.atomic_wait), else 0."""
    mq_push(sm, slot, pc, kind, ri, ldop, k, 0, 0, smt)
    hold = 0
    if ldop < 0 and kind != IK_STORE:  # (a load with a load operation has its registers pending already)
        for j in range(4):
            r = pct[pc, P_D0 + j]
            if r >= 0:
                regrdy[slot, r] = INF
        if kind == IK_ATOMIC and cfg[C_ATOM_WAIT] != 0:
            wt[slot, W_ATOM_UNTIL] = INF
            hold = INF
    return hold


@njit
def mq_start_head(sm, now, k, cfg, clk, rec, pct, wt, regrdy, smt, subt, ctr):
    """The LD/ST unit, free, takes the oldest waiting instruction. True when it took one."""
    b = S_MQ0 + MQ_W * smt[sm, S_MQ_HEAD]
    if smt[sm, b + MQF_K] > k:
        return False
    slot = smt[sm, b + MQF_SLOT]
    kind = smt[sm, b + MQF_KIND]
    smt[sm, S_MQ_HEAD] = (smt[sm, S_MQ_HEAD] + 1) % MQ_RING
    smt[sm, S_MQ_N] -= 1
    if kind == MQK_HOLD:
        smt[sm, S_LDST_FREE] = edge(clk, D_CORE, k + smt[sm, b + MQF_A1])
        wake_warp(slot, edge(clk, D_CORE, k + smt[sm, b + MQF_A2]), cfg, wt, subt)
    else:
        ldst_start(sm, slot, smt[sm, b + MQF_PC], kind, smt[sm, b + MQF_REC], smt[sm, b + MQF_LDOP], k, True, cfg,
                   clk, rec, pct, wt, regrdy, smt, subt, ctr)
    ctr[T_MQ_STARTS] += 1
    ctr[T_MQ_WAIT_CYC] += k - smt[sm, b + MQF_K]
    warp_maybe_exit_flag(slot, wt, smt, cfg)
    if smt[sm, S_LDST_WAITERS] != 0:  # room in the queue: the warps waiting for it look again next cycle
        smt[sm, S_LDST_WAITERS] = 0
        t = edge(clk, D_CORE, k + 1)
        nsl = cfg[C_NSLOT]
        for j in range(nsl):
            s2 = sm * nsl + j
            if wt[s2, W_READY] == WAIT_LDST:
                wt[s2, W_READY] = INF
                wake_warp(s2, t, cfg, wt, subt)
    return True
