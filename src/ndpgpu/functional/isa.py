"""Integer codes shared by the decoder and the compiled interpreter.

Everything here is a plain ``int`` so that numba sees compile-time constants.
"""

from __future__ import annotations

# ---- types -------------------------------------------------------------------------------------------
T_U8, T_U16, T_U32, T_U64 = 0, 1, 2, 3
T_S8, T_S16, T_S32, T_S64 = 4, 5, 6, 7
T_B8, T_B16, T_B32, T_B64 = 8, 9, 10, 11
T_F16, T_F32, T_F64, T_PRED = 12, 13, 14, 15
T_F16X2, T_BF16, T_BF16X2, T_B128 = 16, 17, 18, 19
T_S16X2, T_U16X2 = 20, 21  # two 16-bit integers in 32 bits (add/sub/min/max, sm_90)

TYPE_CODE = {
    "u8": T_U8, "u16": T_U16, "u32": T_U32, "u64": T_U64,
    "s8": T_S8, "s16": T_S16, "s32": T_S32, "s64": T_S64,
    "b8": T_B8, "b16": T_B16, "b32": T_B32, "b64": T_B64,
    "f16": T_F16, "f32": T_F32, "f64": T_F64, "pred": T_PRED,
    "f16x2": T_F16X2, "bf16": T_BF16, "bf16x2": T_BF16X2, "b128": T_B128, "s16x2": T_S16X2, "u16x2": T_U16X2,
}
TYPE_BITS = {
    T_U8: 8, T_U16: 16, T_U32: 32, T_U64: 64, T_S8: 8, T_S16: 16, T_S32: 32, T_S64: 64,
    T_B8: 8, T_B16: 16, T_B32: 32, T_B64: 64, T_F16: 16, T_F32: 32, T_F64: 64, T_PRED: 1,
    T_F16X2: 32, T_BF16: 16, T_BF16X2: 32, T_B128: 128, T_S16X2: 32, T_U16X2: 32,
}
SIGNED_TYPES = (T_S8, T_S16, T_S32, T_S64)
FLOAT_TYPES = (T_F16, T_F32, T_F64, T_F16X2, T_BF16, T_BF16X2)

# ---- operand kinds -----------------------------------------------------------------------------------
K_NONE, K_REG, K_IMM = 0, 1, 2

# ---- instruction fields ------------------------------------------------------------------------------
F_OP = 0
F_TYPE = 1  # main type
F_TYPE2 = 2  # second type (cvt source, mul.wide/ set/ slct source type)
F_AUX = 3  # modifier bit fields (see below)
F_GUARD = 4  # guard predicate register, -1 when none
F_GNEG = 5
F_D = 6  # destination register (-1 none)
F_D2 = 7  # second destination (setp's !p, shfl's predicate, carry out)
F_AK, F_AV, F_BK, F_BV, F_CK, F_CV = 8, 9, 10, 11, 12, 13
F_SPACE = 14
F_AREG = 15  # address base register (-1 none)
F_AOFF = 16  # address immediate (symbol address + offset)
F_VEC = 17  # vector element count (1 for scalar)
F_V0 = 18  # vector element registers F_V0..F_V0+3
F_TARGET = 22  # branch / call target pc
F_RPC = 23  # reconvergence pc of a branch (-1: the function exit)
F_WIDTH = 24  # bytes accessed per lane (memory ops)
F_DK, F_DV = 25, 26  # fourth source operand (prmt/lop3/shf/bfi extra)
F_REGREC = 27  # register whose values are recorded in the trace here (-1 none)
F_FAST = 28  # fast-path class of a common ALU instruction (FAST_*), 0 for the general path
NFIELDS = 29

# ---- aux bit fields ----------------------------------------------------------------------------------
RND_MASK = 0xF  # bits 0..3
RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI = range(9)
RND_CODE = {"rn": RND_RN, "rz": RND_RZ, "rm": RND_RM, "rp": RND_RP, "rni": RND_RNI, "rzi": RND_RZI,
            "rmi": RND_RMI, "rpi": RND_RPI, "rna": RND_RN}
