"""MPU's processor core in the engine (seed 003): the hybrid far-bank / near-bank SIMT core that replaces the
SM on a machine whose ``core.model`` is ``mpu`` (hooks ``core_receive``, ``core_check``, ``core_issue`` and
``core_tick`` around the engine's warp schedulers), and its memory side at the near-bank units (hooks
``l2_deliver`` and ``slice_tick`` of the engine's pass-through L2 slices).

Each core (an engine SM) has 4 sub-cores of 4 warps; sub-core ``s`` is paired with near-bank unit (NBU) ``s``
of the core, which is DRAM channel ``core x 4 + s`` behind L2 slice ``core x 4 + s`` (no cache). Per cycle each
sub-core's scheduler (the engine's, as the SM's: the machine's ``scheduler.impl``, loose round robin in the mpu
preset, and its stall attribution) issues at most one instruction of one warp, once the warp's operands are
ready (the engine's per-register scoreboard), its unit is free and the sub-core's offload engine is not moving
registers (``core_check``). Then, as :mod:`.registers` replays it (``core_issue``):

1. **Location**: an opcode only the far-bank pipeline has (memory, SFU, control) runs far bank; else the
   compiler's hint under the session's policy; else near bank when every source is valid near and no operand is
   an immediate, parameter or special register (the register track table, RTT); else far bank.
2. **Operands**: a source not valid on the side that reads it (the hybrid LSU fixes the sides of memory
   operands) crosses the core's TSV bus as a 128-B warp register (valid on both sides afterwards); the
   sub-core's offload engine waits for its moves (blocking). A written register is valid only where written.
3. **Execution**: a near-bank ALU instruction goes down as an 8-B packet to the sub-core's NBU, whose vector
   ALU runs it (its latency and interval are the machine's for the opcode); the commit notice returns over the
   TSV command bus (``X_NOTICE`` cycles). A far-bank one uses the sub-core's units on the base die.
4. **Memory** (the core's LSU, one instruction at a time, ``X_LSU_PORTS`` transactions a cycle): a global load
   or store whose warp is full, whose lanes read one contiguous run and whose addresses all lie in the warp's own
   NBU is *offloaded*: one 8-B packet down the TSV, and the NBU's LSU extension sends the DRAM requests to its
   controller (the loaded value lands in the near-bank register file: no TSV data). Otherwise each 32-B
   transaction goes to its NBU's controller: a local one (this core's NBUs) crosses this core's TSV (a store's
   32-B payload down, a load's 32 B of data up, then the gathered value is written down to the near-bank
   register file as one register write of 4 B per active lane); a remote one crosses the interconnect, and its
   data the TSV of the core that owns the NBU (and a store's payload first goes up this core's TSV). Shared
   memory is near bank: an 8-B packet down, then the shared-memory latency and bank conflicts; or, with
   far-bank shared memory (header flag ``FL_FAR_SMEM``), on the base die: no TSV packet, and its address, data
   and destination registers are far-bank ones (the placement rows say so), so values produced near bank
   move up first.
5. **PonB** (header flag ``FL_PONB``, processing on the base die, the paper's Fig. 13 comparator): every
   instruction runs far bank and no register moves (one register file, on the base die); no global access is
   offloaded; a load's 32-B transactions come up the TSV into the far-bank register file (no write-down), a
   local store's payload goes down, a remote one leaves over the network; shared memory is on the base die.

The TSV bus of a core is one resource (busy-until time, 8 B per TSV beat of 0.5 ns): moves, packets and data
queue on it in the order they are reserved. State (``mx``): a header, the counters, the per-PC placement
table, each memory record's NBU (or -1: not offloadable), the RTT (a row per warp slot), per-core and per
sub-core rows, a shadow of each outstanding load (transactions left, last arrival) and a ring per core of the
loads whose data has all arrived.
"""

from ...timing.engine.layout import *  # noqa: F403  (the engine's columns and codes)
from ...timing.engine.ldst import ld_complete, new_request, warp_maybe_exit_flag
from ...timing.engine.mapping import map_addr
from ...timing.engine.queues import edge, popcount, q_head, q_pop, q_push, q_space, rq_release
from ...timing.engine.warps import (
    advance,
    barrier_arrive,
    dests_ready,
    load_open,
    lsu_take,
    operands_ready,
    stream_done,
    warp_done_issuing,
    warp_exit,
)
from ...timing.engine.xbar import net_push

