"""The compiled engine's layout: constants, codes and the columns of every table, each declared once.

Every engine table is an int64 array whose columns are named here. A table is declared by one call,
``WT_NAMES = columns("W_", "STATE READY ...")``, which defines the module constants ``W_STATE = 0``,
``W_READY = 1``, ... and returns the names in order; statistics and summaries read the same tuple, so
the indices and the names cannot drift apart. The component modules import everything from here
(``from .layout import *``); numba reads the constants at compile time.
"""

from __future__ import annotations

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import numba as nb

njit = nb.njit(cache=True, _nrt=False)
# numba-IR inlining for hot callees with many array arguments (each array is passed as ~9 scalars)
njit_inline = nb.njit(cache=True, _nrt=False, inline="always")


def columns(prefix: str, names: str) -> tuple[str, ...]:
    """Declare a table: define ``prefix + name = index`` for each of the whitespace-separated ``names``."""
    cols = tuple(names.split())
    scope = globals()
    for i, name in enumerate(cols):
        key = prefix + name
        if key in scope:
            raise ValueError(f"engine layout: {key} is declared twice")
        scope[key] = i
    return cols


INF = 1 << 62
NEG = -(1 << 40)
WAIT_LDST = INF - 1  # a warp's READY while it waits for the SM's LD/ST unit to finish an instruction
WAIT_FETCH = INF - 2  # a warp's READY while its instruction buffer is empty (``core.ibuffer`` > 0)
# why the LD/ST unit stopped in a tick (``S_LDST_STOP``; 0: a reason only a new tick can see, so it polls). The
# first five are also ``S_LDST_BLOCK``'s codes: 1 the L1's MSHRs all taken, 2 no room in the SM's request queue, 3
# no request entry, 4 the line's MSHR at its merge limit, 5 the constant cache's MSHRs; 6: every line of the L1
# set already reserved for a miss. 4, 5 and 6 are lifted only by a fill of this SM's, which wakes it.
STOP_MERGE_CAP, STOP_CC_MSHR, STOP_SET_RESERVED = 4, 5, 6

D_CORE, D_ICNT, D_L2, D_DRAM = 0, 1, 2, 3
NDOM = 4
K_FKHZ, K_NEXT, K_PERIOD = 0, 1, 2

