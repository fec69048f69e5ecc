"""Integer layout of the compiled engine's state: column indices of its int64 tables and codes.

Names become integers at build time (STYLE.md habit 6): the compiled loop sees only these constants,
arrays and ints. Module-level ints are compile-time constants for numba.
"""

from __future__ import annotations

INF = 1 << 62

# clock domains
D_CORE, D_ICNT, D_L2, D_DRAM = 0, 1, 2, 3
NDOM = 4
# clk table columns
K_FKHZ, K_NEXT, K_PERIOD = 0, 1, 2  # frequency (kHz), next edge index, nominal period (ps, rounded)

# ---------------------------------------------------------------- cfg (scalar configuration)
_cfg_names = """
NSM NSUB NSLOT NCTA_SLOTS MAXW_SUB ISSUE_W SCHED ACTIVE_POOL
NREG DISPATCH_MODE DISPATCH_PER_CYCLE CTA_LAUNCH_LAT KERNEL_LAUNCH_LAT
SUB_UNITS WAIT_ACKS FILL_TO_USE PARAM_LAT SMEM_LAT
L1_EN L1_SETS L1_ASSOC L1_LINE_SHIFT L1_SECT_ATOMS L1_LAT L1_WPOL L1_WALLOC L1_REPL L1_SETIDX L1_MSHR
L1_MERGE L1_PORTS L1_MISSQ L1_CACHE_GLOBAL L1_FILL_PORTS L1_MISS_LAT
L2_EN L2_SETS L2_ASSOC L2_SECT_ATOMS L2_LAT L2_WPOL L2_WALLOC L2_REPL L2_SETIDX L2_MSHR L2_MERGE
L2_ROP L2_ATOM_LAT L2_RETQ L2_RESPQ SLICES_PER_CH NSL
IC_FLIT IC_HDR IC_LAT IC_INBUF IC_EJBUF IC_PRIO
NCH NBANK NBG BANKS_PER_BG ATOM_BYTES BURST_CYC DUAL_CMD PAGE_POLICY REFRESH CTRL_LAT DRAM_SCHED DQ_SIZE
tRCD tRP tRAS tRC tCL tCWL tCCD_S tCCD_L tRRD_S tRRD_L tFAW tWR tWTR tRTW tRTP tREFI tRFC
WATCHDOG_PS TS_INTERVAL_PS RECORD_DLOG PF_KIND PF_DEGREE PF_PRIO PRELOAD_PRIO PRELOAD_TO_L1
NPC NWARPS NCTAS WARPS_PER_CTA NMAP NRANGE
Q_SMOUT Q_SMIN Q_L2IN Q_L2OUT Q_L2RET WK_SL WK_CH WK_NET WK_DISP NCOMP NLDO NRQP DLOG_CAP TS_CAP
L1_XOR_BITS L2_XOR_BITS CTA_THREADS CTA_WARPS CTA_REGS CTA_SMEM NCLASS
UCNT_SP UCNT_INT UCNT_DP UCNT_SFU UCNT_LDST UCNT_BRANCH L2_PORTS MAX_THREADS REGFILE SMEM_SIZE
"""
CFG_NAMES = tuple(_cfg_names.split())
for _i, _n in enumerate(CFG_NAMES):
    globals()["C_" + _n] = _i
NCFG = len(CFG_NAMES)

# ---------------------------------------------------------------- g (global scalar state)
_g_names = """
NOW NEXT_CTA CTAS_DONE WARPS_ISSUED_TOTAL CAP LAST_PROGRESS RQ_TOP LD_TOP RR_SM TS_NEXT TS_N
DLOG_N DISPATCH_AT AGE STATUS START_PS LIVE_CTAS STAMP DQ_SEQ PF_DROP
IT_LOOP IT_SM IT_L2 IT_DRAM IT_NET IT_TRY IT_TX
"""
G_NAMES = tuple(_g_names.split())
for _i, _n in enumerate(G_NAMES):
    globals()["G_" + _n] = _i
NG = len(G_NAMES)

# loop status codes
ST_DONE, ST_WATCHDOG, ST_CAP, ST_TS_FULL, ST_POOL, ST_DEADLOCK = 0, 1, 2, 3, 4, 5

# ---------------------------------------------------------------- static per-PC table (pct)
_pct_names = "CLASS KIND UNIT LAT II SPACE PLACE D0 D1 D2 D3 S0 S1 S2 S3 PKIND"
PCT_NAMES = tuple(_pct_names.split())
for _i, _n in enumerate(PCT_NAMES):
    globals()["P_" + _n] = _i
NPCT = len(PCT_NAMES)
# instruction kinds
IK_ALU, IK_LOAD, IK_STORE, IK_ATOMIC, IK_BARRIER, IK_PARAM, IK_NOP = 0, 1, 2, 3, 4, 5, 6
# unit codes (order of spec.UNIT_NAMES)
U_SP, U_INT, U_DP, U_SFU, U_LDST, U_BRANCH = 0, 1, 2, 3, 4, 5
NUNITS = 6