MECHANISM = "mpu"
HOOKS = ("core_receive", "core_check", "core_issue", "core_tick", "l2_deliver", "slice_tick")

# header of mx
(X_NSM, X_NSLOT, X_NSUB, X_NBU, X_NREG, X_NPC, X_BEAT_PS, X_BEAT_B, X_REG_B, X_PKT_B, X_NOTICE, X_LSU_PORTS,
 X_MAXLD, X_CTR0, X_PCT0, X_REC0, X_NREC, X_RTT0, X_CORE0, X_SUB0, X_LDX0, X_NLDO, X_RING0, X_RINGCAP,
 X_FLAGS, X_ROC0, X_ROC_SETS, X_ROC_WAYS, X_ROC_LAT, X_HDR) = range(30)
FL_FAR_SMEM = 1  # X_FLAGS bit: shared memory on the base die (far bank), not beside the NBUs
FL_PONB = 2  # X_FLAGS bit: PonB, processing on the base die (no near-bank RF, ALUs or LSU extension)
FL_ROCACHE = 4  # X_FLAGS bit: each core's network interface caches remote data it loads (read-only cache)

NEAR, FAR, BOTH = 1, 2, 3  # RTT valid bits (as registers.py)
# per-PC placement rows: kind, hint (0 none, NEAR, FAR), plain operands, source and destination counts, then
# up to 8 sources and their sides (0: where the instruction runs), up to 4 destinations and their sides
PM_KIND, PM_HINT, PM_PLAIN, PM_NS, PM_ND, PM_S0, PM_SS0, PM_D0, PM_DS0 = 0, 1, 2, 3, 4, 5, 13, 21, 25
NPM = 29
MAXS, MAXD = 8, 4
PMK_ALU, PMK_FIXED, PMK_SKIP = 0, 1, 2  # near-capable ALU op; fixed operand sides; not annotated (no registers)
# per-core rows
# (the TSV's two directions: CR_TSV_FREE / CR_TSV_BUSY down, toward the DRAM die, and CR_TSV_FREE + 1 /
# CR_TSV_BUSY + 1 up; see tsv_send)
CR_TSV_FREE, CR_TSV_UP_FREE, CR_TSV_BUSY, CR_TSV_UP_BUSY, CR_TSV_BYTES, CR_MOVES, CR_RHEAD, CR_RCOUNT, CR_LSU_OFF, \
    CR_LSU_T = range(10)
NCR = 10
DOWN, UP = 0, 1  # TSV directions: base die -> DRAM die, and back
# per-sub-core rows: offload engine busy until (register moves), the NBU's vector ALU free at
SR_BUSY, SR_ALU = 0, 1
NSR = 2
# per outstanding load (engine ldo index): transactions left, latest arrival, offloaded, bytes to write down
LX_LEFT, LX_T, LX_OFF, LX_DOWN = range(4)
NLX = 4

# ALU energy classes (mechanisms/mpu/energy.py prices them; the names must match its ALU_CLASSES)
ALU_COUNTERS = ("ALU_INT", "ALU_IMUL", "ALU_FADD", "ALU_FFMA", "ALU_FDIV", "ALU_IDIV", "ALU_SQRT", "ALU_RCP",
                "ALU_EX2")
COUNTER_NAMES = ("NEAR_INSTS", "FAR_ALU_INSTS", "FAR_OTHER_INSTS", "MOVES_DOWN", "MOVES_UP", "TSV_BYTES",
                 "TSV_BUSY_PS", "TSV_MOVE_BYTES", "TSV_PKT_BYTES", "TSV_DATA_BYTES", "LD_OFFLOADED", "ST_OFFLOADED",
                 "LD_TX_PATH", "ST_TX_PATH", "TX_LOCAL", "TX_REMOTE", "SMEM_ACCESSES", "TSV_BUSY_MAX_PS",
                 "MOVES_MAX_CORE", "MPU_WARP_INSTS", "TSV_BYTES_MAX_CORE", "NB_RF_ACC", "FB_RF_ACC", "NB_OPC_ACC",
                 "LSU_EXT_ACC", "TSV_DIR_BUSY_MAX_PS", "ROC_HITS", "ROC_MISSES", *ALU_COUNTERS)