# loop status codes
ST_DONE, ST_WATCHDOG, ST_CAP, ST_TS_FULL, ST_POOL, ST_DEADLOCK = 0, 1, 2, 3, 4, 5
# the loop hands back once G_NEXT_CTA reaches G_SAMPLE_AT (> 0), or the issued warp-instructions reach
# G_SAMPLE_INSTS (> 0), which it clears: an end of a sampled launch's steady window
ST_SAMPLE = 6
# instruction kinds (static table)
IK_ALU, IK_LOAD, IK_STORE, IK_ATOMIC, IK_BARRIER, IK_PARAM, IK_NOP = 0, 1, 2, 3, 4, 5, 6
# units
U_SP, U_INT, U_DP, U_SFU, U_LDST, U_BRANCH = 0, 1, 2, 3, 4, 5
NUNITS = 6
MAXU = 8
# ``core.result_buses`` > 0 (C_RBUS buses): ``ufree[sm, unit]`` rows grow past their first C_UF_BASE columns (each
# unit instance's free time, ps, as the scheduler sees it; C_UF_BASE = the most instances of any unit) into:
# C_UF_BASE + u, the cycle instance u's dispatch is truly free; C_UF_BASE + MAXU + u, (cycle * MAXU + instance) of
# the last execution start through the issue port (instance 0's column when the unit's instances share one port,
# u's with sub-core units); from C_UF_BASE + 2 * MAXU, rings of RB_RING cycles, the i-th at i * RB_RING: instance
# u's the u-th, holding each result cycle it reserved (entry ``s % RB_RING`` = s), and in row U_SP, after the
# C_UF_BASE instance rings, one ring per result bus.
RB_RING = 512
# memory spaces (trace.format.SPACES)
SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM = 1, 2, 3, 4, 5
# warp states
WS_FREE, WS_ACTIVE, WS_BARRIER, WS_DRAIN = 0, 1, 2, 3
# scheduler codes
SCHED_LRR, SCHED_GTO, SCHED_TWO_LEVEL = 0, 1, 2
# dispatch modes (DISP_BLOCK: CTAs in pairs of dispatch positions, each pair on the first SM, round robin, with
# room for both; the second of a pair follows the first)
DISP_RR, DISP_STATIC, DISP_GREEDY, DISP_BLOCK = 0, 1, 2, 3
# cache line table columns and write policies (LN_PF: an L1 line a prefetch filled that no demand has used yet;
# LN_RSV: an L1 line reserved for its outstanding miss, ``l1d.allocate: miss``: tagged, no valid sector, not a victim)
# LN_UNRD: an L2 line's sectors a partial write allocated that a read must fetch (``l2.lazy_fetch_on_read``)
LN_TAG, LN_VALID, LN_DIRTY, LN_STAMP, LN_PF, LN_RSV, LN_UNRD = 0, 1, 2, 3, 4, 5, 6
NLN = 7
WP_BACK, WP_THROUGH, WP_EVICT = 0, 1, 2
# packet kinds
PK_READ, PK_WRITE, PK_ATOMIC, PK_PREFETCH, PK_PRELOAD, PK_WBACK, PK_DREAD, PK_DWRITE, PK_ACK, PK_OFFLOAD = range(10)
PK_USER = 16  # registered user packet types: PK_USER .. PK_MECH - 1
PK_MECH = 24  # mechanisms' own packet kinds: PK_MECH .. NPK - 1 (an L2 slice and an SM hand them to the hooks)
NPK = 32
# DRAM commands (log)
CMD_ACT, CMD_PRE, CMD_RD, CMD_WR, CMD_REF = 1, 2, 3, 4, 5
# why a slice's l2_access refused its request (left in g[G_L2_WHY]; counted at T_L2_BLK_DQ + the code): the
# DRAM channel's queue full, the slice's reply queue full, no MSHR or request slot free, the line's miss pending
# and unable to take it (its merge entries full or without the request's sectors); with WHY_MSHR, g[G_L2_OWN]
# says whether the slice's own MSHRs were all taken (1: only a fill of this slice frees one) or the request pool ran
# dry (0); l2_fill leaves in g[G_FILL_OUT] whether its refusal was for room in the reply queue (1) or not (0)
WHY_DQ, WHY_OUT, WHY_MSHR, WHY_PEND = 0, 1, 2, 3
# DRAM schedulers and page policies
DS_FRFCFS, DS_FCFS, DS_FRFCFS_BANK = 0, 1, 2
PAGE_OPEN, PAGE_CLOSED = 0, 1
# mapping kinds
MAPK_BITFIELDS, MAPK_PINNED, MAPK_PARITY = 0, 1, 2
# networks
NET_REQ, NET_REP = 0, 1
# the crossbar's port table ``pbusy[net, side, port]``: side 0 a source port's free time, 1 a destination port's;
# 2 a destination port's iSLIP grant pointer (the source it serves first, ``icnt.allocator: islip``); 3 scratch: the
# source a destination port grants in this cycle (-1: none); 4 one more than the icnt cycle of a destination port's
# last crossing (``icnt.output_buffer``: one a cycle)
PB_SRC, PB_DST, PB_GRANT, PB_WIN, PB_KX = 0, 1, 2, 3, 4
# queue columns; Q_NZ of row w holds the non-empty bits of queues 64w .. 64w + 63 (bit q & 63), for scans that
# visit only the non-empty queues of a range; Q_BUSY of an L2 slice's input queue: the time its port frees
# (``l2.sector_requests`` / ``l2.data_port_bytes``: a request holds the port for several cycles); Q_RESV: slots
# of the queue's capacity kept for pushes at its head (``q_space_head``), which ordinary pushes (``q_space``)
# never take. An L2 slice asleep on a refusal that only its own events can lift (l2.py, ``l2_tick``) keeps in its
# input queue's row: Q_WAITK, the first L2 cycle whose refusal is not counted yet (1 + the last refused try; 0: not
# asleep so), Q_WAITWHY, the refusal's reason (WHY_*), and Q_WAITOUT, 1 while it waits for room in its reply queue
# (the networks wake it when they take a packet from that queue: ``slice_reply_taken``); g[G_L2_SLEEPERS] counts
# the slices with either set, and while any is, the loop runs the L2 domain at every L2 edge, as it did when they
# polled (a slice woken within a time step then ticks in it before the network and the cores, as before)
Q_HEAD, Q_COUNT, Q_CAP, Q_BLOCK, Q_NZ, Q_BUSY, Q_RESV, Q_WAITK, Q_WAITWHY, Q_WAITOUT = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
NQM = 10
# slots of each L2 slice's input queue kept for the slice's own unit (a mechanism's reads of lines the slice
# holds, put at the head): the network and ordinary pushes see the queue's capacity without them
L2_HEAD_SLOTS = 8
# DRAM queue entry columns (a dense copy of what the scheduler scans)
DQ_RID, DQ_READY, DQ_BANK, DQ_ROW, DQ_KEY, DQ_WR, DQ_BG, DQ_SLICE = range(8)
NDQF = 8
# per-bank-group columns
BG_LAST_ACT, BG_LAST_COL = 0, 1
# prefetchers
PF_NONE, PF_NEXT_LINE = 0, 1
MAX_MECH_PREFETCH = 16  # lines a mechanism's prefetch hook may ask for per L1 miss
# stall reasons: offsets from T_ST_IDLE
R_IDLE, R_MEM, R_SB, R_BAR, R_UNIT, R_LDST, R_MEMSTRUCT, R_DRAIN, R_FETCH = 0, 1, 2, 3, 4, 5, 6, 7, 8


