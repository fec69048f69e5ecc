"""The compiled SIMT interpreter.

``run`` executes a launch over pre-decoded instructions (:mod:`.decode`). All state lives in arrays owned
by the caller (:mod:`.launch`), so ``run`` can return when a trace buffer fills and be called again to
continue exactly where it stopped.

Scheduling: up to ``nslots`` CTAs are resident; their warps run round-robin, each for at most a quantum
of instructions or until it reaches a barrier or finishes. Divergence uses a per-warp SIMT stack with
reconvergence at the immediate post-dominator (pre-Volta semantics). Memory: ``gmem`` is the device
arena (global and constant data); ``scratch`` holds the kernel parameters, every resident CTA's shared
memory and every resident thread's frame (local arrays and call parameters).
"""

from __future__ import annotations

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import numpy as np
from numba import njit

from . import isa
from .alu import alu, fcmp
from .bits import b32f, b64f, bf16_to_f32, f32, f64, f64_to_half, fma32, fma64, half_to_f32

U64 = np.uint64

F_OP, F_TYPE, F_TYPE2, F_AUX, F_GUARD, F_GNEG = isa.F_OP, isa.F_TYPE, isa.F_TYPE2, isa.F_AUX, isa.F_GUARD, isa.F_GNEG
F_D = isa.F_D
F_D2 = isa.F_D2
F_AK = isa.F_AK
F_AV = isa.F_AV
F_BK = isa.F_BK
F_BV = isa.F_BV
F_CK = isa.F_CK
F_CV = isa.F_CV
F_SPACE, F_AREG, F_AOFF, F_VEC, F_V0 = isa.F_SPACE, isa.F_AREG, isa.F_AOFF, isa.F_VEC, isa.F_V0
F_TARGET, F_RPC, F_WIDTH, F_DK, F_DV, F_REGREC = isa.F_TARGET, isa.F_RPC, isa.F_WIDTH, isa.F_DK, isa.F_DV, isa.F_REGREC
K_REG = isa.K_REG
K_NONE = isa.K_NONE
K_IMM = isa.K_IMM
F_FAST = isa.F_FAST
M32 = np.uint64(0xFFFFFFFF)
M32_I = np.int64(0xFFFFFFFF)
ALU_LIMIT = isa.ALU_LIMIT
SUB_SHIFT = isa.SUB_SHIFT
CMP_SHIFT = isa.CMP_SHIFT
OP_LD = isa.OP_LD
OP_ST = isa.OP_ST
OP_ATOM = isa.OP_ATOM
OP_RED = isa.OP_RED
OP_BAR = isa.OP_BAR
OP_MEMBAR = isa.OP_MEMBAR
OP_BRA, OP_CALL, OP_EXIT, OP_SHFL, OP_VOTE = isa.OP_BRA, isa.OP_CALL, isa.OP_EXIT, isa.OP_SHFL, isa.OP_VOTE
OP_REDUX, OP_MATCH, OP_ACTIVEMASK, OP_PRINTF = isa.OP_REDUX, isa.OP_MATCH, isa.OP_ACTIVEMASK, isa.OP_PRINTF
OP_TRAP, OP_NOP, OP_CLOCK, OP_ISSPACEP = isa.OP_TRAP, isa.OP_NOP, isa.OP_CLOCK, isa.OP_ISSPACEP
OP_CALLCOPY, OP_RETSITE, OP_PACK, OP_UNPACK = isa.OP_CALLCOPY, isa.OP_RETSITE, isa.OP_PACK, isa.OP_UNPACK
OP_MOV, OP_ADD, OP_SETP = isa.OP_MOV, isa.OP_ADD, isa.OP_SETP
SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_GENERIC = (
    isa.SP_GLOBAL, isa.SP_SHARED, isa.SP_LOCAL, isa.SP_CONST, isa.SP_PARAM, isa.SP_GENERIC)
SHARED_WINDOW = isa.SHARED_WINDOW
LOCAL_WINDOW = isa.LOCAL_WINDOW
WINDOW_SIZE = isa.WINDOW_SIZE
PFRAME_TAG = isa.PFRAME_TAG
T_F32, T_F64, T_S32, T_S64, T_U32, T_U64 = isa.T_F32, isa.T_F64, isa.T_S32, isa.T_S64, isa.T_U32, isa.T_U64
T_B32, T_B64, T_S16, T_S8 = isa.T_B32, isa.T_B64, isa.T_S16, isa.T_S8
ST_DONE = isa.ST_DONE
ST_TRACE_FULL = isa.ST_TRACE_FULL
ST_MEM_FAULT = isa.ST_MEM_FAULT
ST_BARRIER_DEADLOCK = isa.ST_BARRIER_DEADLOCK
ST_BUDGET = isa.ST_BUDGET
ST_ITS = isa.ST_ITS
ST_TRAP = isa.ST_TRAP
ST_MISALIGNED = isa.ST_MISALIGNED
ST_STACK = isa.ST_STACK
ST_YIELD = isa.ST_YIELD

# cfg array indices (launch configuration, set by the caller)
C_NREGS, C_WPC, C_NTHREADS, C_NCTA, C_NSLOTS = 0, 1, 2, 3, 4
C_GX, C_GY, C_GZ, C_BX, C_BY, C_BZ = 5, 6, 7, 8, 9, 10
C_GBASE, C_GMAPPED, C_SHARED_BYTES, C_FRAME_BYTES = 11, 12, 13, 14
C_SHARED_BASE, C_FRAME_BASE, C_PARAM_BYTES = 15, 16, 17
C_TRACE, C_SEG_CAP, C_MEM_CAP, C_ADDR_CAP, C_QUANTUM = 18, 19, 20, 21, 22
C_BUDGET, C_ITS_LIMIT, C_LOCAL_BASE, C_NUM_SMS, C_BOUNDS = 23, 24, 25, 26, 27
C_PF_CAP, C_REG_CAP, C_DYN_SMEM, C_MAXDEPTH, C_MAXCALL, C_LOCAL_BYTES = 28, 29, 30, 31, 32, 33
C_SPECIALS = 34  # bit mask of the special registers the program reads
C_SLICE, C_BARWAIT_LIMIT = 35, 36  # warp-instructions per call of run; a CTA's while a warp waits
C_CONST_LO, C_CONST_HI = 37, 38  # the module's __constant__ variables (isspacep.const)
C_GRID_SYNC = 39  # address of the grid-sync workspace of a cooperative launch (0: none)
C_CALL_FRAMES = 40  # 1: each call pushes a SIMT entry of its own (recursive programs: a function's
# reconvergence points then belong to one activation)
# bounds checking: alloc_lo/alloc_hi hold this many sorted live allocations, then one range per PC: the
# allocation that PC's pointer comes from (a kernel parameter), or -1 when unknown
C_NALLOC = 41
# C_BOUNDS: 0 no check; BOUNDS_CHECK the bounds-checking mode (alloc_lo/alloc_hi: live allocations, then per
# PC); BOUNDS_FREED freed allocations are unmapped (alloc_lo/alloc_hi: the freed ranges): an access faults
BOUNDS_CHECK, BOUNDS_FREED = 1, 2
C_SIZE = 42

# counters
N_WARP_INSTR, N_THREAD_INSTR, N_SEG, N_MEM, N_ADDR, N_PF, N_REGREC, N_NEXT_CTA, N_CTAS_DONE = range(9)
N_BC, N_SIZE = 9, 12

# warp states
W_FREE, W_RUN, W_BAR, W_DONE = 0, 1, 2, 3

# special register ids (fixed by decode.STATIC_SPECIALS order)
R_TIDX, R_TIDY, R_TIDZ, R_NTIDX, R_NTIDY, R_NTIDZ, R_CTAX, R_CTAY, R_CTAZ = 0, 1, 2, 3, 4, 5, 6, 7, 8
R_NCTAX, R_NCTAY, R_NCTAZ, R_LANEID, R_WARPID, R_NWARPID, R_SMID, R_NSMID, R_GRIDID = 9, 10, 11, 12, 13, 14, 15, 16, 17
R_LM_EQ, R_LM_LE, R_LM_LT, R_LM_GE, R_LM_GT, R_DYNSMEM, R_TOTSMEM = 18, 19, 20, 21, 22, 23, 24
R_ENVREG1, R_ENVREG2 = 25, 26  # the grid-sync workspace's address (high, low 32 bits)

# error info indices
E_CODE, E_PC, E_CTA, E_WARP, E_LANE, E_ADDR, E_SPACE, E_EXTRA = range(8)


@njit(inline="always", cache=True)
def popc32(x):
    x = np.uint64(x) & U64(0xFFFFFFFF)
    x = x - ((x >> U64(1)) & U64(0x55555555))
    x = (x & U64(0x33333333)) + ((x >> U64(2)) & U64(0x33333333))
    x = (x + (x >> U64(4))) & U64(0x0F0F0F0F)
    return np.int64(((x * U64(0x01010101)) & U64(0xFFFFFFFF)) >> U64(24))