(NEAR_INSTS, FAR_ALU_INSTS, FAR_OTHER_INSTS, MOVES_DOWN, MOVES_UP, TSV_BYTES, TSV_BUSY_PS, TSV_MOVE_BYTES,
 TSV_PKT_BYTES, TSV_DATA_BYTES, LD_OFFLOADED, ST_OFFLOADED, LD_TX_PATH, ST_TX_PATH, TX_LOCAL, TX_REMOTE,
 SMEM_ACCESSES, TSV_BUSY_MAX_PS, MOVES_MAX_CORE, WARP_INSTS_C, TSV_BYTES_MAX_CORE, NB_RF_ACC, FB_RF_ACC,
 NB_OPC_ACC, LSU_EXT_ACC, TSV_DIR_BUSY_MAX_PS, ROC_HITS, ROC_MISSES) = range(28)
ALU0 = 28  # the ALU warp-instructions of each energy class, counted per PC when a launch ends (unit.py)


@njit
def tsv_send(sm, t, nbytes, what, up, mx):
    """Reserve one direction of core ``sm``'s TSV bus (``up``: DRAM die -> base die, else down) for ``nbytes``
    from time ``t`` (after what that direction already carries); the end. The two directions are independent
    buses of 8 B per beat each (the released simulator's data bus serves one transfer per direction at a time)."""
    o = mx[X_CORE0] + sm * NCR
    beats = (nbytes + mx[X_BEAT_B] - 1) // mx[X_BEAT_B]
    dur = beats * mx[X_BEAT_PS]
    start = max(t, mx[o + CR_TSV_FREE + up])
    end = start + dur
    mx[o + CR_TSV_FREE + up] = end
    mx[o + CR_TSV_BUSY + up] += dur
    mx[o + CR_TSV_BYTES] += nbytes
    c = mx[X_CTR0]
    mx[c + TSV_BYTES] += nbytes
    mx[c + TSV_BUSY_PS] += dur
    mx[c + what] += nbytes
    return end


@njit
def roc_way(sm, line, mx):
    """The entry of ``line`` (a 32-B line address) in core ``sm``'s read-only cache, or -1: (set, way) as one
    index into the tag and stamp arrays."""
    ways = mx[X_ROC_WAYS]
    idx = line // 32
    base = (sm * mx[X_ROC_SETS] + idx % mx[X_ROC_SETS]) * ways
    t0 = mx[X_ROC0]
    for w in range(ways):
        if mx[t0 + 2 * (base + w)] == idx:
            return base + w
    return -1


@njit
def roc_lookup(sm, line, now, mx):
    """A remote load's transaction looks up the network interface's read-only cache (LRU); True on a hit."""
    e = roc_way(sm, line, mx)
    if e < 0:
        return False
    mx[mx[X_ROC0] + 2 * e + 1] = now
    return True


@njit
def roc_fill(sm, line, now, mx):
    """Remote data arrived at core ``sm``: keep its line, evicting the set's least recently used."""
    if roc_way(sm, line, mx) >= 0:
        return
    ways = mx[X_ROC_WAYS]
    idx = line // 32
    base = (sm * mx[X_ROC_SETS] + idx % mx[X_ROC_SETS]) * ways
    t0 = mx[X_ROC0]
    victim = base
    for w in range(ways):
        e = base + w
        if mx[t0 + 2 * e] < 0:
            victim = e
            break
        if mx[t0 + 2 * e + 1] < mx[t0 + 2 * victim + 1]:
            victim = e
    mx[t0 + 2 * victim] = idx
    mx[t0 + 2 * victim + 1] = now


@njit
def roc_invalidate(sm, line, mx):
    """Core ``sm`` writes ``line`` remotely: its own cached copy goes (other cores' copies are not kept coherent,
    as in a GPU's L1)."""
    e = roc_way(sm, line, mx)
    if e >= 0:
        mx[mx[X_ROC0] + 2 * e] = -1


@njit
def rtt_row(slot, mx):
    return mx[X_RTT0] + slot * mx[X_NREG]


@njit
def location(slot, pc, mx):
    """Where the instruction at ``pc`` runs for warp ``slot`` (NEAR or FAR; the offload engine's step 1)."""
    o = mx[X_PCT0] + pc * NPM
    if mx[X_FLAGS] & FL_PONB or pc >= mx[X_NPC] or mx[o + PM_KIND] != PMK_ALU:
        return FAR
    h = mx[o + PM_HINT]
    if h != 0:
        return h
    if mx[o + PM_PLAIN] == 0:
        return FAR
    b = rtt_row(slot, mx)
    for j in range(mx[o + PM_NS]):
        if mx[b + mx[o + PM_S0 + j]] & NEAR == 0:
            return FAR
    return NEAR