# per-component statistics tables
SMS_INSTS, SMS_L1_ACC, SMS_L1_MISS, SMS_CTAS, SMS_OCC, SMS_BUSY = 0, 1, 2, 3, 4, 5
NSMS = 6
SLS_ACC, SLS_HIT, SLS_MISS, SLS_WB = 0, 1, 2, 3
NSLS = 4
CHS_RD, CHS_WR, CHS_ACT, CHS_ROWHIT, CHS_BUSY, CHS_BYTES = 0, 1, 2, 3, 4, 5
NCHS = 6
# per DRAM bank (row: channel x banks + bank): requests served, activates, requests that found their row open
BKS_REQ, BKS_ACT, BKS_ROWHIT = 0, 1, 2
NBKS = 3
PCS_ISSUED, PCS_STALL, PCS_L1_MISS, PCS_L2_MISS, PCS_LAT = 0, 1, 2, 3, 4
NPCS = 5
PRS_N, PRS_LAT, PRS_DRAM = 0, 1, 2
NPRS = 3
NPRIO = 4
TS_NAMES = ("cycle", "warp_insts", "l1_misses", "l2_accesses", "l2_misses", "dram_read_bytes",
            "dram_write_bytes", "flits_req", "flits_rep", "active_warps")
NTS = len(TS_NAMES)