# ---------------------------------------------------------------- mem records (rec)
_rec_names = "PC SPACE FLAGS TXS NTX CONF BYTES"
REC_NAMES = tuple(_rec_names.split())
for _i, _n in enumerate(REC_NAMES):
    globals()["RC_" + _n] = _i
NREC = len(REC_NAMES)

# ---------------------------------------------------------------- warp slots (wt)
_wt_names = """
STATE READY AGE SEG SEG_OFF SEG_END REC REC_END GWARP CTA_SLOT SUB PEND_LD PEND_ST ISSUED ACTIVE_POOL
LAST_ISSUE
"""
WT_NAMES = tuple(_wt_names.split())
for _i, _n in enumerate(WT_NAMES):
    globals()["W_" + _n] = _i
NWT = len(WT_NAMES)
WS_FREE, WS_ACTIVE, WS_BARRIER, WS_DRAIN = 0, 1, 2, 3  # DRAIN: issued everything, waiting for memory

# ---------------------------------------------------------------- SM table (smt)
_sm_names = """
CTAS THREADS REGS SMEM WARPS LDST_FREE OCC_T OCC_ACC ACTIVE_T MSHR_USED LAST_TICK
LDST_REC LDST_TX LDST_TXEND LDST_LDOP LDST_SLOT LDST_KIND LDST_START BUSY_T LDST_BLOCK LDST_WAITERS RETIRE PRE_PENDING
"""
SM_NAMES = tuple(_sm_names.split())
for _i, _n in enumerate(SM_NAMES):
    globals()["S_" + _n] = _i
NSMT = len(SM_NAMES)

# sub-core (scheduler) table
_sub_names = "LAST NACTIVE REASON RPC MINREADY"
SUB_NAMES = tuple(_sub_names.split())
for _i, _n in enumerate(SUB_NAMES):
    globals()["SB_" + _n] = _i
NSUBT = len(SUB_NAMES)

# CTA slot table
_cta_names = "CTA LIVE BAR_COUNT WARPS THREADS REGS SMEM PRE_NEXT PRE_END"
CTA_NAMES = tuple(_cta_names.split())
for _i, _n in enumerate(CTA_NAMES):
    globals()["CT_" + _n] = _i
NCTAT = len(CTA_NAMES)

# ---------------------------------------------------------------- cache line tables (l1, l2)
LN_TAG, LN_VALID, LN_DIRTY, LN_STAMP = 0, 1, 2, 3
NLN = 4
WP_BACK, WP_THROUGH, WP_EVICT = 0, 1, 2

# MSHR tables: line address, pending atom mask, waiters, outstanding requests, allocate-on-fill flag
_mshr_names = "LINE SECT NWAIT NREQ ALLOC HEAD TAIL KIND DREQ"
MSHR_NAMES = tuple(_mshr_names.split())
for _i, _n in enumerate(MSHR_NAMES):
    globals()["M_" + _n] = _i
NMSHR = len(MSHR_NAMES)

# ---------------------------------------------------------------- load ops (ldo)
_ld_names = "SLOT PC OUT HIT_READY T0 LEVEL D0 D1 D2 D3 SM"
LD_NAMES = tuple(_ld_names.split())
for _i, _n in enumerate(LD_NAMES):
    globals()["L_" + _n] = _i
NLD = len(LD_NAMES)

# ---------------------------------------------------------------- requests / packets (rq)
_rq_names = """
KIND READY BANK ROW PRIO SEQ BURSTS SLICE LINE SECT BYTES RBYTES SRC CHAN MSHR LDOP SLOT PC T0 T1 T2 T3 T4 T5 T6
TDQ TDS NEXT LEVEL BG HIT ORIG KEY
"""
RQ_NAMES = tuple(_rq_names.split())
for _i, _n in enumerate(RQ_NAMES):
    globals()["R_" + _n] = _i
NRQ = len(RQ_NAMES)

# packet kinds (user packet types register from PK_USER up)
PK_READ, PK_WRITE, PK_ATOMIC, PK_PREFETCH, PK_PRELOAD, PK_WBACK, PK_DREAD, PK_DWRITE, PK_ACK, PK_OFFLOAD = range(10)
PK_USER = 16
NPK = 32
PK_NAMES = {PK_READ: "read", PK_WRITE: "write", PK_ATOMIC: "atomic", PK_PREFETCH: "prefetch",
            PK_PRELOAD: "preload", PK_WBACK: "l1_writeback", PK_DREAD: "dram_read", PK_DWRITE: "dram_write",
            PK_ACK: "write_ack", PK_OFFLOAD: "offload"}

# ---------------------------------------------------------------- queues (qm)
Q_HEAD, Q_COUNT, Q_CAP = 0, 1, 2

