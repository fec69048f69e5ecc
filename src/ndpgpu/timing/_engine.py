"""The compiled timing engine: every per-cycle function, over int64 tables, and the loop that composes them.

Time is kept in picoseconds. Each clock domain (core, interconnect, L2, DRAM) has integer edges
``edge(k) = k * 10**9 // f_kHz``; a component runs at the edges of its domain, and only when its wake
time has come (a push into a component's input queue lowers its wake time), so idle cycles are skipped
for each component and for the whole machine.

Components and their ``*_tick`` functions (STYLE.md habit 3: a compiled ``step`` over arrays):

* SM (core domain): accepts replies, runs the LD/ST unit (coalesced transactions against L1 and its
  MSHRs), and lets each sub-core's warp scheduler issue (LRR, GTO, two-level) subject to the scoreboard
  (per-register ready times), unit initiation intervals and barriers.
* interconnect (icnt domain): two networks (requests SM->slice, replies slice->SM); every port moves one
  flit per cycle; sources arbitrate round-robin within priority classes.
* L2 slice (L2 domain): tag lookup with MSHR merging, write policy, DRAM requests, fills and replies.
* DRAM channel (DRAM domain): FR-FCFS or FCFS over bank state with the full set of timing constraints,
  open/closed page, refresh.

Everything here is numba-compiled with ``cache=True``. All compiled code the loop calls lives in this one
file on purpose: numba's cache is keyed on the defining file, so a change anywhere here recompiles all.
The layout block below is maintained by hand: a new column is one name in the unpacking and one in the
matching ``*_NAMES`` tuple.
"""

from __future__ import annotations

import numba as nb

njit = nb.njit(cache=True, _nrt=False)
# numba-IR inlining for hot callees with many array arguments (each array is passed as ~9 scalars)
njit_inline = nb.njit(cache=True, _nrt=False, inline="always")

INF = 1 << 62
NEG = -(1 << 40)
WAIT_LDST = INF - 1  # a warp's READY while it waits for the SM's LD/ST unit to finish an instruction

D_CORE, D_ICNT, D_L2, D_DRAM = 0, 1, 2, 3
NDOM = 4
K_FKHZ, K_NEXT, K_PERIOD = 0, 1, 2

# loop status codes
ST_DONE, ST_WATCHDOG, ST_CAP, ST_TS_FULL, ST_POOL, ST_DEADLOCK = 0, 1, 2, 3, 4, 5
# instruction kinds (static table)
IK_ALU, IK_LOAD, IK_STORE, IK_ATOMIC, IK_BARRIER, IK_PARAM, IK_NOP = 0, 1, 2, 3, 4, 5, 6
# units
U_SP, U_INT, U_DP, U_SFU, U_LDST, U_BRANCH = 0, 1, 2, 3, 4, 5
NUNITS = 6
MAXU = 8
# memory spaces (trace.format.SPACES)
SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM = 1, 2, 3, 4, 5
# warp states
WS_FREE, WS_ACTIVE, WS_BARRIER, WS_DRAIN = 0, 1, 2, 3
# scheduler codes
SCHED_LRR, SCHED_GTO, SCHED_TWO_LEVEL = 0, 1, 2
# dispatch modes
DISP_RR, DISP_STATIC, DISP_GREEDY = 0, 1, 2
# cache line table columns and write policies
LN_TAG, LN_VALID, LN_DIRTY, LN_STAMP = 0, 1, 2, 3
NLN = 4
WP_BACK, WP_THROUGH, WP_EVICT = 0, 1, 2
# packet kinds
PK_READ, PK_WRITE, PK_ATOMIC, PK_PREFETCH, PK_PRELOAD, PK_WBACK, PK_DREAD, PK_DWRITE, PK_ACK, PK_OFFLOAD = range(10)
PK_USER = 16
NPK = 32
# DRAM commands (log)
CMD_ACT, CMD_PRE, CMD_RD, CMD_WR, CMD_REF = 1, 2, 3, 4, 5
# DRAM schedulers and page policies
DS_FRFCFS, DS_FCFS = 0, 1
PAGE_OPEN, PAGE_CLOSED = 0, 1
# mapping kinds
MAPK_BITFIELDS, MAPK_PINNED, MAPK_PARITY = 0, 1, 2
# networks
NET_REQ, NET_REP = 0, 1
# queue columns
Q_HEAD, Q_COUNT, Q_CAP, Q_BLOCK = 0, 1, 2, 3
# DRAM queue entry columns (a dense copy of what the scheduler scans)
DQ_RID, DQ_READY, DQ_BANK, DQ_ROW, DQ_KEY, DQ_WR, DQ_BG, DQ_SLICE = range(8)
NDQF = 8
# per-bank-group columns
BG_LAST_ACT, BG_LAST_COL = 0, 1
# prefetchers
PF_NONE, PF_NEXT_LINE = 0, 1
# stall reasons: offsets from T_ST_IDLE
R_IDLE, R_MEM, R_SB, R_BAR, R_UNIT, R_LDST, R_MEMSTRUCT, R_DRAIN = 0, 1, 2, 3, 4, 5, 6, 7

# per-component statistics tables
SMS_INSTS, SMS_L1_ACC, SMS_L1_MISS, SMS_CTAS, SMS_OCC, SMS_BUSY = 0, 1, 2, 3, 4, 5
NSMS = 6
SLS_ACC, SLS_HIT, SLS_MISS, SLS_WB = 0, 1, 2, 3
NSLS = 4
CHS_RD, CHS_WR, CHS_ACT, CHS_ROWHIT, CHS_BUSY, CHS_BYTES = 0, 1, 2, 3, 4, 5
NCHS = 6
PCS_ISSUED, PCS_STALL, PCS_L1_MISS, PCS_L2_MISS, PCS_LAT = 0, 1, 2, 3, 4
NPCS = 5
PRS_N, PRS_LAT, PRS_DRAM = 0, 1, 2
NPRS = 3
NPRIO = 4
TS_NAMES = ("cycle", "warp_insts", "l1_misses", "l2_accesses", "l2_misses", "dram_read_bytes",
            "dram_write_bytes", "flits_req", "flits_rep", "active_warps")
NTS = len(TS_NAMES)

# --- layout begin
(
    C_NSM, C_NSUB, C_NSLOT, C_NCTA_SLOTS, C_MAXW_SUB, C_ISSUE_W, C_SCHED, C_ACTIVE_POOL, C_NREG,
    C_DISPATCH_MODE, C_DISPATCH_PER_CYCLE, C_CTA_LAUNCH_LAT, C_KERNEL_LAUNCH_LAT, C_SUB_UNITS,
    C_WAIT_ACKS, C_FILL_TO_USE, C_PARAM_LAT, C_SMEM_LAT, C_L1_EN, C_L1_SETS, C_L1_ASSOC,
    C_L1_LINE_SHIFT, C_L1_SECT_ATOMS, C_L1_LAT, C_L1_WPOL, C_L1_WALLOC, C_L1_REPL, C_L1_SETIDX,
    C_L1_MSHR, C_L1_MERGE, C_L1_PORTS, C_L1_MISSQ, C_L1_CACHE_GLOBAL, C_L1_FILL_PORTS, C_L1_MISS_LAT,
    C_L2_EN, C_L2_SETS, C_L2_ASSOC, C_L2_SECT_ATOMS, C_L2_LAT, C_L2_WPOL, C_L2_WALLOC, C_L2_REPL,
    C_L2_SETIDX, C_L2_MSHR, C_L2_MERGE, C_L2_ROP, C_L2_ATOM_LAT, C_L2_RETQ, C_L2_RESPQ, C_SLICES_PER_CH,
    C_NSL, C_IC_FLIT, C_IC_HDR, C_IC_LAT, C_IC_INBUF, C_IC_EJBUF, C_IC_PRIO, C_NCH, C_NBANK, C_NBG,
    C_BANKS_PER_BG, C_ATOM_BYTES, C_BURST_CYC, C_DUAL_CMD, C_PAGE_POLICY, C_REFRESH, C_CTRL_LAT,
    C_DRAM_SCHED, C_DQ_SIZE, C_tRCD, C_tRP, C_tRAS, C_tRC, C_tCL, C_tCWL, C_tCCD_S, C_tCCD_L, C_tRRD_S,
    C_tRRD_L, C_tFAW, C_tWR, C_tWTR, C_tRTW, C_tRTP, C_tREFI, C_tRFC, C_WATCHDOG_PS, C_TS_INTERVAL_PS,
    C_RECORD_DLOG, C_PF_KIND, C_PF_DEGREE, C_PF_PRIO, C_PRELOAD_PRIO, C_PRELOAD_TO_L1, C_NPC, C_NWARPS,
    C_NCTAS, C_WARPS_PER_CTA, C_NMAP, C_NRANGE, C_Q_SMOUT, C_Q_SMIN, C_Q_L2IN, C_Q_L2OUT, C_Q_L2RET,
    C_WK_SL, C_WK_CH, C_WK_NET, C_WK_DISP, C_NCOMP, C_NLDO, C_NRQP, C_DLOG_CAP, C_TS_CAP, C_L1_XOR_BITS,
    C_L2_XOR_BITS, C_CTA_THREADS, C_CTA_WARPS, C_CTA_REGS, C_CTA_SMEM, C_NCLASS, C_UCNT_SP, C_UCNT_INT,
    C_UCNT_DP, C_UCNT_SFU, C_UCNT_LDST, C_UCNT_BRANCH, C_L2_PORTS, C_MAX_THREADS, C_REGFILE, C_SMEM_SIZE,
    C_NSA, C_NGPU, C_NSTK, C_VPS, C_SPS, C_XL0, C_SWARPS, C_Q_L2VIN, C_MAXOPEN
) = range(141)
NCFG = 141
CFG_NAMES = (
    'NSM', 'NSUB', 'NSLOT', 'NCTA_SLOTS', 'MAXW_SUB', 'ISSUE_W', 'SCHED', 'ACTIVE_POOL', 'NREG',
    'DISPATCH_MODE', 'DISPATCH_PER_CYCLE', 'CTA_LAUNCH_LAT', 'KERNEL_LAUNCH_LAT', 'SUB_UNITS',
    'WAIT_ACKS', 'FILL_TO_USE', 'PARAM_LAT', 'SMEM_LAT', 'L1_EN', 'L1_SETS', 'L1_ASSOC',
    'L1_LINE_SHIFT', 'L1_SECT_ATOMS', 'L1_LAT', 'L1_WPOL', 'L1_WALLOC', 'L1_REPL', 'L1_SETIDX',
    'L1_MSHR', 'L1_MERGE', 'L1_PORTS', 'L1_MISSQ', 'L1_CACHE_GLOBAL', 'L1_FILL_PORTS', 'L1_MISS_LAT',
    'L2_EN', 'L2_SETS', 'L2_ASSOC', 'L2_SECT_ATOMS', 'L2_LAT', 'L2_WPOL', 'L2_WALLOC', 'L2_REPL',
    'L2_SETIDX', 'L2_MSHR', 'L2_MERGE', 'L2_ROP', 'L2_ATOM_LAT', 'L2_RETQ', 'L2_RESPQ', 'SLICES_PER_CH',
    'NSL', 'IC_FLIT', 'IC_HDR', 'IC_LAT', 'IC_INBUF', 'IC_EJBUF', 'IC_PRIO', 'NCH', 'NBANK', 'NBG',
    'BANKS_PER_BG', 'ATOM_BYTES', 'BURST_CYC', 'DUAL_CMD', 'PAGE_POLICY', 'REFRESH', 'CTRL_LAT',
    'DRAM_SCHED', 'DQ_SIZE', 'tRCD', 'tRP', 'tRAS', 'tRC', 'tCL', 'tCWL', 'tCCD_S', 'tCCD_L', 'tRRD_S',
    'tRRD_L', 'tFAW', 'tWR', 'tWTR', 'tRTW', 'tRTP', 'tREFI', 'tRFC', 'WATCHDOG_PS', 'TS_INTERVAL_PS',
    'RECORD_DLOG', 'PF_KIND', 'PF_DEGREE', 'PF_PRIO', 'PRELOAD_PRIO', 'PRELOAD_TO_L1', 'NPC', 'NWARPS',
    'NCTAS', 'WARPS_PER_CTA', 'NMAP', 'NRANGE', 'Q_SMOUT', 'Q_SMIN', 'Q_L2IN', 'Q_L2OUT', 'Q_L2RET',
    'WK_SL', 'WK_CH', 'WK_NET', 'WK_DISP', 'NCOMP', 'NLDO', 'NRQP', 'DLOG_CAP', 'TS_CAP', 'L1_XOR_BITS',
    'L2_XOR_BITS', 'CTA_THREADS', 'CTA_WARPS', 'CTA_REGS', 'CTA_SMEM', 'NCLASS', 'UCNT_SP', 'UCNT_INT',
    'UCNT_DP', 'UCNT_SFU', 'UCNT_LDST', 'UCNT_BRANCH', 'L2_PORTS', 'MAX_THREADS', 'REGFILE',
    'SMEM_SIZE', 'NSA', 'NGPU', 'NSTK', 'VPS', 'SPS', 'XL0', 'SWARPS', 'Q_L2VIN', 'MAXOPEN',
)

(
    G_NOW, G_NEXT_CTA, G_CTAS_DONE, G_WARPS_ISSUED_TOTAL, G_CAP, G_LAST_PROGRESS, G_RQ_TOP, G_LD_TOP,
    G_RR_SM, G_TS_NEXT, G_TS_N, G_DLOG_N, G_DISPATCH_AT, G_AGE, G_STATUS, G_START_PS, G_LIVE_CTAS,
    G_STAMP, G_DQ_SEQ, G_PF_DROP, G_IT_LOOP, G_IT_SM, G_IT_L2, G_IT_DRAM, G_IT_NET, G_IT_TRY, G_IT_TX
) = range(27)
NG = 27
G_NAMES = (
    'NOW', 'NEXT_CTA', 'CTAS_DONE', 'WARPS_ISSUED_TOTAL', 'CAP', 'LAST_PROGRESS', 'RQ_TOP', 'LD_TOP',
    'RR_SM', 'TS_NEXT', 'TS_N', 'DLOG_N', 'DISPATCH_AT', 'AGE', 'STATUS', 'START_PS', 'LIVE_CTAS',
    'STAMP', 'DQ_SEQ', 'PF_DROP', 'IT_LOOP', 'IT_SM', 'IT_L2', 'IT_DRAM', 'IT_NET', 'IT_TRY', 'IT_TX',
)

(
    P_CLASS, P_KIND, P_UNIT, P_LAT, P_II, P_SPACE, P_PLACE, P_D0, P_D1, P_D2, P_D3, P_S0, P_S1, P_S2,
    P_S3, P_PKIND
) = range(16)
NPCT = 16
PCT_NAMES = (
    'CLASS', 'KIND', 'UNIT', 'LAT', 'II', 'SPACE', 'PLACE', 'D0', 'D1', 'D2', 'D3', 'S0', 'S1', 'S2',
    'S3', 'PKIND',
)

(
    RC_PC, RC_SPACE, RC_FLAGS, RC_TXS, RC_NTX, RC_CONF, RC_BYTES
) = range(7)
NREC = 7
REC_NAMES = (
    'PC', 'SPACE', 'FLAGS', 'TXS', 'NTX', 'CONF', 'BYTES',
)

(
    W_STATE, W_READY, W_AGE, W_SEG, W_SEG_OFF, W_SEG_END, W_REC, W_REC_END, W_GWARP, W_CTA_SLOT, W_SUB,
    W_PEND_LD, W_PEND_ST, W_ISSUED, W_ACTIVE_POOL, W_LAST_ISSUE, W_END_OFF, W_OINST, W_HOST, W_OFL_GO
) = range(20)
NWT = 20
WT_NAMES = (
    'STATE', 'READY', 'AGE', 'SEG', 'SEG_OFF', 'SEG_END', 'REC', 'REC_END', 'GWARP', 'CTA_SLOT', 'SUB',
    'PEND_LD', 'PEND_ST', 'ISSUED', 'ACTIVE_POOL', 'LAST_ISSUE', 'END_OFF', 'OINST', 'HOST', 'OFL_GO',
)

(
    S_CTAS, S_THREADS, S_REGS, S_SMEM, S_WARPS, S_LDST_FREE, S_OCC_T, S_OCC_ACC, S_ACTIVE_T,
    S_MSHR_USED, S_LAST_TICK, S_LDST_REC, S_LDST_TX, S_LDST_TXEND, S_LDST_LDOP, S_LDST_SLOT,
    S_LDST_KIND, S_LDST_START, S_BUSY_T, S_LDST_BLOCK, S_LDST_WAITERS, S_RETIRE, S_PRE_PENDING
) = range(23)
NSMT = 23
SM_NAMES = (
    'CTAS', 'THREADS', 'REGS', 'SMEM', 'WARPS', 'LDST_FREE', 'OCC_T', 'OCC_ACC', 'ACTIVE_T',
    'MSHR_USED', 'LAST_TICK', 'LDST_REC', 'LDST_TX', 'LDST_TXEND', 'LDST_LDOP', 'LDST_SLOT',
    'LDST_KIND', 'LDST_START', 'BUSY_T', 'LDST_BLOCK', 'LDST_WAITERS', 'RETIRE', 'PRE_PENDING',
)

(
    SB_LAST, SB_NACTIVE, SB_REASON, SB_RPC, SB_MINREADY
) = range(5)
NSUBT = 5
SUB_NAMES = (
    'LAST', 'NACTIVE', 'REASON', 'RPC', 'MINREADY',
)