# machine and launch configuration vector ``cfg``
CFG_NAMES = columns("C_", """
    NSM NSUB NSLOT NCTA_SLOTS MAXW_SUB ISSUE_W SCHED ACTIVE_POOL NREG DISPATCH_MODE DISPATCH_PER_CYCLE
    CTA_LAUNCH_LAT KERNEL_LAUNCH_LAT SUB_UNITS WAIT_ACKS FILL_TO_USE PARAM_LAT SMEM_LAT L1_EN L1_SETS
    L1_ASSOC L1_LINE_SHIFT L1_SECT_ATOMS L1_LAT L1_WPOL L1_WALLOC L1_REPL L1_SETIDX L1_MSHR L1_MERGE
    L1_PORTS L1_MISSQ L1_MQ_SLACK L1_CACHE_GLOBAL L1_FILL_PORTS L1_MISS_LAT L2_EN L2_SETS L2_ASSOC L2_SECT_ATOMS
    L2_LAT L2_WPOL L2_WALLOC L2_REPL L2_SETIDX L2_MSHR L2_MERGE L2_ROP L2_ATOM_LAT L2_RETQ L2_RESPQ
    SLICES_PER_CH NSL IC_FLIT IC_HDR IC_LAT IC_INBUF IC_EJBUF IC_PRIO NCH NBANK NBG BANKS_PER_BG
    ATOM_BYTES BURST_CYC DUAL_CMD PAGE_POLICY REFRESH CTRL_LAT DRAM_SCHED DQ_SIZE tRCD tRP tRAS tRC tCL
    tCWL tCCD_S tCCD_L tRRD_S tRRD_L tFAW tWR tWTR tRTW tRTP tREFI tRFC WATCHDOG_PS TS_INTERVAL_PS
    RECORD_DLOG PF_KIND PF_DEGREE PF_PRIO PRELOAD_PRIO PRELOAD_TO_L1 NPC NWARPS NCTAS WARPS_PER_CTA NMAP
    NRANGE Q_SMOUT Q_SMIN Q_L2IN Q_L2OUT Q_L2RET WK_SL WK_CH WK_NET WK_DISP NCOMP NLDO NRQP DLOG_CAP
    TS_CAP L1_XOR_BITS L2_XOR_BITS CTA_THREADS CTA_WARPS CTA_REGS CTA_SMEM NCLASS UCNT_SP UCNT_INT
    UCNT_DP UCNT_SFU UCNT_LDST UCNT_BRANCH L2_PORTS MAX_THREADS REGFILE SMEM_SIZE NSA NGPU NSTK VPS SPS
    XL0 SWARPS Q_L2VIN MAXOPEN MECH SECTOR_BURSTS Q_L2REQ Q_L2RIN DQ_SLOTS IBUF CORE_MODEL SSM_MBPS SSM_MSHR
    L1_MSHR_STRIDE PB_VAULT Q_L2VRET BATCH_REFILL CC_EN CC_SETS CC_ASSOC CC_LINE_SHIFT CC_LAT CC_MSHR CC_MERGE
    CC_PORTS CC_T0 CC_M0 PERFECT_LAT IC_EN IC_SETS IC_ASSOC IC_LINE_SHIFT IC_MSHR IC_MERGE IC_T0 IC_M0 IC_BASE
    IC_ISIZE IC_DELIVER PARAM_CC FETCH_BAR SCHED_ROT L2_SECT_REQ L2_PORT_BYTES L1_ALLOC_MISS L1_QLAT Q_SMREP L2_WFETCH
    PQ_CAP PQ_RING DRAIN L2_INQ L2_ACK_SECT WB_PORT ATOM_WAIT L2_SECT_MSHR L2_SECT_REPLY BR_HAZ
    RBUS UF_BASE IC_ISLIP L2_LAZY MEMQ IC_OBUF
    HK_DECIDE HK_DIVERT HK_GUEST_ISSUED HK_GUEST_DONE HK_SM_TICK HK_WARP_START HK_CTA_START HK_L2_REQUEST
    HK_PREFETCH HK_L1_ACCESS HK_DRAM_COMMAND HK_INTERCEPT HK_CORE_SERVICE HK_SM_RECEIVE HK_L2_SERVE HK_L2_DELIVER
    HK_SLICE_TICK HK_CORE_RECEIVE HK_CORE_CHECK HK_CORE_ISSUE HK_CORE_TICK HK_FETCHED
""")
# the constant cache (engine/ccache.py) keeps its lines in rows CC_T0 .. of the L1's line table ``l1t`` and its
# MSHRs in rows CC_M0 .. of ``l1m`` (an entry's M_ALLOC is MA_CONST), each SM's after the last SM's L1 rows;
# the instruction cache (engine/icache.py) likewise from IC_T0 and IC_M0 (M_ALLOC MA_INST), after the constant
# cache's. IC_BASE: the launch's code address (its first instruction's); IC_ISIZE: code bytes per instruction.
# HK_<POINT>: the address of the attached mechanism's compiled function for hook point <POINT> (engine/hooks.py),
# 0 for the point's default; set by the session for the length of a run of the loop, zero otherwise.
NCFG = len(CFG_NAMES)