@njit
def operands(sm, slot, pc, side, now, mx):
    """Register moves the instruction needs (over the TSV, from ``now``) and the RTT after it; the time its
    operands are in place. Counts each operand's register-file access on its side (a move reads one file and
    writes the other) and, for a near-bank instruction, its operand-collector accesses."""
    t = now
    if pc >= mx[X_NPC]:
        return t
    o = mx[X_PCT0] + pc * NPM
    kind = mx[o + PM_KIND]
    if kind == PMK_SKIP:
        return t
    ponb = mx[X_FLAGS] & FL_PONB != 0  # one register file, on the base die: no tracking, no moves
    b = rtt_row(slot, mx)
    c = mx[X_CTR0]
    co = mx[X_CORE0] + sm * NCR
    ns, nd = mx[o + PM_NS], mx[o + PM_ND]
    if kind == PMK_ALU and side == NEAR:
        mx[c + NB_OPC_ACC] += ns + nd
    for j in range(ns):
        r = mx[o + PM_S0 + j]
        s = FAR if ponb else (mx[o + PM_SS0 + j] if kind == PMK_FIXED else side)
        mx[c + (NB_RF_ACC if s == NEAR else FB_RF_ACC)] += 1
        if ponb:
            continue
        have = mx[b + r]
        if have != 0 and have & s == 0:
            t = tsv_send(sm, t, mx[X_REG_B], TSV_MOVE_BYTES, DOWN if s == NEAR else UP, mx)
            if s == NEAR:
                mx[c + MOVES_DOWN] += 1
            else:
                mx[c + MOVES_UP] += 1
            mx[c + NB_RF_ACC] += 1
            mx[c + FB_RF_ACC] += 1
            mx[co + CR_MOVES] += 1
            mx[b + r] = BOTH
    for j in range(nd):
        s = FAR if ponb else (mx[o + PM_DS0 + j] if kind == PMK_FIXED else side)
        mx[c + (NB_RF_ACC if s == NEAR else FB_RF_ACC)] += 1
        if not ponb:
            mx[b + mx[o + PM_D0 + j]] = s
    return t


@njit
def ring_push(sm, ldop, mx):
    co = mx[X_CORE0] + sm * NCR
    cap = mx[X_RINGCAP]
    mx[mx[X_RING0] + sm * cap + (mx[co + CR_RHEAD] + mx[co + CR_RCOUNT]) % cap] = ldop
    mx[co + CR_RCOUNT] += 1


@njit
def tx_arrived(sm, ldop, t, mx):
    """A transaction of load ``ldop`` (of core ``sm``) has its data where the load needs it at ``t``."""
    x = mx[X_LDX0] + ldop * NLX
    mx[x + LX_LEFT] -= 1
    if t > mx[x + LX_T]:
        mx[x + LX_T] = t
    if mx[x + LX_LEFT] == 0:
        ring_push(sm, ldop, mx)


@njit
def finish_load(sm, ldop, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt, smt, mx):
    """Every transaction of ``ldop`` arrived: the value is written near bank and the scoreboard released."""
    x = mx[X_LDX0] + ldop * NLX
    t = mx[x + LX_T]
    if mx[x + LX_OFF] != 0:
        t += mx[X_NOTICE] * clk[D_CORE, K_PERIOD]  # the LSU extension's commit notice
    elif mx[X_FLAGS] & FL_PONB == 0:  # (PonB: the data is already in the base die's register file)
        t = tsv_send(sm, max(t, now), mx[x + LX_DOWN], TSV_DATA_BYTES, DOWN, mx)  # the gathered register
    ldo[ldop, L_HIT_READY] = t
    ldo[ldop, L_LEVEL] = 3
    slot = ld_complete(ldop, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt)
    warp_maybe_exit_flag(slot, wt, smt, cfg)