A_FTZ = 1 << 4
A_SAT = 1 << 5
A_APPROX = 1 << 6
A_FULL = 1 << 7
MUL_SHIFT = 8  # 2 bits: 0 lo, 1 hi, 2 wide
MUL_LO, MUL_HI, MUL_WIDE = 0, 1, 2
CMP_SHIFT = 10  # 5 bits
CMP_CODE = {
    "eq": 1, "ne": 2, "lt": 3, "le": 4, "gt": 5, "ge": 6, "lo": 7, "ls": 8, "hi": 9, "hs": 10,
    "equ": 11, "neu": 12, "ltu": 13, "leu": 14, "gtu": 15, "geu": 16, "num": 17, "nan": 18,
}
BOOL_SHIFT = 15  # 2 bits: 0 none, 1 and, 2 or, 3 xor
BOOL_CODE = {"and": 1, "or": 2, "xor": 3}
SUB_SHIFT = 17  # 5 bits: per-opcode sub operation
A_CC = 1 << 22  # writes carry
A_CARRY_IN = 1 << 23  # reads carry
A_CLAMP = 1 << 24  # shf.clamp / bfind.shiftamt...
A_RELU = 1 << 25
A_NAN = 1 << 26  # min/max .NaN
A_LEFT = 1 << 27  # shf.l
A_SHIFTAMT = 1 << 28
A_XORSIGN = 1 << 29
A_ABS = 1 << 30
A_SATFINITE = 1 << 31  # cvt .satfinite: clamp to the largest finite value, NaN stays NaN
# SIMD video instructions (OP_VSIMD; SUB holds the VSIMD_OPS code, CMP the vset comparison)
A_VIDEO_ADD = 1 << 32  # .add: accumulate the element results into c instead of merging them
A_VIDEO_DSIGNED = 1 << 33  # the destination type is .s32 (.sat clamps to the signed element range)
A_VIDEO_QUAD = 1 << 34  # four byte elements (vop4), else two half-word elements (vop2)
A_SEXT_DST = 1 << 35  # cvt to a narrow signed type in a wider register: sign-extend into it (PTX's rule)
A_DST64 = 1 << 36  # ... whose register has 64 bits (else 32)
A_BAR_ARRIVE = 1 << 37  # bar.arrive: count the warp at the barrier without waiting

# ---- opcodes -----------------------------------------------------------------------------------------
# Per-lane ALU operations (result = f(a, b, c[, d])) come first, then warp-level operations.
_ALU = [
    "mov", "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max",
    "and", "or", "xor", "not", "cnot", "shl", "shr", "bfe", "bfi", "popc", "clz", "brev", "bfind", "prmt",
    "shf", "lop3", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "ex2", "lg2", "tanh", "testp", "copysign",
    "setp", "set", "selp", "slct", "cvt", "cvta", "fns", "dp4a", "dp2a", "pack", "unpack", "movpf",
    "vsimd", "bmsk", "szext", "cvtpack",
]
_WARP = [
    "ld", "st", "atom", "red", "bar", "membar", "bra", "call", "ret", "exit", "shfl", "vote", "redux",
    "match", "activemask", "printf", "trap", "nop", "clock", "isspacep", "callcopy", "retsite", "mma",
]
OPCODES = {name: i for i, name in enumerate(_ALU + _WARP)}
ALU_LIMIT = len(_ALU)
OP_NAMES = _ALU + _WARP

# explicit opcode constants (numba reads module globals as compile-time constants)
OP_MOV = 0
OP_ADD = 1
OP_SUB = 2
OP_MUL = 3
OP_MAD = 4
OP_MUL24 = 5
OP_MAD24 = 6
OP_SAD = 7
OP_DIV = 8
OP_REM = 9
OP_ABS = 10
OP_NEG = 11
OP_MIN = 12
OP_MAX = 13
OP_AND = 14
OP_OR = 15
OP_XOR = 16
OP_NOT = 17
OP_CNOT = 18
OP_SHL = 19
OP_SHR = 20
OP_BFE = 21
OP_BFI = 22
OP_POPC = 23
OP_CLZ = 24
OP_BREV = 25
OP_BFIND = 26
OP_PRMT = 27
OP_SHF = 28
OP_LOP3 = 29
OP_FMA = 30
OP_RCP = 31
OP_SQRT = 32
OP_RSQRT = 33
OP_SIN = 34
OP_COS = 35
OP_EX2 = 36
OP_LG2 = 37
OP_TANH = 38
OP_TESTP = 39
OP_COPYSIGN = 40
OP_SETP = 41
OP_SET = 42
OP_SELP = 43
OP_SLCT = 44
OP_CVT = 45
OP_CVTA = 46
OP_FNS = 47
OP_DP4A = 48
OP_DP2A = 49
OP_PACK = 50
OP_UNPACK = 51
OP_MOVPF = 52
OP_VSIMD = 53  # vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4, vmin2/4, vmax2/4, vset2/4
OP_BMSK = 54
OP_SZEXT = 55
OP_CVTPACK = 56  # cvt.pack.sat
OP_LD = 57
OP_ST = 58
OP_ATOM = 59
OP_RED = 60
OP_BAR = 61
OP_MEMBAR = 62
OP_BRA = 63
OP_CALL = 64
OP_RET = 65
OP_EXIT = 66
OP_SHFL = 67
OP_VOTE = 68
OP_REDUX = 69
OP_MATCH = 70
OP_ACTIVEMASK = 71
OP_PRINTF = 72
OP_TRAP = 73
OP_NOP = 74
OP_CLOCK = 75
OP_ISSPACEP = 76
OP_CALLCOPY = 77
OP_RETSITE = 78
OP_MMA = 79  # a warp's matrix multiply-accumulate (mma.sync, wmma.mma) on gathered fragment registers