# global loop state ``g``
G_NAMES = columns("G_", """
    NOW NEXT_CTA CTAS_DONE WARPS_ISSUED_TOTAL CAP LAST_PROGRESS RQ_TOP LD_TOP RR_SM TS_NEXT TS_N DLOG_N
    DISPATCH_AT AGE STATUS START_PS LIVE_CTAS STAMP DQ_SEQ PF_DROP IT_LOOP IT_SM IT_L2 IT_DRAM IT_NET
    IT_TRY IT_TX SAMPLE_AT L2_WHY SAMPLE_INSTS L2_OWN FILL_OUT L2_SLEEPERS
""")
NG = len(G_NAMES)

# static per-PC instruction table ``pct``
PCT_NAMES = columns("P_", """
    CLASS KIND UNIT LAT II SPACE PLACE D0 D1 D2 D3 S0 S1 S2 S3 PKIND PREC GUARD
""")
NPCT = len(PCT_NAMES)

# memory records of the trace ``rec``
REC_NAMES = columns("RC_", """
    PC SPACE FLAGS TXS NTX CONF BYTES
""")
NREC = len(REC_NAMES)

# warp slots ``wt``
WT_NAMES = columns("W_", """
    STATE READY AGE SEG SEG_OFF SEG_END REC REC_END GWARP CTA_SLOT SUB PEND_LD PEND_ST ISSUED
    ACTIVE_POOL LAST_ISSUE END_OFF MX HOST DIVERT IBUF IMISS PEND_ATOM ATOM_UNTIL BRHAZ BRWRONG
""")
NWT = len(WT_NAMES)

# SMs ``smt``
SM_NAMES = columns("S_", """
    CTAS THREADS REGS SMEM WARPS LDST_FREE OCC_T OCC_ACC ACTIVE_T MSHR_USED LAST_TICK LDST_REC LDST_TX
    LDST_TXEND LDST_LDOP LDST_SLOT LDST_KIND LDST_START BUSY_T LDST_BLOCK LDST_WAITERS RETIRE
    PRE_PENDING FETCH_WANT FETCH_RR FETCH_PRIO BATCH_SHUT IC_READY LDST_STOP LDST_QHOLD MQ_N MQ_HEAD
    MQI0 MQI1 MQI2 MQI3 MQI4 MQI5 MQI6 MQI7
""" + " ".join(f"WB{i}" for i in range(128)) + " " + " ".join(f"MQ{i}" for i in range(128)))
NSMT = len(SM_NAMES)
# ``S_MQ0`` onwards (core.mem_queue > 0): a ring of MQ_RING memory instructions issued while the LD/ST unit was
# busy, each MQ_W columns from ``S_MQ0 + MQ_W * entry``: the warp slot, the PC, the kind (an IK_ code, or MQK_HOLD:
# a mechanism's access that holds the unit A1 cycles and wakes its warp A2 cycles after it starts), the record
# (-1: none), the load operation (-1: none), the core cycle it was issued, A1, A2. ``S_MQ_N`` entries from
# ``S_MQ_HEAD``; the unit takes the head once it is free, one a cycle, in issue order. ``S_MQI0`` + i: 1 + the
# core cycle of the last memory instruction issued by the SM (i = 0), or by its sub-core i when sub-cores own their
# units (core.sub_core_units: one ID_OC_MEM slot per scheduler): one a cycle each.
MQ_RING, MQ_W = 16, 8
MQF_SLOT, MQF_PC, MQF_KIND, MQF_REC, MQF_LDOP, MQF_K, MQF_A1, MQF_A2 = range(MQ_W)
MQK_HOLD = 7
# ``S_WB0`` onwards: a ring of the LD/ST unit's writeback cycles, entry ``c % WB_RING`` holding ``c + 1`` while
# cycle ``c`` is taken (core.mem_writeback_port; 0: free)
WB_RING = 128