(
    CT_CTA, CT_LIVE, CT_BAR_COUNT, CT_WARPS, CT_THREADS, CT_REGS, CT_SMEM, CT_PRE_NEXT, CT_PRE_END
) = range(9)
NCTAT = 9
CTA_NAMES = (
    'CTA', 'LIVE', 'BAR_COUNT', 'WARPS', 'THREADS', 'REGS', 'SMEM', 'PRE_NEXT', 'PRE_END',
)

(
    M_LINE, M_SECT, M_NWAIT, M_NREQ, M_ALLOC, M_HEAD, M_TAIL, M_KIND, M_DREQ
) = range(9)
NMSHR = 9
MSHR_NAMES = (
    'LINE', 'SECT', 'NWAIT', 'NREQ', 'ALLOC', 'HEAD', 'TAIL', 'KIND', 'DREQ',
)

(
    L_SLOT, L_PC, L_OUT, L_HIT_READY, L_T0, L_LEVEL, L_D0, L_D1, L_D2, L_D3, L_SM
) = range(11)
NLD = 11
LD_NAMES = (
    'SLOT', 'PC', 'OUT', 'HIT_READY', 'T0', 'LEVEL', 'D0', 'D1', 'D2', 'D3', 'SM',
)

(
    R_KIND, R_READY, R_BANK, R_ROW, R_PRIO, R_SEQ, R_BURSTS, R_SLICE, R_LINE, R_SECT, R_BYTES, R_RBYTES,
    R_SRC, R_CHAN, R_MSHR, R_LDOP, R_SLOT, R_PC, R_T0, R_T1, R_T2, R_T3, R_T4, R_T5, R_T6, R_TDQ, R_TDS,
    R_NEXT, R_LEVEL, R_BG, R_HIT, R_ORIG, R_KEY, R_XSTK, R_LROW, R_LDIR
) = range(36)
NRQ = 36
RQ_NAMES = (
    'KIND', 'READY', 'BANK', 'ROW', 'PRIO', 'SEQ', 'BURSTS', 'SLICE', 'LINE', 'SECT', 'BYTES', 'RBYTES',
    'SRC', 'CHAN', 'MSHR', 'LDOP', 'SLOT', 'PC', 'T0', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'TDQ', 'TDS',
    'NEXT', 'LEVEL', 'BG', 'HIT', 'ORIG', 'KEY', 'XSTK', 'LROW', 'LDIR',
)

(
    B_ROW, B_ACT_READY, B_PRE_READY, B_RCD_READY, B_LAST_COL, B_USE, B_FREE
) = range(7)
NBANKT = 7
BANK_NAMES = (
    'ROW', 'ACT_READY', 'PRE_READY', 'RCD_READY', 'LAST_COL', 'USE', 'FREE',
)

(
    H_NQ, H_LAST_ACT, H_LAST_COL, H_LAST_RD, H_LAST_WR_END, H_BUS_FREE, H_NEXT_REF, H_REF_PENDING,
    H_FAW_I, H_LAST_DIR, H_LAST_TICK, H_LK_STACK, H_LK_TX_FREE, H_LK_RX_FREE, H_LK_TX_BUSY, H_LK_RX_BUSY,
    H_LK_TX_BYTES, H_LK_RX_BYTES, H_LK_TX_PKTS, H_LK_RX_PKTS, H_LK_TX_MBPS, H_LK_RX_MBPS, H_LK_TX_LAT,
    H_LK_RX_LAT, H_LK_FLIT, H_LK_REQ_FL, H_LK_RESP_HDR, H_LK_WR_HDR, H_LK_ACK_FL
) = range(29)
NCHT = 29
CH_NAMES = (
    'NQ', 'LAST_ACT', 'LAST_COL', 'LAST_RD', 'LAST_WR_END', 'BUS_FREE', 'NEXT_REF', 'REF_PENDING',
    'FAW_I', 'LAST_DIR', 'LAST_TICK', 'LK_STACK', 'LK_TX_FREE', 'LK_RX_FREE', 'LK_TX_BUSY', 'LK_RX_BUSY',
    'LK_TX_BYTES', 'LK_RX_BYTES', 'LK_TX_PKTS', 'LK_RX_PKTS', 'LK_TX_MBPS', 'LK_RX_MBPS', 'LK_TX_LAT',
    'LK_RX_LAT', 'LK_FLIT', 'LK_REQ_FL', 'LK_RESP_HDR', 'LK_WR_HDR', 'LK_ACK_FL',
)

(
    MD_KIND, MD_CHAN_SHIFT, MD_NCHAN, MD_CHAN_XOR, MD_BANK_XOR, MD_FIXED_CHAN, MD_MROW, MD_MBANK,
    MD_MBG, MD_MSLICE, MD_TOP, MD_NROWL, MD_LOGBPG, MD_LOGNBG, MD_KEEP, MD_NKEEP, MD_SPC, MD_PCH0, MD_PCH1,
    MD_PCH2, MD_PCH3, MD_PCH4, MD_PCH5, MD_PCH6, MD_PCH7, MD_PBK0, MD_PBK1, MD_PBK2, MD_PBK3, MD_PBK4, MD_NPCH,
    MD_NPBK
) = range(32)
NMAPD = 32
MAP_NAMES = (
    'KIND', 'CHAN_SHIFT', 'NCHAN', 'CHAN_XOR', 'BANK_XOR', 'FIXED_CHAN', 'MROW', 'MBANK', 'MBG',
    'MSLICE', 'TOP', 'NROWL', 'LOGBPG', 'LOGNBG', 'KEEP', 'NKEEP', 'SPC', 'PCH0', 'PCH1', 'PCH2', 'PCH3', 'PCH4',
    'PCH5', 'PCH6', 'PCH7', 'PBK0', 'PBK1', 'PBK2', 'PBK3', 'PBK4', 'NPCH', 'NPBK',
)

(
    N_RR, N_NSRC, N_NDST, N_SRCQ, N_DSTQ, N_DST_DELAY
) = range(6)
NNETT = 6
NET_NAMES = (
    'RR', 'NSRC', 'NDST', 'SRCQ', 'DSTQ', 'DST_DELAY',
)

(
    T_WARP_INSTS, T_THREAD_INSTS, T_SCHED_CYCLES, T_ISSUE_SLOTS, T_ST_IDLE, T_ST_MEM, T_ST_SB, T_ST_BAR,
    T_ST_UNIT, T_ST_LDST, T_ST_MEMSTRUCT, T_ST_DRAIN, T_L1_ACC, T_L1_HIT, T_L1_MISS, T_L1_SECT_MISS,
    T_L1_MERGE, T_L1_MSHR_FULL, T_L1_EVICT, T_L1_WB, T_L1_ST, T_L1_ST_HIT, T_SMEM_ACC, T_SMEM_CONF_CYC,
    T_L2_ACC, T_L2_HIT, T_L2_MISS, T_L2_MERGE, T_L2_WB, T_L2_ST, T_L2_ATOM, T_L2_BLOCK, T_L2_FILL,
    T_DR_RD, T_DR_WR, T_DR_RD_BYTES, T_DR_WR_BYTES, T_DR_ACT, T_DR_PRE, T_DR_REF, T_DR_ROWHIT,
    T_DR_ROWMISS, T_DR_ROWCONF, T_DR_BURST, T_DR_WBURST, T_DR_WTR, T_DR_RTW, T_LAT_N, T_LAT_SUM,
    T_LAT_Q, T_LAT_NET, T_LAT_SVC, T_LAT_DQ, T_LU_N1, T_LU_S1, T_LU_N2, T_LU_S2, T_LU_N3, T_LU_S3,
    T_LU_N0, T_LU_S0, T_LOADS, T_STORES, T_ATOMICS, T_BARRIERS, T_CTAS_LAUNCHED, T_WARPS_LAUNCHED,
    T_PF_ISSUED, T_PF_USEFUL, T_PRELOADS, T_OFFLOADS, T_END_PS, T_BEGIN_PS, T_BO_SEEN, T_BO_SENT, T_BO_NO_MEM,
    T_BO_NO_COND, T_BO_NO_BUSY, T_BO_NO_PEND, T_BO_WINSTS, T_BO_TINSTS, T_BO_INVAL_L1, T_BO_INVAL_L2, T_BO_RTT_PS,
    T_BO_REQ_FLITS, T_BO_ACK_FLITS, T_BO_DONE, T_BO_WAIT_PS
) = range(88)
NCTR = 88
CTR_NAMES = (
    'WARP_INSTS', 'THREAD_INSTS', 'SCHED_CYCLES', 'ISSUE_SLOTS', 'ST_IDLE', 'ST_MEM', 'ST_SB', 'ST_BAR',
    'ST_UNIT', 'ST_LDST', 'ST_MEMSTRUCT', 'ST_DRAIN', 'L1_ACC', 'L1_HIT', 'L1_MISS', 'L1_SECT_MISS',
    'L1_MERGE', 'L1_MSHR_FULL', 'L1_EVICT', 'L1_WB', 'L1_ST', 'L1_ST_HIT', 'SMEM_ACC', 'SMEM_CONF_CYC',
    'L2_ACC', 'L2_HIT', 'L2_MISS', 'L2_MERGE', 'L2_WB', 'L2_ST', 'L2_ATOM', 'L2_BLOCK', 'L2_FILL',
    'DR_RD', 'DR_WR', 'DR_RD_BYTES', 'DR_WR_BYTES', 'DR_ACT', 'DR_PRE', 'DR_REF', 'DR_ROWHIT',
    'DR_ROWMISS', 'DR_ROWCONF', 'DR_BURST', 'DR_WBURST', 'DR_WTR', 'DR_RTW', 'LAT_N', 'LAT_SUM',
    'LAT_Q', 'LAT_NET', 'LAT_SVC', 'LAT_DQ', 'LU_N1', 'LU_S1', 'LU_N2', 'LU_S2', 'LU_N3', 'LU_S3',
    'LU_N0', 'LU_S0', 'LOADS', 'STORES', 'ATOMICS', 'BARRIERS', 'CTAS_LAUNCHED', 'WARPS_LAUNCHED',
    'PF_ISSUED', 'PF_USEFUL', 'PRELOADS', 'OFFLOADS', 'END_PS', 'BEGIN_PS', 'BO_SEEN', 'BO_SENT', 'BO_NO_MEM',
    'BO_NO_COND', 'BO_NO_BUSY', 'BO_NO_PEND', 'BO_WINSTS', 'BO_TINSTS', 'BO_INVAL_L1', 'BO_INVAL_L2', 'BO_RTT_PS',
    'BO_REQ_FLITS', 'BO_ACK_FLITS', 'BO_DONE', 'BO_WAIT_PS',
)
# --- layout end

# Block offload (TOM-style, ``interfaces.BlockOffload``): one row per candidate-block instance of a warp.
# Positions are (segment, offset) pairs in the warp's trace stream: the instance starts at (SEG0, OFF0), the
# controller decides at (DSEG, DOFF) (its first memory instruction), and the warp continues at (SEG1, OFF1).
(
    OI_WARP, OI_SEG0, OI_OFF0, OI_DSEG, OI_DOFF, OI_SEG1, OI_OFF1, OI_REC0, OI_REC1, OI_LINE, OI_ALLOWED,
    OI_ADDS_TX, OI_ADDS_RX, OI_REQ_FL, OI_ACK_FL, OI_WL0, OI_WL1, OI_ARRIVE, OI_STACK, OI_T0, OI_HOST
) = range(21)
NOI = 21
# ``ofl``: the controller's parameters, then per-stack state, the per-stack arrival FIFOs, per-warp
# first-instance indices, the written lines and the instance rows (offsets into the same int64 vector: the
# compiled functions that inline one another take at most 31 arguments).
(
    OF_MODE, OF_THR, OF_WINDOW_PS, OF_PEND_LIMIT, OF_PIPE, OF_INVAL_L1, OF_NINST, OF_STK0, OF_Q0, OF_WF0, OF_WL0,
    OF_OI0, OF_HDR
) = range(13)
OFS_PEND, OFS_QHEAD, OFS_QTAIL, OFS_MARK_T, OFS_MARK_TX, OFS_MARK_RX, OFS_UTIL_TX, OFS_UTIL_RX, OFS_RR = range(9)
NOFS = 9
BO_OFF, BO_ALWAYS, BO_CTRL, BO_IDEAL = 0, 1, 2, 3


# ======================================================================================================
# time, queues, pools


@njit
def edge(clk, d, k):
    """Time (ps) of edge ``k`` of domain ``d``."""
    return k * 1000000000 // clk[d, K_FKHZ]


@njit
def cyc_at(clk, d, t):
    """Index of the first edge of domain ``d`` at or after time ``t``."""
    return (t * clk[d, K_FKHZ] + 999999999) // 1000000000


@njit
def q_push(qb, qm, q, v):
    i = (qm[q, Q_HEAD] + qm[q, Q_COUNT]) % qm[q, Q_CAP]
    qb[q, i] = v
    qm[q, Q_COUNT] += 1


@njit
def q_pop(qb, qm, q):
    h = qm[q, Q_HEAD]
    v = qb[q, h]
    qm[q, Q_HEAD] = (h + 1) % qm[q, Q_CAP]
    qm[q, Q_COUNT] -= 1
    return v


@njit
def q_head(qb, qm, q):
    return qb[q, qm[q, Q_HEAD]]


@njit
def q_space(qm, q):
    return qm[q, Q_CAP] - qm[q, Q_COUNT]


@njit
def rq_alloc(rq, rq_free, g):
    t = g[G_RQ_TOP]
    if t == 0:
        return -1
    t -= 1
    g[G_RQ_TOP] = t
    r = rq_free[t]
    for f in range(NRQ):
        rq[r, f] = 0
    rq[r, R_MSHR] = -1
    rq[r, R_LDOP] = -1
    rq[r, R_SLOT] = -1
    rq[r, R_NEXT] = -1
    rq[r, R_ORIG] = -1
    rq[r, R_T1] = -1
    rq[r, R_TDS] = -1
    rq[r, R_XSTK] = -1
    rq[r, R_LROW] = -1
    return r


@njit
def rq_release(rq_free, g, r):
    rq_free[g[G_RQ_TOP]] = r
    g[G_RQ_TOP] += 1


@njit
def ld_alloc(ldo, ld_free, g):
    t = g[G_LD_TOP]
    if t == 0:
        return -1
    t -= 1
    g[G_LD_TOP] = t
    return ld_free[t]


@njit
def ld_release(ld_free, g, i):
    ld_free[g[G_LD_TOP]] = i
    g[G_LD_TOP] += 1


@njit
def popcount(x):
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


# ======================================================================================================
# address mapping


@njit
def gather_bits(x, mask):
    """Bits of ``x`` selected by ``mask``, packed to the right (PEXT)."""
    r = 0
    k = 0
    m = mask
    while m != 0:
        low = m & (-m)
        if x & low:
            r |= 1 << k
        k += 1
        m ^= low
    return r


@njit
def map_addr(mapd, mrange, nrange, addr):
    """(channel, global slice, bank group, bank in channel, row, slice-local line key) of a byte address."""
    mid = 0
    for i in range(nrange):
        if addr >= mrange[i, 0] and addr < mrange[i, 1]:
            mid = mrange[i, 2]
            break
    sh = mapd[mid, MD_CHAN_SHIFT]
    if mapd[mid, MD_KIND] == MAPK_PARITY:
        # each channel and bank bit is the parity of the address bits under its mask (XOR mappings)
        chan = 0
        for i in range(mapd[mid, MD_NPCH]):
            chan |= (popcount(addr & mapd[mid, MD_PCH0 + i]) & 1) << i
        bank = 0
        for i in range(mapd[mid, MD_NPBK]):
            bank |= (popcount(addr & mapd[mid, MD_PBK0 + i]) & 1) << i
        row = gather_bits(addr, mapd[mid, MD_MROW]) | ((addr >> mapd[mid, MD_TOP]) << mapd[mid, MD_NROWL])
        sl = gather_bits(addr, mapd[mid, MD_MSLICE])
        # the line within its channel: the address without the line offset and without each channel mask's
        # lowest bit (the channel determines those), so the slice's sets see the varying bits
        key = gather_bits(addr, mapd[mid, MD_KEEP]) | ((addr >> 62) << mapd[mid, MD_NKEEP])
        return chan, chan * mapd[mid, MD_SPC] + sl, 0, bank, row, key
    if mapd[mid, MD_KIND] == MAPK_PINNED:
        chan = mapd[mid, MD_FIXED_CHAN]
        compact = addr
    else:
        nch = mapd[mid, MD_NCHAN]
        hi = addr >> sh
        grp = hi // nch
        chan = hi - grp * nch
        if mapd[mid, MD_CHAN_XOR] != 0:
            f = grp ^ (grp >> 5) ^ (grp >> 11) ^ (grp >> 17)
            chan = (chan + f) % nch
        compact = (grp << sh) | (addr & ((1 << sh) - 1))
    top = mapd[mid, MD_TOP]
    row = gather_bits(compact, mapd[mid, MD_MROW]) | ((compact >> top) << mapd[mid, MD_NROWL])
    bank = gather_bits(compact, mapd[mid, MD_MBANK])
    bg = gather_bits(compact, mapd[mid, MD_MBG])
    sl = gather_bits(compact, mapd[mid, MD_MSLICE])
    if mapd[mid, MD_BANK_XOR] != 0:
        lb = mapd[mid, MD_LOGBPG]
        lg = mapd[mid, MD_LOGNBG]
        bank ^= row & ((1 << lb) - 1)
        bg ^= (row >> lb) & ((1 << lg) - 1)
    key = gather_bits(compact, mapd[mid, MD_KEEP]) | ((compact >> top) << mapd[mid, MD_NKEEP])
    bpg = 1 << mapd[mid, MD_LOGBPG]
    return chan, chan * mapd[mid, MD_SPC] + sl, bg, bg * bpg + bank, row, key