# sub-operation codes (in SUB field)
MMA_SHAPES = {"m16n8k16": 1, "m16n8k8": 2, "m16n16k16": 3}  # M x N x K: 16x8x16, 16x8x8, 16x16x16 (wmma)
VSIMD_OPS = {"vadd": 1, "vsub": 2, "vavrg": 3, "vabsdiff": 4, "vmin": 5, "vmax": 6, "vset": 7}
ATOM_OPS = {"add": 1, "min": 2, "max": 3, "inc": 4, "dec": 5, "and": 6, "or": 7, "xor": 8, "exch": 9,
            "cas": 10, "mbarrier_arrive": 11, "mbarrier_arrive_drop": 12}  # the last two: the decoder's mbarrier
# an mbarrier object (a .b64 in shared memory): pending arrivals in bits 0-30, the expected count in bits 32-62,
# the phase's parity in bit 63
MBAR_COUNT_MASK, MBAR_EXPECTED_SHIFT, MBAR_PHASE_SHIFT = 0x7FFFFFFF, 32, 63
SHFL_MODES = {"up": 1, "down": 2, "bfly": 3, "idx": 4}
VOTE_MODES = {"all": 1, "any": 2, "uni": 3, "ballot": 4}
REDUX_OPS = {"add": 1, "min": 2, "max": 3, "and": 4, "or": 5, "xor": 6}
TESTP_OPS = {"finite": 1, "infinite": 2, "number": 3, "notanumber": 4, "normal": 5, "subnormal": 6}
BAR_RED = {"popc": 1, "and": 2, "or": 3}
MATCH_MODES = {"any": 1, "all": 2}
PRMT_MODES = {"f4e": 1, "b4e": 2, "rc8": 3, "ecl": 4, "ecr": 5, "rc16": 6}
CVTA_TO = 1  # cvta.to.<space>
# memory spaces (same codes as the trace's SPACES)
SP_NONE, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_GENERIC = range(7)
SPACE_CODE = {"global": SP_GLOBAL, "shared": SP_SHARED, "local": SP_LOCAL, "const": SP_CONST,
              "param": SP_PARAM, "shared::cta": SP_SHARED, "param::entry": SP_PARAM, "param::func": SP_PARAM}

# dynamic special registers read by OP_CLOCK (SUB field)
CLK_CLOCK, CLK_CLOCK64, CLK_GLOBALTIMER = 1, 2, 3

# ---- generic address windows -------------------------------------------------------------------------
SHARED_WINDOW = 0x0000_7E00_0000_0000  # generic address of shared offset 0
LOCAL_WINDOW = 0x0000_7F00_0000_0000  # generic address of local offset 0 (per thread)
WINDOW_SIZE = 0x0000_0001_0000_0000
PFRAME_TAG = 0x0100_0000  # param-space addresses at or above this are per-thread call frames
FUNCTION_WINDOW = 0x0000_7C00_0000_0000  # device functions' addresses (function pointers, vtables): 16 apart

# ---- engine status codes -----------------------------------------------------------------------------
ST_DONE = 0
ST_TRACE_FULL = 1
ST_MEM_FAULT = 2
ST_BARRIER_DEADLOCK = 3
ST_BUDGET = 4
ST_ITS = 5  # needs independent thread scheduling
ST_TRAP = 6
ST_MISALIGNED = 7
ST_PRINTF_FULL = 8
ST_STACK = 9
ST_BAD_SHFL = 10
ST_YIELD = 11  # the launch's slice of instructions ran out: Python may handle signals, then continue
# trap sub-codes (the error's message): 0 trap, 1 a failed assert, 2 a cp.async src-size the engine refuses
TRAP_PLAIN, TRAP_ASSERT, TRAP_CP_ASYNC, TRAP_BAD_CALL, TRAP_STACK = 0, 1, 2, 3, 4

# ---- fast paths of the commonest ALU instructions (no modifiers, plain register/immediate operands) ----
FAST_NONE = 0
FAST_MOV = 1
FAST_ADD32, FAST_SUB32, FAST_MUL32, FAST_MAD32 = 2, 3, 4, 5
FAST_ADD64, FAST_SUB64, FAST_MUL64 = 6, 7, 8
FAST_MULWIDE_S32, FAST_MULWIDE_U32, FAST_MADWIDE_S32, FAST_MADWIDE_U32 = 9, 10, 11, 12
FAST_SHL32, FAST_SHR_U32, FAST_SHR_S32, FAST_SHL64 = 13, 14, 15, 16
FAST_AND, FAST_OR, FAST_XOR = 17, 18, 19  # 32 or 64 bits: operands are stored zero-extended
FAST_SETP_S32, FAST_SETP_U32 = 20, 21
FAST_FADD32, FAST_FSUB32, FAST_FMUL32, FAST_FFMA32 = 22, 23, 24, 25
FAST_CVT_U64_U32, FAST_CVT_S64_S32 = 26, 27
FAST_SELP = 28
FAST_SETP_F32 = 29
FAST_FADD64, FAST_FMUL64, FAST_FFMA64 = 30, 31, 32


assert all(OPCODES[n] == globals()[f"OP_{n.upper()}"] for n in OPCODES), "OP_* constants out of step with OPCODES"