# sub-cores (warp schedulers) ``subt``
SUB_NAMES = columns("SB_", """
    LAST NACTIVE REASON RPC MINREADY
""")
NSUBT = len(SUB_NAMES)

# resident CTA slots ``ctat``
CTA_NAMES = columns("CT_", """
    CTA LIVE BAR_COUNT WARPS THREADS REGS SMEM PRE_NEXT PRE_END
""")
NCTAT = len(CTA_NAMES)

# MSHR entries ``l1m``/``l2m``
MSHR_NAMES = columns("M_", """
    LINE SECT NWAIT NREQ ALLOC HEAD TAIL KIND DREQ
""")
NMSHR = len(MSHR_NAMES)
MA_CONST = 2  # an ``l1m`` entry's M_ALLOC: the fill goes to the constant cache (1: the L1D, 0: nowhere)
MA_INST = 3  # ... to the instruction cache (the waiting entries in ``l1w`` are warp slots)
# a warp's W_IMISS: 0 none, 1 its fetch missed the instruction cache, 2 the line came back and the fetch stage
# hands it to the warp ahead of new fetches (SM's S_IC_READY counts those)
# a warp's W_BRHAZ (core.branch_refetch): 0 none, 1 it issued a taken branch with its buffer empty, so its next
# fetch reads the instructions after the branch, 2 its buffer holds those instructions, which its scheduler flushes
# at its next look; W_BRWRONG: slots of the warp's last fetch group past its segment's end, before a taken branch

# outstanding load operations ``ldo``
LD_NAMES = columns("L_", """
    SLOT PC OUT HIT_READY T0 LEVEL D0 D1 D2 D3 SM ATOM
""")
NLD = len(LD_NAMES)

# the request pool ``rq`` (every packet in flight)
RQ_NAMES = columns("R_", """
    KIND READY BANK ROW PRIO SEQ BURSTS SLICE LINE SECT BYTES RBYTES SRC CHAN MSHR LDOP SLOT PC T0 T1 T2
    T3 T4 T5 T6 TDQ TDS NEXT LEVEL BG HIT ORIG KEY XSTK LROW LDIR DEST MXD PROBE FSENT PART
""")
# R_DEST: a mechanism packet's mesh endpoint when it is not the natural one (-1): on the request network
# slices 0..nsl-1 then SMs nsl..nsl+nsm-1, on the reply network SMs 0..nsm-1 then slices nsm..nsm+nsl-1.
# R_MXD: a mechanism's tag on a request it made (-1: none); the L2 hands its reply to ``hooks.l2_deliver``.
# R_PART: a write's sectors it covers only in part (``l2.lazy_fetch_on_read``; else 0).
# R_PROBE: 1 for a read that only needs its line present in the slice (a tag probe: on a hit it reads no data, so
# it does not hold the slice's data port; a miss fetches and fills the line as any read does).
NRQ = len(RQ_NAMES)

# DRAM banks ``bank``
BANK_NAMES = columns("B_", """
    ROW ACT_READY PRE_READY RCD_READY LAST_COL USE FREE SVC
""")
# B_SVC: with the per-bank scheduler (DS_FRFCFS_BANK), the ``dq`` slot of the request the bank is serving (-1: none)
NBANKT = len(BANK_NAMES)