@njit(inline="always", cache=True)
def fetch(regs, rb, k, v, lane):
    if (k & 7) == K_REG:
        x = regs[rb + v * 32 + lane]
    else:
        x = U64(v)
    if k & 8:
        x = x ^ U64(1)
    return x


@njit(inline="always", cache=True)
def mem_read(b8, b16, b32, b64, off, size):
    if size == 4:
        return U64(b32[off >> 2])
    if size == 8:
        return U64(b64[off >> 3])
    if size == 2:
        return U64(b16[off >> 1])
    return U64(b8[off])


@njit(inline="always", cache=True)
def mem_write(b8, b16, b32, b64, off, size, val):
    if size == 4:
        b32[off >> 2] = np.uint32(val & U64(0xFFFFFFFF))
    elif size == 8:
        b64[off >> 3] = val
    elif size == 2:
        b16[off >> 1] = np.uint16(val & U64(0xFFFF))
    else:
        b8[off] = np.uint8(val & U64(0xFF))


@njit(cache=True)
def atomic_apply(sub, t, old, b, c):
    """New memory value of an atomic ``sub`` operation (codes in isa.ATOM_OPS)."""
    if sub == 9:  # exch
        return b
    if sub == 10:  # cas
        if t == T_F32 or t == T_U32 or t == T_S32 or t == T_B32:
            return c if (old & U64(0xFFFFFFFF)) == (b & U64(0xFFFFFFFF)) else old
        return c if old == b else old
    if sub == 1:  # add
        if (t == T_F32 or t == T_F64 or t == isa.T_F16 or t == isa.T_BF16 or t == isa.T_F16X2
                or t == isa.T_BF16X2):  # IEEE adds, round to nearest (.noftz: subnormals kept)
            return alu(OP_ADD, t, t, 0, old, b, U64(0), U64(0))[0]
        return old + b
    if sub == 2 or sub == 3:  # min / max
        op = isa.OP_MIN if sub == 2 else isa.OP_MAX
        return alu(op, t, t, 0, old, b, U64(0), U64(0))[0]
    if sub == 4:  # inc
        o = old & U64(0xFFFFFFFF)
        return U64(0) if o >= (b & U64(0xFFFFFFFF)) else o + U64(1)
    if sub == 5:  # dec
        o = old & U64(0xFFFFFFFF)
        bb = b & U64(0xFFFFFFFF)
        return bb if (o == 0 or o > bb) else o - U64(1)
    if sub == 11 or sub == 12:  # mbarrier arrive (12: and drop): the last pending arrival completes the phase
        cmask = U64(isa.MBAR_COUNT_MASK)
        pend = np.int64(old & cmask)
        expected = np.int64((old >> U64(isa.MBAR_EXPECTED_SHIFT)) & cmask)
        phase = (old >> U64(isa.MBAR_PHASE_SHIFT)) & U64(1)
        if sub == 12:
            expected -= 1
        pend -= np.int64(b & U64(0xFFFFFFFF))
        if pend <= 0:
            phase ^= U64(1)
            pend = expected
        return ((phase << U64(isa.MBAR_PHASE_SHIFT)) | ((U64(expected) & cmask) << U64(isa.MBAR_EXPECTED_SHIFT))
                | (U64(pend) & cmask))
    if sub == 6:
        return old & b
    if sub == 7:
        return old | b
    if sub == 8:
        return old ^ b
    return old


@njit(inline="always", cache=True)
def canon32(x):
    """Bits of float32 ``x``, NaNs replaced by the GPU's canonical NaN."""
    if x != x:
        return U64(0x7FFFFFFF)
    return b32f(x)


@njit(inline="always", cache=True)
def fast_eval(fk, cmp, a, b, c):
    """One lane of a fast-path instruction (see isa.FAST_*)."""
    if fk == isa.FAST_MOV:
        return a
    if fk == isa.FAST_ADD32:
        return (a + b) & M32
    if fk == isa.FAST_SUB32:
        return (a - b) & M32
    if fk == isa.FAST_MUL32:
        return (a * b) & M32
    if fk == isa.FAST_MAD32:
        return (a * b + c) & M32
    if fk == isa.FAST_ADD64:
        return a + b
    if fk == isa.FAST_SUB64:
        return a - b
    if fk == isa.FAST_MUL64:
        return a * b
    if fk == isa.FAST_MULWIDE_S32:
        return U64(np.int64(np.int32(np.uint32(a & M32))) * np.int64(np.int32(np.uint32(b & M32))))
    if fk == isa.FAST_MULWIDE_U32:
        return (a & M32) * (b & M32)
    if fk == isa.FAST_MADWIDE_S32:
        return U64(np.int64(np.int32(np.uint32(a & M32))) * np.int64(np.int32(np.uint32(b & M32)))) + c
    if fk == isa.FAST_MADWIDE_U32:
        return (a & M32) * (b & M32) + c
    if fk == isa.FAST_SHL32:
        n = b & M32
        return (a << n) & M32 if n < 32 else U64(0)
    if fk == isa.FAST_SHR_U32:
        n = b & M32
        return (a & M32) >> n if n < 32 else U64(0)
    if fk == isa.FAST_SHR_S32:
        n = b & M32
        if n > 31:
            n = U64(31)
        return U64(np.int64(np.int32(np.uint32(a & M32))) >> np.int64(n)) & M32
    if fk == isa.FAST_SHL64:
        n = b & M32
        return a << n if n < 64 else U64(0)
    if fk == isa.FAST_AND:
        return a & b
    if fk == isa.FAST_OR:
        return a | b
    if fk == isa.FAST_XOR:
        return a ^ b
    if fk == isa.FAST_SETP_S32:
        x = np.int32(np.uint32(a & M32))
        y = np.int32(np.uint32(b & M32))
        if cmp == 1:
            r = x == y
        elif cmp == 2:
            r = x != y
        elif cmp == 3:
            r = x < y
        elif cmp == 4:
            r = x <= y
        elif cmp == 5:
            r = x > y
        elif cmp == 6:
            r = x >= y
        else:
            r = icmp_u32(cmp, a & M32, b & M32)
        return U64(1) if r else U64(0)
    if fk == isa.FAST_SETP_U32:
        return U64(1) if icmp_u32(cmp, a & M32, b & M32) else U64(0)
    if fk == isa.FAST_SETP_F32:
        return U64(1) if fcmp(cmp, np.float64(f32(a)), np.float64(f32(b))) else U64(0)
    if fk == isa.FAST_FADD32:
        return canon32(f32(a) + f32(b))
    if fk == isa.FAST_FSUB32:
        return canon32(f32(a) - f32(b))
    if fk == isa.FAST_FMUL32:
        return canon32(f32(a) * f32(b))
    if fk == isa.FAST_FFMA32:
        return canon32(fma32(f32(a), f32(b), f32(c)))
    if fk == isa.FAST_FADD64:
        return b64f(f64(a) + f64(b))
    if fk == isa.FAST_FMUL64:
        return b64f(f64(a) * f64(b))
    if fk == isa.FAST_FFMA64:
        return b64f(fma64(f64(a), f64(b), f64(c)))
    if fk == isa.FAST_CVT_U64_U32:
        return a & M32
    if fk == isa.FAST_CVT_S64_S32:
        return U64(np.int64(np.int32(np.uint32(a & M32))))
    if fk == isa.FAST_SELP:
        return a if (c & U64(1)) != 0 else b
    return a


@njit(inline="always", cache=True)
def icmp_u32(cmp, x, y):
    if cmp == 1:
        return x == y
    if cmp == 2:
        return x != y
    if cmp == 3 or cmp == 7:
        return x < y
    if cmp == 4 or cmp == 8:
        return x <= y
    if cmp == 5 or cmp == 9:
        return x > y
    return x >= y


@njit(cache=True, _nrt=False)
def exec_fast(fk, pc, code, regs, rb, m):
    d = code[pc, F_D]
    db = rb + d * 32
    ak = code[pc, F_AK]
    bk = code[pc, F_BK]
    ck = code[pc, F_CK]
    a_reg = ak == K_REG
    b_reg = bk == K_REG
    c_reg = ck == K_REG
    ab = rb + code[pc, F_AV] * 32
    bb = rb + code[pc, F_BV] * 32
    cb = rb + code[pc, F_CV] * 32
    aimm = U64(code[pc, F_AV])
    bimm = U64(code[pc, F_BV])
    cimm = U64(code[pc, F_CV])
    cmp = (code[pc, F_AUX] >> isa.CMP_SHIFT) & 31
    if m == 0xFFFFFFFF:
        for lane in range(32):
            a = regs[ab + lane] if a_reg else aimm
            b = regs[bb + lane] if b_reg else bimm
            c = regs[cb + lane] if c_reg else cimm
            regs[db + lane] = fast_eval(fk, cmp, a, b, c)
        return
    for lane in range(32):
        if (m >> lane) & 1:
            a = regs[ab + lane] if a_reg else aimm
            b = regs[bb + lane] if b_reg else bimm
            c = regs[cb + lane] if c_reg else cimm
            regs[db + lane] = fast_eval(fk, cmp, a, b, c)