@njit
def rq_map(rq, r, mapd, mrange, nrange, line):
    chan, sl, bg, bank, row, key = map_addr(mapd, mrange, nrange, line)
    rq[r, R_CHAN] = chan
    rq[r, R_SLICE] = sl
    rq[r, R_BG] = bg
    rq[r, R_BANK] = bank
    rq[r, R_ROW] = row
    rq[r, R_KEY] = key


# ======================================================================================================
# caches (shared by L1 and L2): a line table with tag, valid atoms, dirty atoms, replacement stamp


@njit
def c_set(key, sets, setidx, xbits):
    if setidx == 1:
        h = key
        y = key >> xbits
        while y != 0:
            h ^= y
            y >>= xbits
        return h % sets
    return key % sets


@njit
def c_find(lt, base, assoc, tag):
    for w in range(assoc):
        i = base + w
        if lt[i, LN_VALID] != 0 and lt[i, LN_TAG] == tag:
            return i
    return -1


@njit
def c_victim(lt, base, assoc):
    best = base
    bs = INF
    for w in range(assoc):
        i = base + w
        if lt[i, LN_VALID] == 0:
            return i
        if lt[i, LN_STAMP] < bs:
            bs = lt[i, LN_STAMP]
            best = i
    return best


@njit
def expand(mask, sect_atoms, line_atoms):
    """Widen an atom mask to whole sectors of ``sect_atoms`` atoms."""
    if sect_atoms <= 1:
        return mask
    full = (1 << sect_atoms) - 1
    r = 0
    for i in range(0, line_atoms, sect_atoms):
        if mask & (full << i):
            r |= full << i
    return r


# ======================================================================================================
# DRAM channel


@njit
def dram_log(dlog, g, cfg, k, c, cmd, bank, row):
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
    for i in range(cfg[C_DQ_SIZE]):
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
def dram_tick(c, now, k, cfg, clk, rq, rq_free, dq, bank, bgt, chs, faw, qb, qm, wake, g, ctr, chst, dlog, hitpend):
    # the bank table and DQ_BANK index row-buffer units: unit = bank x subarrays_per_bank + subarray
    nsa = cfg[C_NSA]
    nb_ = cfg[C_NBANK] * nsa
    base = c * nb_
    gbase = c * cfg[C_NBG]
    dqs = cfg[C_DQ_SIZE]
    capo = cfg[C_MAXOPEN]
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
            for i in range(dqs):
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
                    dram_log(dlog, g, cfg, k, c, CMD_PRE, b // nsa, -1 - b % nsa)
                    progress = True
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
                dram_log(dlog, g, cfg, k, c, CMD_REF, -1, -1)
                progress = True
        wake[cfg[C_WK_CH] + c] = edge(clk, D_DRAM, k + 1)
        if progress:
            g[G_LAST_PROGRESS] = now
        return
    if n == 0:
        wake[cfg[C_WK_CH] + c] = INF
        return
    # ---------------------------------------------------------------- candidates (one pass)
    # hitpend[b]: a ready request hits bank b's open row; [nb_ + b]: best PRE candidate key for bank b
    fcfs = cfg[C_DRAM_SCHED] == DS_FCFS
    for b in range(nb_):
        hitpend[b] = 0
        hitpend[nb_ + b] = INF
        hitpend[2 * nb_ + b] = -1
    minready = INF
    col = -1
    col_key = INF
    act_i = -1
    act_key = INF
    oldest_key = INF
    oldest = -1
    for i in range(dqs):
        if dq[c, i, DQ_RID] < 0:
            continue
        rr = dq[c, i, DQ_READY]
        if rr > now:
            if rr < minready:
                minready = rr
            continue
        key = dq[c, i, DQ_KEY]
        if key < oldest_key:
            oldest_key = key
            oldest = i
        b = dq[c, i, DQ_BANK]
        bi = base + b
        orow = bank[bi, B_ROW]
        if orow == dq[c, i, DQ_ROW]:
            hitpend[b] = 1
            if key >= col_key:
                continue
            if k < bank[bi, B_RCD_READY] or k < chs[c, H_LAST_COL] + cfg[C_tCCD_S]:
                continue
            if k < bgt[gbase + dq[c, i, DQ_BG], BG_LAST_COL] + cfg[C_tCCD_L]:
                continue
            if dq[c, i, DQ_WR] != 0:
                if k < chs[c, H_LAST_RD] + cfg[C_tRTW] or k + cfg[C_tCWL] < chs[c, H_BUS_FREE]:
                    continue
            else:
                if k < chs[c, H_LAST_WR_END] + cfg[C_tWTR] or k + cfg[C_tCL] < chs[c, H_BUS_FREE]:
                    continue
                if q_space(qm, cfg[C_Q_L2RET] + dq[c, i, DQ_SLICE]) <= 0 and rq[dq[c, i, DQ_RID], R_BURSTS] == 1:
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
        wake[cfg[C_WK_CH] + c] = minready
        return
    strict = fcfs
    if not fcfs and col >= 0 and (col_key >> 48) > (oldest_key >> 48):
        # priority classes first: no ready row hit of the oldest's (top) class; open its row
        strict = True
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
        if pi >= 0 and (hitpend[b] == 0 or strict) and hitpend[nb_ + b] < row_key:
            row_i = pi
            row_key = hitpend[nb_ + b]
            row_cmd = CMD_PRE
            row_u = b
    issued_col = False
    if col >= 0:
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
            elif h == 1:
                ctr[T_DR_ROWMISS] += 1
            else:
                ctr[T_DR_ROWCONF] += 1
        if is_wr:
            ctr[T_DR_WBURST] += 1
            dend = k + cfg[C_tCWL] + bc
            chs[c, H_LAST_WR_END] = dend
            bank[bi, B_PRE_READY] = max(bank[bi, B_PRE_READY], dend + cfg[C_tWR])
            dram_log(dlog, g, cfg, k, c, CMD_WR, b, rq[r, R_ROW])
        else:
            dend = k + cfg[C_tCL] + bc
            chs[c, H_LAST_RD] = k
            bank[bi, B_PRE_READY] = max(bank[bi, B_PRE_READY], k + cfg[C_tRTP])
            dram_log(dlog, g, cfg, k, c, CMD_RD, b, rq[r, R_ROW])
        chs[c, H_BUS_FREE] = dend
        ctr[T_DR_BURST] += 1
        chst[c, CHS_BUSY] += bc
        rq[r, R_BURSTS] -= 1
        if rq[r, R_BURSTS] <= 0:
            dq[c, col, DQ_RID] = -1
            if chs[c, H_NQ] >= dqs:
                spc = cfg[C_SLICES_PER_CH]
                for j in range(c * spc, c * spc + spc):
                    if j < cfg[C_NSL] and now < wake[cfg[C_WK_SL] + j]:
                        wake[cfg[C_WK_SL] + j] = now
            chs[c, H_NQ] -= 1
            nbytes = popcount(rq[r, R_SECT]) * 32
            chst[c, CHS_BYTES] += nbytes
            if cfg[C_PAGE_POLICY] == PAGE_CLOSED:
                other = False
                for i in range(dqs):
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
                q = cfg[C_Q_L2RET] + rq[r, R_SLICE]
                q_push(qb, qm, q, r)
                w = cfg[C_WK_SL] + rq[r, R_SLICE]
                if t < wake[w]:
                    wake[w] = t
        issued_col = True
        progress = True
    if row_i >= 0 and (not issued_col or cfg[C_DUAL_CMD] != 0):
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
            dram_log(dlog, g, cfg, k, c, CMD_ACT, b, rq[r, R_ROW])
        else:
            bank[bi, B_ROW] = -1
            bank[bi, B_ACT_READY] = max(bank[bi, B_ACT_READY], k + cfg[C_tRP])
            bank[bi, B_FREE] = k + cfg[C_tRP]
            rq[r, R_HIT] = 2
            ctr[T_DR_PRE] += 1
            dram_log(dlog, g, cfg, k, c, CMD_PRE, b, -1 - u % nsa)
        if rq[r, R_TDS] < 0:
            rq[r, R_TDS] = -2  # marks "row command issued" without counting it as the data start
        progress = True
    if progress:
        g[G_LAST_PROGRESS] = now
    # the channel's state cannot change until a command's timing allows one (or an arrival lowers the wake)
    wake[cfg[C_WK_CH] + c] = dram_next_cmd(c, now, k, cfg, clk, dq, bank, bgt, chs, faw)


# ======================================================================================================
# serial links between the GPU and memory stacks (HMC-style), one TX and one RX channel per stack.
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


# ======================================================================================================
# interconnect: two crossbars (requests SM -> slice, replies slice -> SM)


@njit
def icnt_tick(net, now, k, cfg, clk, rq, qb, qm, netd, pbusy, wake, g, nst, kst):
    nsrc = netd[net, N_NSRC]
    sq = netd[net, N_SRCQ]
    dqb = netd[net, N_DSTQ]
    delay = netd[net, N_DST_DELAY]
    flit = cfg[C_IC_FLIT]
    hdr = cfg[C_IC_HDR]
    lat = cfg[C_IC_LAT]
    rr = netd[net, N_RR]
    maxp = 0
    if cfg[C_IC_PRIO] != 0:
        for s in range(nsrc):
            q = sq + s
            if qm[q, Q_COUNT] > 0:
                r = q_head(qb, qm, q)
                if rq[r, R_READY] <= now and rq[r, R_PRIO] > maxp:
                    maxp = rq[r, R_PRIO]
    progress = False
    for p in range(maxp, -1, -1):
        for i in range(nsrc):
            s = (rr + i) % nsrc
            q = sq + s
            if qm[q, Q_COUNT] == 0 or pbusy[net, 0, s] > now:
                continue
            r = q_head(qb, qm, q)
            if rq[r, R_READY] > now:
                continue
            if cfg[C_IC_PRIO] != 0 and rq[r, R_PRIO] != p:
                continue
            d = rq[r, R_SLICE] if net == NET_REQ else rq[r, R_SRC]
            if pbusy[net, 1, d] > now:
                continue
            vault_side = net == NET_REQ and rq[r, R_SRC] >= cfg[C_NGPU]
            # (an SM inside a stack reaches the vault controller beside the slice: its own queue, no ROP delay)
            dqid = cfg[C_Q_L2VIN] + d if vault_side else dqb + d
            if qm[dqid, Q_COUNT] >= qm[dqid, Q_CAP]:
                continue
            if net == NET_REQ and qm[q, Q_COUNT] >= qm[q, Q_CAP] and now < wake[s]:
                wake[s] = now  # the SM may be blocked on this full queue
            q_pop(qb, qm, q)
            flits = (hdr + rq[r, R_BYTES] + flit - 1) // flit
            if flits < 1:
                flits = 1
            done = edge(clk, D_ICNT, k + flits)
            pbusy[net, 0, s] = done
            pbusy[net, 1, d] = done
            arrive = edge(clk, D_ICNT, k + lat + flits - 1)
            # the destination's fixed delay (L2 ROP queue) counts whole L2 cycles after arrival
            if delay == 0 or vault_side:
                rq[r, R_READY] = arrive
            else:
                rq[r, R_READY] = edge(clk, D_L2, cyc_at(clk, D_L2, arrive) + delay)
            if net == NET_REQ:
                rq[r, R_T1] = now
                rq[r, R_T2] = arrive
                wcomp = cfg[C_WK_SL] + d
            else:
                rq[r, R_T5] = now
                rq[r, R_T6] = arrive
                wcomp = d
            q_push(qb, qm, dqid, r)
            if rq[r, R_READY] < wake[wcomp]:
                wake[wcomp] = rq[r, R_READY]
            nst[net, 0, s] += flits
            nst[net, 1, d] += flits
            kd = rq[r, R_KIND]
            kst[kd, 2 * net] += 1
            kst[kd, 2 * net + 1] += flits
            progress = True
    netd[net, N_RR] = (rr + 1) % nsrc
    if progress:
        g[G_LAST_PROGRESS] = now
    nxt = edge(clk, D_ICNT, k + 1)
    w = INF
    for s in range(nsrc):
        q = sq + s
        if qm[q, Q_COUNT] > 0:
            r = q_head(qb, qm, q)
            t = max(rq[r, R_READY], pbusy[net, 0, s], nxt)
            if t < w:
                w = t
    wake[cfg[C_WK_NET] + net] = w


@njit
def net_push(q, r, cfg, qb, qm, wake, net, rq):
    """Push packet ``r`` into source queue ``q`` of network ``net`` and wake the network."""
    q_push(qb, qm, q, r)
    w = cfg[C_WK_NET] + net
    if rq[r, R_READY] < wake[w]:
        wake[w] = rq[r, R_READY]


# ======================================================================================================
# L2 slice


@njit
def l2_reply(j, r, ready, now, cfg, rq, qb, qm, wake):
    """Turn request ``r`` into its reply and queue it toward the SM (caller checked the space)."""
    kd = rq[r, R_KIND]
    if kd == PK_WRITE:
        rq[r, R_KIND] = PK_ACK
        rq[r, R_BYTES] = 0
    elif kd >= PK_OFFLOAD:
        rq[r, R_BYTES] = rq[r, R_RBYTES]
    else:
        rq[r, R_BYTES] = popcount(rq[r, R_SECT]) * 32
    rq[r, R_T4] = ready
    rq[r, R_READY] = ready
    net_push(cfg[C_Q_L2OUT] + j, r, cfg, qb, qm, wake, NET_REP, rq)


@njit
def l2_evict_needs_wb(l2t, vi, cfg):
    return cfg[C_L2_WPOL] == WP_BACK and l2t[vi, LN_VALID] != 0 and l2t[vi, LN_DIRTY] != 0


@njit
def l2_writeback(vi, now, cfg, clk, rq, rq_free, l2t, dq, chs, wake, g, ctr, slst, mapd, mrange, j):
    """Write the dirty atoms of victim line ``vi`` to DRAM (caller checked DRAM queue space)."""
    d = rq_alloc(rq, rq_free, g)
    if d < 0:
        return False
    line = l2t[vi, LN_TAG]
    rq[d, R_KIND] = PK_DWRITE
    rq[d, R_LINE] = line
    rq[d, R_SECT] = l2t[vi, LN_DIRTY]
    rq_map(rq, d, mapd, mrange, cfg[C_NRANGE], line)
    dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g)
    ctr[T_L2_WB] += 1
    slst[j, SLS_WB] += 1
    return True


@njit
def l2_lookup(j, line, key, cfg, l2t):
    sets = cfg[C_L2_SETS]
    assoc = cfg[C_L2_ASSOC]
    s = c_set(key, sets, cfg[C_L2_SETIDX], cfg[C_L2_XOR_BITS])
    base = (j * sets + s) * assoc
    return base, c_find(l2t, base, assoc, line)


@njit
def l2_install(l2t, idx, line, valid, dirty, g):
    if l2t[idx, LN_TAG] != line or l2t[idx, LN_VALID] == 0:
        l2t[idx, LN_TAG] = line
        l2t[idx, LN_VALID] = 0
        l2t[idx, LN_DIRTY] = 0
        g[G_STAMP] += 1
        l2t[idx, LN_STAMP] = g[G_STAMP]
    l2t[idx, LN_VALID] |= valid
    l2t[idx, LN_DIRTY] |= dirty


@njit
def l2_touch(l2t, idx, cfg, g):
    if cfg[C_L2_REPL] == 0:  # LRU
        g[G_STAMP] += 1
        l2t[idx, LN_STAMP] = g[G_STAMP]


@njit
def l2_count_miss(j, r, kd, rq, ctr, slst, pcst):
    """Count an L2 miss of request ``r`` (kind ``kd``) at slice ``j``: totals, the slice, its PC, atomics."""
    ctr[T_L2_ACC] += 1
    ctr[T_L2_MISS] += 1
    slst[j, SLS_ACC] += 1
    slst[j, SLS_MISS] += 1
    pc = rq[r, R_PC]
    if pc >= 0 and kd == PK_READ:
        pcst[pc, PCS_L2_MISS] += 1
    if kd == PK_ATOMIC:
        ctr[T_L2_ATOM] += 1