# ---------------------------------------------------------------- DRAM
_bank_names = "ROW ACT_READY PRE_READY RCD_READY LAST_COL"
BANK_NAMES = tuple(_bank_names.split())
for _i, _n in enumerate(BANK_NAMES):
    globals()["B_" + _n] = _i
NBANKT = len(BANK_NAMES)
_ch_names = """
NQ LAST_ACT LAST_COL LAST_RD LAST_WR_END BUS_FREE NEXT_REF REF_PENDING FAW_I LAST_DIR LAST_TICK
"""
CH_NAMES = tuple(_ch_names.split())
for _i, _n in enumerate(CH_NAMES):
    globals()["H_" + _n] = _i
NCHT = len(CH_NAMES)
# per bank-group table: last ACT, last column command
BG_LAST_ACT, BG_LAST_COL = 0, 1
# DRAM command codes (log)
CMD_ACT, CMD_PRE, CMD_RD, CMD_WR, CMD_REF = 1, 2, 3, 4, 5

# ---------------------------------------------------------------- address mapping descriptors
_map_names = ("KIND CHAN_SHIFT NCHAN CHAN_XOR BANK_XOR FIXED_CHAN MROW MBANK MBG MSLICE TOP NROWL LOGBPG LOGNBG KEEP "
              "NKEEP SPC")
MAP_NAMES = tuple(_map_names.split())
for _i, _n in enumerate(MAP_NAMES):
    globals()["MD_" + _n] = _i
NMAPD = len(MAP_NAMES)
MAPK_BITFIELDS, MAPK_PINNED = 0, 1

# ---------------------------------------------------------------- interconnect
NET_REQ, NET_REP = 0, 1
_net_names = "RR NSRC NDST SRCQ DSTQ DST_DELAY"
NET_NAMES = tuple(_net_names.split())
for _i, _n in enumerate(NET_NAMES):
    globals()["N_" + _n] = _i
NNETT = len(NET_NAMES)

# ---------------------------------------------------------------- statistics counters (ctr)
_ctr_names = """
WARP_INSTS THREAD_INSTS SCHED_CYCLES ISSUE_SLOTS
ST_IDLE ST_MEM ST_SB ST_BAR ST_UNIT ST_LDST ST_MEMSTRUCT ST_DRAIN
L1_ACC L1_HIT L1_MISS L1_SECT_MISS L1_MERGE L1_MSHR_FULL L1_EVICT L1_WB L1_ST L1_ST_HIT
SMEM_ACC SMEM_CONF_CYC
L2_ACC L2_HIT L2_MISS L2_MERGE L2_WB L2_ST L2_ATOM L2_BLOCK L2_FILL
DR_RD DR_WR DR_RD_BYTES DR_WR_BYTES DR_ACT DR_PRE DR_REF DR_ROWHIT DR_ROWMISS DR_ROWCONF DR_BURST DR_WBURST
DR_WTR DR_RTW
LAT_N LAT_SUM LAT_Q LAT_NET LAT_SVC LAT_DQ
LU_N1 LU_S1 LU_N2 LU_S2 LU_N3 LU_S3 LU_N0 LU_S0
LOADS STORES ATOMICS BARRIERS CTAS_LAUNCHED WARPS_LAUNCHED
PF_ISSUED PF_USEFUL PRELOADS OFFLOADS
END_PS BEGIN_PS
"""
CTR_NAMES = tuple(_ctr_names.split())
for _i, _n in enumerate(CTR_NAMES):
    globals()["T_" + _n] = _i
NCTR = len(CTR_NAMES)

# per-SM stats
SMS_INSTS, SMS_L1_ACC, SMS_L1_MISS, SMS_CTAS, SMS_OCC, SMS_BUSY = 0, 1, 2, 3, 4, 5
NSMS = 6
# per-slice stats
SLS_ACC, SLS_HIT, SLS_MISS, SLS_WB = 0, 1, 2, 3
NSLS = 4
# per-channel stats
CHS_RD, CHS_WR, CHS_ACT, CHS_ROWHIT, CHS_BUSY, CHS_BYTES = 0, 1, 2, 3, 4, 5
NCHS = 6
# per-PC stats
PCS_ISSUED, PCS_STALL, PCS_L1_MISS, PCS_L2_MISS, PCS_LAT = 0, 1, 2, 3, 4
NPCS = 5
# per-priority stats
PRS_N, PRS_LAT, PRS_DRAM = 0, 1, 2
NPRS = 3
NPRIO = 4
# time series columns
_ts_names = "CYCLE WARP_INSTS L1_MISS L2_ACC L2_MISS DR_RD_BYTES DR_WR_BYTES FLITS_REQ FLITS_REP ACTIVE_WARPS"
TS_NAMES = tuple(_ts_names.split())
NTS = len(TS_NAMES)