@njit
def core_check(sm, s, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, g, mx):
    """0: warp ``slot`` can issue its next instruction now; else 1 + the stall reason (its READY updated). A
    sub-core whose offload engine still moves registers issues nothing."""
    busy = mx[mx[X_SUB0] + (sm * cfg[C_NSUB] + s) * NSR + SR_BUSY]
    if busy > now:
        wt[slot, W_READY] = busy
        return 1 + R_UNIT
    pc = seg[wt[slot, W_SEG], 0] + wt[slot, W_SEG_OFF]
    dep = operands_ready(slot, pc, pct, regrdy)
    if dep > now:
        wt[slot, W_READY] = dep
        return 1 + (R_MEM if dep >= INF else R_SB)
    kind = pct[pc, P_KIND]
    if kind == IK_BARRIER:
        return 0
    ri = wt[slot, W_REC]
    has_rec = ri < wt[slot, W_REC_END] and rec[ri, RC_PC] == pc
    if kind == IK_PARAM or (kind >= IK_LOAD and kind <= IK_ATOMIC and has_rec):
        if kind != IK_PARAM and rec[ri, RC_SPACE] != SP_SHARED:
            if smt[sm, S_LDST_REC] >= 0:
                wt[slot, W_READY] = edge(clk, D_CORE, k + 1)
                return 1 + R_LDST
            if kind != IK_STORE and (g[G_LD_TOP] < 1 or wt[slot, W_PEND_LD] >= mx[X_MAXLD]):
                wt[slot, W_READY] = edge(clk, D_CORE, k + 1)
                return 1 + R_MEMSTRUCT
        elif smt[sm, S_LDST_FREE] > now:
            wt[slot, W_READY] = smt[sm, S_LDST_FREE]
            return 1 + R_LDST
        return 0
    if location(slot, pc, mx) == NEAR:
        t = mx[mx[X_SUB0] + (sm * cfg[C_NSUB] + s) * NSR + SR_ALU]
    else:
        unit = pct[pc, P_UNIT]
        t = ufree[sm, unit, s % cfg[C_UCNT_SP + unit]]
    if t > now:
        wt[slot, W_READY] = t
        return 1 + R_UNIT
    return 0


@njit
def count_issued(sm, slot, pc, mask, k, wt, ctr, smst, pcst, clst, pct, mx):
    ctr[T_WARP_INSTS] += 1
    ctr[T_THREAD_INSTS] += popcount(mask)
    smst[sm, SMS_INSTS] += 1
    pcst[pc, PCS_ISSUED] += 1
    clst[pct[pc, P_CLASS]] += 1
    wt[slot, W_ISSUED] += 1
    wt[slot, W_LAST_ISSUE] = k
    mx[mx[X_CTR0] + WARP_INSTS_C] += 1