@njit_inline
def l2_access(j, r, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst, mapd,
              mrange, ptype):
    """Serve the request at the head of slice ``j``'s input queue; False when blocked (nothing changed)."""
    kd = rq[r, R_KIND]
    line = rq[r, R_LINE]
    c = rq[r, R_CHAN]
    qout = cfg[C_Q_L2OUT] + j
    xs = src_stack(rq[r, R_SRC], cfg)
    en = cfg[C_L2_EN] != 0 and xs < 0  # SMs in the stacks bypass the GPU's L2
    line_atoms = 1 << (cfg[C_L1_LINE_SHIFT] - 5)
    rq[r, R_T3] = now
    if kd >= PK_OFFLOAD:
        if q_space(qm, qout) <= 0:
            return False
        rq[r, R_LEVEL] = 2
        l2_reply(j, r, edge(clk, D_L2, k + ptype[kd, 0]), now, cfg, rq, qb, qm, wake)
        return True
    if kd == PK_WRITE or kd == PK_WBACK:
        need_ack = kd == PK_WRITE and cfg[C_WAIT_ACKS] != 0
        if need_ack and q_space(qm, qout) <= 0:
            return False
        sect = rq[r, R_SECT]
        through = (not en) or cfg[C_L2_WPOL] != WP_BACK
        base = 0
        idx = -1
        if en:
            base, idx = l2_lookup(j, line, rq[r, R_KEY], cfg, l2t)
        alloc = en and idx < 0 and cfg[C_L2_WALLOC] != 0
        vi = -1
        wb = False
        if alloc:
            vi = c_victim(l2t, base, cfg[C_L2_ASSOC])
            wb = l2_evict_needs_wb(l2t, vi, cfg)
        if not en or (idx < 0 and not alloc):
            through = True
        need_dq = (1 if through else 0) + (1 if wb else 0)
        if dram_space(cfg, chs, c) < need_dq or (wb and dram_space(cfg, chs, rq[r, R_CHAN]) < need_dq):
            return False
        if g[G_RQ_TOP] < need_dq + 1:
            return False
        if wb:
            vch = map_addr(mapd, mrange, cfg[C_NRANGE], l2t[vi, LN_TAG])[0]
            if dram_space(cfg, chs, vch) < 1 + (1 if (through and vch == c) else 0):
                return False
            l2_writeback(vi, now, cfg, clk, rq, rq_free, l2t, dq, chs, wake, g, ctr, slst, mapd, mrange, j)
        if xs < 0:
            ctr[T_L2_ST] += 1
            ctr[T_L2_ACC] += 1
            slst[j, SLS_ACC] += 1
        if en:
            if idx >= 0:
                ctr[T_L2_HIT] += 1
                slst[j, SLS_HIT] += 1
                l2_touch(l2t, idx, cfg, g)
                if cfg[C_L2_WPOL] == WP_BACK:
                    l2t[idx, LN_DIRTY] |= sect
                l2t[idx, LN_VALID] |= sect
            elif alloc:
                ctr[T_L2_MISS] += 1
                slst[j, SLS_MISS] += 1
                l2_install(l2t, vi, line, sect, sect if cfg[C_L2_WPOL] == WP_BACK else 0, g)
            else:
                ctr[T_L2_MISS] += 1
                slst[j, SLS_MISS] += 1
        if through:
            d = rq_alloc(rq, rq_free, g)
            rq[d, R_KIND] = PK_DWRITE
            rq[d, R_LINE] = line
            rq[d, R_SECT] = sect
            rq[d, R_PRIO] = rq[r, R_PRIO]
            rq[d, R_XSTK] = xs
            rq_map(rq, d, mapd, mrange, cfg[C_NRANGE], line)
            dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g)
        if need_ack:
            rq[r, R_LEVEL] = 2
            l2_reply(j, r, edge(clk, D_L2, k + cfg[C_L2_LAT]), now, cfg, rq, qb, qm, wake)
        else:
            rq_release(rq_free, g, r)
        return True
    # reads, prefetches, preloads, atomics: need data
    sect = rq[r, R_SECT]
    if not en:
        if dram_space(cfg, chs, c) < 1 or g[G_RQ_TOP] < 1:
            return False
        d = rq_alloc(rq, rq_free, g)
        rq[d, R_KIND] = PK_DREAD
        rq[d, R_LINE] = line
        rq[d, R_SECT] = sect
        rq[d, R_PRIO] = rq[r, R_PRIO]
        rq[d, R_ORIG] = r
        rq[d, R_SLICE] = j
        rq[d, R_XSTK] = xs
        rq_map(rq, d, mapd, mrange, cfg[C_NRANGE], line)
        rq[d, R_SLICE] = j
        dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g)
        rq[r, R_TDQ] = now
        if xs < 0:  # (a stack SM's request passes the L2 by)
            ctr[T_L2_ACC] += 1
            ctr[T_L2_MISS] += 1
            slst[j, SLS_ACC] += 1
            slst[j, SLS_MISS] += 1
            if kd == PK_ATOMIC:
                ctr[T_L2_ATOM] += 1
        return True
    base, idx = l2_lookup(j, line, rq[r, R_KEY], cfg, l2t)
    present = l2t[idx, LN_VALID] if idx >= 0 else 0
    if (sect & ~present) == 0:
        if q_space(qm, qout) <= 0:
            return False
        ctr[T_L2_ACC] += 1
        ctr[T_L2_HIT] += 1
        slst[j, SLS_ACC] += 1
        slst[j, SLS_HIT] += 1
        l2_touch(l2t, idx, cfg, g)
        lat = cfg[C_L2_LAT]
        if kd == PK_ATOMIC:
            lat += cfg[C_L2_ATOM_LAT]
            l2t[idx, LN_DIRTY] |= sect
            ctr[T_L2_ATOM] += 1
        rq[r, R_LEVEL] = 2
        l2_reply(j, r, edge(clk, D_L2, k + lat), now, cfg, rq, qb, qm, wake)
        return True
    mm = expand(sect & ~present, cfg[C_L2_SECT_ATOMS], line_atoms)
    nm = cfg[C_L2_MSHR]
    mb = j * nm
    ent = -1
    free_e = -1
    for m in range(mb, mb + nm):
        if l2m[m, M_NREQ] > 0:
            if l2m[m, M_LINE] == line and (mm & ~l2m[m, M_SECT]) == 0 and l2m[m, M_NWAIT] < cfg[C_L2_MERGE]:
                ent = m
                break
        elif free_e < 0:
            free_e = m
    if ent >= 0:
        # merge into the outstanding miss
        dr = l2m[ent, M_DREQ]
        if rq[r, R_PRIO] > rq[dr, R_PRIO]:
            rq[dr, R_PRIO] = rq[r, R_PRIO]
            ch = rq[dr, R_CHAN]
            for i in range(cfg[C_DQ_SIZE]):
                if dq[ch, i, DQ_RID] == dr:
                    dq[ch, i, DQ_KEY] = (NPRIO - 1 - rq[dr, R_PRIO]) * (1 << 48) + rq[dr, R_SEQ]
                    break
        rq[r, R_NEXT] = -1
        rq[l2m[ent, M_TAIL], R_NEXT] = r
        l2m[ent, M_TAIL] = r
        l2m[ent, M_NWAIT] += 1
        ctr[T_L2_MERGE] += 1
        l2_count_miss(j, r, kd, rq, ctr, slst, pcst)
        rq[r, R_TDQ] = now
        return True
    if free_e < 0 or g[G_RQ_TOP] < 1:
        return False
    if dram_space(cfg, chs, c) < 1:
        qm[cfg[C_Q_L2IN] + j, Q_BLOCK] = c + 1
        return False
    d = rq_alloc(rq, rq_free, g)
    rq[d, R_KIND] = PK_DREAD
    rq[d, R_LINE] = line
    rq[d, R_SECT] = mm
    rq[d, R_PRIO] = rq[r, R_PRIO]
    rq[d, R_MSHR] = free_e
    rq_map(rq, d, mapd, mrange, cfg[C_NRANGE], line)
    rq[d, R_SLICE] = j
    dram_enqueue(d, now, cfg, clk, rq, dq, chs, wake, g)
    l2m[free_e, M_LINE] = line
    l2m[free_e, M_SECT] = mm
    l2m[free_e, M_NWAIT] = 1
    l2m[free_e, M_NREQ] = 1
    l2m[free_e, M_HEAD] = r
    l2m[free_e, M_TAIL] = r
    l2m[free_e, M_DREQ] = d
    rq[r, R_NEXT] = -1
    rq[r, R_TDQ] = now
    l2_count_miss(j, r, kd, rq, ctr, slst, pcst)
    return True


@njit
def l2_fill(j, d, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, mapd, mrange):
    """A DRAM read returned to slice ``j``: fill the line and reply to every merged request."""
    qout = cfg[C_Q_L2OUT] + j
    ready = edge(clk, D_L2, k + 1)
    m = rq[d, R_MSHR]
    if m < 0:  # no L2: reply to the one request
        if q_space(qm, qout) <= 0:
            return False
        o = rq[d, R_ORIG]
        rq[o, R_LEVEL] = 3
        rq[o, R_TDS] = rq[d, R_TDS]
        l2_reply(j, o, ready, now, cfg, rq, qb, qm, wake)
        rq_release(rq_free, g, d)
        return True
    if q_space(qm, qout) < l2m[m, M_NWAIT]:
        return False
    line = rq[d, R_LINE]
    base, idx = l2_lookup(j, line, rq[d, R_KEY], cfg, l2t)
    if idx < 0:
        vi = c_victim(l2t, base, cfg[C_L2_ASSOC])
        if l2_evict_needs_wb(l2t, vi, cfg):
            vch = map_addr(mapd, mrange, cfg[C_NRANGE], l2t[vi, LN_TAG])[0]
            if dram_space(cfg, chs, vch) < 1 or g[G_RQ_TOP] < 1:
                return False
            l2_writeback(vi, now, cfg, clk, rq, rq_free, l2t, dq, chs, wake, g, ctr, slst, mapd, mrange, j)
        idx = vi
    dirty = 0
    r = l2m[m, M_HEAD]
    while r >= 0:
        if rq[r, R_KIND] == PK_ATOMIC:
            dirty |= rq[r, R_SECT]
        r = rq[r, R_NEXT]
    l2_install(l2t, idx, line, rq[d, R_SECT], dirty, g)
    r = l2m[m, M_HEAD]
    while r >= 0:
        nx = rq[r, R_NEXT]
        rq[r, R_LEVEL] = 3
        rq[r, R_TDS] = rq[d, R_TDS]
        l2_reply(j, r, ready, now, cfg, rq, qb, qm, wake)
        r = nx
    l2m[m, M_NREQ] = 0
    l2m[m, M_NWAIT] = 0
    l2m[m, M_LINE] = -1
    l2m[m, M_HEAD] = -1
    ctr[T_L2_FILL] += 1
    rq_release(rq_free, g, d)
    return True


@njit
def l2_tick(j, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst, mapd, mrange,
            ptype):
    progress = False
    qr = cfg[C_Q_L2RET] + j
    if qm[qr, Q_COUNT] > 0:
        d = q_head(qb, qm, qr)
        if rq[d, R_READY] <= now:
            if l2_fill(j, d, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, mapd,
                       mrange):
                q_pop(qb, qm, qr)
                progress = True
    qi = cfg[C_Q_L2IN] + j
    blocked = False
    for _p in range(cfg[C_L2_PORTS]):
        if qm[qi, Q_COUNT] == 0:
            break
        r = q_head(qb, qm, qi)
        if rq[r, R_READY] > now:
            break
        bc = qm[qi, Q_BLOCK] - 1
        if bc >= 0 and dram_space(cfg, chs, bc) <= 0:
            ctr[T_L2_BLOCK] += 1
            blocked = True
            break
        qm[qi, Q_BLOCK] = 0
        if not l2_access(j, r, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst,
                         mapd, mrange, ptype):
            ctr[T_L2_BLOCK] += 1
            blocked = True
            break
        q_pop(qb, qm, qi)
        progress = True
    # requests of SMs inside the stacks: straight to the vault (l2_access passes them by the L2), one a cycle
    qv = cfg[C_Q_L2VIN] + j
    vblocked = False
    if qm[qv, Q_COUNT] > 0:
        r = q_head(qb, qm, qv)
        if rq[r, R_READY] <= now:
            if l2_access(j, r, now, k, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst,
                         mapd, mrange, ptype):
                q_pop(qb, qm, qv)
                progress = True
            else:
                vblocked = True
    if progress:
        g[G_LAST_PROGRESS] = now
    nxt = edge(clk, D_L2, k + 1)
    w = INF
    if qm[qv, Q_COUNT] > 0:
        w = nxt if vblocked else max(rq[q_head(qb, qm, qv), R_READY], nxt)
    if qm[qr, Q_COUNT] > 0:
        w = min(w, max(rq[q_head(qb, qm, qr), R_READY], nxt))
    if qm[qi, Q_COUNT] > 0:
        bc = qm[qi, Q_BLOCK] - 1
        if blocked and bc >= 0 and bc == j // cfg[C_SLICES_PER_CH] and dram_space(cfg, chs, bc) <= 0:
            t = INF  # the channel wakes its slices when a queue slot frees
        else:
            t = nxt if blocked else max(rq[q_head(qb, qm, qi), R_READY], nxt)
        if t < w:
            w = t
    wake[cfg[C_WK_SL] + j] = w


# ======================================================================================================
# SM: L1, LD/ST unit, fills, warps, schedulers, CTAs


@njit
def l1_base(sm, line, cfg):
    sets = cfg[C_L1_SETS]
    key = line >> cfg[C_L1_LINE_SHIFT]
    s = c_set(key, sets, cfg[C_L1_SETIDX], cfg[C_L1_XOR_BITS])
    return (sm * sets + s) * cfg[C_L1_ASSOC]


@njit
def new_request(sm, kind, line, sect, nbytes, prio, pc, slot, now, k, cfg, clk, rq, rq_free, g, mapd, mrange):
    r = rq_alloc(rq, rq_free, g)
    if r < 0:
        return -1
    rq[r, R_KIND] = kind
    rq[r, R_LINE] = line
    rq[r, R_SECT] = sect
    rq[r, R_BYTES] = nbytes
    rq[r, R_SRC] = sm
    rq[r, R_PRIO] = prio
    rq[r, R_PC] = pc
    rq[r, R_SLOT] = slot
    rq[r, R_T0] = now
    rq[r, R_READY] = edge(clk, D_CORE, k + cfg[C_L1_MISS_LAT])
    rq_map(rq, r, mapd, mrange, cfg[C_NRANGE], line)
    return r


@njit
def l1_send_miss(sm, line, mm, kind, prio, ldop, pc, alloc, now, k, cfg, clk, rq, rq_free, l1m, l1w, qb, qm,
                 wake, g, mapd, mrange, smt):
    """Allocate or extend an L1 MSHR for ``mm`` atoms of ``line`` and send the request.

    Returns 1 on success, 2 when merged without a new request, 0 when blocked (nothing changed).
    """
    nm = cfg[C_L1_MSHR]
    mb = sm * nm
    ent = -1
    free_e = -1
    for m in range(mb, mb + nm):
        if l1m[m, M_NREQ] > 0:
            if l1m[m, M_LINE] == line:
                ent = m
                break
        elif free_e < 0:
            free_e = m
    if ent >= 0:
        if ldop >= 0 and l1m[ent, M_NWAIT] >= cfg[C_L1_MERGE]:
            smt[sm, S_LDST_BLOCK] = 4
            return 0
        extra = mm & ~l1m[ent, M_SECT]
        if extra == 0:
            if ldop >= 0:
                l1w[ent, l1m[ent, M_NWAIT]] = ldop
                l1m[ent, M_NWAIT] += 1
            return 2
        mm = extra
    elif free_e < 0:
        smt[sm, S_LDST_BLOCK] = 1
        return 0
    qo = cfg[C_Q_SMOUT] + sm
    if q_space(qm, qo) <= 0:
        smt[sm, S_LDST_BLOCK] = 2
        return 0
    r = new_request(sm, kind, line, mm, 0, prio, pc, -1, now, k, cfg, clk, rq, rq_free, g, mapd, mrange)
    if r < 0:
        smt[sm, S_LDST_BLOCK] = 3
        return 0
    m = ent if ent >= 0 else free_e
    if ent < 0:
        l1m[m, M_LINE] = line
        l1m[m, M_SECT] = 0
        l1m[m, M_NWAIT] = 0
        l1m[m, M_NREQ] = 0
        l1m[m, M_ALLOC] = alloc
        l1m[m, M_KIND] = kind
        smt[sm, S_MSHR_USED] += 1
    l1m[m, M_SECT] |= mm
    l1m[m, M_NREQ] += 1
    if ldop >= 0:
        l1w[m, l1m[m, M_NWAIT]] = ldop
        l1m[m, M_NWAIT] += 1
    rq[r, R_MSHR] = m
    net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
    return 1