@njit(cache=True)
def init_cta(slot, cta, cfg, regs, scratch8, simt_pc, simt_rpc, simt_mask, sp, exited, wstate, csp,
             cs_count, icount, stall, slot_cta, wbar):
    nregs = cfg[C_NREGS]
    wpc = cfg[C_WPC]
    nthreads = cfg[C_NTHREADS]
    gx, gy = cfg[C_GX], cfg[C_GY]
    bx, by, bz = cfg[C_BX], cfg[C_BY], cfg[C_BZ]
    cx = cta % gx
    cy = (cta // gx) % gy
    cz = cta // (gx * gy)
    slot_cta[slot] = cta
    # shared memory and frames start zeroed (deterministic)
    sb = cfg[C_SHARED_BASE] + slot * cfg[C_SHARED_BYTES]
    for i in range(cfg[C_SHARED_BYTES]):
        scratch8[sb + i] = 0
    fb = cfg[C_FRAME_BASE] + slot * wpc * 32 * cfg[C_FRAME_BYTES]
    for i in range(wpc * 32 * cfg[C_FRAME_BYTES]):
        scratch8[fb + i] = 0
    for w in range(wpc):
        ws = slot * wpc + w
        rb = ws * nregs * 32
        mask = np.int64(0)
        for lane in range(32):
            if w * 32 + lane < nthreads:
                mask |= np.int64(1) << lane
        used = cfg[C_SPECIALS]
        for r in range(R_ENVREG2 + 1):
            if not (used >> r) & 1:
                continue
            base = rb + r * 32
            for lane in range(32):
                t = w * 32 + lane
                if r == R_TIDX:
                    v = U64(t % bx)
                elif r == R_TIDY:
                    v = U64((t // bx) % by)
                elif r == R_TIDZ:
                    v = U64(t // (bx * by))
                elif r == R_NTIDX:
                    v = U64(bx)
                elif r == R_NTIDY:
                    v = U64(by)
                elif r == R_NTIDZ:
                    v = U64(bz)
                elif r == R_CTAX:
                    v = U64(cx)
                elif r == R_CTAY:
                    v = U64(cy)
                elif r == R_CTAZ:
                    v = U64(cz)
                elif r == R_NCTAX:
                    v = U64(gx)
                elif r == R_NCTAY:
                    v = U64(gy)
                elif r == R_NCTAZ:
                    v = U64(cfg[C_GZ])
                elif r == R_LANEID:
                    v = U64(lane)
                elif r == R_WARPID:
                    v = U64(w)
                elif r == R_NWARPID:
                    v = U64(wpc)
                elif r == R_SMID:
                    v = U64(cta % cfg[C_NUM_SMS])
                elif r == R_NSMID:
                    v = U64(cfg[C_NUM_SMS])
                elif r == R_GRIDID:
                    v = U64(1)
                elif r == R_LM_EQ:
                    v = U64(1) << U64(lane)
                elif r == R_LM_LE:
                    v = (U64(2) << U64(lane)) - U64(1)
                elif r == R_LM_LT:
                    v = (U64(1) << U64(lane)) - U64(1)
                elif r == R_LM_GE:
                    v = U64(0xFFFFFFFF) & ~((U64(1) << U64(lane)) - U64(1))
                elif r == R_LM_GT:
                    v = U64(0xFFFFFFFF) & ~((U64(2) << U64(lane)) - U64(1))
                elif r == R_DYNSMEM:
                    v = U64(cfg[C_DYN_SMEM])
                elif r == R_TOTSMEM:
                    v = U64(cfg[C_SHARED_BYTES])
                elif r == R_ENVREG1:
                    v = U64(cfg[C_GRID_SYNC]) >> U64(32)
                else:
                    v = U64(cfg[C_GRID_SYNC]) & U64(0xFFFFFFFF)
                regs[base + lane] = v
        sp[ws] = 0
        simt_pc[ws, 0] = 0
        simt_rpc[ws, 0] = -1
        simt_mask[ws, 0] = mask
        exited[ws] = 0
        csp[ws] = 0
        cs_count[ws] = 0
        icount[ws] = 0
        stall[ws] = 0
        wbar[ws, 0] = -1
        for k in range(8, wbar.shape[1]):
            wbar[ws, k] = 0  # (row slot * wpc: the arrivals of bar.arrive per barrier id)
        wstate[ws] = W_RUN if mask != 0 else W_DONE


@njit(cache=True, _nrt=False)
def flush_segment(ws, gwarp, cs_pc, cs_count, cs_mask, seg, ctr):
    if cs_count[ws] > 0:
        n = ctr[N_SEG]
        seg[n, 0] = gwarp
        seg[n, 1] = cs_pc[ws]
        seg[n, 2] = cs_count[ws]
        seg[n, 3] = cs_mask[ws]
        ctr[N_SEG] = n + 1
        cs_count[ws] = 0


@njit(cache=True)
def run(code, cfg, ctr, err, regs,
        g8, g16, g32, g64, s8, s16, s32, s64,
        simt_pc, simt_rpc, simt_mask, sp, exited, wstate, call_stack, csp,
        cs_pc, cs_count, cs_mask, icount, stall, slot_cta, wbar,
        seg, mrec, laddr, regrec, pf_meta, pf_bytes, alloc_lo, alloc_hi, bc):
    """Run (or continue) a launch; returns a status code (``isa.ST_*``)."""
    nslots = cfg[C_NSLOTS]
    wpc = cfg[C_WPC]
    ncta = cfg[C_NCTA]
    quantum = cfg[C_QUANTUM]
    tracing = cfg[C_TRACE] != 0
    addrs = np.zeros(32, dtype=np.int64)
    vals = np.zeros(32, dtype=np.uint64)
    start = ctr[N_WARP_INSTR]
    while True:
        if ctr[N_WARP_INSTR] - start > cfg[C_SLICE]:
            return ST_YIELD  # between rounds: the caller checks for Ctrl-C and calls again
        # fill free slots
        any_active = False
        for s in range(nslots):
            if slot_cta[s] < 0 and ctr[N_NEXT_CTA] < ncta:
                init_cta(s, ctr[N_NEXT_CTA], cfg, regs, s8, simt_pc, simt_rpc, simt_mask, sp, exited, wstate,
                         csp, cs_count, icount, stall, slot_cta, wbar)
                ctr[N_NEXT_CTA] += 1
            if slot_cta[s] >= 0:
                any_active = True
        if not any_active:
            return ST_DONE
        progress = False
        for s in range(nslots):
            if slot_cta[s] < 0:
                continue
            slot_ran = 0
            for w in range(wpc):
                ws = s * wpc + w
                if wstate[ws] != W_RUN:
                    continue
                if tracing and (ctr[N_SEG] + 2 > cfg[C_SEG_CAP] or ctr[N_MEM] + 2 > cfg[C_MEM_CAP]
                                or ctr[N_ADDR] + 64 > cfg[C_ADDR_CAP] or ctr[N_REGREC] + 2 > cfg[C_REG_CAP]):
                    return ST_TRACE_FULL
                status, n = run_warp(ws, s, quantum, code, cfg, ctr, err, regs, g8, g16, g32, g64, s8, s16, s32,
                                     s64, simt_pc, simt_rpc, simt_mask, sp, exited, wstate, call_stack, csp,
                                     cs_pc, cs_count, cs_mask, icount, stall, slot_cta, wbar, seg, mrec, laddr,
                                     regrec, pf_meta, pf_bytes, alloc_lo, alloc_hi, bc, addrs, vals)
                if n > 0:
                    progress = True
                    slot_ran += n
                if status != ST_DONE:
                    return status
            # barriers and completion of this CTA
            live = 0
            for w in range(wpc):
                if wstate[s * wpc + w] != W_DONE:
                    live += 1
            if live == 0:
                slot_cta[s] = -1
                ctr[N_CTAS_DONE] += 1
                progress = True
                continue
            waiting = False
            for w in range(wpc):
                if wstate[s * wpc + w] == W_BAR:
                    waiting = True
                    break
            if not waiting:
                wbar[s * wpc, 7] = 0
                continue
            # warps wait here while the others run: a spin-wait on a flag only the waiting warps would set
            # never ends; after C_BARWAIT_LIMIT such instructions it is reported as a barrier deadlock
            wbar[s * wpc, 7] += slot_ran
            if wbar[s * wpc, 7] > cfg[C_BARWAIT_LIMIT]:
                return barrier_deadlock(s, wpc, wstate, simt_pc, sp, slot_cta, err, wbar[s * wpc, 7])
            for bid in range(16):
                arrived = 0
                want = 0
                for w in range(wpc):
                    ws = s * wpc + w
                    if wstate[ws] == W_BAR and wbar[ws, 0] == bid:
                        arrived += 1
                        if wbar[ws, 1] > 0:
                            want = wbar[ws, 1]
                if arrived == 0:
                    continue
                early = wbar[s * wpc, 8 + bid]  # threads that passed it with bar.arrive
                if (want == 0 and arrived == live) or (want > 0 and arrived * 32 + early >= want):
                    if want > 0:
                        wbar[s * wpc, 8 + bid] = max(0, early + arrived * 32 - want)  # the rest count next time
                    release_barrier(s, bid, wpc, cfg, regs, wstate, wbar)
                    wbar[s * wpc, 7] = 0
                    progress = True
        if not progress:
            # every live warp waits at a barrier that cannot complete
            for s in range(nslots):
                if slot_cta[s] >= 0 and barrier_deadlock(s, wpc, wstate, simt_pc, sp, slot_cta, err, 0) != ST_DONE:
                    return ST_BARRIER_DEADLOCK
            return ST_BARRIER_DEADLOCK


@njit(cache=True)
def barrier_deadlock(s, wpc, wstate, simt_pc, sp, slot_cta, err, spin):
    """Report the first warp of slot ``s`` waiting at a barrier in ``err`` (``spin``: instructions the other
    warps ran meanwhile); ST_DONE when none of its warps waits."""
    for w in range(wpc):
        ws = s * wpc + w
        if wstate[ws] == W_BAR:
            err[E_CODE] = ST_BARRIER_DEADLOCK
            err[E_PC] = simt_pc[ws, sp[ws]] - 1 if sp[ws] >= 0 else -1
            err[E_CTA] = slot_cta[s]
            err[E_WARP] = w
            err[E_EXTRA] = spin
            return ST_BARRIER_DEADLOCK
    return ST_DONE


@njit(cache=True)
def release_barrier(s, bid, wpc, cfg, regs, wstate, wbar):
    nregs = cfg[C_NREGS]
    # bar.red: combine the contributions, then hand the result to every participant
    redop = -1
    count = 0
    all_true = True
    any_true = False
    for w in range(wpc):
        ws = s * wpc + w
        if wstate[ws] == W_BAR and wbar[ws, 0] == bid and wbar[ws, 2] > 0:
            redop = wbar[ws, 2]
            count += wbar[ws, 4]
            if wbar[ws, 5] == 0:
                all_true = False
            if wbar[ws, 4] > 0:
                any_true = True
    for w in range(wpc):
        ws = s * wpc + w
        if wstate[ws] == W_BAR and wbar[ws, 0] == bid:
            if redop > 0 and wbar[ws, 3] >= 0:
                if redop == 1:
                    val = U64(count)
                elif redop == 2:
                    val = U64(1) if all_true else U64(0)
                else:
                    val = U64(1) if any_true else U64(0)
                rb = ws * nregs * 32
                m = wbar[ws, 6]
                for lane in range(32):
                    if (m >> lane) & 1:
                        regs[rb + wbar[ws, 3] * 32 + lane] = val
            wstate[ws] = W_RUN
            wbar[ws, 0] = -1
            wbar[ws, 2] = 0


@njit(inline="always", cache=True)
def resolve(space, addr, size, lane, ws, slot, cfg, err):
    """Map a state-space address to (memory: 0 gmem / 1 scratch, offset, resolved space); -1 on fault."""
    if space == SP_GENERIC:
        if addr >= SHARED_WINDOW and addr < SHARED_WINDOW + WINDOW_SIZE:
            space = SP_SHARED
            addr = addr - SHARED_WINDOW
        elif addr >= LOCAL_WINDOW and addr < LOCAL_WINDOW + WINDOW_SIZE:
            space = SP_LOCAL
            addr = addr - LOCAL_WINDOW
        else:
            space = SP_GLOBAL
    if addr % size != 0:
        return -2, 0, space
    if space == SP_GLOBAL or space == SP_CONST:
        off = addr - cfg[C_GBASE]
        if off < 0 or off + size > cfg[C_GMAPPED]:
            return -1, 0, space
        return 0, off, space
    if space == SP_SHARED:
        if addr < 0 or addr + size > cfg[C_SHARED_BYTES]:
            return -1, 0, space
        return 1, cfg[C_SHARED_BASE] + slot * cfg[C_SHARED_BYTES] + addr, space
    if space == SP_LOCAL:
        if addr < 0 or addr + size > cfg[C_FRAME_BYTES]:
            return -1, 0, space
        return 1, cfg[C_FRAME_BASE] + (ws * 32 + lane) * cfg[C_FRAME_BYTES] + addr, space
    # param space: kernel parameters, or the per-thread call frame
    if addr >= PFRAME_TAG:
        fo = addr - PFRAME_TAG
        if fo + size > cfg[C_FRAME_BYTES]:
            return -1, 0, space
        return 1, cfg[C_FRAME_BASE] + (ws * 32 + lane) * cfg[C_FRAME_BYTES] + fo, space
    if addr < 0 or addr + size > cfg[C_PARAM_BYTES]:
        return -1, 0, space
    return 1, addr, space


@njit(inline="always", cache=True)
def trace_address(space, addr, ws, gwarp, lane, cfg):
    """The hardware address recorded in the trace for one lane's access."""
    if space == SP_GENERIC:
        if addr >= SHARED_WINDOW and addr < SHARED_WINDOW + WINDOW_SIZE:
            return addr - SHARED_WINDOW
        if addr >= LOCAL_WINDOW and addr < LOCAL_WINDOW + WINDOW_SIZE:
            space = SP_LOCAL
            addr = addr - LOCAL_WINDOW
        else:
            return addr
    if space == SP_LOCAL:
        return (cfg[C_LOCAL_BASE] + gwarp * cfg[C_FRAME_BYTES] * 32 + (addr // 4) * 128 + lane * 4 + addr % 4)
    return addr


@njit(cache=True)
def fault(err, code, pc, cta, w, lane, addr, space):
    err[E_CODE] = code
    err[E_PC] = pc
    err[E_CTA] = cta
    err[E_WARP] = w
    err[E_LANE] = lane
    err[E_ADDR] = addr
    err[E_SPACE] = space


@njit(cache=True, _nrt=False)
def affine_by_rows(addrs, mask, w):
    """Whether every active lane ``l`` accessed ``base + (l % w) * stride + (l // w) * row_stride``: (ok, base,
    stride, row_stride). The stride comes from the first two active lanes of one row, the row step from the
    first active lane against the first of another row."""
    first = -1
    prev = -1
    other = -1
    stride = np.int64(0)
    known = False
    for lane in range(32):
        if (mask >> lane) & 1:
            if first < 0:
                first = lane
            elif other < 0 and lane // w != first // w:
                other = lane
            if not known and prev >= 0 and prev // w == lane // w:
                d = addrs[lane] - addrs[prev]
                if d % (lane - prev) != 0:
                    return False, np.int64(0), np.int64(0), np.int64(0)
                stride = d // (lane - prev)
                known = True
            prev = lane
    if first < 0 or other < 0:
        return False, np.int64(0), np.int64(0), np.int64(0)
    d = addrs[other] - addrs[first] - (other % w - first % w) * stride
    r = other // w - first // w
    if d % r != 0:
        return False, np.int64(0), np.int64(0), np.int64(0)
    row_stride = d // r
    base = addrs[first] - (first % w) * stride - (first // w) * row_stride
    for lane in range(32):
        if (mask >> lane) & 1:
            if addrs[lane] != base + (lane % w) * stride + (lane // w) * row_stride:
                return False, np.int64(0), np.int64(0), np.int64(0)
    return True, base, stride, row_stride


@njit(cache=True, _nrt=False)
def record_mem(ctr, mrec, laddr, gwarp, pc, mask, space, flags, size, addrs):
    """Append a memory record, compressing affine lane addresses (over the warp, or by rows of a 2-D block)."""
    n = ctr[N_MEM]
    mrec[n, 0] = gwarp
    mrec[n, 1] = pc
    mrec[n, 2] = mask
    mrec[n, 3] = space
    mrec[n, 4] = flags
    mrec[n, 5] = size
    first = -1
    second = -1
    for lane in range(32):
        if (mask >> lane) & 1:
            if first < 0:
                first = lane
            elif second < 0:
                second = lane
                break
    affine = True
    base = np.int64(0)
    stride = np.int64(0)
    if first >= 0:
        if second >= 0:
            d = addrs[second] - addrs[first]
            if d % (second - first) != 0:
                affine = False
            else:
                stride = d // (second - first)
        base = addrs[first] - stride * first
        if affine:
            for lane in range(32):
                if (mask >> lane) & 1:
                    if addrs[lane] != base + stride * lane:
                        affine = False
                        break
    rows = 0
    row_stride = np.int64(0)
    if not affine:  # a warp over rows of a 2-D block (blockDim.x of 16, 8, 4 or 2 threads)?
        w = 16
        while w >= 2 and not affine:
            affine, b, st, rs = affine_by_rows(addrs, mask, w)
            if affine:
                rows, base, stride, row_stride = w, b, st, rs
            w //= 2
    mrec[n, 9] = row_stride
    mrec[n, 10] = rows
    if affine:
        mrec[n, 6] = base
        mrec[n, 7] = stride
        mrec[n, 8] = -1
    else:
        j = ctr[N_ADDR]
        for lane in range(32):
            laddr[j + lane] = U64(addrs[lane]) if (mask >> lane) & 1 else U64(0)
        mrec[n, 6] = addrs[first]
        mrec[n, 7] = 0
        mrec[n, 8] = j
        ctr[N_ADDR] = j + 32
    ctr[N_MEM] = n + 1


@njit(cache=True)
def in_freed(addr, size, freed_lo, freed_hi, n):
    """Whether ``addr`` (``size`` bytes) touches one of the ``n`` sorted, disjoint freed ranges."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if freed_lo[mid] < addr + size:
            lo = mid + 1
        else:
            hi = mid
    k = lo - 1  # the last range starting before the access ends
    return k >= 0 and addr < freed_hi[k]


@njit(cache=True)
def bounds_violation(addr, size, alloc_lo, alloc_hi, pc, n):
    """Whether ``addr`` (``size`` bytes) lies outside every live allocation, or outside the allocation of the
    pointer parameter instruction ``pc`` is known to index (a write past one array into its neighbour)."""
    k = n + pc
    if k < alloc_lo.shape[0] and alloc_lo[k] >= 0:
        return not (addr >= alloc_lo[k] and addr + size <= alloc_hi[k])
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if alloc_lo[mid] <= addr:
            lo = mid + 1
        else:
            hi = mid
    k = lo - 1
    if k < 0:
        return True
    return not (addr >= alloc_lo[k] and addr + size <= alloc_hi[k])


@njit(cache=True)
def run_warp(ws, slot, quantum, code, cfg, ctr, err, regs, g8, g16, g32, g64, s8, s16, s32, s64,
             simt_pc, simt_rpc, simt_mask, sp, exited, wstate, call_stack, csp, cs_pc, cs_count, cs_mask,
             icount, stall, slot_cta, wbar, seg, mrec, laddr, regrec, pf_meta, pf_bytes, alloc_lo, alloc_hi, bc,
             addrs, vals):
    """Run warp slot ``ws`` for up to ``quantum`` instructions. Returns (status, instructions run)."""
    nregs = cfg[C_NREGS]
    wpc = cfg[C_WPC]
    rb = ws * nregs * 32
    cta = slot_cta[slot]
    w_in_cta = ws - slot * wpc
    gwarp = cta * wpc + w_in_cta
    tracing = cfg[C_TRACE] != 0
    call_frames = cfg[C_CALL_FRAMES] != 0  # each call pushes a SIMT entry of its own (recursive programs)
    executed = 0
    while executed < quantum:
        top = sp[ws]
        if top < 0:
            wstate[ws] = W_DONE
            if tracing:
                flush_segment(ws, gwarp, cs_pc, cs_count, cs_mask, seg, ctr)
            return ST_DONE, executed
        pc = simt_pc[ws, top]
        mask = simt_mask[ws, top] & ~exited[ws]
        if mask == 0 or pc == simt_rpc[ws, top]:
            sp[ws] = top - 1
            stall[ws] = 0
            continue
        if tracing and (ctr[N_SEG] + 2 > cfg[C_SEG_CAP] or ctr[N_MEM] + 2 > cfg[C_MEM_CAP]
                        or ctr[N_ADDR] + 64 > cfg[C_ADDR_CAP] or ctr[N_REGREC] + 2 > cfg[C_REG_CAP]):
            return ST_TRACE_FULL, executed
        executed += 1
        icount[ws] += 1
        ctr[N_WARP_INSTR] += 1
        ctr[N_THREAD_INSTR] += popc32(mask)
        if ctr[N_WARP_INSTR] > cfg[C_BUDGET]:
            fault(err, ST_BUDGET, pc, cta, w_in_cta, 0, 0, 0)
            return ST_BUDGET, executed
        if top > (csp[ws] if call_frames else 0):  # diverged (call frames are not divergence)
            stall[ws] += 1
            if stall[ws] > cfg[C_ITS_LIMIT]:
                fault(err, ST_ITS, pc, cta, w_in_cta, 0, 0, 0)
                return ST_ITS, executed
        if tracing:
            if cs_count[ws] > 0 and pc == cs_pc[ws] + cs_count[ws] and mask == cs_mask[ws]:
                cs_count[ws] += 1
            else:
                flush_segment(ws, gwarp, cs_pc, cs_count, cs_mask, seg, ctr)
                cs_pc[ws] = pc
                cs_count[ws] = 1
                cs_mask[ws] = mask
            rr = code[pc, F_REGREC]
            if rr >= 0:
                n = ctr[N_REGREC]
                regrec[n, 0] = gwarp
                regrec[n, 1] = pc
                regrec[n, 2] = rr
                for lane in range(32):
                    regrec[n, 3 + lane] = np.int64(regs[rb + rr * 32 + lane])
                ctr[N_REGREC] = n + 1
        # guard predicate
        m = mask
        g = code[pc, F_GUARD]
        if g >= 0:
            neg = code[pc, F_GNEG]
            pm = np.int64(0)
            for lane in range(32):
                if (mask >> lane) & 1:
                    bit = np.int64(regs[rb + g * 32 + lane] & U64(1))
                    if neg:
                        bit ^= 1
                    pm |= bit << lane
            m = mask & pm
        op = code[pc, F_OP]
        if op < ALU_LIMIT:
            fk = code[pc, F_FAST]
            if fk != 0:
                if code[pc, F_D] >= 0:
                    exec_fast(fk, pc, code, regs, rb, m)
            elif op == OP_PACK or op == OP_UNPACK:
                exec_pack(op, pc, code, regs, rb, m)
            else:
                t = code[pc, F_TYPE]
                t2 = code[pc, F_TYPE2]
                aux = code[pc, F_AUX]
                d = code[pc, F_D]
                d2 = code[pc, F_D2]
                ak = code[pc, F_AK]
                av = code[pc, F_AV]
                bk = code[pc, F_BK]
                bv = code[pc, F_BV]
                ck = code[pc, F_CK]
                cv = code[pc, F_CV]
                dk = code[pc, F_DK]
                dv = code[pc, F_DV]
                for lane in range(32):
                    if (m >> lane) & 1:
                        a = fetch(regs, rb, ak, av, lane)
                        b = fetch(regs, rb, bk, bv, lane)
                        c = fetch(regs, rb, ck, cv, lane)
                        dd = fetch(regs, rb, dk, dv, lane)
                        r, r2 = alu(op, t, t2, aux, a, b, c, dd)
                        if d >= 0:
                            regs[rb + d * 32 + lane] = r
                        if d2 >= 0:
                            regs[rb + d2 * 32 + lane] = r2
            simt_pc[ws, top] = pc + 1
            continue
        if op == OP_LD or op == OP_ST or op == OP_ATOM or op == OP_RED:
            status = exec_mem(op, pc, m, ws, slot, gwarp, cta, w_in_cta, code, cfg, ctr, err, regs, rb,
                              g8, g16, g32, g64, s8, s16, s32, s64, mrec, laddr, addrs, tracing,
                              alloc_lo, alloc_hi, bc)
            if status != ST_DONE:
                return status, executed
            simt_pc[ws, top] = pc + 1
            continue
        if op == OP_BRA:
            target = code[pc, F_TARGET]
            taken = m
            if taken == mask:
                simt_pc[ws, top] = target
            elif taken == 0:
                simt_pc[ws, top] = pc + 1
            else:
                if top + 2 >= simt_pc.shape[1]:
                    fault(err, ST_STACK, pc, cta, w_in_cta, 0, 0, 0)
                    return ST_STACK, executed
                rpc = code[pc, F_RPC]
                simt_pc[ws, top] = rpc if rpc >= 0 else -2
                # the entry waits at the reconvergence point; when rpc is the exit it only pops
                if rpc < 0:
                    simt_mask[ws, top] = 0
                simt_pc[ws, top + 1] = pc + 1
                simt_rpc[ws, top + 1] = rpc
                simt_mask[ws, top + 1] = mask & ~taken
                simt_pc[ws, top + 2] = target
                simt_rpc[ws, top + 2] = rpc
                simt_mask[ws, top + 2] = taken
                sp[ws] = top + 2
            continue
        if op == OP_EXIT:
            exited[ws] |= m
            simt_pc[ws, top] = pc + 1
            if (mask & ~m) == 0:
                # the whole active set left: drop this entry
                sp[ws] = top - 1
            if (simt_mask[ws, 0] & ~exited[ws]) == 0:
                # every thread of the warp has exited
                all_gone = True
                for k in range(sp[ws] + 1):
                    if (simt_mask[ws, k] & ~exited[ws]) != 0:
                        all_gone = False
                if all_gone:
                    sp[ws] = -1
            continue
        if op == OP_BAR:
            bid = 0
            if code[pc, F_AK] != 0:
                for lane in range(32):
                    if (mask >> lane) & 1:
                        bid = np.int64(fetch(regs, rb, code[pc, F_AK], code[pc, F_AV], lane) & U64(15))
                        break
            want = 0
            if code[pc, F_BK] != 0:
                for lane in range(32):
                    if (mask >> lane) & 1:
                        want = np.int64(fetch(regs, rb, code[pc, F_BK], code[pc, F_BV], lane) & U64(0xFFFFFFFF))
                        break
            if code[pc, F_AUX] & isa.A_BAR_ARRIVE:  # count the warp's arrival and go on without waiting
                wbar[ws - w_in_cta, 8 + bid] += 32
                simt_pc[ws, top] = pc + 1
                continue
            wbar[ws, 0] = bid
            wbar[ws, 1] = want
            redop = (code[pc, F_AUX] >> SUB_SHIFT) & 31
            wbar[ws, 2] = redop
            wbar[ws, 3] = code[pc, F_D]
            if redop > 0:
                cnt = 0
                allt = 1
                for lane in range(32):
                    if (m >> lane) & 1:
                        p = fetch(regs, rb, code[pc, F_CK], code[pc, F_CV], lane) & U64(1)
                        if p:
                            cnt += 1
                        else:
                            allt = 0
                wbar[ws, 4] = cnt
                wbar[ws, 5] = allt
                wbar[ws, 6] = mask
            simt_pc[ws, top] = pc + 1
            wstate[ws] = W_BAR
            stall[ws] = 0
            return ST_DONE, executed
        if op == OP_CALL:
            if m != mask:  # a guarded call: the lanes whose guard is false wait at the return site
                if m == 0:
                    simt_pc[ws, top] = pc + 1
                    continue
                if top + 1 >= simt_pc.shape[1]:
                    fault(err, ST_STACK, pc, cta, w_in_cta, 0, 0, 0)
                    return ST_STACK, executed
                simt_pc[ws, top] = pc + 1
                simt_pc[ws, top + 1] = pc
                simt_rpc[ws, top + 1] = pc + 1
                simt_mask[ws, top + 1] = m
                sp[ws] = top + 1
                continue
            c = csp[ws]
            if c >= call_stack.shape[1]:
                fault(err, ST_STACK, pc, cta, w_in_cta, 0, 0, 0)
                return ST_STACK, executed
            call_stack[ws, c] = pc + 1
            csp[ws] = c + 1
            if call_frames:  # the callee runs in an entry of its own, which its return site pops
                if top + 1 >= simt_pc.shape[1]:
                    fault(err, ST_STACK, pc, cta, w_in_cta, 0, 0, 0)
                    return ST_STACK, executed
                simt_pc[ws, top] = pc + 1
                simt_pc[ws, top + 1] = code[pc, F_TARGET]
                simt_rpc[ws, top + 1] = -3  # no reconvergence point: only the return site ends it
                simt_mask[ws, top + 1] = mask
                sp[ws] = top + 1
            else:
                simt_pc[ws, top] = code[pc, F_TARGET]
            continue
        if op == OP_RETSITE:
            c = csp[ws] - 1
            csp[ws] = c
            if call_frames:
                sp[ws] = top - 1  # back to the caller's entry, already at the return address
            else:
                simt_pc[ws, top] = call_stack[ws, c]
            continue
        if op == OP_CALLCOPY:
            width = code[pc, F_WIDTH]
            src = code[pc, F_AV]
            dst = code[pc, F_BV]
            fb = cfg[C_FRAME_BASE]
            fbytes = cfg[C_FRAME_BYTES]
            for lane in range(32):
                if (m >> lane) & 1:
                    base = fb + (ws * 32 + lane) * fbytes
                    for i in range(width):
                        s8[base + dst + i] = s8[base + src + i]
            simt_pc[ws, top] = pc + 1
            continue
        if op == OP_SHFL or op == OP_VOTE or op == OP_REDUX or op == OP_MATCH or op == OP_ACTIVEMASK:
            if op != OP_ACTIVEMASK and m != 0:
                # a .sync member mask naming live threads that are on another path: sm_70+ would run them
                # to this instruction first (independent thread scheduling); this engine cannot
                mk = F_DK if op == OP_SHFL else F_BK
                kind = code[pc, mk]
                if (kind & 7) != K_NONE:
                    first = 0
                    while not (m >> first) & 1:
                        first += 1
                    members = np.int64(fetch(regs, rb, kind, code[pc, mk + 1], first) & U64(0xFFFFFFFF))
                    if members & (simt_mask[ws, 0] & ~exited[ws]) & ~mask:
                        fault(err, ST_ITS, pc, cta, w_in_cta, first, members, 1)
                        return ST_ITS, executed
            exec_warp_op(op, pc, m, mask, code, regs, rb, vals)
            simt_pc[ws, top] = pc + 1
            continue
        if op == isa.OP_MMA:
            exec_mma(pc, m, code, regs, rb)
            simt_pc[ws, top] = pc + 1
            continue
        if op == OP_CLOCK:
            d = code[pc, F_D]
            for lane in range(32):
                if (m >> lane) & 1:
                    regs[rb + d * 32 + lane] = U64(icount[ws])
            simt_pc[ws, top] = pc + 1
            continue
        if op == OP_ISSPACEP:
            d = code[pc, F_D]
            space = (code[pc, F_AUX] >> SUB_SHIFT) & 31
            for lane in range(32):
                if (m >> lane) & 1:
                    a = np.int64(fetch(regs, rb, code[pc, F_AK], code[pc, F_AV], lane))
                    in_sh = a >= SHARED_WINDOW and a < SHARED_WINDOW + WINDOW_SIZE
                    in_lo = a >= LOCAL_WINDOW and a < LOCAL_WINDOW + WINDOW_SIZE
                    in_c = a >= cfg[C_CONST_LO] and a < cfg[C_CONST_HI]
                    if space == SP_SHARED:
                        r = in_sh
                    elif space == SP_LOCAL:
                        r = in_lo
                    elif space == SP_CONST:
                        r = in_c
                    else:
                        r = not in_sh and not in_lo and not in_c
                    regs[rb + d * 32 + lane] = U64(1) if r else U64(0)
            simt_pc[ws, top] = pc + 1
            continue
        if op == OP_PRINTF:
            exec_printf(pc, m, ws, slot, gwarp, cta, w_in_cta, code, cfg, ctr, g8, s8, pf_meta, pf_bytes)
            simt_pc[ws, top] = pc + 1
            continue
        if op == OP_TRAP:
            if m != 0:
                lane0 = 0
                for lane in range(32):
                    if (m >> lane) & 1:
                        lane0 = lane
                        break
                fault(err, ST_TRAP, pc, cta, w_in_cta, lane0, 0, (code[pc, F_AUX] >> SUB_SHIFT) & 31)
                return ST_TRAP, executed
            simt_pc[ws, top] = pc + 1
            continue
        # membar / fence / nop
        simt_pc[ws, top] = pc + 1
    return ST_DONE, executed


@njit(cache=True, _nrt=False)
def exec_pack(op, pc, code, regs, rb, m):
    n = code[pc, F_VEC]
    t = code[pc, F_TYPE]
    total = 64 if (t == T_B64 or t == T_U64 or t == T_S64 or t == T_F64) else 32
    if t == isa.T_B16 or t == isa.T_U16 or t == isa.T_S16 or t == isa.T_F16:
        total = 16
    ew = total // n
    emask = (U64(1) << U64(ew)) - U64(1)
    for lane in range(32):
        if (m >> lane) & 1:
            if op == OP_PACK:
                v = U64(0)
                for k in range(n):
                    r = code[pc, F_V0 + k]
                    if r >= 0:
                        v |= (regs[rb + r * 32 + lane] & emask) << U64(k * ew)
                    elif r <= -2:  # an immediate element, encoded -2 - value
                        v |= (U64(-2 - r) & emask) << U64(k * ew)
                regs[rb + code[pc, F_D] * 32 + lane] = v
            else:
                src = fetch(regs, rb, code[pc, F_AK], code[pc, F_AV], lane)
                for k in range(n):
                    r = code[pc, F_V0 + k]
                    if r >= 0:
                        regs[rb + r * 32 + lane] = (src >> U64(k * ew)) & emask


@njit(cache=True)
def mma_in(w, t):
    """One f16 or bf16 element (the low 16 bits of ``w``) as float64."""
    if t == isa.T_BF16:
        return np.float64(bf16_to_f32(w & U64(0xFFFF)))
    return np.float64(half_to_f32(w & U64(0xFFFF)))


@njit(cache=True)
def mma_out(x, t):
    """float64 ``x`` rounded to the accumulator type (f32 or f16, nearest even) as bits."""
    if t == isa.T_F16:
        return f64_to_half(x, 0)
    return b32f(np.float32(x))


@njit(cache=True)
def exec_mma(pc, m, code, regs, rb):
    """D = A x B + C over the warp's fragments in the PTX ISA's mma.m16n8k16 / m16n8k8 layouts (groupID =
    lane / 4, threadID_in_group = lane % 4); wmma.m16n16k16 fragments are two such n=8 halves side by side.
    The products are exact and summed in float64, then rounded once to the accumulator type."""
    shape = (code[pc, F_AUX] >> SUB_SHIFT) & 31
    n_dim = 16 if shape == 3 else 8
    k_dim = 8 if shape == 2 else 16
    tin = code[pc, F_TYPE]  # the inputs' element type
    td = code[pc, F_TYPE2]  # D's type
    tc = (code[pc, F_AUX] >> CMP_SHIFT) & 31  # C's type
    ha, hb, hc, hd = code[pc, F_AV], code[pc, F_BV], code[pc, F_CV], code[pc, F_D]
    a = np.zeros((16, 16))
    b = np.zeros((16, 16))
    c = np.zeros((16, 16))
    kb = k_dim // 8
    for lane in range(32):
        g = lane >> 2
        t = lane & 3
        for i in range(2 * kb):  # A: rows g, g+8; columns 2t, 2t+1 (+8)
            w = regs[rb + (ha + i) * 32 + lane]
            r = g + 8 * (i & 1)
            col = 2 * t + 8 * (i >> 1)
            a[r, col] = mma_in(w, tin)
            a[r, col + 1] = mma_in(w >> U64(16), tin)
        for j in range(kb * (n_dim // 8)):  # B: rows (k) 2t, 2t+1 (+8); column (n) g (+8)
            w = regs[rb + (hb + j) * 32 + lane]
            k = 2 * t + 8 * (j % kb)
            n = g + 8 * (j // kb)
            b[k, n] = mma_in(w, tin)
            b[k + 1, n] = mma_in(w >> U64(16), tin)
        for h in range(n_dim // 8):  # C: rows g, g+8; columns 2t, 2t+1 (+8 per half)
            for ci in range(4):
                r = g + 8 * (ci >> 1)
                col = 2 * t + (ci & 1) + 8 * h
                if tc == isa.T_F16:
                    w = regs[rb + (hc + 2 * h + (ci >> 1)) * 32 + lane] >> U64(16 * (ci & 1))
                    c[r, col] = np.float64(half_to_f32(w & U64(0xFFFF)))
                else:
                    c[r, col] = np.float64(f32(regs[rb + (hc + 4 * h + ci) * 32 + lane] & U64(0xFFFFFFFF)))
    for lane in range(32):
        if not (m >> lane) & 1:
            continue
        g = lane >> 2
        t = lane & 3
        for h in range(n_dim // 8):
            for ci in range(4):
                r = g + 8 * (ci >> 1)
                col = 2 * t + (ci & 1) + 8 * h
                acc = c[r, col]
                for k in range(k_dim):
                    acc += a[r, k] * b[k, col]
                bits = mma_out(acc, td)
                if td == isa.T_F16:
                    reg = rb + (hd + 2 * h + (ci >> 1)) * 32 + lane
                    if ci & 1:
                        regs[reg] = (regs[reg] & U64(0xFFFF)) | (bits << U64(16))
                    else:
                        regs[reg] = bits
                else:
                    regs[rb + (hd + 4 * h + ci) * 32 + lane] = bits


@njit(inline="always", cache=True)
def vote_result(sub, grp, vals):
    """vote.sync over the lanes of ``grp``: ballot (4), all (1), any (2) or uni (3) of their predicates."""
    ballot = np.int64(0)
    for k in range(32):
        if (grp >> k) & 1 and (vals[k] & U64(1)):
            ballot |= np.int64(1) << k
    if sub == 4:
        return U64(ballot)
    if sub == 1:
        return U64(1) if ballot == grp else U64(0)
    if sub == 2:
        return U64(1) if ballot != 0 else U64(0)
    return U64(1) if (ballot == 0 or ballot == grp) else U64(0)


@njit(cache=True, _nrt=False)
def exec_warp_op(op, pc, m, mask, code, regs, rb, vals):
    d = code[pc, F_D]
    d2 = code[pc, F_D2]
    sub = (code[pc, F_AUX] >> SUB_SHIFT) & 31
    ak, av = code[pc, F_AK], code[pc, F_AV]
    bk, bv = code[pc, F_BK], code[pc, F_BV]
    if op == OP_ACTIVEMASK:
        for lane in range(32):
            if (m >> lane) & 1:
                regs[rb + d * 32 + lane] = U64(mask)
        return
    for lane in range(32):
        vals[lane] = fetch(regs, rb, ak, av, lane)
    if op == OP_SHFL:
        ck, cv = code[pc, F_CK], code[pc, F_CV]
        for lane in range(32):
            if (m >> lane) & 1:
                bval = np.int64(fetch(regs, rb, bk, bv, lane) & U64(31))
                cval = np.int64(fetch(regs, rb, ck, cv, lane))
                segmask = (cval >> 8) & 31
                clampv = cval & 31
                max_lane = (lane & segmask) | (clampv & ~segmask)
                min_lane = lane & segmask
                if sub == 1:
                    j = lane - bval
                    ok = j >= max_lane
                elif sub == 2:
                    j = lane + bval
                    ok = j <= max_lane
                elif sub == 3:
                    j = lane ^ bval
                    ok = j <= max_lane
                else:
                    j = min_lane | (bval & ~segmask)
                    ok = j <= max_lane
                if not ok:
                    j = lane
                regs[rb + d * 32 + lane] = vals[j] & U64(0xFFFFFFFF)
                if d2 >= 0:
                    regs[rb + d2 * 32 + lane] = U64(1) if ok else U64(0)
        return
    has_members = (bk & 7) != K_NONE  # the .sync member mask: each lane combines with the lanes it names
    if op == OP_VOTE:
        if not has_members or (bk & 7) == K_IMM:  # one group for every lane: one result for all
            grp = m & np.int64(U64(bv) & U64(0xFFFFFFFF)) if has_members else m
            r = vote_result(sub, grp, vals)
            for lane in range(32):
                if (m >> lane) & 1:
                    regs[rb + d * 32 + lane] = r
            return
        for lane in range(32):
            if (m >> lane) & 1:
                grp = m & np.int64(fetch(regs, rb, bk, bv, lane) & U64(0xFFFFFFFF))
                regs[rb + d * 32 + lane] = vote_result(sub, grp, vals)
        return
    if op == OP_REDUX:
        t = code[pc, F_TYPE]
        signed = t == T_S32
        for lane in range(32):
            if not (m >> lane) & 1:
                continue
            grp = m & np.int64(fetch(regs, rb, bk, bv, lane) & U64(0xFFFFFFFF)) if has_members else m
            acc = np.int64(0)
            first = True
            for k in range(32):
                if (grp >> k) & 1:
                    if signed:
                        x = np.int64(np.int32(np.uint32(vals[k] & U64(0xFFFFFFFF))))
                    else:
                        x = np.int64(vals[k] & U64(0xFFFFFFFF))
                    if first:
                        acc = x
                        first = False
                    elif sub == 1:
                        acc += x
                    elif sub == 2:
                        acc = min(acc, x)
                    elif sub == 3:
                        acc = max(acc, x)
                    elif sub == 4:
                        acc &= x
                    elif sub == 5:
                        acc |= x
                    else:
                        acc ^= x
            regs[rb + d * 32 + lane] = U64(acc) & U64(0xFFFFFFFF)
        return
    if op == OP_MATCH:
        t = code[pc, F_TYPE]
        wide = t == T_B64 or t == T_U64 or t == T_S64
        vm = U64(0xFFFFFFFFFFFFFFFF) if wide else U64(0xFFFFFFFF)
        for lane in range(32):
            if not (m >> lane) & 1:
                continue
            grp = m & np.int64(fetch(regs, rb, bk, bv, lane) & U64(0xFFFFFFFF)) if has_members else m
            same = np.int64(0)
            for k in range(32):
                if (grp >> k) & 1 and (vals[k] & vm) == (vals[lane] & vm):
                    same |= np.int64(1) << k
            if sub == 1:
                regs[rb + d * 32 + lane] = U64(same)
            else:
                all_same = same == grp
                regs[rb + d * 32 + lane] = U64(grp) if all_same else U64(0)
                if d2 >= 0:
                    regs[rb + d2 * 32 + lane] = U64(1) if all_same else U64(0)


@njit(cache=True, _nrt=False)
def exec_mem(op, pc, m, ws, slot, gwarp, cta, w_in_cta, code, cfg, ctr, err, regs, rb,
             g8, g16, g32, g64, s8, s16, s32, s64, mrec, laddr, addrs, tracing, alloc_lo, alloc_hi, bc):
    space = code[pc, F_SPACE]
    size = code[pc, F_WIDTH]
    vec = code[pc, F_VEC]
    areg = code[pc, F_AREG]
    aoff = code[pc, F_AOFF]
    t = code[pc, F_TYPE]
    signed_load = t == T_S32 or t == isa.T_S16 or t == isa.T_S8
    rec_space = space
    if (space == SP_GLOBAL or space == SP_CONST) and vec == 1 and cfg[C_BOUNDS] == 0 and (op == OP_LD or op == OP_ST):
        # fast path: scalar global loads and stores
        gb = cfg[C_GBASE]
        lim = cfg[C_GMAPPED] - size
        d = code[pc, F_V0]
        for lane in range(32):
            if not (m >> lane) & 1:
                continue
            addr = aoff
            if areg >= 0:
                addr += np.int64(regs[rb + areg * 32 + lane])
            off = addr - gb
            if off < 0 or off > lim or (off & (size - 1)) != 0:
                code_ = ST_MEM_FAULT if (off < 0 or off > lim) else ST_MISALIGNED
                fault(err, code_, pc, cta, w_in_cta, lane, addr, space)
                return code_
            addrs[lane] = addr
            if op == OP_LD:
                v = mem_read(g8, g16, g32, g64, off, size)
                if signed_load and size < 8:
                    sh = U64(64 - 8 * size)
                    v = U64(np.int64(v << sh) >> np.int64(sh))
                if d >= 0:
                    regs[rb + d * 32 + lane] = v
            else:
                v = regs[rb + d * 32 + lane] if d >= 0 else U64(code[pc, isa.F_BV])
                mem_write(g8, g16, g32, g64, off, size, v)
        if tracing and m != 0:
            record_mem(ctr, mrec, laddr, gwarp, pc, m, space, 1 if op == OP_LD else 2, size, addrs)
        return ST_DONE
    # state-space (shared, local, param) addresses are 32-bit: folded negative offsets wrap modulo 2^32
    amask = M32_I if (space == SP_SHARED or space == SP_LOCAL or space == SP_PARAM) else np.int64(-1)
    for lane in range(32):
        if not (m >> lane) & 1:
            continue
        base = aoff
        if areg >= 0:
            base += np.int64(regs[rb + areg * 32 + lane])
        base = base & amask
        if tracing and space != SP_PARAM:
            addrs[lane] = trace_address(space, base, ws, gwarp, lane, cfg)
            if space == SP_GENERIC and rec_space == SP_GENERIC:
                if base >= SHARED_WINDOW and base < SHARED_WINDOW + WINDOW_SIZE:
                    rec_space = SP_SHARED
                elif base >= LOCAL_WINDOW and base < LOCAL_WINDOW + WINDOW_SIZE:
                    rec_space = SP_LOCAL
                else:
                    rec_space = SP_GLOBAL
        if vec > 1 and space != SP_PARAM and base % (vec * size) != 0:  # a vector access is aligned as a whole
            fault(err, ST_MISALIGNED, pc, cta, w_in_cta, lane, base, space)
            return ST_MISALIGNED
        for k in range(vec):
            addr = (base + k * size) & amask
            which, off, rspace = resolve(space, addr, size, lane, ws, slot, cfg, err)
            if which < 0:
                code_ = ST_MISALIGNED if which == -2 else ST_MEM_FAULT
                fault(err, code_, pc, cta, w_in_cta, lane, addr, rspace)
                return code_
            if cfg[C_BOUNDS] == BOUNDS_FREED and which == 0 and in_freed(addr, size, alloc_lo, alloc_hi,
                                                                         cfg[C_NALLOC]):
                fault(err, ST_MEM_FAULT, pc, cta, w_in_cta, lane, addr, rspace)
                return ST_MEM_FAULT
            if cfg[C_BOUNDS] == BOUNDS_CHECK and which == 0 and bounds_violation(addr, size, alloc_lo, alloc_hi,
                                                                                 pc, cfg[C_NALLOC]):
                n = ctr[N_BC]
                if n < bc.shape[0]:
                    bc[n, 0] = pc
                    bc[n, 1] = cta
                    bc[n, 2] = w_in_cta * 32 + lane
                    bc[n, 3] = addr
                ctr[N_BC] = n + 1
            if op == OP_LD:
                if which == 0:
                    v = mem_read(g8, g16, g32, g64, off, size)
                else:
                    v = mem_read(s8, s16, s32, s64, off, size)
                if signed_load and size < 8:
                    sh = U64(64 - 8 * size)
                    v = U64(np.int64(v << sh) >> np.int64(sh))
                r = code[pc, F_V0 + k]
                if r >= 0:
                    regs[rb + r * 32 + lane] = v
            elif op == OP_ST:
                r = code[pc, F_V0 + k]
                if r >= 0:
                    v = regs[rb + r * 32 + lane]
                else:
                    v = U64(code[pc, isa.F_BV])
                if which == 0:
                    mem_write(g8, g16, g32, g64, off, size, v)
                else:
                    mem_write(s8, s16, s32, s64, off, size, v)
            else:
                bval = fetch(regs, rb, code[pc, F_BK], code[pc, F_BV], lane)
                cval = fetch(regs, rb, code[pc, F_CK], code[pc, F_CV], lane)
                if which == 0:
                    old = mem_read(g8, g16, g32, g64, off, size)
                else:
                    old = mem_read(s8, s16, s32, s64, off, size)
                sub = (code[pc, F_AUX] >> SUB_SHIFT) & 31
                new = atomic_apply(sub, t, old, bval, cval)
                if which == 0:
                    mem_write(g8, g16, g32, g64, off, size, new)
                else:
                    mem_write(s8, s16, s32, s64, off, size, new)
                d = code[pc, F_D]
                if op == OP_ATOM and d >= 0:
                    if signed_load and size < 8:
                        sh = U64(64 - 8 * size)
                        old = U64(np.int64(old << sh) >> np.int64(sh))
                    regs[rb + d * 32 + lane] = old
    if tracing and space != SP_PARAM and m != 0:
        flags = 1 if op == OP_LD else (2 if op == OP_ST else 4)
        record_mem(ctr, mrec, laddr, gwarp, pc, m, rec_space, flags, size * vec, addrs)
    return ST_DONE


@njit(cache=True)
def exec_printf(pc, m, ws, slot, gwarp, cta, w_in_cta, code, cfg, ctr, g8, s8, pf_meta, pf_bytes):
    fmt_off = code[pc, F_AOFF]
    args_off = code[pc, F_AV]
    ret_off = code[pc, F_BV]
    fb = cfg[C_FRAME_BASE]
    fbytes = cfg[C_FRAME_BYTES]
    for lane in range(32):
        if not (m >> lane) & 1:
            continue
        base = fb + (ws * 32 + lane) * fbytes
        fmt = np.int64(0)
        args = np.int64(0)
        for i in range(8):
            fmt |= np.int64(s8[base + fmt_off + i]) << (8 * i)
            args |= np.int64(s8[base + args_off + i]) << (8 * i)
        n = ctr[N_PF]
        if n < pf_meta.shape[0]:
            pf_meta[n, 0] = cta
            pf_meta[n, 1] = w_in_cta * 32 + lane
            pf_meta[n, 2] = fmt
            copied = 0
            # the argument buffer is normally in the thread's local frame
            if args >= LOCAL_WINDOW and args < LOCAL_WINDOW + WINDOW_SIZE:
                lo = args - LOCAL_WINDOW
                for i in range(pf_bytes.shape[1]):
                    if lo + i >= fbytes:
                        break
                    pf_bytes[n, i] = s8[base + lo + i]
                    copied += 1
            elif args != 0:
                go = args - cfg[C_GBASE]
                for i in range(pf_bytes.shape[1]):
                    if go + i < 0 or go + i >= cfg[C_GMAPPED]:
                        break
                    pf_bytes[n, i] = g8[go + i]
                    copied += 1
            pf_meta[n, 3] = copied
        ctr[N_PF] = n + 1
        if ret_off >= 0:
            for i in range(4):
                s8[base + ret_off + i] = 0