@njit
def core_issue(sm, s, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, g, ctr,
               smst, pcst, clst, mx):
    """Issue warp ``slot``'s next instruction (``core_check`` said it can)."""
    si = wt[slot, W_SEG]
    pc = seg[si, 0] + wt[slot, W_SEG_OFF]
    mask = seg[si, 2]
    kind = pct[pc, P_KIND]
    ri = wt[slot, W_REC]
    has_rec = ri < wt[slot, W_REC_END] and rec[ri, RC_PC] == pc
    per = clk[D_CORE, K_PERIOD]
    c = mx[X_CTR0]
    if wt[slot, W_ISSUED] == 0:  # a new warp in this slot: its register track table starts empty
        b = rtt_row(slot, mx)
        for r in range(mx[X_NREG]):
            mx[b + r] = 0
    side = location(slot, pc, mx)
    t_ops = operands(sm, slot, pc, side, now, mx)
    so = mx[X_SUB0] + (sm * cfg[C_NSUB] + s) * NSR
    if t_ops > now:  # the offload engine waits for its register moves
        mx[so + SR_BUSY] = t_ops
    if kind == IK_BARRIER:
        mx[c + FAR_OTHER_INSTS] += 1
        ctr[T_BARRIERS] += 1
        advance(slot, seg, wt)
        count_issued(sm, slot, pc, mask, k, wt, ctr, smst, pcst, clst, pct, mx)
        barrier_arrive(sm, slot, k, cfg, clk, wt, ctat, smt, subt)
        return
    t0 = max(now, t_ops)
    if kind == IK_PARAM:
        mx[c + FAR_OTHER_INSTS] += 1
        smt[sm, S_LDST_FREE] = edge(clk, D_CORE, k + 1)
        t = t0 + cfg[C_PARAM_LAT] * per
        dests_ready(slot, pc, pct, regrdy, t)
    elif kind >= IK_LOAD and kind <= IK_ATOMIC and has_rec:
        mx[c + FAR_OTHER_INSTS] += 1
        space = rec[ri, RC_SPACE]
        if space == SP_SHARED:
            conf = max(rec[ri, RC_CONF], 1)
            smt[sm, S_LDST_FREE] = edge(clk, D_CORE, k + conf)
            extra = conf - 1 + (conf if kind == IK_ATOMIC else 0)
            if mx[X_FLAGS] & FL_FAR_SMEM:  # on the base die: no TSV (its operands are far-bank registers)
                t = t0 + (cfg[C_SMEM_LAT] + extra) * per
            else:  # near bank: the access goes down as a packet, its commit notice comes back
                arrive = tsv_send(sm, t0, mx[X_PKT_B], TSV_PKT_BYTES, DOWN, mx)
                t = arrive + (cfg[C_SMEM_LAT] + extra + mx[X_NOTICE]) * per
            dests_ready(slot, pc, pct, regrdy, t)
            ctr[T_SMEM_ACC] += 1
            ctr[T_SMEM_CONF_CYC] += conf - 1
            mx[c + SMEM_ACCESSES] += 1
        else:
            ntx = rec[ri, RC_NTX]
            nbu = mx[mx[X_REC0] + ri] if ri < mx[X_NREC] else -1
            off = kind != IK_ATOMIC and nbu >= 0 and nbu == sm * mx[X_NBU] + s and mx[X_FLAGS] & FL_PONB == 0
            ldop = -1
            if kind == IK_LOAD or kind == IK_ATOMIC:
                ldop = load_open(sm, slot, pc, now, 3, ntx, pct, regrdy, wt, ldo, ld_free, g)
                x = mx[X_LDX0] + ldop * NLX
                mx[x + LX_LEFT] = ntx
                mx[x + LX_T] = t0
                mx[x + LX_OFF] = 1 if off else 0
                mx[x + LX_DOWN] = rec[ri, RC_BYTES]
            t_send = t0
            if off:
                t_send = tsv_send(sm, t0, mx[X_PKT_B], TSV_PKT_BYTES, DOWN, mx)
                mx[c + (LD_OFFLOADED if kind == IK_LOAD else ST_OFFLOADED)] += 1
            else:
                mx[c + (ST_TX_PATH if kind == IK_STORE else LD_TX_PATH)] += 1
            if ntx > 0:
                lsu_take(sm, slot, ri, rec[ri, RC_TXS], ntx, ldop, kind, k, smt)
                co = mx[X_CORE0] + sm * NCR
                mx[co + CR_LSU_OFF] = 1 if off else 0
                mx[co + CR_LSU_T] = t_send
            elif ldop >= 0:
                ring_push(sm, ldop, mx)  # (no lane touched memory)
        if kind == IK_LOAD:
            ctr[T_LOADS] += 1
        elif kind == IK_STORE:
            ctr[T_STORES] += 1
        else:
            ctr[T_ATOMICS] += 1
        wt[slot, W_REC] = ri + 1
    else:
        ii = pct[pc, P_II]
        if side == NEAR:  # an 8-B instruction packet down to the NBU's vector ALU; the commit notice back
            mx[c + NEAR_INSTS] += 1
            arrive = tsv_send(sm, t0, mx[X_PKT_B], TSV_PKT_BYTES, DOWN, mx)
            st = max(arrive, mx[so + SR_ALU])
            mx[so + SR_ALU] = st + ii * per
            t = st + (pct[pc, P_LAT] + mx[X_NOTICE]) * per
        else:
            if pc < mx[X_NPC] and mx[mx[X_PCT0] + pc * NPM + PM_KIND] == PMK_ALU:
                mx[c + FAR_ALU_INSTS] += 1
            else:
                mx[c + FAR_OTHER_INSTS] += 1
            unit = pct[pc, P_UNIT]
            inst = s % cfg[C_UCNT_SP + unit]
            ufree[sm, unit, inst] = t0 + ii * per
            t = t0 + pct[pc, P_LAT] * per
        dests_ready(slot, pc, pct, regrdy, t)
        if has_rec:
            wt[slot, W_REC] = ri + 1
    advance(slot, seg, wt)
    count_issued(sm, slot, pc, mask, k, wt, ctr, smst, pcst, clst, pct, mx)
    wt[slot, W_READY] = edge(clk, D_CORE, k + 1)
    if stream_done(slot, wt):
        warp_done_issuing(sm, slot, k, cfg, clk, wt, ctat, smt, subt)