@njit
def wake_warp(slot, t, cfg, wt, subt):
    """Lower warp ``slot``'s READY to ``t`` and its sub-core's earliest-ready time with it."""
    if t < wt[slot, W_READY]:
        wt[slot, W_READY] = t
    sb = (slot // cfg[C_NSLOT]) * cfg[C_NSUB] + wt[slot, W_SUB]
    if t < subt[sb, SB_MINREADY]:
        subt[sb, SB_MINREADY] = t


@njit
def ld_complete(i, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt):
    slot = ldo[i, L_SLOT]
    t = ldo[i, L_HIT_READY]
    lvl = ldo[i, L_LEVEL]
    if lvl >= 2:
        t = max(t, edge(clk, D_CORE, k + cfg[C_FILL_TO_USE]))
    for j in range(4):
        d = ldo[i, L_D0 + j]
        if d >= 0:
            regrdy[slot, d] = t
    wake_warp(slot, t, cfg, wt, subt)
    wt[slot, W_PEND_LD] -= 1
    lat = t - ldo[i, L_T0]
    if lvl == 1:
        ctr[T_LU_N1] += 1
        ctr[T_LU_S1] += lat
    elif lvl == 2:
        ctr[T_LU_N2] += 1
        ctr[T_LU_S2] += lat
    elif lvl == 3:
        ctr[T_LU_N3] += 1
        ctr[T_LU_S3] += lat
    else:
        ctr[T_LU_N0] += 1
        ctr[T_LU_S0] += lat
    pc = ldo[i, L_PC]
    if pc >= 0:
        pcst[pc, PCS_LAT] += lat
    ld_release(ld_free, g, i)
    return slot


@njit_inline
def tx_process(sm, now, k, cfg, clk, rec, txl, txs, rq, rq_free, l1t, l1m, l1w, ldo, ld_free, qb, qm, wake, g,
               ctr, smst, pcst, wt, regrdy, smt, mapd, mrange, subt):
    """The LD/ST unit handles transaction ``S_LDST_TX`` of its current instruction; False when blocked."""
    g[G_IT_TX] += 1
    t = smt[sm, S_LDST_TX]
    ri = smt[sm, S_LDST_REC]
    kind = smt[sm, S_LDST_KIND]
    slot = smt[sm, S_LDST_SLOT]
    ldop = smt[sm, S_LDST_LDOP]
    line = txl[t]
    sect = txs[t]
    space = rec[ri, RC_SPACE]
    pc = rec[ri, RC_PC]
    en = cfg[C_L1_EN] != 0
    cached = en and (space == SP_LOCAL or cfg[C_L1_CACHE_GLOBAL] != 0)
    line_atoms = 1 << (cfg[C_L1_LINE_SHIFT] - 5)
    assoc = cfg[C_L1_ASSOC]
    base = l1_base(sm, line, cfg)
    idx = c_find(l1t, base, assoc, line) if en else -1
    present = l1t[idx, LN_VALID] if idx >= 0 else 0
    if kind == IK_LOAD:
        if cached and (sect & ~present) == 0:
            if cfg[C_L1_REPL] == 0:
                g[G_STAMP] += 1
                l1t[idx, LN_STAMP] = g[G_STAMP]
            ready = edge(clk, D_CORE, k + cfg[C_L1_LAT])
            if ready > ldo[ldop, L_HIT_READY]:
                ldo[ldop, L_HIT_READY] = ready
            ctr[T_L1_ACC] += 1
            ctr[T_L1_HIT] += 1
            smst[sm, SMS_L1_ACC] += 1
            ldo[ldop, L_OUT] -= 1
            if ldo[ldop, L_OUT] == 0:
                s2 = ld_complete(ldop, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt)
                warp_maybe_exit_flag(s2, wt, smt, cfg)
            return True
        mm = expand(sect & ~present, cfg[C_L1_SECT_ATOMS], line_atoms) if cached else sect
        res = l1_send_miss(sm, line, mm, PK_READ, 0, ldop, pc, 1 if cached else 0, now, k, cfg, clk, rq, rq_free,
                           l1m, l1w, qb, qm, wake, g, mapd, mrange, smt)
        if res == 0:
            ctr[T_L1_MSHR_FULL] += 1
            return False
        ctr[T_L1_ACC] += 1
        ctr[T_L1_MISS] += 1
        smst[sm, SMS_L1_ACC] += 1
        smst[sm, SMS_L1_MISS] += 1
        pcst[pc, PCS_L1_MISS] += 1
        if present != 0:
            ctr[T_L1_SECT_MISS] += 1
        if res == 2:
            ctr[T_L1_MERGE] += 1
        if ldo[ldop, L_LEVEL] < 2:
            ldo[ldop, L_LEVEL] = 2
        if cfg[C_PF_KIND] == PF_NEXT_LINE and cached and res == 1:
            prefetch_next(sm, line, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, mapd, mrange,
                          smt)
        return True
    nbytes = popcount(sect) * 32
    qo = cfg[C_Q_SMOUT] + sm
    if kind == IK_ATOMIC:
        if q_space(qm, qo) <= 0:
            smt[sm, S_LDST_BLOCK] = 2
            return False
        r = new_request(sm, PK_ATOMIC, line, sect, nbytes, 0, pc, slot, now, k, cfg, clk, rq, rq_free, g, mapd,
                        mrange)
        if r < 0:
            return False
        rq[r, R_LDOP] = ldop
        if idx >= 0:
            l1t[idx, LN_VALID] = 0
        if ldo[ldop, L_LEVEL] < 2:
            ldo[ldop, L_LEVEL] = 2
        net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
        ctr[T_L1_ACC] += 1
        ctr[T_L1_MISS] += 1
        return True
    # store
    wpol = cfg[C_L1_WPOL]
    if cached and wpol == WP_BACK and (idx >= 0 or cfg[C_L1_WALLOC] != 0):
        vi = idx
        if vi < 0:
            vi = c_victim(l1t, base, assoc)
            if l1t[vi, LN_VALID] != 0 and l1t[vi, LN_DIRTY] != 0:
                if q_space(qm, qo) <= 0:
                    return False
                vline = l1t[vi, LN_TAG]
                vs = l1t[vi, LN_DIRTY]
                r = new_request(sm, PK_WBACK, vline, vs, popcount(vs) * 32, 0, -1, -1, now, k, cfg, clk, rq,
                                rq_free, g, mapd, mrange)
                if r < 0:
                    return False
                net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
                ctr[T_L1_WB] += 1
            if l1t[vi, LN_VALID] != 0:
                ctr[T_L1_EVICT] += 1
            l1t[vi, LN_TAG] = line
            l1t[vi, LN_VALID] = 0
            l1t[vi, LN_DIRTY] = 0
        g[G_STAMP] += 1
        l1t[vi, LN_STAMP] = g[G_STAMP]
        l1t[vi, LN_VALID] |= sect
        l1t[vi, LN_DIRTY] |= sect
        ctr[T_L1_ST] += 1
        ctr[T_L1_ST_HIT] += 1 if idx >= 0 else 0
        return True
    if q_space(qm, qo) <= 0:
        smt[sm, S_LDST_BLOCK] = 2
        return False
    r = new_request(sm, PK_WRITE, line, sect, nbytes, 0, pc, slot, now, k, cfg, clk, rq, rq_free, g, mapd, mrange)
    if r < 0:
        return False
    if idx >= 0:
        if wpol == WP_EVICT:
            l1t[idx, LN_VALID] = 0
        ctr[T_L1_ST_HIT] += 1
    ctr[T_L1_ST] += 1
    if cfg[C_WAIT_ACKS] != 0:
        wt[slot, W_PEND_ST] += 1
    net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
    return True


@njit
def warp_maybe_exit_flag(slot, wt, smt, cfg):
    """Flag a draining warp with nothing pending: its SM retires it at the end of the tick."""
    if wt[slot, W_STATE] == WS_DRAIN and wt[slot, W_PEND_LD] == 0 and wt[slot, W_PEND_ST] == 0:
        smt[slot // cfg[C_NSLOT], S_RETIRE] = 1


@njit
def prefetch_next(sm, line, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, mapd, mrange, smt):
    lb = 1 << cfg[C_L1_LINE_SHIFT]
    full = (1 << (lb // 32)) - 1
    for dgr in range(1, cfg[C_PF_DEGREE] + 1):
        pl = line + dgr * lb
        if c_find(l1t, l1_base(sm, pl, cfg), cfg[C_L1_ASSOC], pl) >= 0:
            continue
        if smt[sm, S_MSHR_USED] >= cfg[C_L1_MSHR] - 1:
            g[G_PF_DROP] += 1
            return
        res = l1_send_miss(sm, pl, full, PK_PREFETCH, cfg[C_PF_PRIO], -1, -1, 1, now, k, cfg, clk, rq, rq_free,
                           l1m, l1w, qb, qm, wake, g, mapd, mrange, smt)
        if res == 0:
            g[G_PF_DROP] += 1
            return
        if res == 1:
            ctr[T_PF_ISSUED] += 1


@njit_inline
def sm_fill(sm, r, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, ldo, ld_free, qb, qm, wake, g, ctr, prst, pcst, wt,
            regrdy, smt, mapd, mrange, subt):
    """Accept reply ``r`` at SM ``sm``; False when blocked (nothing changed)."""
    kd = rq[r, R_KIND]
    if kd == PK_ACK:
        s = rq[r, R_SLOT]
        wt[s, W_PEND_ST] -= 1
        warp_maybe_exit_flag(s, wt, smt, cfg)
        rq_release(rq_free, g, r)
        return True
    if kd == PK_ATOMIC or kd >= PK_OFFLOAD:
        i = rq[r, R_LDOP]
        if rq[r, R_LEVEL] > ldo[i, L_LEVEL]:
            ldo[i, L_LEVEL] = rq[r, R_LEVEL]
        ldo[i, L_OUT] -= 1
        if ldo[i, L_OUT] == 0:
            s = ld_complete(i, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt)
            warp_maybe_exit_flag(s, wt, smt, cfg)
        rq_release(rq_free, g, r)
        return True
    m = rq[r, R_MSHR]
    line = rq[r, R_LINE]
    if l1m[m, M_ALLOC] != 0 and cfg[C_L1_EN] != 0:
        assoc = cfg[C_L1_ASSOC]
        base = l1_base(sm, line, cfg)
        idx = c_find(l1t, base, assoc, line)
        if idx < 0:
            vi = c_victim(l1t, base, assoc)
            if l1t[vi, LN_VALID] != 0 and l1t[vi, LN_DIRTY] != 0:
                qo = cfg[C_Q_SMOUT] + sm
                if q_space(qm, qo) <= 0:
                    return False
                vs = l1t[vi, LN_DIRTY]
                w = new_request(sm, PK_WBACK, l1t[vi, LN_TAG], vs, popcount(vs) * 32, 0, -1, -1, now, k, cfg, clk,
                                rq, rq_free, g, mapd, mrange)
                if w < 0:
                    return False
                net_push(qo, w, cfg, qb, qm, wake, NET_REQ, rq)
                ctr[T_L1_WB] += 1
            if l1t[vi, LN_VALID] != 0:
                ctr[T_L1_EVICT] += 1
            l1t[vi, LN_TAG] = line
            l1t[vi, LN_VALID] = 0
            l1t[vi, LN_DIRTY] = 0
            idx = vi
        g[G_STAMP] += 1
        if cfg[C_L1_REPL] == 0 or l1t[idx, LN_VALID] == 0:
            l1t[idx, LN_STAMP] = g[G_STAMP]
        l1t[idx, LN_VALID] |= rq[r, R_SECT]
    # latency statistics of demand reads
    pr = rq[r, R_PRIO]
    total = now - rq[r, R_T0]
    if kd == PK_READ:
        net_t = (rq[r, R_T2] - rq[r, R_T1]) + (rq[r, R_T6] - rq[r, R_T5])
        svc = rq[r, R_T4] - rq[r, R_T3]
        ctr[T_LAT_N] += 1
        ctr[T_LAT_SUM] += total
        ctr[T_LAT_NET] += net_t
        ctr[T_LAT_SVC] += svc
        ctr[T_LAT_Q] += total - net_t - svc
        if rq[r, R_TDS] >= 0:
            ctr[T_LAT_DQ] += rq[r, R_TDS] - rq[r, R_TDQ]
    prst[pr, PRS_N] += 1
    prst[pr, PRS_LAT] += total
    if rq[r, R_LEVEL] == 3:
        prst[pr, PRS_DRAM] += 1
    l1m[m, M_NREQ] -= 1
    if l1m[m, M_NREQ] == 0:
        lvl = rq[r, R_LEVEL]
        for w in range(l1m[m, M_NWAIT]):
            i = l1w[m, w]
            if lvl > ldo[i, L_LEVEL]:
                ldo[i, L_LEVEL] = lvl
            ldo[i, L_OUT] -= 1
            if ldo[i, L_OUT] == 0:
                s = ld_complete(i, now, k, cfg, clk, ldo, ld_free, wt, regrdy, g, ctr, pcst, subt)
                warp_maybe_exit_flag(s, wt, smt, cfg)
            if l1m[m, M_KIND] == PK_PREFETCH:
                ctr[T_PF_USEFUL] += 1
        l1m[m, M_NWAIT] = 0
        l1m[m, M_LINE] = -1
        smt[sm, S_MSHR_USED] -= 1
    elif rq[r, R_LEVEL] > 0:
        # remember the deepest level any part of this miss reached
        for w in range(l1m[m, M_NWAIT]):
            i = l1w[m, w]
            if rq[r, R_LEVEL] > ldo[i, L_LEVEL]:
                ldo[i, L_LEVEL] = rq[r, R_LEVEL]
    rq_release(rq_free, g, r)
    return True


@njit
def occ_update(sm, k, smt):
    """Close the occupancy interval of SM ``sm`` at core cycle ``k`` (before its warp count changes)."""
    dt = k - smt[sm, S_OCC_T]
    if dt > 0:
        smt[sm, S_OCC_ACC] += smt[sm, S_WARPS] * dt
        if smt[sm, S_CTAS] > 0:
            smt[sm, S_BUSY_T] += dt
    smt[sm, S_OCC_T] = k


@njit
def warp_exit(sm, slot, now, k, cfg, wt, ctat, smt, wake, g, ctr, smst):
    cs = wt[slot, W_CTA_SLOT]
    wt[slot, W_STATE] = WS_FREE
    wt[slot, W_READY] = INF
    occ_update(sm, k, smt)
    smt[sm, S_WARPS] -= 1
    if cs < 0:  # a warp running an offloaded block (bo_finish acknowledges it)
        return
    ctat[cs, CT_WARPS] -= 1
    if ctat[cs, CT_WARPS] == 0:
        occ_update(sm, k, smt)
        smt[sm, S_CTAS] -= 1
        smt[sm, S_THREADS] -= ctat[cs, CT_THREADS]
        smt[sm, S_REGS] -= ctat[cs, CT_REGS]
        smt[sm, S_SMEM] -= ctat[cs, CT_SMEM]
        if ctat[cs, CT_PRE_NEXT] < ctat[cs, CT_PRE_END]:
            smt[sm, S_PRE_PENDING] -= 1  # the CTA ended before its preload list: drop the rest
        ctat[cs, CT_CTA] = -1
        g[G_CTAS_DONE] += 1
        g[G_LIVE_CTAS] -= 1
        wd = cfg[C_WK_DISP]
        if now < wake[wd]:
            wake[wd] = now


# ------------------------------------------------------------------------------------------------------
# block offload (interfaces.BlockOffload): a GPU warp at a candidate block's decision point may send the
# block to an SM inside the memory stack of its first access; that SM runs the block's stretch of the
# warp's stream against its own vaults (and other stacks' over cross-stack links) and acknowledges it.


@njit
def bo_row(i, ofl):
    """Offset of instance ``i``'s row (``OI_*`` columns) in ``ofl``."""
    return ofl[OF_OI0] + i * NOI


@njit
def bo_next(i, ofl):
    """The instance after ``i`` of the same warp, or -1."""
    o = bo_row(i, ofl)
    if i + 1 < ofl[OF_NINST] and ofl[o + NOI + OI_WARP] == ofl[o + OI_WARP]:
        return i + 1
    return -1


@njit
def bo_at_decision(slot, i, wt, ofl):
    """Is warp ``slot`` at instance ``i``'s decision point?"""
    o = bo_row(i, ofl)
    return wt[slot, W_SEG] == ofl[o + OI_DSEG] and wt[slot, W_SEG_OFF] == ofl[o + OI_DOFF]


@njit
def bo_util(s, rx, now, chs, ofl):
    """Channel busy monitor: stack ``s``'s TX (rx=0) or RX utilisation, per mille, over the last window.

    A window closes at the first look after it has lasted ``OF_WINDOW_PS``; busy time includes packets
    already queued for later serialisation, so a backlogged channel reads above 1000."""
    b = ofl[OF_STK0] + s * NOFS
    dt = now - ofl[b + OFS_MARK_T]
    if dt >= ofl[OF_WINDOW_PS]:
        ofl[b + OFS_UTIL_TX] = (chs[s, H_LK_TX_BUSY] - ofl[b + OFS_MARK_TX]) * 1000 // dt
        ofl[b + OFS_UTIL_RX] = (chs[s, H_LK_RX_BUSY] - ofl[b + OFS_MARK_RX]) * 1000 // dt
        ofl[b + OFS_MARK_T] = now
        ofl[b + OFS_MARK_TX] = chs[s, H_LK_TX_BUSY]
        ofl[b + OFS_MARK_RX] = chs[s, H_LK_RX_BUSY]
    return ofl[b + OFS_UTIL_TX + rx]


@njit
def bo_decide(i, now, ofl, chs):
    """0: offload instance ``i``; else the reason not to (1 no memory access, 2 condition, 3 busy, 4 pending).

    The destination (``OI_STACK``, the stack of the first access) is mapped when the launch starts."""
    o = bo_row(i, ofl)
    if ofl[o + OI_LINE] < 0:
        return 1
    if ofl[o + OI_ALLOWED] == 0:
        return 2
    s = ofl[o + OI_STACK]
    if ofl[OF_MODE] == BO_CTRL:
        thr = ofl[OF_THR]
        if ofl[o + OI_ADDS_TX] != 0 and bo_util(s, 0, now, chs, ofl) >= thr:
            return 3
        if ofl[o + OI_ADDS_RX] != 0 and bo_util(s, 1, now, chs, ofl) >= thr:
            return 3
    lim = ofl[OF_PEND_LIMIT]  # (0 under "always": every stack SM queues what it cannot start)
    if lim > 0 and ofl[ofl[OF_STK0] + s * NOFS + OFS_PEND] >= lim:
        return 4
    return 0


@njit
def bo_send(sm, slot, now, k, cfg, clk, wt, ofl, chs, wake, ctr):
    """Send warp ``slot``'s block to its stack: live-ins out on TX; the warp skips the block and waits."""
    i = wt[slot, W_OINST]
    o = bo_row(i, ofl)
    s = ofl[o + OI_STACK]
    t = edge(clk, D_CORE, k + ofl[OF_PIPE])
    if ofl[OF_MODE] != BO_IDEAL:
        t = link_send(s, 0, ofl[o + OI_REQ_FL], t, chs)
        ctr[T_BO_REQ_FLITS] += ofl[o + OI_REQ_FL]
    ofl[o + OI_ARRIVE] = t
    ofl[o + OI_T0] = now
    ofl[o + OI_HOST] = slot
    b = ofl[OF_STK0] + s * NOFS
    ofl[ofl[OF_Q0] + s * ofl[OF_NINST] + ofl[b + OFS_QTAIL]] = i
    ofl[b + OFS_QTAIL] += 1
    ofl[b + OFS_PEND] += 1
    for j in range(cfg[C_SPS]):
        w = cfg[C_NGPU] + s * cfg[C_SPS] + j
        if t < wake[w]:
            wake[w] = t
    wt[slot, W_SEG] = ofl[o + OI_SEG1]
    wt[slot, W_SEG_OFF] = ofl[o + OI_OFF1]
    wt[slot, W_REC] = ofl[o + OI_REC1]
    wt[slot, W_READY] = INF
    wt[slot, W_OFL_GO] = 0
    wt[slot, W_OINST] = bo_next(i, ofl)
    ctr[T_BO_SEEN] += 1
    ctr[T_BO_SENT] += 1


@njit
def bo_spawn(sm, now, k, cfg, clk, wt, regrdy, smt, subt, ofl, l1t, g):
    """Start arrived blocks on stack SM ``sm`` while it has warp room; returns the next arrival time."""
    s = (sm - cfg[C_NGPU]) // cfg[C_SPS]
    b = ofl[OF_STK0] + s * NOFS
    q = ofl[OF_Q0] + s * ofl[OF_NINST]
    nsl = cfg[C_NSLOT]
    nsub = cfg[C_NSUB]
    while ofl[b + OFS_QHEAD] < ofl[b + OFS_QTAIL]:
        i = ofl[q + ofl[b + OFS_QHEAD]]
        o = bo_row(i, ofl)
        if ofl[o + OI_ARRIVE] > now:
            return ofl[o + OI_ARRIVE]
        if smt[sm, S_WARPS] >= cfg[C_SWARPS]:
            return INF  # a finishing warp makes progress, and the SM looks again the next cycle
        j = 0
        while wt[sm * nsl + j, W_STATE] != WS_FREE:
            j += 1
        slot = sm * nsl + j
        ofl[b + OFS_QHEAD] += 1
        init_warp(slot, j, sm, ofl[o + OI_WARP], -1, ofl[o + OI_SEG0], ofl[o + OI_OFF0], ofl[o + OI_SEG1],
                  ofl[o + OI_OFF1], ofl[o + OI_REC0], ofl[o + OI_REC1], i, ofl[o + OI_HOST], edge(clk, D_CORE, k + 1),
                  nsub, wt, regrdy, subt, g)
        occ_update(sm, k, smt)
        smt[sm, S_WARPS] += 1
        if ofl[OF_INVAL_L1] != 0:  # the stack SM invalidates its private cache before it runs a block
            n = cfg[C_L1_SETS] * cfg[C_L1_ASSOC]
            for x in range(sm * n, sm * n + n):
                l1t[x, LN_VALID] = 0
                l1t[x, LN_DIRTY] = 0
        g[G_LAST_PROGRESS] = now
    return INF


@njit
def bo_finish(sm, slot, now, k, cfg, clk, wt, subt, ofl, chs, l1t, l2t, mapd, mrange, wake, ctr):
    """A block finished on its stack SM: live-outs and written lines back on RX; the GPU drops its stale
    copies of those lines (L1 of the requester and L2) and resumes the warp when the acknowledgement lands."""
    i = wt[slot, W_OINST]
    o = bo_row(i, ofl)
    gs = wt[slot, W_HOST]
    s = ofl[o + OI_STACK]
    t = now
    if ofl[OF_MODE] != BO_IDEAL:
        t = link_send(s, 1, ofl[o + OI_ACK_FL], now, chs)
        ctr[T_BO_ACK_FLITS] += ofl[o + OI_ACK_FL]
    gsm = gs // cfg[C_NSLOT]
    owl = ofl[OF_WL0]
    for x in range(ofl[o + OI_WL0], ofl[o + OI_WL1]):
        line = ofl[owl + x]
        idx = c_find(l1t, l1_base(gsm, line, cfg), cfg[C_L1_ASSOC], line)
        if idx >= 0 and l1t[idx, LN_VALID] != 0:
            l1t[idx, LN_VALID] = 0
            ctr[T_BO_INVAL_L1] += 1
        if cfg[C_L2_EN] != 0:
            mp = map_addr(mapd, mrange, cfg[C_NRANGE], line)
            idx = l2_lookup(mp[1], line, mp[5], cfg, l2t)[1]
            if idx >= 0 and l2t[idx, LN_VALID] != 0:
                l2t[idx, LN_VALID] = 0
                ctr[T_BO_INVAL_L2] += 1
    ofl[ofl[OF_STK0] + s * NOFS + OFS_PEND] -= 1
    ctr[T_BO_DONE] += 1
    ctr[T_BO_RTT_PS] += t - ofl[o + OI_T0]
    ctr[T_BO_WAIT_PS] += now - ofl[o + OI_ARRIVE]
    wake_warp(gs, t, cfg, wt, subt)
    if t < wake[gsm]:
        wake[gsm] = t


@njit
def barrier_release(sm, cs, k, cfg, clk, wt, subt):
    nsl = cfg[C_NSLOT]
    t = edge(clk, D_CORE, k + 1)
    for j in range(nsl):
        s = sm * nsl + j
        if wt[s, W_STATE] == WS_BARRIER and wt[s, W_CTA_SLOT] == cs:
            wt[s, W_STATE] = WS_ACTIVE
            wt[s, W_READY] = INF
            wake_warp(s, t, cfg, wt, subt)


@njit
def warp_done_issuing(sm, slot, k, cfg, clk, wt, ctat, smt, subt):
    cs = wt[slot, W_CTA_SLOT]
    wt[slot, W_STATE] = WS_DRAIN
    wt[slot, W_READY] = INF
    if cs < 0:  # an offloaded block's warp belongs to no CTA
        warp_maybe_exit_flag(slot, wt, smt, cfg)
        return
    ctat[cs, CT_LIVE] -= 1
    if ctat[cs, CT_LIVE] > 0 and ctat[cs, CT_BAR_COUNT] >= ctat[cs, CT_LIVE]:
        ctat[cs, CT_BAR_COUNT] = 0
        barrier_release(sm, cs, k, cfg, clk, wt, subt)
    warp_maybe_exit_flag(slot, wt, smt, cfg)


@njit_inline
def check_issue(sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, ofl, chs, ctr):
    """Could warp ``slot`` issue its next instruction now? 0 yes, else 1 + stall reason (READY updated)."""
    g[G_IT_TRY] += 1
    i = wt[slot, W_OINST]
    if i >= 0 and wt[slot, W_HOST] < 0 and bo_at_decision(slot, i, wt, ofl):
        # a candidate block's decision point: the offload controller decides
        why = bo_decide(i, now, ofl, chs)
        if why == 0:
            if wt[slot, W_PEND_LD] > 0 or wt[slot, W_PEND_ST] > 0:
                # live-ins must be ready and earlier writes flushed (write-through) before the block leaves
                wt[slot, W_READY] = edge(clk, D_CORE, k + 4)
                return 1 + R_MEM
            wt[slot, W_OFL_GO] = 1
            return 0
        ctr[T_BO_SEEN] += 1
        ctr[T_BO_NO_MEM + why - 1] += 1
        wt[slot, W_OINST] = bo_next(i, ofl)
    wt[slot, W_OFL_GO] = 0
    pc = seg[wt[slot, W_SEG], 0] + wt[slot, W_SEG_OFF]
    dep = 0
    for j in range(4):
        r = pct[pc, P_S0 + j]
        if r >= 0 and regrdy[slot, r] > dep:
            dep = regrdy[slot, r]
        r = pct[pc, P_D0 + j]
        if r >= 0 and regrdy[slot, r] > dep:
            dep = regrdy[slot, r]
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
        if smt[sm, S_LDST_REC] >= 0:
            wt[slot, W_READY] = WAIT_LDST
            smt[sm, S_LDST_WAITERS] = 1
            return 1 + R_LDST
        if smt[sm, S_LDST_FREE] > now:
            wt[slot, W_READY] = smt[sm, S_LDST_FREE]
            return 1 + R_LDST
        if kind != IK_PARAM and kind != IK_STORE and rec[ri, RC_SPACE] != SP_SHARED and g[G_LD_TOP] < 1:
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
def do_issue(sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, ctat, ldo, ld_free,
             rq, rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, subt):
    """Issue warp ``slot``'s next instruction (``check_issue`` said it can)."""
    si = wt[slot, W_SEG]
    pc = seg[si, 0] + wt[slot, W_SEG_OFF]
    mask = seg[si, 2]
    kind = pct[pc, P_KIND]
    ri = wt[slot, W_REC]
    has_rec = ri < wt[slot, W_REC_END] and rec[ri, RC_PC] == pc
    if kind == IK_BARRIER:
        cs = wt[slot, W_CTA_SLOT]
        ctat[cs, CT_BAR_COUNT] += 1
        ctr[T_BARRIERS] += 1
        advance(slot, seg, wt)
        issued_stats(sm, slot, pc, mask, k, wt, ctr, smst, pcst, clst, pct)
        if stream_done(slot, wt):
            ctat[cs, CT_BAR_COUNT] -= 1
            warp_done_issuing(sm, slot, k, cfg, clk, wt, ctat, smt, subt)
            return
        wt[slot, W_STATE] = WS_BARRIER
        wt[slot, W_READY] = INF
        if ctat[cs, CT_BAR_COUNT] >= ctat[cs, CT_LIVE]:
            ctat[cs, CT_BAR_COUNT] = 0
            barrier_release(sm, cs, k, cfg, clk, wt, subt)
        return
    if pct[pc, P_PLACE] >= 0 and kind == IK_ALU:
        # execution placed on a memory-side unit: operands out, results back, as packets
        ldop = ld_alloc(ldo, ld_free, g)
        nact = popcount(mask)
        nsrc = 0
        ndst = 0
        for j in range(4):
            if pct[pc, P_S0 + j] >= 0:
                nsrc += 1
            d = pct[pc, P_D0 + j]
            ldo[ldop, L_D0 + j] = d
            if d >= 0:
                ndst += 1
                regrdy[slot, d] = INF
        ldo[ldop, L_SLOT] = slot
        ldo[ldop, L_PC] = pc
        ldo[ldop, L_OUT] = 1
        ldo[ldop, L_HIT_READY] = 0
        ldo[ldop, L_T0] = now
        ldo[ldop, L_LEVEL] = 0
        ldo[ldop, L_SM] = sm
        wt[slot, W_PEND_LD] += 1
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
    elif kind == IK_PARAM:
        smt[sm, S_LDST_FREE] = edge(clk, D_CORE, k + 1)
        t = edge(clk, D_CORE, k + cfg[C_PARAM_LAT])
        for j in range(4):
            r = pct[pc, P_D0 + j]
            if r >= 0:
                regrdy[slot, r] = t
    elif kind >= IK_LOAD and kind <= IK_ATOMIC and has_rec:
        space = rec[ri, RC_SPACE]
        if space == SP_SHARED:
            conf = rec[ri, RC_CONF]
            if conf < 1:
                conf = 1
            smt[sm, S_LDST_FREE] = edge(clk, D_CORE, k + conf)
            extra = conf - 1
            if kind == IK_ATOMIC:
                extra += conf
            t = edge(clk, D_CORE, k + cfg[C_SMEM_LAT] + extra)
            for j in range(4):
                r = pct[pc, P_D0 + j]
                if r >= 0:
                    regrdy[slot, r] = t
            ctr[T_SMEM_ACC] += 1
            ctr[T_SMEM_CONF_CYC] += conf - 1
        else:
            ldop = -1
            if kind == IK_LOAD or kind == IK_ATOMIC:
                ldop = ld_alloc(ldo, ld_free, g)
                ldo[ldop, L_SLOT] = slot
                ldo[ldop, L_PC] = pc
                ldo[ldop, L_OUT] = rec[ri, RC_NTX]
                ldo[ldop, L_HIT_READY] = 0
                ldo[ldop, L_T0] = now
                ldo[ldop, L_LEVEL] = 1
                ldo[ldop, L_SM] = sm
                for j in range(4):
                    r = pct[pc, P_D0 + j]
                    ldo[ldop, L_D0 + j] = r
                    if r >= 0:
                        regrdy[slot, r] = INF
                wt[slot, W_PEND_LD] += 1
            smt[sm, S_LDST_REC] = ri
            smt[sm, S_LDST_TX] = rec[ri, RC_TXS]
            smt[sm, S_LDST_TXEND] = rec[ri, RC_TXS] + rec[ri, RC_NTX]
            smt[sm, S_LDST_LDOP] = ldop
            smt[sm, S_LDST_SLOT] = slot
            smt[sm, S_LDST_KIND] = kind
            smt[sm, S_LDST_START] = k
            smt[sm, S_LDST_BLOCK] = 0
        if kind == IK_LOAD:
            ctr[T_LOADS] += 1
        elif kind == IK_STORE:
            ctr[T_STORES] += 1
        else:
            ctr[T_ATOMICS] += 1
        wt[slot, W_REC] = ri + 1
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
        ufree[sm, unit, inst] = edge(clk, D_CORE, k + pct[pc, P_II])
        t = edge(clk, D_CORE, k + pct[pc, P_LAT])
        for j in range(4):
            r = pct[pc, P_D0 + j]
            if r >= 0:
                regrdy[slot, r] = t
        if has_rec:
            wt[slot, W_REC] = ri + 1
    advance(slot, seg, wt)
    issued_stats(sm, slot, pc, mask, k, wt, ctr, smst, pcst, clst, pct)
    wt[slot, W_READY] = edge(clk, D_CORE, k + 1)
    if stream_done(slot, wt):
        warp_done_issuing(sm, slot, k, cfg, clk, wt, ctat, smt, subt)


@njit
def stream_done(slot, wt):
    """Has the warp issued its whole stream (up to (SEG_END, END_OFF); END_OFF is 0 except for a block)?"""
    si = wt[slot, W_SEG]
    return si > wt[slot, W_SEG_END] or (si == wt[slot, W_SEG_END] and wt[slot, W_SEG_OFF] >= wt[slot, W_END_OFF])


@njit
def advance(slot, seg, wt):
    off = wt[slot, W_SEG_OFF] + 1
    si = wt[slot, W_SEG]
    if off >= seg[si, 1]:
        wt[slot, W_SEG] = si + 1
        wt[slot, W_SEG_OFF] = 0
    else:
        wt[slot, W_SEG_OFF] = off


@njit
def issued_stats(sm, slot, pc, mask, k, wt, ctr, smst, pcst, clst, pct):
    ctr[T_WARP_INSTS] += 1
    ctr[T_THREAD_INSTS] += popcount(mask)
    smst[sm, SMS_INSTS] += 1
    pcst[pc, PCS_ISSUED] += 1
    clst[pct[pc, P_CLASS]] += 1
    wt[slot, W_ISSUED] += 1
    wt[slot, W_LAST_ISSUE] = k
    if wt[slot, W_HOST] >= 0:
        ctr[T_BO_WINSTS] += 1
        ctr[T_BO_TINSTS] += popcount(mask)


@njit
def warp_pc(slot, seg, wt):
    return seg[wt[slot, W_SEG], 0] + wt[slot, W_SEG_OFF]


@njit_inline
def sub_issue(sm, s, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free,
              rq, rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, ofl, chs):
    """One cycle of sub-core ``s``'s warp scheduler; returns instructions issued."""
    nsub = cfg[C_NSUB]
    nsl = cfg[C_NSLOT]
    per = nsl // nsub
    sb = sm * nsub + s
    b0 = sm * nsl + s
    sched = cfg[C_SCHED]
    first_reason = -1
    first_pc = -1
    first_age = INF
    chosen = -1
    minr = INF
    if sched == SCHED_GTO:
        cand = subt[sb, SB_LAST]
        if cand >= 0 and wt[cand, W_STATE] == WS_ACTIVE and wt[cand, W_READY] <= now:
            res = check_issue(sm, s, cand, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, ofl, chs,
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
                res = check_issue(sm, s, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, ofl, chs,
                              ctr)
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
            res = check_issue(sm, s, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, ofl, chs,
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
        if wt[chosen, W_OFL_GO] != 0:  # the warp's block goes to a stack SM instead
            bo_send(sm, chosen, now, k, cfg, clk, wt, ofl, chs, wake, ctr)
        else:
            do_issue(sm, s, chosen, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, ctat, ldo, ld_free, rq,
                     rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, subt)
        issued = 1
        subt[sb, SB_LAST] = chosen
        for _x in range(cfg[C_ISSUE_W] - 1):
            if wt[chosen, W_STATE] != WS_ACTIVE or wt[chosen, W_READY] >= INF:  # done, at a barrier, or offloaded
                break
            if check_issue(sm, s, chosen, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, qm, g, ofl, chs,
                           ctr) != 0:
                wt[chosen, W_READY] = edge(clk, D_CORE, k + 1)
                break
            if wt[chosen, W_OFL_GO] != 0:
                bo_send(sm, chosen, now, k, cfg, clk, wt, ofl, chs, wake, ctr)
                break
            do_issue(sm, s, chosen, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, ctat, ldo, ld_free,
                     rq, rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, subt)
            issued += 1
        ctr[T_ISSUE_SLOTS] += 1
        subt[sb, SB_REASON] = R_SB
        subt[sb, SB_RPC] = -1
        if wt[chosen, W_STATE] == WS_ACTIVE and wt[chosen, W_READY] < minr:
            minr = wt[chosen, W_READY]
        subt[sb, SB_MINREADY] = minr
        return issued
    reason = first_reason
    rpc = first_pc
    if reason < 0:
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
                    reason = R_MEM if rd >= INF else (R_LDST if rd == WAIT_LDST else R_SB)
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
    ctr[T_ST_IDLE + reason] += 1
    if rpc >= 0:
        pcst[rpc, PCS_STALL] += 1
    subt[sb, SB_REASON] = reason
    subt[sb, SB_RPC] = rpc
    subt[sb, SB_MINREADY] = minr
    return 0


@njit
def account_skipped(sm, cycles, cfg, subt, ctr, pcst):
    if cycles <= 0:
        return
    nsub = cfg[C_NSUB]
    for s in range(nsub):
        sb = sm * nsub + s
        ctr[T_ST_IDLE + subt[sb, SB_REASON]] += cycles
        ctr[T_SCHED_CYCLES] += cycles
        pc = subt[sb, SB_RPC]
        if pc >= 0:
            pcst[pc, PCS_STALL] += cycles


@njit
def sm_tick(sm, now, k, cfg, clk, seg, rec, pct, txl, txs, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, rq,
            rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smst, pcst, clst, prst, mapd, mrange, pre_lines, ofl, chs,
            l2t):
    nsub = cfg[C_NSUB]
    nsl = cfg[C_NSLOT]
    account_skipped(sm, k - smt[sm, S_LAST_TICK] - 1, cfg, subt, ctr, pcst)
    smt[sm, S_LAST_TICK] = k
    progress = False
    arrival = INF
    if sm >= cfg[C_NGPU] and ofl[OF_MODE] != BO_OFF:  # an SM inside a stack: start blocks that arrived
        arrival = bo_spawn(sm, now, k, cfg, clk, wt, regrdy, smt, subt, ofl, l1t, g)
    # replies from the network
    qi = cfg[C_Q_SMIN] + sm
    for _p in range(cfg[C_L1_FILL_PORTS]):
        if qm[qi, Q_COUNT] == 0:
            break
        r = q_head(qb, qm, qi)
        if rq[r, R_READY] > now:
            break
        if not sm_fill(sm, r, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, ldo, ld_free, qb, qm, wake, g, ctr,
                       prst, pcst, wt, regrdy, smt, mapd, mrange, subt):
            break
        q_pop(qb, qm, qi)
        progress = True
    # warp schedulers
    for s in range(nsub):
        sb = sm * nsub + s
        if subt[sb, SB_MINREADY] > now:
            # nothing can issue: the last cycle's stall reason still holds
            ctr[T_SCHED_CYCLES] += 1
            ctr[T_ST_IDLE + subt[sb, SB_REASON]] += 1
            if subt[sb, SB_RPC] >= 0:
                pcst[subt[sb, SB_RPC], PCS_STALL] += 1
            continue
        if sub_issue(sm, s, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free,
                     rq, rq_free, qb, qm, wake, g, ctr, smst, pcst, clst, ofl, chs) > 0:
            progress = True
    # LD/ST unit: transactions of the current memory instruction against L1
    if smt[sm, S_LDST_REC] >= 0:
        for _p in range(cfg[C_L1_PORTS]):
            if smt[sm, S_LDST_TX] >= smt[sm, S_LDST_TXEND]:
                break
            blk = smt[sm, S_LDST_BLOCK]
            if blk == 1 and smt[sm, S_MSHR_USED] >= cfg[C_L1_MSHR]:
                break
            if blk == 2 and q_space(qm, cfg[C_Q_SMOUT] + sm) <= 0:
                break
            if not tx_process(sm, now, k, cfg, clk, rec, txl, txs, rq, rq_free, l1t, l1m, l1w, ldo, ld_free, qb, qm,
                              wake, g, ctr, smst, pcst, wt, regrdy, smt, mapd, mrange, subt):
                break
            smt[sm, S_LDST_BLOCK] = 0
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
    # retire drained warps; next wake
    if smt[sm, S_RETIRE] != 0:
        smt[sm, S_RETIRE] = 0
        for j in range(nsl):
            slot = sm * nsl + j
            if (wt[slot, W_STATE] == WS_DRAIN and wt[slot, W_PEND_LD] == 0 and wt[slot, W_PEND_ST] == 0
                    and not (smt[sm, S_LDST_REC] >= 0 and smt[sm, S_LDST_SLOT] == slot)):
                # (a warp whose last memory instruction is still in the LD/ST unit has not sent it yet)
                if wt[slot, W_HOST] >= 0:
                    bo_finish(sm, slot, now, k, cfg, clk, wt, subt, ofl, chs, l1t, l2t, mapd, mrange, wake, ctr)
                warp_exit(sm, slot, now, k, cfg, wt, ctat, smt, wake, g, ctr, smst)
                progress = True
    w = INF
    for s in range(nsub):
        t = subt[sm * nsub + s, SB_MINREADY]
        if t < w:
            w = t
    nxt = edge(clk, D_CORE, k + 1)
    ldst_poll = smt[sm, S_LDST_REC] >= 0 and not (
        (smt[sm, S_LDST_BLOCK] == 1 and smt[sm, S_MSHR_USED] >= cfg[C_L1_MSHR])
        or (smt[sm, S_LDST_BLOCK] == 2 and q_space(qm, cfg[C_Q_SMOUT] + sm) <= 0))
    if progress or pre_busy or ldst_poll:
        w = nxt
    if smt[sm, S_LDST_FREE] > now and smt[sm, S_LDST_FREE] < w:
        w = smt[sm, S_LDST_FREE]
    if arrival < w:
        w = arrival
    if qm[qi, Q_COUNT] > 0:
        t = rq[q_head(qb, qm, qi), R_READY]
        if t < w:
            w = t
    if w >= WAIT_LDST:
        w = INF  # only replies (which wake the SM on delivery) or the LD/ST unit can unblock it
    if w < nxt:
        w = nxt
    if progress:
        g[G_LAST_PROGRESS] = now
    wake[sm] = w


@njit
def cta_fits(sm, cfg, smt):
    return (smt[sm, S_CTAS] < cfg[C_NCTA_SLOTS]
            and smt[sm, S_THREADS] + cfg[C_CTA_THREADS] <= cfg[C_MAX_THREADS]
            and smt[sm, S_REGS] + cfg[C_CTA_REGS] <= cfg[C_REGFILE]
            and smt[sm, S_SMEM] + cfg[C_CTA_SMEM] <= cfg[C_SMEM_SIZE])


@njit
def init_warp(slot, j, sm, gwarp, cta_slot, seg0, off0, seg_end, end_off, rec0, rec_end, oinst, host, t0, nsub, wt,
              regrdy, subt, g):
    """Start warp slot ``slot`` (the ``j``-th of SM ``sm``) on its trace stream, ready at ``t0``: a CTA's warp
    (``cta_slot`` >= 0, ``host`` -1) or an offloaded block (no CTA, ``host`` the waiting GPU warp)."""
    for f in range(NWT):
        wt[slot, f] = 0
    wt[slot, W_STATE] = WS_ACTIVE
    wt[slot, W_GWARP] = gwarp
    wt[slot, W_CTA_SLOT] = cta_slot
    wt[slot, W_SEG] = seg0
    wt[slot, W_SEG_OFF] = off0
    wt[slot, W_SEG_END] = seg_end
    wt[slot, W_END_OFF] = end_off
    wt[slot, W_REC] = rec0
    wt[slot, W_REC_END] = rec_end
    wt[slot, W_OINST] = oinst
    wt[slot, W_HOST] = host
    wt[slot, W_READY] = t0
    wt[slot, W_AGE] = g[G_AGE]
    g[G_AGE] += 1
    wt[slot, W_SUB] = j % nsub
    sb = sm * nsub + j % nsub
    if t0 < subt[sb, SB_MINREADY]:
        subt[sb, SB_MINREADY] = t0
    for r in range(regrdy.shape[1]):
        regrdy[slot, r] = 0


@njit
def launch_cta(sm, c, now, k, cfg, clk, wt, regrdy, smt, subt, ctat, wseg, wrec, wake, g, ctr, smst, pre_start,
               ofl):
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
                  ofl[ofl[OF_WF0] + gw] if ofl[OF_MODE] != BO_OFF else -1, -1, t0, nsub, wt, regrdy, subt, g)
        if wseg[gw] >= wseg[gw + 1]:
            wt[slot, W_STATE] = WS_DRAIN
            ctat[cs, CT_LIVE] -= 1
            wt[slot, W_READY] = INF
            smt[sm, S_RETIRE] = 1
        j += 1
    if t0 < wake[sm]:
        wake[sm] = t0
    ctr[T_CTAS_LAUNCHED] += 1
    ctr[T_WARPS_LAUNCHED] += wpc
    smst[sm, SMS_CTAS] += 1
    g[G_LIVE_CTAS] += 1


@njit
def dispatch_tick(now, k, cfg, clk, wt, regrdy, smt, subt, ctat, cta_order, cta_sm, wseg, wrec, wake, g, ctr, smst,
                  pre_start, ofl):
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
        if mode == DISP_STATIC and cta_sm[c] >= 0:
            if cta_fits(cta_sm[c], cfg, smt):
                target = cta_sm[c]
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
                   ofl)
        g[G_NEXT_CTA] += 1
        placed += 1
    if placed > 0 and g[G_NEXT_CTA] < nctas:
        wake[wd] = edge(clk, D_CORE, k + 1)
    else:
        wake[wd] = INF
    if placed > 0:
        g[G_LAST_PROGRESS] = now


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


@njit
def run_loop(cfg, clk, g, wake, seg, wseg, rec, wrec, txl, txs, pct, cta_order, cta_sm, pre_start, pre_lines,
             wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, rq, rq_free, qb, qm, l1t, l1m, l1w, l2t, l2m,
             dq, bank, bgt, chs, faw, netd, pbusy, mapd, mrange, ptype,
             ctr, smst, slst, chst, pcst, clst, prst, nst, kst, ts, dlog, hitpend,
             mcfg, mvc, mvq, mport, msw, mst, mkst, ofl):
    """Advance the machine until the launch completes or a stop condition; returns a status code."""
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
            return ST_DONE
        m_core = wake[wk_disp]
        for i in range(nsm):
            if wake[i] < m_core:
                m_core = wake[i]
        m_l2 = INF
        for j in range(nsl):
            if wake[wk_sl + j] < m_l2:
                m_l2 = wake[wk_sl + j]
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
            for c in range(nch):
                if wake[wk_ch + c] <= now:
                    wake[wk_ch + c] = INF
                    g[G_IT_DRAM] += 1
                    dram_tick(c, now, kk, cfg, clk, rq, rq_free, dq, bank, bgt, chs, faw, qb, qm, wake, g, ctr,
                              chst, dlog, hitpend)
        # L2 domain
        kk = cyc_at(clk, D_L2, now)
        if m_l2 <= now and edge(clk, D_L2, kk) == now and kk >= clk[D_L2, K_NEXT]:
            clk[D_L2, K_NEXT] = kk + 1
            for j in range(nsl):
                if wake[wk_sl + j] <= now:
                    wake[wk_sl + j] = INF
                    g[G_IT_L2] += 1
                    l2_tick(j, now, kk, cfg, clk, rq, rq_free, l2t, l2m, dq, chs, qb, qm, wake, g, ctr, slst, pcst,
                            mapd, mrange, ptype)
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
                        icnt_tick(net, now, kk, cfg, clk, rq, qb, qm, netd, pbusy, wake, g, nst, kst)
        # core domain
        kk = cyc_at(clk, D_CORE, now)
        if m_core <= now and edge(clk, D_CORE, kk) == now and kk >= clk[D_CORE, K_NEXT]:
            clk[D_CORE, K_NEXT] = kk + 1
            if wake[wk_disp] <= now:
                wake[wk_disp] = INF
                dispatch_tick(now, kk, cfg, clk, wt, regrdy, smt, subt, ctat, cta_order, cta_sm, wseg, wrec, wake, g,
                              ctr, smst, pre_start, ofl)
            for sm in range(nsm):
                if wake[sm] <= now:
                    wake[sm] = INF
                    g[G_IT_SM] += 1
                    sm_tick(sm, now, kk, cfg, clk, seg, rec, pct, txl, txs, wt, regrdy, ufree, smt, subt, ctat, ldo,
                            ld_free, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smst, pcst, clst, prst, mapd,
                            mrange, pre_lines, ofl, chs, l2t)
            if g[G_CTAS_DONE] >= cfg[C_NCTAS]:
                ctr[T_END_PS] = now
                return ST_DONE
            if cap > 0 and ctr[T_WARP_INSTS] >= cap:
                ctr[T_END_PS] = now
                return ST_CAP


@njit
def finalize(k_end, cfg, smt, subt, ctr, pcst, smst):
    """Close per-SM occupancy and stall accounting at core cycle ``k_end`` (inclusive)."""
    for sm in range(cfg[C_NSM]):
        account_skipped(sm, k_end - smt[sm, S_LAST_TICK], cfg, subt, ctr, pcst)
        smt[sm, S_LAST_TICK] = k_end
        occ_update(sm, k_end + 1, smt)
        smst[sm, SMS_OCC] = smt[sm, S_OCC_ACC]
        smst[sm, SMS_BUSY] = smt[sm, S_BUSY_T]


@njit
def map_channels(mapd, mrange, nrange, addrs, out):
    """``out[i]``: the channel of ``addrs[i]`` (-1 where the address is negative)."""
    for i in range(len(addrs)):
        out[i] = map_addr(mapd, mrange, nrange, addrs[i])[0] if addrs[i] >= 0 else -1


@njit
def l2_install_range(lo, hi, cfg, l2t, mapd, mrange, g):
    """Place the lines of [lo, hi) clean and valid in their L2 slices (host copies with place_in_l2)."""
    shift = cfg[C_L1_LINE_SHIFT]
    lb = 1 << shift
    full = (1 << (lb // 32)) - 1
    a = (lo >> shift) << shift
    n = 0
    while a < hi:
        _ch, sl, _bg, _bk, _row, key = map_addr(mapd, mrange, cfg[C_NRANGE], a)
        base, idx = l2_lookup(sl, a, key, cfg, l2t)
        if idx < 0:
            idx = c_victim(l2t, base, cfg[C_L2_ASSOC])
        l2_install(l2t, idx, a, full, 0, g)
        a += lb
        n += 1
    return n


# ======================================================================================================
# interconnect: 2D mesh (``icnt.impl: mesh``), the same two networks (requests, replies) as two subnets
#
# Every node of the W x H grid has a router with five input and five output ports (N, E, S, W, local) and
# ``vcs`` virtual channels per input port, each a FIFO of ``vc_buffers`` flits. A packet advances a hop
# only when a VC of the next router's input port has room for all its flits (credit-based, packet-level
# virtual cut-through; a packet larger than a buffer needs an empty VC), so nothing is dropped and a full
# router back-pressures its upstream routers and, at the end, the injection queue. The space a packet
# leaves is credited back ``credit_delay`` cycles later. Switch allocation per cycle and router:
# ``round_robin`` scans the head packets of the input VCs from a pointer that advances by one each cycle
# and grants one when its input port and its output port (dimension-order route, XY or YX) are free;
# ``islip`` runs one request-grant-accept iteration (``mesh_islip``). A granted packet holds both ports
# for its flit count (one flit per link per cycle). With priority arbitration the highest class among the
# competing head packets goes first. A hop costs ``link_latency`` + ``router_latency`` cycles for the head
# flit.

# mesh configuration vector (followed by the node of each SM, then the node of each L2 slice)
MC_ON, MC_W, MC_H, MC_NNODE, MC_NVC, MC_VCBUF, MC_RLAT, MC_LLAT, MC_YX, MC_CDEL, MC_ISLIP, MC_PRIO = range(12)
MC_HDR = 16
# per-packet slot columns (slot = VC * vc_buffers + FIFO position): packet, ready time (ps), output port,
# flits, hops so far, destination node, destination id. A slot whose packet has left but whose credit has
# not yet returned (credit_delay > 0) keeps its flits, and its ready time is when the credit is visible.
MV_PKT, MV_READY, MV_OUT, MV_FLITS, MV_HOPS, MV_DNODE, MV_DID = range(7)
NMV = 7
# per-VC FIFO columns (VC = (node * 5 + input port) * vcs + v): head slot, packets, flits held as seen
# upstream (packets present plus departed ones whose credit is pending), departed packets with a pending
# credit (the slots just before the head)
VQ_HEAD, VQ_COUNT, VQ_USED, VQ_PEND = range(4)
NVQ = 4
# per-port columns (port = node * 5 + direction): input busy, output busy, injection busy (ps), link flits
# and packets of the output, credit waits of the output, packets held by the router (port 0), router RR
MP_IN_BUSY, MP_OUT_BUSY, MP_INJ_BUSY, MP_FLITS, MP_PKTS, MP_WAIT, MP_OCC, MP_RR = range(8)
NMP = 8
MESH_DIRS = ("north", "east", "south", "west", "local")
# iSLIP state per port (``msw``): the output's grant pointer (an input port), the input's accept pointer
# (an output port) and VC pointer, the input's request to each output this cycle (a VC or -1), and the
# outputs that granted the input (bit mask)
SW_GP, SW_AP, SW_VP, SW_REQ, SW_GR = 0, 1, 2, 3, 8
NSW = 9
# per-network counters
MS_INJ, MS_EJ, MS_CREDIT_WAIT, MS_INJ_WAIT, MS_EJ_WAIT, MS_MAX_OCC = range(6)
NMS = 6
MS_NAMES = ("injected", "ejected", "credit_waits", "injection_waits", "ejection_waits", "max_router_packets")


@njit
def mesh_count_wait(net, p0, o, mst, mport):
    """A head packet could not move this cycle: its ejection queue is full (o = 4) or no downstream VC has room."""
    if o == 4:
        mst[net, MS_EJ_WAIT] += 1
    else:
        mst[net, MS_CREDIT_WAIT] += 1
        mport[net, p0 + o, MP_WAIT] += 1


@njit
def mesh_route(node, dnode, w, yx):
    """Output port of dimension-order routing: 0 N (y-1), 1 E (x+1), 2 S (y+1), 3 W (x-1), 4 eject."""
    x = node % w
    y = node // w
    dx = dnode % w
    dy = dnode // w
    if yx != 0:
        if dy < y:
            return 0
        if dy > y:
            return 2
    if dx > x:
        return 1
    if dx < x:
        return 3
    if dy < y:
        return 0
    if dy > y:
        return 2
    return 4


@njit
def mesh_next(node, o, w):
    if o == 0:
        return node - w
    if o == 1:
        return node + 1
    if o == 2:
        return node + w
    return node - 1


@njit
def mesh_credits(mvc, mvq, net, vi, vcbuf, now):
    """Return to VC ``vi`` the space of departed packets whose credit is visible by ``now``."""
    while mvq[net, vi, VQ_PEND] > 0:
        s = vi * vcbuf + (mvq[net, vi, VQ_HEAD] - mvq[net, vi, VQ_PEND] + vcbuf) % vcbuf
        if mvc[net, s, MV_READY] > now:
            return
        mvq[net, vi, VQ_USED] -= mvc[net, s, MV_FLITS]
        mvq[net, vi, VQ_PEND] -= 1


@njit
def mesh_port_credits(mvc, mvq, net, node, port, nvc, vcbuf, now):
    """Return the due credits of every VC of input ``port`` of ``node`` (credit_delay > 0 only)."""
    base = (node * 5 + port) * nvc
    for v in range(nvc):
        mesh_credits(mvc, mvq, net, base + v, vcbuf, now)


@njit
def mesh_pick_vc(mvq, net, node, port, nvc, fl, vcbuf):
    """The VC of input ``port`` of ``node`` with room for ``fl`` flits (the emptiest), or -1 (no credit)."""
    base = (node * 5 + port) * nvc
    best = -1
    for v in range(nvc):
        used = mvq[net, base + v, VQ_USED]
        if used + fl <= vcbuf or used == 0:
            if best < 0 or used < mvq[net, best, VQ_USED]:
                best = base + v
    return best


@njit
def mesh_push(mvc, mvq, net, vi, vcbuf, fl):
    """Append a packet to VC ``vi``; returns its slot (the caller fills the slot's columns)."""
    slot = vi * vcbuf + (mvq[net, vi, VQ_HEAD] + mvq[net, vi, VQ_COUNT]) % vcbuf
    mvq[net, vi, VQ_COUNT] += 1
    mvq[net, vi, VQ_USED] += fl
    return slot


@njit_inline
def mesh_target(net, node, v, o, now, qm, netd, mcfg, mvc, mvq):
    """Where the packet in slot ``v`` at ``node`` can go through output ``o`` now: the next router's VC
    with room for it, 0 for an ejection with room in the destination queue, or -1 (it must wait)."""
    if o == 4:
        dqid = netd[net, N_DSTQ] + mvc[net, v, MV_DID]
        return -1 if qm[dqid, Q_COUNT] >= qm[dqid, Q_CAP] else 0
    nb = mesh_next(node, o, mcfg[MC_W])
    if mcfg[MC_CDEL] > 0:
        mesh_port_credits(mvc, mvq, net, nb, (o + 2) % 4, mcfg[MC_NVC], mcfg[MC_VCBUF], now)
    return mesh_pick_vc(mvq, net, nb, (o + 2) % 4, mcfg[MC_NVC], mvc[net, v, MV_FLITS], mcfg[MC_VCBUF])


@njit_inline
def mesh_move(net, now, k, node, vi, ip, o, nvi, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc, mvq, mport, mst,
              mkst):
    """Grant the head packet of VC ``vi`` (input port ``ip`` of ``node``) to output ``o``: eject it into its
    destination queue or push it into VC ``nvi`` of the next router; free its slot (credit now, or after
    ``credit_delay``) and hold both ports for its flits. Returns the earliest time something here moves."""
    vcbuf = mcfg[MC_VCBUF]
    p0 = node * 5
    v = vi * vcbuf + mvq[net, vi, VQ_HEAD]
    r = mvc[net, v, MV_PKT]
    fl = mvc[net, v, MV_FLITS]
    done = edge(clk, D_ICNT, k + fl)
    if o == 4:
        d = mvc[net, v, MV_DID]
        delay = netd[net, N_DST_DELAY]
        rq[r, R_READY] = done if delay == 0 else edge(clk, D_L2, cyc_at(clk, D_L2, done) + delay)
        if net == NET_REQ:
            rq[r, R_T2] = done
            wcomp = cfg[C_WK_SL] + d
        else:
            rq[r, R_T6] = done
            wcomp = d
        q_push(qb, qm, netd[net, N_DSTQ] + d, r)
        if rq[r, R_READY] < wake[wcomp]:
            wake[wcomp] = rq[r, R_READY]
        nst[net, 1, d] += fl
        h = mvc[net, v, MV_HOPS]
        kd = rq[r, R_KIND]
        mkst[net, kd, 0] += 1
        mkst[net, kd, 1] += h
        mkst[net, kd, 2] += h * fl
        mst[net, MS_EJ] += 1
        mport[net, p0, MP_OCC] -= 1
        wk = INF
    else:
        nb = mesh_next(node, o, mcfg[MC_W])
        nv = mesh_push(mvc, mvq, net, nvi, vcbuf, fl)
        for col in range(NMV):
            mvc[net, nv, col] = mvc[net, v, col]
        mvc[net, nv, MV_READY] = edge(clk, D_ICNT, k + mcfg[MC_LLAT] + mcfg[MC_RLAT])
        mvc[net, nv, MV_HOPS] += 1
        mvc[net, nv, MV_OUT] = mesh_route(nb, mvc[net, v, MV_DNODE], mcfg[MC_W], mcfg[MC_YX])
        mport[net, p0, MP_OCC] -= 1
        mport[net, nb * 5, MP_OCC] += 1
        if mport[net, nb * 5, MP_OCC] > mst[net, MS_MAX_OCC]:
            mst[net, MS_MAX_OCC] = mport[net, nb * 5, MP_OCC]
        wk = mvc[net, nv, MV_READY]
    # the packet leaves its VC; its space is credited back at once, or after credit_delay cycles
    mvc[net, v, MV_PKT] = -1
    mvq[net, vi, VQ_HEAD] = (mvq[net, vi, VQ_HEAD] + 1) % vcbuf
    mvq[net, vi, VQ_COUNT] -= 1
    cdel = mcfg[MC_CDEL]
    if cdel == 0:
        mvq[net, vi, VQ_USED] -= fl
    else:
        mvq[net, vi, VQ_PEND] += 1
        mvc[net, v, MV_READY] = edge(clk, D_ICNT, k + cdel)
    if mvq[net, vi, VQ_COUNT] > 0:  # the next packet of this VC
        t2 = max(mvc[net, vi * vcbuf + mvq[net, vi, VQ_HEAD], MV_READY], done)
        if t2 < wk:
            wk = t2
    mport[net, p0 + ip, MP_IN_BUSY] = done
    mport[net, p0 + o, MP_OUT_BUSY] = done
    mport[net, p0 + o, MP_FLITS] += fl
    mport[net, p0 + o, MP_PKTS] += 1
    return wk


@njit
def mesh_head_prio(net, vi, vcbuf, rq, mvc, mvq):
    """Priority class of the head packet of VC ``vi``."""
    return rq[mvc[net, vi * vcbuf + mvq[net, vi, VQ_HEAD], MV_PKT], R_PRIO]


@njit
def mesh_islip(net, now, k, node, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc, mvq, mport, msw, mst, mkst):
    """One iSLIP iteration at ``node``'s router. Request: each free input port asks, for each free output
    its ready head packets route to (and that has room downstream), with one VC (the first from the input's
    VC pointer; with priority arbitration the highest class first). Grant: each output grants the first
    requesting input from its grant pointer (highest class first). Accept: each input accepts the first
    granting output from its accept pointer (highest class first). Accepted pairs move; the output's grant
    pointer goes to one past the input, the input's accept pointer to one past the output, its VC pointer to
    one past the VC. Returns (the earliest time something here may move, whether a packet moved)."""
    nvc = mcfg[MC_NVC]
    vcbuf = mcfg[MC_VCBUF]
    prio = mcfg[MC_PRIO]
    nxt = edge(clk, D_ICNT, k + 1)
    p0 = node * 5
    wk = INF
    nreq = 0
    ncand = 0  # ready head packets with free ports: each either moves this cycle or is looked at again next
    # request
    for ip in range(5):
        pr = p0 + ip
        for o in range(5):
            msw[net, pr, SW_REQ + o] = -1
        msw[net, pr, SW_GR] = 0
        ib = mport[net, pr, MP_IN_BUSY]
        vp = msw[net, pr, SW_VP]
        for j in range(nvc):
            vi = pr * nvc + (vp + j) % nvc
            if mvq[net, vi, VQ_COUNT] == 0:
                continue
            v = vi * vcbuf + mvq[net, vi, VQ_HEAD]
            t = mvc[net, v, MV_READY]
            if t > now:
                if t < wk:
                    wk = t
                continue
            if ib > now:
                if ib < wk:
                    wk = ib
                break  # the input port is sending: none of its VCs may request
            o = mvc[net, v, MV_OUT]
            ob = mport[net, p0 + o, MP_OUT_BUSY]
            if ob > now:
                if ob < wk:
                    wk = ob
                continue
            ncand += 1
            cur = msw[net, pr, SW_REQ + o]
            if cur >= 0 and (prio == 0 or mesh_head_prio(net, cur, vcbuf, rq, mvc, mvq)
                             >= rq[mvc[net, v, MV_PKT], R_PRIO]):
                continue
            if mesh_target(net, node, v, o, now, qm, netd, mcfg, mvc, mvq) < 0:
                mesh_count_wait(net, p0, o, mst, mport)
                wk = min(wk, nxt)
                continue
            if cur < 0:
                nreq += 1
            msw[net, pr, SW_REQ + o] = vi
    if nreq == 0:
        return wk, False
    # grant
    for o in range(5):
        po = p0 + o
        gp = msw[net, po, SW_GP]
        best = -1
        bestc = -1
        for j in range(5):
            ip = (gp + j) % 5
            vi = msw[net, p0 + ip, SW_REQ + o]
            if vi < 0:
                continue
            c = mesh_head_prio(net, vi, vcbuf, rq, mvc, mvq) if prio != 0 else 0
            if c > bestc:
                best = ip
                bestc = c
        if best >= 0:
            msw[net, p0 + best, SW_GR] |= 1 << o
    # accept
    moved = 0
    for ip in range(5):
        pr = p0 + ip
        gm = msw[net, pr, SW_GR]
        if gm == 0:
            continue
        ap = msw[net, pr, SW_AP]
        best = -1
        bestc = -1
        for j in range(5):
            o = (ap + j) % 5
            if (gm >> o) & 1 == 0:
                continue
            c = mesh_head_prio(net, msw[net, pr, SW_REQ + o], vcbuf, rq, mvc, mvq) if prio != 0 else 0
            if c > bestc:
                best = o
                bestc = c
        o = best
        vi = msw[net, pr, SW_REQ + o]
        v = vi * vcbuf + mvq[net, vi, VQ_HEAD]
        nvi = mesh_target(net, node, v, o, now, qm, netd, mcfg, mvc, mvq)  # as in the request: outputs differ
        if nvi < 0:
            continue
        t = mesh_move(net, now, k, node, vi, ip, o, nvi, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc, mvq,
                      mport, mst, mkst)
        if t < wk:
            wk = t
        msw[net, p0 + o, SW_GP] = (ip + 1) % 5
        msw[net, pr, SW_AP] = (o + 1) % 5
        msw[net, pr, SW_VP] = (vi - pr * nvc + 1) % nvc
        moved += 1
    if moved < ncand:  # packets not served this cycle (not granted, not accepted, or not offered) compete again
        wk = min(wk, nxt)
    return wk, moved > 0


@njit
def mesh_tick(net, now, k, cfg, clk, rq, qb, qm, netd, wake, g, nst, kst, mcfg, mvc, mvq, mport, msw, mst, mkst):
    """One interconnect cycle of subnet ``net`` of the mesh: router hops and ejections, then injections."""
    nsrc = netd[net, N_NSRC]
    sq = netd[net, N_SRCQ]
    flit = cfg[C_IC_FLIT]
    hdr = cfg[C_IC_HDR]
    w = mcfg[MC_W]
    nnode = mcfg[MC_NNODE]
    nvc = mcfg[MC_NVC]
    vcbuf = mcfg[MC_VCBUF]
    rlat = mcfg[MC_RLAT]
    yx = mcfg[MC_YX]
    cdel = mcfg[MC_CDEL]
    prio = mcfg[MC_PRIO]
    islip = mcfg[MC_ISLIP] != 0
    src_base = MC_HDR if net == NET_REQ else MC_HDR + cfg[C_NSM]
    dst_base = MC_HDR + cfg[C_NSM] if net == NET_REQ else MC_HDR
    nxt = edge(clk, D_ICNT, k + 1)
    nin = 5 * nvc
    wk = INF
    progress = False
    for node in range(nnode):
        p0 = node * 5
        if mport[net, p0, MP_OCC] == 0:
            continue
        if islip:
            t, mv = mesh_islip(net, now, k, node, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc, mvq, mport, msw,
                               mst, mkst)
            if t < wk:
                wk = t
            progress = progress or mv
            continue
        rr = mport[net, p0, MP_RR]
        maxp = 0
        if prio != 0:  # the highest class among the ready head packets goes first
            for vi in range(node * nin, node * nin + nin):
                if mvq[net, vi, VQ_COUNT] > 0 and mvc[net, vi * vcbuf + mvq[net, vi, VQ_HEAD], MV_READY] <= now:
                    maxp = max(maxp, mesh_head_prio(net, vi, vcbuf, rq, mvc, mvq))
        for p in range(maxp, -1, -1):
            for i in range(nin):
                iv = (rr + i) % nin
                vi = node * nin + iv
                if mvq[net, vi, VQ_COUNT] == 0:
                    continue
                v = vi * vcbuf + mvq[net, vi, VQ_HEAD]
                r = mvc[net, v, MV_PKT]
                t = mvc[net, v, MV_READY]
                if t > now:
                    if t < wk:
                        wk = t
                    continue
                if prio != 0 and rq[r, R_PRIO] != p:
                    continue
                ip = iv // nvc
                o = mvc[net, v, MV_OUT]
                b = max(mport[net, p0 + ip, MP_IN_BUSY], mport[net, p0 + o, MP_OUT_BUSY])
                if b > now:
                    if b < wk:
                        wk = b
                    continue
                nvi = mesh_target(net, node, v, o, now, qm, netd, mcfg, mvc, mvq)
                if nvi < 0:
                    mesh_count_wait(net, p0, o, mst, mport)
                    wk = min(wk, nxt)
                    continue
                t = mesh_move(net, now, k, node, vi, ip, o, nvi, cfg, clk, rq, qb, qm, netd, wake, nst, mcfg, mvc,
                              mvq, mport, mst, mkst)
                if t < wk:
                    wk = t
                progress = True
        mport[net, p0, MP_RR] = (rr + 1) % nin
    # injection: the head of each source's queue enters a VC of its router's local input port
    rr = netd[net, N_RR]
    for i in range(nsrc):
        s = (rr + i) % nsrc
        q = sq + s
        if qm[q, Q_COUNT] == 0:
            continue
        r = q_head(qb, qm, q)
        node = mcfg[src_base + s]
        t = max(rq[r, R_READY], mport[net, node * 5 + 4, MP_INJ_BUSY])
        if t > now:
            if t < wk:
                wk = t
            continue
        fl = (hdr + rq[r, R_BYTES] + flit - 1) // flit
        if fl < 1:
            fl = 1
        if cdel > 0:
            mesh_port_credits(mvc, mvq, net, node, 4, nvc, vcbuf, now)
        vi = mesh_pick_vc(mvq, net, node, 4, nvc, fl, vcbuf)
        if vi < 0:
            mst[net, MS_INJ_WAIT] += 1
            wk = min(wk, nxt)
            continue
        if net == NET_REQ and qm[q, Q_COUNT] >= qm[q, Q_CAP] and now < wake[s]:
            wake[s] = now  # the SM may be blocked on this full queue
        q_pop(qb, qm, q)
        d = rq[r, R_SLICE] if net == NET_REQ else rq[r, R_SRC]
        dnode = mcfg[dst_base + d]
        v = mesh_push(mvc, mvq, net, vi, vcbuf, fl)
        mvc[net, v, MV_PKT] = r
        mvc[net, v, MV_READY] = edge(clk, D_ICNT, k + rlat)
        mvc[net, v, MV_OUT] = mesh_route(node, dnode, w, yx)
        mvc[net, v, MV_FLITS] = fl
        mvc[net, v, MV_HOPS] = 0
        mvc[net, v, MV_DNODE] = dnode
        mvc[net, v, MV_DID] = d
        mport[net, node * 5 + 4, MP_INJ_BUSY] = edge(clk, D_ICNT, k + fl)
        mport[net, node * 5, MP_OCC] += 1
        if mport[net, node * 5, MP_OCC] > mst[net, MS_MAX_OCC]:
            mst[net, MS_MAX_OCC] = mport[net, node * 5, MP_OCC]
        if net == NET_REQ:
            rq[r, R_T1] = now
        else:
            rq[r, R_T5] = now
        nst[net, 0, s] += fl
        kd = rq[r, R_KIND]
        kst[kd, 2 * net] += 1
        kst[kd, 2 * net + 1] += fl
        mst[net, MS_INJ] += 1
        wk = min(wk, mvc[net, v, MV_READY])
        progress = True
        if qm[q, Q_COUNT] > 0:
            r2 = q_head(qb, qm, q)
            t2 = max(rq[r2, R_READY], mport[net, node * 5 + 4, MP_INJ_BUSY], nxt)
            if t2 < wk:
                wk = t2
    netd[net, N_RR] = (rr + 1) % nsrc
    if progress:
        g[G_LAST_PROGRESS] = now
    wake[cfg[C_WK_NET] + net] = max(wk, nxt) if wk < INF else INF