# DRAM channels and serial links ``chs``
CH_NAMES = columns("H_", """
    NQ LAST_ACT LAST_COL LAST_RD LAST_WR_END BUS_FREE NEXT_REF REF_PENDING FAW_I LAST_DIR LAST_TICK
    LK_STACK LK_TX_FREE LK_RX_FREE LK_TX_BUSY LK_RX_BUSY LK_TX_BYTES LK_RX_BYTES LK_TX_PKTS LK_RX_PKTS
    LK_TX_MBPS LK_RX_MBPS LK_TX_LAT LK_RX_LAT LK_FLIT LK_REQ_FL LK_RESP_HDR LK_WR_HDR LK_ACK_FL PQ_HEAD PQ_N PQ_ADM
    NSVC DPRIO
""")
# H_NQ: the scheduler's ``dq`` slots taken; H_NSVC: of them, requests a bank is serving (the per-bank scheduler:
# they no longer count against scheduler.queue_size); H_DPRIO: that scheduler's round-robin bank pointer
# the memory-partition front end (dram.partition_queue > 0): one ring of C_PQ_RING request ids per channel in rows
# C_DQ_SLOTS.. of ``dq`` (field DQ_RID), oldest first from H_PQ_HEAD, H_PQ_N long; its first H_PQ_ADM requests are
# in the latency queue (their R_READY: when their controller latency is over), the rest in the L2-to-DRAM queue
NCHT = len(CH_NAMES)

# address-mapping descriptors ``mapd``
MAP_NAMES = columns("MD_", """
    KIND CHAN_SHIFT NCHAN CHAN_XOR BANK_XOR FIXED_CHAN MROW MBANK MBG MSLICE TOP NROWL LOGBPG LOGNBG
    KEEP NKEEP SPC PCH0 PCH1 PCH2 PCH3 PCH4 PCH5 PCH6 PCH7 PBK0 PBK1 PBK2 PBK3 PBK4 NPCH NPBK
""")
NMAPD = len(MAP_NAMES)

# the two networks ``netd`` (crossbar or mesh): the natural sources and destinations; on the mesh, a second
# source family (NSRC2 queues from SRCQ2, at the nodes mcfg[SRC2_NODE + i], waking component SRC2_WAKE + i):
# on the request network the L2 slices, whose requests to other slices must not travel with the replies
NET_NAMES = columns("N_", """
    RR NSRC NDST SRCQ DSTQ DST_DELAY NSRC2 SRCQ2 SRC2_NODE SRC2_WAKE
""")
NNETT = len(NET_NAMES)

# launch counters ``ctr`` (statistics read them by name)
CTR_NAMES = columns("T_", """
    WARP_INSTS THREAD_INSTS SCHED_CYCLES ISSUE_SLOTS ST_IDLE ST_MEM ST_SB ST_BAR ST_UNIT ST_LDST
    ST_MEMSTRUCT ST_DRAIN ST_FETCH L1_ACC L1_HIT L1_MISS L1_SECT_MISS L1_MERGE L1_MSHR_FULL L1_EVICT L1_WB L1_ST
    L1_ST_HIT SMEM_ACC SMEM_CONF_CYC L2_ACC L2_HIT L2_MISS L2_MERGE L2_WB L2_ST L2_ATOM L2_BLOCK L2_FILL
    L2_BLK_DQ L2_BLK_OUT L2_BLK_MSHR L2_BLK_PEND
    DR_RD DR_WR DR_RD_BYTES DR_WR_BYTES DR_ACT DR_PRE DR_REF DR_ROWHIT DR_ROWMISS DR_ROWCONF DR_BURST
    DR_WBURST DR_WTR DR_RTW LAT_N LAT_SUM LAT_Q LAT_NET LAT_SVC LAT_DQ LU_N1 LU_S1 LU_N2 LU_S2 LU_N3
    LU_S3 LU_N0 LU_S0 LOADS STORES ATOMICS BARRIERS CTAS_LAUNCHED WARPS_LAUNCHED PF_ISSUED PF_USEFUL
    PRELOADS OFFLOADS END_PS BEGIN_PS FETCHES FETCH_PRIO CC_ACC CC_HIT CC_MISS CC_MERGE CC_MSHR_FULL
    IC_ACC IC_HIT IC_MISS IC_MERGE IC_FAIL FETCH_WRONG WB_DELAYED WB_DELAY MQ_STARTS MQ_WAIT_CYC
""")
NCTR = len(CTR_NAMES)