@njit
def lsu_step(sm, now, k, cfg, clk, rec, txl, txs, wt, smt, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """The core's LSU sends transactions of its current memory instruction; True when it sent any."""
    sent = False
    kind = smt[sm, S_LDST_KIND]
    slot = smt[sm, S_LDST_SLOT]
    ldop = smt[sm, S_LDST_LDOP]
    pc = rec[smt[sm, S_LDST_REC], RC_PC]
    co = mx[X_CORE0] + sm * NCR
    off = mx[co + CR_LSU_OFF]
    t_send = max(mx[co + CR_LSU_T], now)
    c = mx[X_CTR0]
    nbu = mx[X_NBU]
    pk = PK_READ if kind == IK_LOAD else (PK_WRITE if kind == IK_STORE else PK_ATOMIC)
    for _p in range(mx[X_LSU_PORTS]):
        t = smt[sm, S_LDST_TX]
        if t >= smt[sm, S_LDST_TXEND] or g[G_RQ_TOP] < 1:
            break
        line = txl[t]
        sect = txs[t]
        sl = map_addr(mapd, mrange, cfg[C_NRANGE], line)[1]
        local = sl // nbu == sm
        q = cfg[C_Q_L2IN] + sl if local else cfg[C_Q_SMOUT] + sm
        if q_space(qm, q) <= 0:
            break
        nb = popcount(sect) * 32
        if not local and mx[X_FLAGS] & FL_ROCACHE:
            if pk != PK_READ:
                roc_invalidate(sm, line, mx)
            elif roc_lookup(sm, line, now, mx):  # served by the network interface: no request leaves the core
                mx[c + ROC_HITS] += 1
                if ldop >= 0:
                    tx_arrived(sm, ldop, t_send + mx[X_ROC_LAT], mx)
                smt[sm, S_LDST_TX] = t + 1
                sent = True
                continue
            else:
                mx[c + ROC_MISSES] += 1
        r = new_request(sm, pk, line, sect, 0 if pk == PK_READ else nb, 0, pc, slot, now, k, cfg, clk, rq, rq_free,
                        g, mapd, mrange)
        rq[r, R_LDOP] = ldop
        rq[r, R_MXD] = off
        ready = t_send
        if off == 0 and pk != PK_READ and (local or mx[X_FLAGS] & FL_PONB == 0):
            # a store's (or atomic's) 32-B payload crosses this core's TSV (PonB: a remote one leaves the base
            # die straight onto the network)
            ready = tsv_send(sm, t_send, nb, TSV_DATA_BYTES, DOWN if local else UP, mx)
        rq[r, R_READY] = ready
        if local:
            q_push(qb, qm, q, r)
            w = cfg[C_WK_SL] + sl
            if ready < wake[w]:
                wake[w] = ready
            mx[c + TX_LOCAL] += 1
        else:
            net_push(q, r, cfg, qb, qm, wake, NET_REQ, rq)
            mx[c + TX_REMOTE] += 1
        if mx[X_FLAGS] & FL_PONB == 0:  # (PonB has no LSU extension)
            mx[c + LSU_EXT_ACC] += 1
        smt[sm, S_LDST_TX] = t + 1
        sent = True
    if smt[sm, S_LDST_TX] >= smt[sm, S_LDST_TXEND]:
        smt[sm, S_LDST_REC] = -1
        warp_maybe_exit_flag(slot, wt, smt, cfg)
    return sent


@njit
def core_receive(sm, now, k, cfg, clk, wt, regrdy, smt, subt, ldo, ld_free, rq, rq_free, qb, qm, g, ctr, pcst, mx):
    """The core's tick begins: the data of remote transactions, back over the interconnect, and the loads whose
    data all arrived; 1 when anything moved."""
    progress = 0
    qi = cfg[C_Q_SMIN] + sm
    for _p in range(4):
        if qm[qi, Q_COUNT] == 0:
            break
        r = q_head(qb, qm, qi)
        if rq[r, R_READY] > now:
            break
        q_pop(qb, qm, qi)
        ldop = rq[r, R_LDOP]
        t = rq[r, R_READY]
        if mx[X_FLAGS] & FL_ROCACHE and rq[r, R_KIND] == PK_READ:
            roc_fill(sm, rq[r, R_LINE], t, mx)
        rq_release(rq_free, g, r)
        if ldop >= 0:
            tx_arrived(sm, ldop, t, mx)
        progress = 1
    co = mx[X_CORE0] + sm * NCR
    cap = mx[X_RINGCAP]
    while mx[co + CR_RCOUNT] > 0:
        h = mx[co + CR_RHEAD]
        ldop = mx[mx[X_RING0] + sm * cap + h]
        mx[co + CR_RHEAD] = (h + 1) % cap
        mx[co + CR_RCOUNT] -= 1
        finish_load(sm, ldop, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt, smt, mx)
        progress = 1
    return progress


@njit
def core_tick(sm, now, k, cfg, clk, seg, rec, pct, txl, txs, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, rq,
              rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smst, pcst, clst, prst, mapd, mrange, pre_lines, mx, chs,
              l2t):
    """The rest of the core's tick, after the engine's schedulers issued: the LSU's transactions, retirement of
    drained warps and the core's next wake time."""
    nsub = cfg[C_NSUB]
    nsl = cfg[C_NSLOT]
    per_sub = nsl // nsub
    progress = False
    if smt[sm, S_LDST_REC] >= 0:
        if lsu_step(sm, now, k, cfg, clk, rec, txl, txs, wt, smt, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
            progress = True
    if smt[sm, S_RETIRE] != 0:
        smt[sm, S_RETIRE] = 0
        for j in range(nsl):
            slot = sm * nsl + j
            if (wt[slot, W_STATE] == WS_DRAIN and wt[slot, W_PEND_LD] == 0 and wt[slot, W_PEND_ST] == 0
                    and not (smt[sm, S_LDST_REC] >= 0 and smt[sm, S_LDST_SLOT] == slot)):
                warp_exit(sm, slot, now, k, cfg, wt, ctat, smt, wake, g, ctr, smst)
                progress = True
    # next wake
    co = mx[X_CORE0] + sm * NCR
    qi = cfg[C_Q_SMIN] + sm
    nxt = edge(clk, D_CORE, k + 1)
    w = INF
    for s in range(nsub):
        ws = INF
        for j in range(per_sub):
            slot = sm * nsl + s + j * nsub
            if wt[slot, W_STATE] == WS_ACTIVE and wt[slot, W_READY] < ws:
                ws = wt[slot, W_READY]
        busy = mx[mx[X_SUB0] + (sm * nsub + s) * NSR + SR_BUSY]
        if ws < INF and busy > ws:
            ws = busy
        if ws < w:
            w = ws
    if smt[sm, S_LDST_REC] >= 0 or mx[co + CR_RCOUNT] > 0 or smt[sm, S_RETIRE] != 0:
        w = nxt
    if qm[qi, Q_COUNT] > 0:
        t = rq[q_head(qb, qm, qi), R_READY]
        if t < w:
            w = t
    if w < nxt:
        w = nxt
    if progress:
        g[G_LAST_PROGRESS] = now
    wake[sm] = w


@njit
def l2_deliver(slice, r, ready, now, cfg, rq, rq_free, g, mx):
    """A near-bank unit's controller finished a transaction of an MPU core (``R_MXD``: 1 offloaded, 0 not)."""
    kd = rq[r, R_KIND]
    src = rq[r, R_SRC]
    owner = slice // mx[X_NBU]  # the core above this NBU
    if kd == PK_ACK:  # a store is fire-and-forget: a remote one's payload went down its NBU's core's TSV
        if rq[r, R_MXD] == 0 and owner != src and owner < mx[X_NSM]:
            tsv_send(owner, ready, popcount(rq[r, R_SECT]) * 32, TSV_DATA_BYTES, DOWN, mx)
        rq_release(rq_free, g, r)
        return 1
    t = ready
    if rq[r, R_MXD] == 0 and owner < mx[X_NSM]:  # the 32 B come up the owner's TSV (LSU or LSU-Remote)
        t = tsv_send(owner, ready, popcount(rq[r, R_SECT]) * 32, TSV_DATA_BYTES, UP, mx)
    if owner != src:  # back over the interconnect to the requesting core
        rq[r, R_READY] = t
        return 0
    ldop = rq[r, R_LDOP]
    if ldop >= 0:
        tx_arrived(src, ldop, t, mx)
    rq_release(rq_free, g, r)
    return 1


@njit
def slice_tick(slice, now, k, cfg, clk, ufree, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx):
    """Wake the core above this NBU when loads of it completed here."""
    core = slice // mx[X_NBU]
    if core < mx[X_NSM] and mx[mx[X_CORE0] + core * NCR + CR_RCOUNT] > 0 and now < wake[core]:
        wake[core] = now
    return INF