# router-network configuration vector (mesh or butterfly; build.EngineState._init_mesh): the header, then the
# terminal of each SM, of each L2 slice and of each SM again (request-network endpoints past the slices),
# then per subnet the routing table (router, destination terminal) -> output port at RT0, the link table
# (router, output port) -> (next router or -1 eject or -2 none, its input port) at LK0, and the injection
# table terminal -> (router, input port) at INJ0 (timing/topology.py). MC_NNODE counts routers; MC_W and
# MC_YX are the mesh's (statistics only). MC_NPORT: ports per router; MC_TLAT: cycles of the injection and
# ejection links; MC_NTERM: terminals; MC_TOPO: 1 mesh, 2 butterfly, 3 hmesh (the interconnect's registry code).
# Last, at LC0, one table for both subnets: (router, output port) -> (link latency in cycles, link bytes per
# cycle; 0: one flit per cycle); an injection port's width is that of the output port with its number.
# MC_EAGER: 1 runs every occupied router's allocation every mesh cycle, without skipping the cycles before its
# next event (the reference the skipping is tested against: the statistics must not differ).
MC_ON, MC_W, MC_H, MC_NNODE, MC_NVC, MC_VCBUF, MC_RLAT, MC_LLAT, MC_YX, MC_CDEL, MC_ISLIP, MC_PRIO = range(12)
MC_NPORT, MC_TLAT, MC_NTERM, MC_RT0, MC_LK0, MC_INJ0, MC_TOPO, MC_LC0, MC_EAGER = range(12, 21)
MC_HDR = 24
# per-packet slot columns (slot = VC * vc_buffers + FIFO position): packet, ready time (ps), output port,
# flits, hops so far, destination node, destination id. A slot whose packet has left but whose credit has
# not yet returned (credit_delay > 0) keeps its flits, and its ready time is when the credit is visible.
# MV_TAIL: the icnt cycle by which the packet's tail has reached this router (a packet that crossed a narrow
# link cannot leave faster than it came).
MV_PKT, MV_READY, MV_OUT, MV_FLITS, MV_HOPS, MV_DNODE, MV_DID, MV_TAIL = range(8)
NMV = 8
# per-VC FIFO columns (VC = (router * ports + input port) * vcs + v): head slot, packets, flits held as seen
# upstream (packets present plus departed ones whose credit is pending), departed packets with a pending
# credit (the slots just before the head), and 1 + the downstream input port's departure count when the head
# last found no room there (0: not known to be blocked)
VQ_HEAD, VQ_COUNT, VQ_USED, VQ_PEND, VQ_BLOCKED = range(5)
NVQ = 5
# per-port columns (port = router * ports + port; the mesh's ports are directions): input busy, output busy,
# injection busy (ps), link flits and packets of the output, credit waits of the output, packets held by the
# router (port 0), router RR, the router's non-empty VCs as a bit mask (port 0; bit = VC index within the router,
# kept when the router has at most VC_MASK_MAX VCs), packets that have left the input port, and (port 0) the
# router's next event for its round-robin allocation (ps): before it the allocation would only advance its RR
# pointer (engine/mesh.py, mesh_tick)
(MP_IN_BUSY, MP_OUT_BUSY, MP_INJ_BUSY, MP_FLITS, MP_PKTS, MP_WAIT, MP_OCC, MP_RR, MP_VMASK, MP_DEPART,
 MP_WAKE) = range(11)
NMP = 11
VC_MASK_MAX = 63
MESH_DIRS = ("north", "east", "south", "west", "local")
# iSLIP state per port (``msw``): the output's grant pointer (an input port), the input's accept pointer
# (an output port) and VC pointer, the input's request to each output this cycle (a VC or -1; ports
# columns from SW_REQ), and then the outputs that granted the input (bit mask, column SW_REQ + ports)
SW_GP, SW_AP, SW_VP, SW_REQ = 0, 1, 2, 3
# per-network counters
MS_INJ, MS_EJ, MS_CREDIT_WAIT, MS_INJ_WAIT, MS_EJ_WAIT, MS_MAX_OCC = range(6)
NMS = 6
MS_NAMES = ("injected", "ejected", "credit_waits", "injection_waits", "ejection_waits", "max_router_packets")
