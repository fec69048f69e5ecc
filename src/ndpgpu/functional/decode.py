"""Turn a kernel (and the device functions it calls) into the integer program the interpreter runs.

The program is one ``int64`` array ``code[pc, field]`` (fields in :mod:`.isa`). The kernel body comes
first; every device function it calls (transitively) follows, each ending with a synthesized ``retsite``
instruction to which its ``ret`` instructions branch, so that divergence inside a function reconverges
before it returns. A ``call`` becomes: copies of the arguments into the callee's parameter slots, the
call, and copies of the return values back. Parameters of device functions and call-site ``.param``
variables live in a per-thread frame (with the ``.local`` arrays); a call that can recurse saves the caller's
registers and frame slots on a per-thread stack around it.
"""

from __future__ import annotations

import dataclasses
import struct

import numpy as np

from ..analysis.cfg import CFG, CFGError
from ..frontend.ir import Addr, ArgList, Function, Imm, Instruction, Module, PredPair, Reg, Special, Sym, Vec
from ..trace import format as tf
from . import isa
from .isa import (
    A_ABS,
    A_APPROX,
    A_CARRY_IN,
    A_CC,
    A_CLAMP,
    A_FTZ,
    A_FULL,
    A_LEFT,
    A_NAN,
    A_RELU,
    A_SAT,
    A_SHIFTAMT,
    A_XORSIGN,
    BOOL_SHIFT,
    CMP_SHIFT,
    F_AK,
    F_AOFF,
    F_AREG,
    F_AUX,
    F_AV,
    F_BK,
    F_BV,
    F_CK,
    F_CV,
    F_D,
    F_D2,
    F_DK,
    F_DV,
    F_GNEG,
    F_GUARD,
    F_OP,
    F_REGREC,
    F_RPC,
    F_SPACE,
    F_TARGET,
    F_TYPE,
    F_TYPE2,
    F_V0,
    F_VEC,
    F_WIDTH,
    K_IMM,
    K_NONE,
    K_REG,
    MUL_SHIFT,
    NFIELDS,
    SUB_SHIFT,
)


class UnsupportedPTX(Exception):
    """A PTX construct the simulator does not implement; names opcode, kernel and line."""

    def __init__(self, what: str, kernel: str = "", line: int = 0, opcode: str = ""):
        where = f" in kernel {kernel!r}" if kernel else ""
        at = f" at PTX line {line}" if line else ""
        super().__init__(f"unsupported PTX{where}{at}: {what}")
        self.kernel = kernel
        self.line = line
        self.opcode = opcode


# Static special registers become registers initialised when a CTA starts.
STATIC_SPECIALS = (
    "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
    "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
    "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
    "%dynamic_smem_size", "%total_smem_size",
    "%envreg1", "%envreg2",  # the grid-sync workspace's address, high and low halves (cooperative launches)
)
GRID_SYNC_SPECIALS = ("%envreg1", "%envreg2")
DYNAMIC_SPECIALS = {"%clock": isa.CLK_CLOCK, "%clock64": isa.CLK_CLOCK64, "%globaltimer": isa.CLK_GLOBALTIMER}
CARRY_REG = "%cc"
# calls the decoder lowers itself: printf, assert, and the device heap (malloc/free)
_BUILTIN_CALLS = ("vprintf", "__assertfail", "malloc", "free")
RECURSION_STACK_BYTES = 16 * 1024  # per thread, when some call recurses (CUDA's default stack is 1 KiB)
STACK_POINTER = "%ndpgpu_sp"  # the per-thread offset into that stack
HEAP_CONTROL = "$ndpgpu_heap"  # symbol of the device heap's control block: next free address, end (u64 each)
# opcodes of the ALU table that only the decoder itself emits (vector mov), never valid PTX opcodes
_INTERNAL_OPS = ("pack", "unpack", "movpf", "vsimd", "cvtpack")  # no PTX opcode has these names
# ALU opcodes defined for floating-point types only / for integer and bit types only: other types would
# reach an ALU path with no case for them (a silent 0), so they are rejected
_FLOAT_ONLY_OPS = ("fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "ex2", "lg2", "tanh", "testp", "copysign")
_INT_ONLY_OPS = ("mul24", "mad24", "sad", "rem", "not", "cnot", "shl", "shr", "bfe", "bfi", "popc", "clz",
                 "brev", "bfind", "prmt", "shf", "lop3", "dp4a", "dp2a", "fns", "bmsk", "szext", "vsimd",
                 "cvtpack")

_OP_CLASS_OF = {
    "mov": "mov", "cvta": "mov", "movpf": "mov", "callcopy": "mov", "pack": "mov", "unpack": "mov",
    "cvt": "cvt", "setp": "setp", "set": "setp", "selp": "int", "slct": "int",
    "mul": "imul", "mad": "imul", "mul24": "imul", "mad24": "imul", "sad": "int",
    "div": "idiv", "rem": "idiv", "rcp": "sfu", "sqrt": "sfu", "rsqrt": "sfu", "sin": "sfu", "cos": "sfu",
    "ex2": "sfu", "lg2": "sfu", "tanh": "sfu", "ld": "load", "st": "store", "atom": "atomic", "red": "atomic",
    "bar": "barrier", "membar": "fence", "bra": "branch", "call": "branch", "ret": "branch", "exit": "branch",
    "retsite": "branch", "trap": "branch", "shfl": "shfl", "vote": "shfl", "redux": "shfl", "match": "shfl",
    "activemask": "shfl", "printf": "branch", "nop": "nop", "clock": "mov", "isspacep": "int",
}


@dataclasses.dataclass
class FrameSlot:
    offset: int
    size: int


@dataclasses.dataclass
class Program:
    """A decoded kernel ready for the interpreter."""

    kernel: str
    code: np.ndarray  # int64 [n, NFIELDS]
    num_regs: int
    reg_ids: dict[str, int]  # "function::name" -> id; static specials by their name
    reg_bits: np.ndarray  # int32 bits per register
    static: np.ndarray  # trace STATIC_DTYPE
    opcode_names: list[str]
    frame_bytes: int  # per-thread local frame (local arrays + call parameters), multiple of 16
    local_bytes: int  # of which .local arrays (spilled to real local memory)
    shared_static_bytes: int
    dynamic_shared_align: int
    param_bytes: int
    param_offsets: list[int]
    params: list  # ir.Param of the kernel
    pc_of_line: dict[int, int]
    line_of_pc: np.ndarray
    function_of_pc: list[str]
    has_printf: bool
    uses_dynamic_shared: bool
    used_specials: int = (1 << len(STATIC_SPECIALS)) - 1  # bit i: STATIC_SPECIALS[i] is read
    const_range: tuple[int, int] = (0, 0)  # [lo, hi) of the module's __constant__ variables (isspacep)
    recursive: bool = False  # some call may lead back to its caller (deeper SIMT and call stacks)

    @property
    def grid_sync(self) -> bool:
        """Whether the kernel reads the grid-sync workspace (cooperative groups' grid.sync()): it must be
        launched cooperatively, every CTA resident at once."""
        return any(self.used_specials >> STATIC_SPECIALS.index(n) & 1 for n in GRID_SYNC_SPECIALS)

    def pcs_of(self, fn_name: str) -> list[int]:
        return [pc for pc, f in enumerate(self.function_of_pc) if f == fn_name]


def _imm_bits(imm: Imm, tcode: int) -> int:
    """Encode an immediate for an operation of type ``tcode`` as a 64-bit pattern (as int64)."""
    bits = isa.TYPE_BITS.get(tcode, 64)
    if tcode in (isa.T_F32, isa.T_F64, isa.T_F16, isa.T_BF16):
        if imm.float_bits is not None:
            if tcode == isa.T_F32 and imm.float_width == 64:
                value = struct.unpack("<I", struct.pack("<f", imm.value))[0]
            elif tcode == isa.T_F64 and imm.float_width == 32:
                value = struct.unpack("<Q", struct.pack("<d", imm.value))[0]
            else:
                value = imm.float_bits
        else:
            v = float(imm.value)
            if tcode == isa.T_F64:
                value = struct.unpack("<Q", struct.pack("<d", v))[0]
            elif tcode == isa.T_F32:
                value = struct.unpack("<I", struct.pack("<f", v))[0]
            else:
                value = int(np.float16(v).view(np.uint16))
    else:
        if imm.float_bits is not None:
            value = imm.float_bits
        elif isinstance(imm.value, float):
            value = int(imm.value)
        else:
            value = int(imm.value)
        if bits < 64:
            value &= (1 << bits) - 1 if bits > 1 else 1
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


class _Decoder:
    def __init__(self, module: Module, kernel: str, symbols: dict[str, int], shared_layout: dict[str, int],
                 record_regs: dict[tuple[str, int], str] | None = None):
        self.module = module
        if kernel not in module.functions or not module.functions[kernel].is_entry:
            raise KeyError(kernel)
        self.kernel = module.functions[kernel]
        self.symbols = symbols  # module-scope global/const variable -> device address
        self.shared_layout = shared_layout  # shared variable -> offset in the CTA's shared memory
        self.record_regs = record_regs or {}
        self.reg_ids: dict[str, int] = {}
        self.reg_bits: list[int] = []
        for name in STATIC_SPECIALS:
            self._new_reg(name, 32)
        self._new_reg(CARRY_REG, 32)
        self.frame: dict[tuple[str, str], FrameSlot] = {}
        self.frame_top = 0
        self.local_bytes = 0
        self.rows: list[list[int]] = []
        self.static_rows: list[tuple] = []
        self.opcode_names: list[str] = []
        self.opcode_index: dict[str, int] = {}
        self.lines: list[int] = []
        self.fn_of_pc: list[str] = []
        self.has_printf = False
        self._address_taken: set[str] | None = None
        self._reach: dict[str, set[str]] | None = None
        self.recursive = False  # some call can lead back to its caller
        self.stack_base = 0  # frame offset of the per-thread stack that recursive calls save state on

    # -- registers and frame --------------------------------------------------------------------
    def _new_reg(self, key: str, bits: int) -> int:
        rid = len(self.reg_bits)
        self.reg_ids[key] = rid
        self.reg_bits.append(bits)
        return rid

    def reg(self, fn: Function, name: str, ins: Instruction | None = None) -> int:
        key = f"{fn.name}::{name}"
        rid = self.reg_ids.get(key)
        if rid is not None:
            return rid
        if name in self.reg_ids and name.startswith("%"):
            return self.reg_ids[name]
        if name not in fn.regs:
            line = ins.line if ins else fn.line
            raise UnsupportedPTX(f"register {name!r} is used but not declared", self.kernel.name, line)
        return self._new_reg(key, fn.regs[name].bits)

    def slot(self, fn: Function, name: str, size: int, align: int) -> FrameSlot:
        key = (fn.name, name)
        if key not in self.frame:
            align = max(1, align)
            off = (self.frame_top + align - 1) // align * align
            self.frame[key] = FrameSlot(off, size)
            self.frame_top = off + size
        return self.frame[key]

    # -- functions ------------------------------------------------------------------------------
    def call_order(self) -> list[Function]:
        """The kernel and every function it calls, kernel first; notes whether some call recurses."""
        order: list[Function] = []
        state: dict[str, int] = {}

        def visit(fn: Function, path: list[str]) -> None:
            state[fn.name] = 1
            order.append(fn)
            for ins in fn.body:
                if ins.opcode != "call":
                    continue
                target = _call_target(ins)
                if target is None and not any(isinstance(op, Reg) for op in ins.operands):
                    raise UnsupportedPTX("a call without a target", self.kernel.name, ins.line, ins.full)
                targets = [target] if target is not None else [f.name for f in self.indirect_targets(fn, ins)]
                for target in targets:
                    if target in _BUILTIN_CALLS:
                        continue
                    callee = self.module.functions.get(target)
                    if callee is None or not callee.defined:
                        raise UnsupportedPTX(f"call to external function {target!r}", self.kernel.name, ins.line)
                    if state.get(target) == 1:
                        self.recursive = True  # call sites inside a cycle save the caller's state (d_call)
                    if target not in state:
                        visit(callee, [*path, target])
            state[fn.name] = 2

        visit(self.kernel, [self.kernel.name])
        return order

    def address_taken(self) -> set[str]:
        """Device functions whose address the module takes (a ``mov`` of the name, a vtable or pointer
        initialiser): the possible targets of its indirect calls."""
        if self._address_taken is None:
            names = {n for n, f in self.module.functions.items() if not f.is_entry}
            taken: set[str] = set()
            for f in self.module.functions.values():
                for ins in f.body:
                    if ins.opcode == "call":
                        continue
                    for op in ins.operands:
                        base = op.base if isinstance(op, Addr) else op
                        if isinstance(base, Sym) and base.name in names:
                            taken.add(base.name)
            for var in self.module.variables.values():
                for item in var.init or []:
                    if isinstance(item, tuple) and item[1] in names:
                        taken.add(item[1])
            self._address_taken = taken
        return self._address_taken

    def _shaped_targets(self, fn: Function, ins: Instruction) -> list[str]:
        """Address-taken functions whose parameters and returns have the sizes of the call's arguments."""
        rets, args = _call_lists(ins)

        def sizes(names: list[str]) -> list[int | None]:
            return [v.size if (v := _find_var(fn, n)) is not None else None for n in names]

        want_args, want_rets = sizes(args), sizes(rets)
        fns = self.module.functions
        out = []
        for n in sorted(self.address_taken()):
            f = fns[n]
            if not f.defined or len(f.params) != len(args) or len(f.returns) != len(rets):
                continue
            if all(w is None or w == p.size for w, p in zip(want_args + want_rets, f.params + f.returns,
                                                             strict=True)):
                out.append(n)
        return out

    def _reaches(self) -> dict[str, set[str]]:
        """Every function each function can call, directly or through a pointer of the right shape."""
        if self._reach is None:
            edges: dict[str, set[str]] = {}
            for f in self.module.functions.values():
                out: set[str] = set()
                for ins in f.body:
                    if ins.opcode == "call":
                        t = _call_target(ins)
                        if t is not None:
                            out.add(t)
                        elif any(isinstance(op, Reg) for op in ins.operands):
                            out.update(self._shaped_targets(f, ins))
                edges[f.name] = out
            reach: dict[str, set[str]] = {}
            for name in edges:
                seen: set[str] = set()
                todo = list(edges[name])
                while todo:
                    n = todo.pop()
                    if n not in seen:
                        seen.add(n)
                        todo.extend(edges.get(n, ()))
                reach[name] = seen
            self._reach = reach
        return self._reach

    def indirect_targets(self, fn: Function, ins: Instruction) -> list[Function]:
        """The functions an indirect ``call`` in ``fn`` may reach: address-taken ones of the call's shape
        (one that can lead back to ``fn`` makes that call a recursive one, see ``_recursive_call``)."""
        return [self.module.functions[n] for n in self._shaped_targets(fn, ins)]

    def decode(self) -> Program:
        funcs = self.call_order()
        # frame: kernel locals first, then each function's locals and params
        for fn in funcs:
            for var in fn.variables:
                if var.space == "local":
                    self.slot(fn, var.name, var.size, var.alignment)
        if self.recursive:  # the stack that recursive call sites save their caller's state on
            self.stack_base = self.slot(self.kernel, "$ndpgpu_stack", RECURSION_STACK_BYTES, 16).offset
            self._new_reg(STACK_POINTER, 32)
        self.local_bytes = self.frame_top
        for fn in funcs:
            if not fn.is_entry:
                for p in fn.params + fn.returns:
                    self.slot(fn, p.name, p.size, p.alignment)
            for var in fn.variables:
                if var.space == "param":
                    self.slot(fn, var.name, var.size, var.alignment)
        # layout pcs: expand each function, then patch branch targets
        starts: dict[str, int] = {}
        pending: list[tuple[int, str, str]] = []  # (row index, function, label) to resolve
        pending_calls: list[tuple[int, str]] = []
        label_pc: dict[tuple[str, str], int] = {}
        for fn in funcs:
            starts[fn.name] = len(self.rows)
            idx_to_pc: dict[int, int] = {}
            last_row: dict[int, int] = {}
            for i, ins in enumerate(fn.body):
                idx_to_pc[i] = len(self.rows)
                self.decode_instruction(fn, ins, pending, pending_calls)
                last_row[i] = len(self.rows) - 1
            end_pc = len(self.rows)
            if not fn.is_entry:
                self.emit(fn, None, isa.OP_RETSITE, "retsite", 0)
            else:
                self.emit(fn, None, isa.OP_EXIT, "exit", 0)  # falling off the end of a kernel exits
            for label, i in fn.labels.items():
                label_pc[(fn.name, label)] = idx_to_pc.get(i, end_pc)
            label_pc[(fn.name, "$__retsite")] = end_pc
            # reconvergence points from the function's CFG
            try:
                cfg = CFG(fn)
            except CFGError as exc:
                raise UnsupportedPTX(str(exc), self.kernel.name) from exc
            for b in cfg.blocks:
                last = fn.body[b.end - 1]
                if last.opcode in ("bra", "ret") and last.guard is not None:
                    rpc_instr = cfg.reconvergence_instr(b.index)
                    row = self.rows[last_row[b.end - 1]]
                    if rpc_instr >= len(fn.body):
                        row[F_RPC] = end_pc if not fn.is_entry else -1
                    else:
                        row[F_RPC] = idx_to_pc[rpc_instr]
        for row_i, fname, label in pending:
            if (fname, label) not in label_pc:
                raise UnsupportedPTX(f"branch to unknown label {label!r}", self.kernel.name)
            self.rows[row_i][F_TARGET] = label_pc[(fname, label)]
        for row_i, target in pending_calls:
            self.rows[row_i][F_TARGET] = starts[target]
        try:
            code = np.array(self.rows, dtype=np.int64).reshape(-1, NFIELDS)
        except OverflowError:  # only then look for the row: name its line
            row_i = next(i for i, row in enumerate(self.rows) if any(not -(1 << 63) <= v < 1 << 63 for v in row))
            raise UnsupportedPTX("an operand or address offset outside the 64-bit range", self.kernel.name,
                                 self.lines[row_i] if row_i < len(self.lines) else 0) from None
        used = 0
        nspecial = len(STATIC_SPECIALS)
        for kf, vf in ((F_AK, F_AV), (F_BK, F_BV), (F_CK, F_CV), (F_DK, F_DV)):
            regs_read = code[(code[:, kf] & 7) == K_REG, vf]
            for r in np.unique(regs_read[regs_read < nspecial]):
                used |= 1 << int(r)
        for col in (F_AREG, F_GUARD):
            for r in np.unique(code[(code[:, col] >= 0) & (code[:, col] < nspecial), col]):
                used |= 1 << int(r)
        for k in range(4):
            vals = code[:, F_V0 + k]
            for r in np.unique(vals[(vals >= 0) & (vals < nspecial)]):
                used |= 1 << int(r)
        static = np.zeros(len(self.static_rows), dtype=tf.STATIC_DTYPE)
        static["guard"] = code[:, F_GUARD]  # emit() adds one row and one static row a PC
        for pc, (opc, space, width, opname, dsts, srcs, line) in enumerate(self.static_rows):
            static[pc]["op_class"] = tf.OP_CLASS[opc]
            static[pc]["space"] = space
            static[pc]["width"] = width
            static[pc]["opcode"] = opname
            d = (list(dsts) + [-1] * 4)[:4]
            s = (list(srcs) + [-1] * 4)[:4]
            static[pc]["dst"] = d
            static[pc]["src"] = s
            static[pc]["line"] = line
        # kernel parameters
        offsets = []
        top = 0
        for p in self.kernel.params:
            al = p.alignment
            top = (top + al - 1) // al * al
            offsets.append(top)
            top += p.size
        frame_bytes = (self.frame_top + 15) // 16 * 16
        pc_of_line: dict[int, int] = {}
        for pc, line in enumerate(self.lines):
            pc_of_line.setdefault(line, pc)
        return Program(
            kernel=self.kernel.name, code=code, num_regs=len(self.reg_bits), reg_ids=dict(self.reg_ids),
            reg_bits=np.array(self.reg_bits, dtype=np.int32), static=static,
            opcode_names=self.opcode_names, frame_bytes=frame_bytes, recursive=self.recursive,
            local_bytes=(self.local_bytes + 15) // 16 * 16,
            shared_static_bytes=0, dynamic_shared_align=16, param_bytes=top, param_offsets=offsets,
            params=list(self.kernel.params), pc_of_line=pc_of_line,
            line_of_pc=np.array(self.lines, dtype=np.int64), function_of_pc=self.fn_of_pc,
            has_printf=self.has_printf, uses_dynamic_shared=False, used_specials=used,
        )

    # -- emission -------------------------------------------------------------------------------
    def emit(self, fn: Function, ins: Instruction | None, op: int, opname: str, line: int,
             space: int = 0, width: int = 0) -> list[int]:
        row = [0] * NFIELDS
        row[F_OP] = op
        row[F_GUARD] = -1
        row[F_D] = -1
        row[F_D2] = -1
        row[F_AREG] = -1
        row[F_VEC] = 1
        row[F_RPC] = -1
        row[F_TARGET] = -1
        row[F_REGREC] = -1
        for k in range(4):
            row[F_V0 + k] = -1
        if ins is not None and ins.guard is not None:
            row[F_GUARD] = self.reg(fn, ins.guard.name, ins)
            row[F_GNEG] = 1 if ins.guard.negate else 0
        self.rows.append(row)
        if opname not in self.opcode_index:
            self.opcode_index[opname] = len(self.opcode_names)
            self.opcode_names.append(opname)
        cls = _OP_CLASS_OF.get(isa.OP_NAMES[op], "int")
        self.static_rows.append([cls, space, width, self.opcode_index[opname], [], [], line])
        self.lines.append(line)
        self.fn_of_pc.append(fn.name)
        return row

    def finish_static(self, row: list[int], float_class: str | None = None) -> None:
        st = self.static_rows[-1]
        dsts = [r for r in (row[F_D], row[F_D2]) if r >= 0]
        srcs = [row[v] for k, v in ((F_AK, F_AV), (F_BK, F_BV), (F_CK, F_CV), (F_DK, F_DV)) if row[k] == K_REG]
        if row[F_AREG] >= 0:
            srcs.append(row[F_AREG])
        op = row[F_OP]
        vec_regs = [row[F_V0 + k] for k in range(row[F_VEC]) if row[F_V0 + k] >= 0]
        if op == isa.OP_LD or (op == isa.OP_ATOM and row[F_VEC] > 1):
            dsts.extend(vec_regs)
        elif op in (isa.OP_ST, isa.OP_RED, isa.OP_ATOM) or op in (isa.OP_PACK,):
            srcs.extend(vec_regs)
        elif op == isa.OP_UNPACK:
            dsts.extend(vec_regs)
        st[4] = dsts
        st[5] = srcs
        if float_class is not None:
            st[0] = float_class

    # -- operands -------------------------------------------------------------------------------
    def src(self, fn: Function, ins: Instruction, op, tcode: int) -> tuple[int, int]:
        """(kind, value) of a source operand."""
        if op is None:
            return K_NONE, 0
        if isinstance(op, Reg):
            if op.name == "_":
                return K_NONE, 0
            return K_REG, self.reg(fn, op.name, ins)
        if isinstance(op, Imm):
            return K_IMM, _imm_bits(op, tcode)
        if isinstance(op, Special):
            if op.name in self.reg_ids:
                return K_REG, self.reg_ids[op.name]
            raise UnsupportedPTX(f"special register {op.name}", self.kernel.name, ins.line, ins.full)
        if isinstance(op, Sym):
            return K_IMM, self.symbol_address(fn, op.name, ins)
        if isinstance(op, Addr) and isinstance(op.base, Sym):
            return K_IMM, self.symbol_address(fn, op.base.name, ins) + op.offset
        raise UnsupportedPTX(f"operand {op!r} of {ins.full}", self.kernel.name, ins.line, ins.full)

    def dst(self, fn: Function, ins: Instruction, op) -> int:
        if isinstance(op, Reg):
            return -1 if op.name == "_" else self.reg(fn, op.name, ins)
        raise UnsupportedPTX(f"destination {op!r} of {ins.full}", self.kernel.name, ins.line, ins.full)

    def symbol_address(self, fn: Function, name: str, ins: Instruction) -> int:
        """The address of a variable in its own state space."""
        for scope in (fn, self.kernel):
            if (scope.name, name) in self.frame:
                slot = self.frame[(scope.name, name)]
                var = _find_var(scope, name)
                if var is not None and var.space == "local":
                    return slot.offset
                return isa.PFRAME_TAG + slot.offset
        if fn.is_entry:
            for i, p in enumerate(fn.params):
                if p.name == name:
                    return self._param_offset(i)
        if name in self.shared_layout:
            return self.shared_layout[name]
        if name in self.symbols:
            return self.symbols[name]
        if name == "WARP_SZ":  # PTX's predefined constant (cuda_fp16.hpp's shuffles use it)
            return 32
        raise UnsupportedPTX(f"unknown symbol {name!r}", self.kernel.name, ins.line, ins.full)

    def _param_offset(self, index: int) -> int:
        top = 0
        for i, p in enumerate(self.kernel.params):
            al = p.alignment
            top = (top + al - 1) // al * al
            if i == index:
                return top
            top += p.size
        raise IndexError(index)

    def address(self, fn: Function, ins: Instruction, op, row: list[int]) -> None:
        if not isinstance(op, Addr):
            raise UnsupportedPTX(f"expected an address operand, got {op!r}", self.kernel.name, ins.line, ins.full)
        off = op.offset
        if isinstance(op.base, Reg):
            row[F_AREG] = self.reg(fn, op.base.name, ins)
        elif isinstance(op.base, Sym):
            off += self.symbol_address(fn, op.base.name, ins)
        row[F_AOFF] = off

    # -- instructions ---------------------------------------------------------------------------
    def decode_instruction(self, fn: Function, ins: Instruction, pending: list, pending_calls: list) -> None:
        name = ins.opcode
        try:
            handler = getattr(self, f"d_{name}", None)
            if handler is None:
                if name in isa.OPCODES and isa.OPCODES[name] < isa.ALU_LIMIT:
                    handler = self.d_alu
                else:
                    raise UnsupportedPTX(f"opcode {ins.full!r}", self.kernel.name, ins.line, ins.full)
            handler(fn, ins, pending, pending_calls)
        except UnsupportedPTX:
            raise
        except (IndexError, KeyError, ValueError) as exc:
            raise UnsupportedPTX(
                f"cannot decode {ins.full!r} ({exc})", self.kernel.name, ins.line, ins.full
            ) from exc

    def _types(self, ins: Instruction) -> list[int]:
        return [isa.TYPE_CODE[m] for m in ins.mods if m in isa.TYPE_CODE]

    def _aux(self, ins: Instruction) -> int:
        aux = 0
        for m in ins.mods:
            if m in isa.RND_CODE:
                aux = (aux & ~isa.RND_MASK) | isa.RND_CODE[m]
            elif m == "ftz":
                aux |= A_FTZ
            elif m == "sat":
                aux |= A_SAT
            elif m == "satfinite":
                aux |= isa.A_SATFINITE
            elif m == "approx":
                aux |= A_APPROX
            elif m == "full":
                aux |= A_FULL
            elif m == "hi":
                aux |= isa.MUL_HI << MUL_SHIFT
            elif m == "wide":
                aux |= isa.MUL_WIDE << MUL_SHIFT
            elif m == "cc":
                aux |= A_CC
            elif m == "relu":
                aux |= A_RELU
            elif m == "NaN":
                aux |= A_NAN
            elif m == "clamp":
                aux |= A_CLAMP
            elif m == "shiftamt":
                aux |= A_SHIFTAMT
            elif m == "xorsign":
                aux |= A_XORSIGN
            elif m == "abs":
                aux |= A_ABS
        return aux

    def d_alu(self, fn, ins, pending, pending_calls, as_op: str | None = None) -> None:
        """An ALU instruction; ``as_op``: decode it as this internal opcode (cvt.pack, the SIMD video ops)."""
        name = as_op or ins.opcode
        if as_op is None and name in _INTERNAL_OPS:
            raise UnsupportedPTX(f"opcode {ins.full!r}", self.kernel.name, ins.line, ins.full)
        types = self._types(ins)
        if not types and name not in ("fns",):
            raise UnsupportedPTX(f"{ins.full!r} without a type", self.kernel.name, ins.line, ins.full)
        t = types[-1] if types else isa.T_B32
        if (name in _FLOAT_ONLY_OPS and t not in isa.FLOAT_TYPES) or \
                (name in _INT_ONLY_OPS and any(x in isa.FLOAT_TYPES for x in types)):
            raise UnsupportedPTX(f"{ins.full!r}: type not allowed for {name}", self.kernel.name, ins.line, ins.full)
        t2 = types[0] if len(types) > 1 else t
        aux = self._aux(ins)
        sub = 0
        if name in ("setp", "set"):
            cmps = [m for m in ins.mods if m in isa.CMP_CODE]
            if not cmps:
                raise UnsupportedPTX(f"{ins.full}: no comparison", self.kernel.name, ins.line, ins.full)
            aux |= isa.CMP_CODE[cmps[0]] << CMP_SHIFT
            bools = [m for m in ins.mods if m in isa.BOOL_CODE]
            if bools:
                aux |= isa.BOOL_CODE[bools[0]] << BOOL_SHIFT
            if name == "set":
                t, t2 = types[0], types[-1]  # set.cmp.dtype.stype: t = destination type, t2 = source
            else:
                t2 = t
        elif name == "testp":
            ops = [m for m in ins.mods if m in isa.TESTP_OPS]
            sub = isa.TESTP_OPS[ops[0]]
        elif name == "prmt":
            modes = [m for m in ins.mods if m in isa.PRMT_MODES]
            sub = isa.PRMT_MODES[modes[0]] if modes else 0
        elif name == "shf":
            if "l" in ins.mods:
                aux |= A_LEFT
            if "clamp" in ins.mods:
                aux |= A_CLAMP
        elif name == "cvt" and "pack" in ins.mods:
            self.d_alu(fn, ins, pending, pending_calls, as_op="cvtpack")
            return
        elif name == "cvtpack":
            if types[0] not in (isa.T_U8, isa.T_S8, isa.T_U16, isa.T_S16) or types[1] != isa.T_S32 \
                    or "sat" not in ins.mods:
                raise UnsupportedPTX(f"{ins.full}: cvt.pack.sat to u8/s8/u16/s16 from s32 is supported",
                                     self.kernel.name, ins.line, ins.full)
            t, t2 = types[0], types[1]  # the packed type, the sources' type
        elif name == "cvt":
            if len(types) != 2:
                raise UnsupportedPTX(f"{ins.full}: cvt needs two types", self.kernel.name, ins.line, ins.full)
            t, t2 = types[0], types[1]  # destination, source
        elif name == "cvta":
            spaces = [m for m in ins.mods if m in isa.SPACE_CODE]
            sub = (isa.SPACE_CODE[spaces[0]] if spaces else 0) | (16 if "to" in ins.mods else 0)
        elif name == "slct":
            t, t2 = types[0], types[1]
        elif name in ("mul", "mad") and (aux >> MUL_SHIFT) & 3 == 0 and t not in isa.FLOAT_TYPES:
            pass
        elif name in ("add", "sub", "mad") and "cc" in ins.mods:
            pass
        if name in ("addc", "subc", "madc"):
            pass
        ops = ins.operands
        row = self.emit(fn, ins, isa.OPCODES[name], ins.full, ins.line)
        row[F_TYPE] = t
        row[F_TYPE2] = t2
        # destination(s)
        first = ops[0]
        if isinstance(first, PredPair):
            row[F_D] = self.dst(fn, ins, first.first)
            row[F_D2] = self.dst(fn, ins, first.second) if first.second is not None else -1
        elif isinstance(first, Vec) and name == "mov":
            # mov.b64 %rd, {%r1, %r2} packs; mov.b32 {%h1, %h2}, %r unpacks
            items = first.items
            row[F_OP] = isa.OP_UNPACK
            row[F_VEC] = len(items)
            for k, it in enumerate(items):
                row[F_V0 + k] = -1 if it is None else self.dst(fn, ins, it)
            row[F_AK], row[F_AV] = self.src(fn, ins, ops[1], t)
            self.finish_static(row)
            return
        else:
            row[F_D] = self.dst(fn, ins, first)
        srcs = ops[1:]
        if name == "mov" and srcs and isinstance(srcs[0], Vec):
            items = srcs[0].items
            row[F_OP] = isa.OP_PACK
            row[F_VEC] = len(items)
            for k, it in enumerate(items):
                if isinstance(it, Imm):  # {0, %rs3}: an immediate element, encoded -2 - value
                    if it.float_bits is not None or not isinstance(it.value, int) or it.value < 0:
                        raise UnsupportedPTX(f"immediate {it!r} in a vector pack", self.kernel.name, ins.line,
                                             ins.full)
                    row[F_V0 + k] = -2 - it.value
                    continue
                row[F_V0 + k] = -1 if it is None else self.dst(fn, ins, it)
            self.finish_static(row)
            return
        if name == "mov" and srcs and isinstance(srcs[0], Special) and srcs[0].name in DYNAMIC_SPECIALS:
            row[F_OP] = isa.OP_CLOCK
            aux |= DYNAMIC_SPECIALS[srcs[0].name] << SUB_SHIFT
            row[F_AUX] = aux
            self.finish_static(row)
            return
        if name == "mov" and srcs and isinstance(srcs[0], Special) and srcs[0].name.startswith("%envreg") \
                and srcs[0].name not in self.reg_ids:
            raise UnsupportedPTX(f"{srcs[0].name}: of the driver's environment registers, only %envreg1/2 (the "
                                 "grid-sync workspace of cooperative groups' this_grid().sync()) are provided",
                                 self.kernel.name, ins.line, ins.full)
        if name == "mov" and srcs and isinstance(srcs[0], Special) and srcs[0].name not in self.reg_ids:
            raise UnsupportedPTX(f"special register {srcs[0].name}", self.kernel.name, ins.line, ins.full)
        src_types = [t2 if name == "cvt" else t] * 4
        if name == "cvtpack":
            src_types = [isa.T_S32, isa.T_S32, isa.T_B32, isa.T_B32]
        if name in ("mul", "mad") and (aux >> MUL_SHIFT) & 3 == isa.MUL_WIDE and len(srcs) == 3:
            src_types[2] = _widened(t)
        if name in ("shl", "shr", "bfe", "bfi") or (name == "shf"):
            src_types[1] = isa.T_U32
            src_types[2] = isa.T_U32
            src_types[3] = isa.T_U32
            if name == "bfi":
                src_types[1] = t
        if name == "selp":
            src_types[2] = isa.T_PRED
        if name == "slct":
            src_types[2] = t2
            src_types[0] = src_types[1] = t
        if name in ("setp", "set") and len(srcs) == 3:
            src_types[2] = isa.T_PRED
        if name == "prmt":
            src_types = [isa.T_B32] * 4
        if name == "copysign":
            pass
        for k, (kf, vf) in enumerate(((F_AK, F_AV), (F_BK, F_BV), (F_CK, F_CV), (F_DK, F_DV))):
            if k < len(srcs):
                s = srcs[k]
                if isinstance(s, Reg) and s.negate:
                    # !%p source: encode as negate flag in the high bit of the kind
                    kind, val = self.src(fn, ins, Reg(s.name), src_types[k])
                    row[kf], row[vf] = kind | 8, val
                else:
                    row[kf], row[vf] = self.src(fn, ins, s, src_types[k])
        if name in ("add", "sub", "mad") and "cc" in ins.mods:
            row[F_D2] = self.reg_ids[CARRY_REG]
        if name == "cvt" and t in isa.SIGNED_TYPES and row[F_D] >= 0 \
                and self.reg_bits[row[F_D]] > isa.TYPE_BITS[t]:
            aux |= isa.A_SEXT_DST | (isa.A_DST64 if self.reg_bits[row[F_D]] == 64 else 0)
        row[F_AUX] = aux | (sub << SUB_SHIFT)
        fclass = None
        if t in (isa.T_F32,) and name not in ("cvt", "mov", "setp", "set", "selp", "slct", "cvta") \
                and name not in ("rcp", "sqrt", "rsqrt", "sin", "cos", "ex2", "lg2", "tanh", "div"):
            fclass = "fp32"
        elif t == isa.T_F64 and name not in ("cvt", "mov", "setp", "set", "selp"):
            fclass = "fp64"
        elif t in (isa.T_F16, isa.T_F16X2, isa.T_BF16, isa.T_BF16X2) and name not in ("cvt", "mov"):
            fclass = "fp16"
        if name == "div" and t in (isa.T_F32, isa.T_F64) and not (aux & A_APPROX):
            fclass = "fdiv" if t == isa.T_F32 else "fp64"
        elif name == "div" and t == isa.T_F32:
            fclass = "sfu"
        row[isa.F_FAST] = _fast_kind(row)
        self.finish_static(row, fclass)

    def d_vsimd(self, fn, ins, pending, pending_calls) -> None:
        """vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4, vmin2/4, vmax2/4, vset2/4 with the default selectors and
        mask (what nvcc emits for the SIMD intrinsics); an explicit selector or mask is refused."""
        base, lanes = ins.opcode[:-1], ins.opcode[-1]
        types = self._types(ins)
        want = 2 if base == "vset" else 3
        if len(types) != want or any(x not in (isa.T_U32, isa.T_S32) for x in types) or len(ins.operands) != 4:
            raise UnsupportedPTX(f"{ins.full}: expected {want} .u32/.s32 types and operands d, a, b, c",
                                 self.kernel.name, ins.line, ins.full)
        if not all(isinstance(o, (Reg, Imm)) for o in ins.operands):
            raise UnsupportedPTX(f"{ins.full}: byte/half-word selectors and masks", self.kernel.name, ins.line,
                                 ins.full)
        self.d_alu(fn, ins, pending, pending_calls, as_op="vsimd")
        row = self.rows[-1]
        row[F_TYPE], row[F_TYPE2] = types[-2], types[-1]  # a's and b's element types
        aux = row[F_AUX] | (isa.VSIMD_OPS[base] << SUB_SHIFT)
        if lanes == "4":
            aux |= isa.A_VIDEO_QUAD
        if "add" in ins.mods:
            aux |= isa.A_VIDEO_ADD
        if base == "vset":
            cmps = [m for m in ins.mods if m in ("eq", "ne", "lt", "le", "gt", "ge")]
            if not cmps:
                raise UnsupportedPTX(f"{ins.full}: no comparison", self.kernel.name, ins.line, ins.full)
            aux |= isa.CMP_CODE[cmps[0]] << CMP_SHIFT
        elif types[0] == isa.T_S32:
            aux |= isa.A_VIDEO_DSIGNED
        row[F_AUX] = aux

    d_vadd2 = d_vadd4 = d_vsub2 = d_vsub4 = d_vavrg2 = d_vavrg4 = d_vsimd
    d_vabsdiff2 = d_vabsdiff4 = d_vmin2 = d_vmin4 = d_vmax2 = d_vmax4 = d_vset2 = d_vset4 = d_vsimd

    # add.cc / addc / subc / madc share the ALU path
    def d_addc(self, fn, ins, pending, pending_calls) -> None:
        self._carry_op(fn, ins, "add")

    def d_subc(self, fn, ins, pending, pending_calls) -> None:
        self._carry_op(fn, ins, "sub")

    def d_madc(self, fn, ins, pending, pending_calls) -> None:
        self._carry_op(fn, ins, "mad")

    def _carry_op(self, fn: Function, ins: Instruction, base: str) -> None:
        fake = Instruction(base, ins.mods, ins.operands, ins.guard, ins.line, ins.text)
        self.d_alu(fn, fake, [], [])
        row = self.rows[-1]
        row[F_AUX] |= A_CARRY_IN
        if "cc" in ins.mods:
            row[F_D2] = self.reg_ids[CARRY_REG]
        row[F_DK], row[F_DV] = K_REG, self.reg_ids[CARRY_REG]
        row[isa.F_FAST] = _fast_kind(row)  # d_alu classified it before the carry-in was attached
        self.static_rows[-1][3] = self._opname(ins.full)

    def _opname(self, name: str) -> int:
        if name not in self.opcode_index:
            self.opcode_index[name] = len(self.opcode_names)
            self.opcode_names.append(name)
        return self.opcode_index[name]

    def _space(self, ins: Instruction) -> int:
        if "shared::cluster" in ins.mods:
            raise UnsupportedPTX("distributed shared memory (.shared::cluster)", self.kernel.name, ins.line, ins.full)
        for m in ins.mods:
            if m in isa.SPACE_CODE:
                return isa.SPACE_CODE[m]
        return isa.SP_GENERIC

    def _vec(self, ins: Instruction) -> int:
        for m in ins.mods:
            if m in ("v2", "v4", "v8"):
                return int(m[1:])
        return 1

    def d_ld(self, fn, ins, pending, pending_calls) -> None:
        space = self._space(ins)
        types = self._types(ins)
        if not types:
            raise UnsupportedPTX(f"{ins.full} without a type", self.kernel.name, ins.line, ins.full)
        t = types[-1]
        vec = self._vec(ins)
        size = isa.TYPE_BITS[t] // 8
        if t == isa.T_B128:
            raise UnsupportedPTX("128-bit loads", self.kernel.name, ins.line, ins.full)
        row = self.emit(fn, ins, isa.OP_LD, ins.full, ins.line, space, size * vec)
        row[F_TYPE] = t
        row[F_SPACE] = space
        row[F_WIDTH] = size
        row[F_VEC] = vec
        d = ins.operands[0]
        if isinstance(d, Vec):
            if len(d.items) != vec:
                raise UnsupportedPTX(f"{ins.full}: {len(d.items)} elements for .v{vec}", self.kernel.name, ins.line)
            for k, it in enumerate(d.items):
                row[F_V0 + k] = -1 if it is None else self.dst(fn, ins, it)
        else:
            row[F_V0] = self.dst(fn, ins, d)
        self.address(fn, ins, ins.operands[1], row)
        self.finish_static(row)

    d_ldu = d_ld

    # -- cp.async (sm_80): the copy completes when issued, so committing and waiting are no-ops --------
    def _temp(self, fn: Function, name: str, bits: int) -> Reg:
        """A decoder-made register of ``fn`` (not in the PTX), created on first use."""
        key = f"{fn.name}::__ndpgpu_{name}"
        if key not in self.reg_ids:
            self._new_reg(key, bits)
        return Reg(f"__ndpgpu_{name}")

    def d_cp(self, fn, ins, pending, pending_calls) -> None:
        mods = ins.mods
        if "async" not in mods:
            raise UnsupportedPTX(f"opcode {ins.full!r}", self.kernel.name, ins.line, ins.full)
        if {"commit_group", "wait_group", "wait_all"} & set(mods):
            row = self.emit(fn, ins, isa.OP_NOP, ins.full, ins.line)
            self.finish_static(row)
            return
        if "mbarrier" in mods and "arrive" in mods and "bulk" not in mods:
            # the copies are complete already: the default form's +1 and arrival cancel; .noinc is an arrival
            if "noinc" in mods:
                self._emit(fn, ins, "mbarrier", ("arrive", "shared", "b64"), [Reg("_"), ins.operands[0]])
            else:
                row = self.emit(fn, ins, isa.OP_NOP, ins.full, ins.line)
                self.finish_static(row)
            return
        if {"bulk", "mbarrier", "tensor"} & set(mods) or not any(m.startswith("shared") for m in mods) \
                or "global" not in mods:
            raise UnsupportedPTX(f"{ins.full}: only cp.async.{{ca,cg}}.shared.global is supported (not the "
                                 "bulk, tensor or mbarrier forms)", self.kernel.name, ins.line, ins.full)
        dst, src, size_op, *rest = ins.operands
        if any(m.endswith("cache_hint") for m in mods) and rest:
            rest = rest[:-1]  # the cache policy: a hint
        if not isinstance(size_op, Imm) or size_op.value not in (4, 8, 16):
            raise UnsupportedPTX(f"{ins.full}: cp-size must be 4, 8 or 16", self.kernel.name, ins.line, ins.full)
        cp = int(size_op.value)
        words = cp // 4
        extra = rest[0] if rest else None
        ignore = None  # the ignore-src predicate: zeros are written instead of the source
        if isinstance(extra, Reg) and self.reg_bits[self.reg(fn, extra.name, ins)] == 1:
            ignore, extra = extra, None
        guard = ins.guard
        plain = Instruction(ins.opcode, ins.mods, ins.operands, None, ins.line, ins.text)  # guards given each time

        def emit(opcode: str, mods_: tuple[str, ...], operands: list, g: Reg | None) -> None:
            self._emit(fn, plain, opcode, mods_, operands, g)

        def at(addr: Addr, off: int) -> Addr:
            return Addr(addr.base, addr.offset + off)

        temps = [self._temp(fn, f"cpa{k}", 32) for k in range(words)]
        vec = ("v" + str(words),) if words > 1 else ()
        stored = Vec(tuple(temps)) if words > 1 else temps[0]
        if isinstance(extra, Imm) and extra.value < cp:  # zero-fill past src-size bytes (nvcc's lowering)
            n = max(0, int(extra.value))
            byte = self._temp(fn, "cpab", 32)
            for k in range(words):
                if 4 * k + 4 <= n:
                    emit("ld", ("global", "b32"), [temps[k], at(src, 4 * k)], guard)
                    emit("st", ("shared", "b32"), [at(dst, 4 * k), temps[k]], guard)
                    continue
                for j in range(4):
                    if 4 * k + j < n:
                        emit("ld", ("global", "u8"), [byte, at(src, 4 * k + j)], guard)
                        emit("st", ("shared", "u8"), [at(dst, 4 * k + j), byte], guard)
                    else:
                        emit("st", ("shared", "u8"), [at(dst, 4 * k + j), Imm(0)], guard)
            return
        if extra is None and ignore is None:
            emit("ld", ("global", *vec, "b32"), [stored, src], guard)
            emit("st", ("shared", *vec, "b32"), [dst, stored], guard)
            return
        # a register src-size (words below it are copied, the rest zero) or an ignore-src predicate
        load = self._temp(fn, "cpap", 1)
        if isinstance(extra, Reg):
            low = self._temp(fn, "cpam", 32)
            emit("and", ("b32",), [low, extra, Imm(3)], guard)
            emit("setp", ("ne", "u32"), [load, low, Imm(0)], guard)
            emit("trap", (), [], load)  # sub-word sizes: refused at run time (isa.TRAP_CP_ASYNC)
            self.rows[-1][F_AUX] = isa.TRAP_CP_ASYNC << SUB_SHIFT
        for k in range(words):
            emit("mov", ("b32",), [temps[k], Imm(0)], guard)
            if isinstance(extra, Reg):
                emit("setp", ("ge", "u32"), [load, extra, Imm(4 * k + 4)], guard)
            else:
                emit("not", ("pred",), [load, ignore], guard)
            if guard is not None:
                emit("and", ("pred",), [load, load, guard], None)
            emit("ld", ("global", "b32"), [temps[k], at(src, 4 * k)], load)
        emit("st", ("shared", *vec, "b32"), [dst, stored], guard)

    def d_st(self, fn, ins, pending, pending_calls) -> None:
        space = self._space(ins)
        types = self._types(ins)
        t = types[-1]
        vec = self._vec(ins)
        size = isa.TYPE_BITS[t] // 8
        row = self.emit(fn, ins, isa.OP_ST, ins.full, ins.line, space, size * vec)
        row[F_TYPE] = t
        row[F_SPACE] = space
        row[F_WIDTH] = size
        row[F_VEC] = vec
        self.address(fn, ins, ins.operands[0], row)
        v = ins.operands[1]
        items = v.items if isinstance(v, Vec) else (v,)
        for k, it in enumerate(items):
            if isinstance(it, Reg):
                row[F_V0 + k] = self.reg(fn, it.name, ins)
            elif isinstance(it, Imm):
                # an immediate stored: materialise it through the b operand (scalar stores only)
                if vec != 1:
                    raise UnsupportedPTX("vector store of immediates", self.kernel.name, ins.line, ins.full)
                row[F_BK], row[F_BV] = K_IMM, _imm_bits(it, t)
            else:
                raise UnsupportedPTX(f"stored value {it!r}", self.kernel.name, ins.line, ins.full)
        self.finish_static(row)

    def _atomic(self, fn, ins, op: int) -> None:
        space = self._space(ins)
        types = self._types(ins)
        t = types[-1]
        opnames = [m for m in ins.mods if m in isa.ATOM_OPS]
        if not opnames:
            raise UnsupportedPTX(f"{ins.full}: unknown atomic operation", self.kernel.name, ins.line, ins.full)
        if self._vec(ins) != 1 or t == isa.T_B128:  # f16x2 / bf16x2: one 32-bit atomic, two lane-wise adds
            raise UnsupportedPTX(f"vector atomics {ins.full}", self.kernel.name, ins.line, ins.full)
        size = isa.TYPE_BITS[t] // 8
        row = self.emit(fn, ins, op, ins.full, ins.line, space, size)
        row[F_TYPE] = t
        row[F_SPACE] = space
        row[F_WIDTH] = size
        row[F_AUX] = isa.ATOM_OPS[opnames[0]] << SUB_SHIFT
        ops = ins.operands
        if op == isa.OP_ATOM:
            row[F_D] = self.dst(fn, ins, ops[0])
            ops = ops[1:]
        self.address(fn, ins, ops[0], row)
        row[F_BK], row[F_BV] = self.src(fn, ins, ops[1], t)
        if len(ops) > 2:
            row[F_CK], row[F_CV] = self.src(fn, ins, ops[2], t)
        self.finish_static(row)

    # -- tensor cores: mma.sync, wmma, ldmatrix -------------------------------------------------------
    # Fragments follow the PTX ISA's mma.m16n8k16 layouts (groupID g = lane / 4, t = lane % 4); a wmma
    # m16n16k16 fragment is two n=8 halves side by side (its opaque layout; registers 4-7 of an A or B
    # fragment repeat 0-3). The multiply runs on the whole warp at once (isa.OP_MMA) on fragment registers
    # gathered into contiguous decoder registers; wmma.load/store and ldmatrix become per-lane accesses.
    def _emit(self, fn: Function, ins: Instruction, opcode: str, mods_: tuple[str, ...], operands: list,
              guard: Reg | None = None) -> None:
        """Decode a decoder-made instruction in place of ``ins`` (same line, same guard unless given)."""
        g = ins.guard if guard is None else guard
        self.decode_instruction(fn, Instruction(opcode, mods_, operands, g, ins.line, ins.text), [], [])

    def _mma_blocks(self, fn: Function) -> dict[str, list[Reg]]:
        """Eight contiguous decoder registers each for the A, B, C and D fragments of OP_MMA."""
        return {k: [self._temp(fn, f"mma{k}{i}", 32) for i in range(8)] for k in "ABCD"}

    def _mma(self, fn, ins, shape: int, tin: int, td: int, tc: int, a, b, c, d) -> None:
        blocks = self._mma_blocks(fn)
        for key, regs in (("A", a), ("B", b), ("C", c)):
            for tmp, r in zip(blocks[key], regs, strict=False):
                self._emit(fn, ins, "mov", ("b32",), [tmp, r])
        row = self.emit(fn, ins, isa.OP_MMA, ins.full, ins.line)
        row[F_TYPE], row[F_TYPE2] = tin, td
        row[F_AUX] = (shape << SUB_SHIFT) | (tc << CMP_SHIFT)
        base = {k: self.reg(fn, v[0].name, ins) for k, v in blocks.items()}
        row[F_AK], row[F_AV] = K_REG, base["A"]
        row[F_BK], row[F_BV] = K_REG, base["B"]
        row[F_CK], row[F_CV] = K_REG, base["C"]
        row[F_D] = base["D"]
        self.finish_static(row)
        for r, tmp in zip(d, blocks["D"], strict=False):
            self._emit(fn, ins, "mov", ("b32",), [r, tmp])

    @staticmethod
    def _items(op) -> list:
        return list(op.items) if isinstance(op, Vec) else [op]

    def d_mma(self, fn, ins, pending, pending_calls) -> None:
        mods = ins.mods
        shape = next((isa.MMA_SHAPES[m] for m in mods if m in isa.MMA_SHAPES and m != "m16n16k16"), 0)
        types = self._types(ins)
        ok = (shape and len(types) == 4 and types[1] == types[2] and types[1] in (isa.T_F16, isa.T_BF16)
              and types[0] in (isa.T_F32, isa.T_F16) and types[3] in (isa.T_F32, isa.T_F16)
              and "row" in mods and "col" in mods and "sync" in mods)
        if not ok:
            raise UnsupportedPTX(f"{ins.full}: mma.sync m16n8k16 and m16n8k8 .row.col on f16 or bf16 inputs with "
                                 "f32 or f16 accumulators are supported", self.kernel.name, ins.line, ins.full)
        d, a, b, c = (self._items(o) for o in ins.operands)
        self._mma(fn, ins, shape, types[1], types[0], types[3], a, b, c, d)

    def _lane_coords(self, fn, ins) -> tuple[Reg, Reg]:
        """Registers holding g = lane / 4 and 2 * (lane % 4) for this warp's lanes."""
        lane, g, t2 = self._temp(fn, "lane", 32), self._temp(fn, "lg", 32), self._temp(fn, "lt2", 32)
        self._emit(fn, ins, "mov", ("u32",), [lane, Special("%laneid")])
        self._emit(fn, ins, "shr", ("u32",), [g, lane, Imm(2)])
        self._emit(fn, ins, "and", ("b32",), [t2, lane, Imm(3)])
        self._emit(fn, ins, "shl", ("b32",), [t2, t2, Imm(1)])
        return g, t2

    def _element_address(self, fn, ins, base: Addr, row_reg: Reg, row_add: int, col_reg: Reg, col_add: int,
                         stride, row_major: bool, esize: int) -> Addr:
        """The address of matrix element (row_reg + row_add, col_reg + col_add) at ``base`` with ``stride``
        elements between rows (row_major) or columns."""
        r, cc, off = self._temp(fn, "er", 32), self._temp(fn, "ec", 32), self._temp(fn, "eo", 32)
        self._emit(fn, ins, "add", ("u32",), [r, row_reg, Imm(row_add)])
        self._emit(fn, ins, "add", ("u32",), [cc, col_reg, Imm(col_add)])
        major, minor = (r, cc) if row_major else (cc, r)
        self._emit(fn, ins, "mad", ("lo", "u32"), [off, major, stride, minor])
        if not isinstance(base.base, Reg):
            raise UnsupportedPTX(f"{ins.full}: a register address is needed", self.kernel.name, ins.line, ins.full)
        if self.reg_bits[self.reg(fn, base.base.name, ins)] == 64:
            wide = self._temp(fn, "ew", 64)
            self._emit(fn, ins, "mul", ("wide", "u32"), [wide, off, Imm(esize)])
            self._emit(fn, ins, "add", ("s64",), [wide, wide, base.base])
            return Addr(wide, base.offset)
        self._emit(fn, ins, "mul", ("lo", "u32"), [off, off, Imm(esize)])
        self._emit(fn, ins, "add", ("u32",), [off, off, base.base])
        return Addr(off, base.offset)

    def _wmma_elements(self, which: str, ctype: int) -> list[tuple[int, int, int, int, bool]]:
        """(register, row from g or t2, row add, column add, pair) per fragment register of wmma.m16n16k16:
        the row and column are (g + row add, t2 + column add) for A, C and D, (t2 + row add, g + column add)
        for B; ``pair``: the register holds two 16-bit elements, the second one row (B) or column further."""
        if which == "a":
            return [(i, 0, 8 * (i & 1), 8 * (i >> 1), True) for i in range(4)]
        if which == "b":
            return [(j, 0, 8 * (j & 1), 8 * (j >> 1), True) for j in range(4)]
        if ctype == isa.T_F16:
            return [(j, 0, 8 * (j & 1), 8 * (j >> 1), True) for j in range(4)]
        return [(j, 0, 8 * ((j & 3) >> 1), (j & 1) + 8 * (j >> 2), False) for j in range(8)]

    def d_wmma(self, fn, ins, pending, pending_calls) -> None:
        mods = ins.mods
        types = self._types(ins)
        if "m16n16k16" not in mods or "sync" not in mods:
            raise UnsupportedPTX(f"{ins.full}: wmma m16n16k16 on f16/bf16 with f32/f16 accumulators is supported",
                                 self.kernel.name, ins.line, ins.full)
        if "mma" in mods:
            if len(types) == 2:  # dtype.ctype: f16 inputs
                td, tin, tc = types[0], isa.T_F16, types[1]
            elif len(types) == 4 and types[1] == types[2]:
                td, tin, tc = types[0], types[1], types[3]
            else:
                raise UnsupportedPTX(f"{ins.full}: types", self.kernel.name, ins.line, ins.full)
            if tin not in (isa.T_F16, isa.T_BF16) or td not in (isa.T_F32, isa.T_F16) \
                    or tc not in (isa.T_F32, isa.T_F16) or "satfinite" in mods:
                raise UnsupportedPTX(f"{ins.full}: f16/bf16 inputs, f32/f16 accumulators", self.kernel.name,
                                     ins.line, ins.full)
            d, a, b, c = (self._items(o) for o in ins.operands)
            self._mma(fn, ins, isa.MMA_SHAPES["m16n16k16"], tin, td, tc, a[:4], b[:4], c, d)
            return
        which = next((m for m in ("a", "b", "c", "d") if m in mods), "")
        etype = types[-1] if types else -1
        if not which or etype not in (isa.T_F16, isa.T_BF16, isa.T_F32) or (which in "ab" and etype == isa.T_F32):
            raise UnsupportedPTX(f"{ins.full}: wmma.load.a/b (f16, bf16) and load.c/store.d (f32, f16)",
                                 self.kernel.name, ins.line, ins.full)
        space = next((m for m in mods if m in ("global", "shared", "shared::cta")), None)
        space_mods = (space,) if space else ()
        row_major = "row" in mods
        store = "store" in mods
        regs_op, addr = (ins.operands[1], ins.operands[0]) if store else (ins.operands[0], ins.operands[1])
        regs = self._items(regs_op)
        stride = ins.operands[2] if len(ins.operands) > 2 else Imm(16)
        esize = 4 if etype == isa.T_F32 else 2
        g, t2 = self._lane_coords(fn, ins)
        lo, hi = self._temp(fn, "wlo", 32), self._temp(fn, "whi", 32)
        for reg_i, _, row_add, col_add, pair in self._wmma_elements(which, etype):
            rows_from_t = which == "b"  # B's row is k (from t2) and its column n (from g)
            rr, cr = (t2, g) if rows_from_t else (g, t2)
            first = self._element_address(fn, ins, addr, rr, row_add, cr, col_add, stride, row_major, esize)
            if not pair:
                op = ("st" if store else "ld")
                operands = [first, regs[reg_i]] if store else [regs[reg_i], first]
                self._emit(fn, ins, op, (*space_mods, "b32"), operands)
                continue
            # the second element is one column further (A, C, D) or one row further (B)
            contiguous = row_major != rows_from_t
            if contiguous:
                operands = [first, regs[reg_i]] if store else [regs[reg_i], first]
                self._emit(fn, ins, "st" if store else "ld", (*space_mods, "b32"), operands)
                continue
            if store:
                self._emit(fn, ins, "mov", ("b32",), [Vec((lo, hi)), regs[reg_i]])
                self._emit(fn, ins, "st", (*space_mods, "b16"), [first, lo])
            else:
                self._emit(fn, ins, "ld", (*space_mods, "u16"), [lo, first])
            # (the address registers are reused: the first element is accessed before the second's is made)
            second = self._element_address(fn, ins, addr, rr, row_add + (1 if rows_from_t else 0), cr,
                                           col_add + (0 if rows_from_t else 1), stride, row_major, esize)
            if store:
                self._emit(fn, ins, "st", (*space_mods, "b16"), [second, hi])
            else:
                self._emit(fn, ins, "ld", (*space_mods, "u16"), [hi, second])
                self._emit(fn, ins, "mov", ("b32",), [regs[reg_i], Vec((lo, hi))])
        if not store and which in "ab":
            for i in range(4, len(regs)):  # registers 4-7 repeat 0-3
                self._emit(fn, ins, "mov", ("b32",), [regs[i], regs[i - 4]])

    def d_ldmatrix(self, fn, ins, pending, pending_calls) -> None:
        """ldmatrix.m8n8.x1/x2/x4{.trans}.shared.b16: lanes 8i..8i+7 give the row addresses of matrix i; lane l
        receives row l / 4, columns 2(l % 4) and +1 (.trans: rows 2(l % 4) and +1 of column l / 4)."""
        mods = ins.mods
        count = next((int(m[1:]) for m in mods if m in ("x1", "x2", "x4")), 0)
        if "m8n8" not in mods or not count or "b16" not in mods:
            raise UnsupportedPTX(f"{ins.full}: ldmatrix.m8n8.x1/x2/x4.b16 is supported", self.kernel.name,
                                 ins.line, ins.full)
        dests = self._items(ins.operands[0])
        addr = ins.operands[1]
        if not isinstance(addr, Addr) or not isinstance(addr.base, Reg):
            raise UnsupportedPTX(f"{ins.full}: a register address is needed", self.kernel.name, ins.line, ins.full)
        lane, row, q = self._temp(fn, "lane", 32), self._temp(fn, "lmr", 32), self._temp(fn, "lmq", 32)
        src, a32, mine = self._temp(fn, "lms", 32), self._temp(fn, "lma", 32), self._temp(fn, "lmm", 32)
        lo, hi = self._temp(fn, "wlo", 32), self._temp(fn, "whi", 32)
        self._emit(fn, ins, "mov", ("u32",), [lane, Special("%laneid")])
        self._emit(fn, ins, "shr", ("u32",), [row, lane, Imm(2)])
        self._emit(fn, ins, "and", ("b32",), [q, lane, Imm(3)])
        if self.reg_bits[self.reg(fn, addr.base.name, ins)] == 64:  # a shared address fits in 32 bits
            self._emit(fn, ins, "cvt", ("u32", "u64"), [mine, addr.base])
        else:
            self._emit(fn, ins, "mov", ("b32",), [mine, addr.base])
        trans = "trans" in mods
        for i in range(count):
            if not trans:
                self._emit(fn, ins, "add", ("u32",), [src, row, Imm(8 * i)])
                self._emit(fn, ins, "shfl", ("sync", "idx", "b32"), [a32, mine, src, Imm(31), Imm(0xFFFFFFFF)])
                self._emit(fn, ins, "mad", ("lo", "u32"), [a32, q, Imm(4), a32])
                self._emit(fn, ins, "ld", ("shared", "b32"), [dests[i], Addr(a32, addr.offset)])
                continue
            for half, part in ((0, lo), (1, hi)):  # rows 2q and 2q+1, column `row`
                self._emit(fn, ins, "mad", ("lo", "u32"), [src, q, Imm(2), Imm(8 * i + half)])
                self._emit(fn, ins, "shfl", ("sync", "idx", "b32"), [a32, mine, src, Imm(31), Imm(0xFFFFFFFF)])
                self._emit(fn, ins, "mad", ("lo", "u32"), [a32, row, Imm(2), a32])
                self._emit(fn, ins, "ld", ("shared", "u16"), [part, Addr(a32, addr.offset)])
            self._emit(fn, ins, "mov", ("b32",), [dests[i], Vec((lo, hi))])

    def d_mbarrier(self, fn, ins, pending, pending_calls) -> None:
        """mbarrier.init / arrive / arrive_drop / test_wait / try_wait (and .parity) / pending_count / inval on
        a .shared .b64 object, lowered to shared-memory loads, stores and an atomic (``isa.MBAR_*`` layout).
        The transaction-count forms (expect_tx, complete_tx: TMA, sm_90) are refused."""
        mods = set(ins.mods)
        if {"expect_tx", "complete_tx", "noComplete"} & mods or \
                not ("pending_count" in mods or any(m.startswith("shared") for m in mods)):
            raise UnsupportedPTX(f"{ins.full}: the shared-memory mbarrier without transaction counts is supported",
                                 self.kernel.name, ins.line, ins.full)
        ops = ins.operands

        def emit(opcode: str, mods_: tuple[str, ...], operands: list) -> None:
            self._emit(fn, ins, opcode, mods_, operands)

        word = self._temp(fn, "mbw", 64)
        if "init" in mods:  # pending = expected = count, phase 0
            count = ops[1]
            if isinstance(count, Imm):
                emit("st", ("shared", "b64"), [ops[0], Imm((int(count.value) << isa.MBAR_EXPECTED_SHIFT)
                                                           | int(count.value))])
                return
            hi = self._temp(fn, "mbh", 64)
            emit("cvt", ("u64", "u32"), [word, count])
            emit("shl", ("b64",), [hi, word, Imm(isa.MBAR_EXPECTED_SHIFT)])
            emit("or", ("b64",), [word, word, hi])
            emit("st", ("shared", "b64"), [ops[0], word])
            return
        if "inval" in mods:
            emit("st", ("shared", "b64"), [ops[0], Imm(0)])
            return
        if "arrive" in mods or "arrive_drop" in mods:
            kind = "mbarrier_arrive_drop" if "arrive_drop" in mods else "mbarrier_arrive"
            state, addr = ops[0], ops[1]
            count = ops[2] if len(ops) > 2 else Imm(1)
            if isinstance(state, Reg) and state.name == "_":
                state = word  # the state is not kept
            emit("atom", ("shared", kind, "b64"), [state, addr, count])
            return
        if "test_wait" in mods or "try_wait" in mods:
            p, addr, token = ops[0], ops[1], ops[2]  # try_wait's time-limit hint, if any, does not matter here
            emit("ld", ("shared", "b64"), [word, addr])
            if "parity" in mods:  # complete once the phase of that parity is over: the parity bit differs
                emit("shr", ("b64",), [word, word, Imm(isa.MBAR_PHASE_SHIFT)])
                emit("setp", ("ne", "b64"), [p, word, token])
            else:  # the state from arrive holds the phase at arrival
                emit("xor", ("b64",), [word, word, token])
                emit("shr", ("b64",), [word, word, Imm(isa.MBAR_PHASE_SHIFT)])
                emit("setp", ("ne", "b64"), [p, word, Imm(0)])
            return
        if "pending_count" in mods:  # from a state: the arrivals still pending when it was taken
            emit("and", ("b64",), [word, ops[1], Imm(isa.MBAR_COUNT_MASK)])
            emit("cvt", ("u32", "u64"), [ops[0], word])
            return
        raise UnsupportedPTX(f"opcode {ins.full!r}", self.kernel.name, ins.line, ins.full)

    def d_atom(self, fn, ins, pending, pending_calls) -> None:
        self._atomic(fn, ins, isa.OP_ATOM)

    def d_red(self, fn, ins, pending, pending_calls) -> None:
        self._atomic(fn, ins, isa.OP_RED)

    def d_bar(self, fn, ins, pending, pending_calls) -> None:
        if "warp" in ins.mods:  # __syncwarp(mask): a warp in lock step needs only its member-mask check
            flag = self._temp(fn, "wsync", 1)
            self._emit(fn, ins, "vote", ("sync", "uni", "pred"), [flag, flag, ins.operands[0]])
            return
        arrive = "arrive" in ins.mods
        if arrive and len(ins.operands) != 2:
            raise UnsupportedPTX("bar.arrive needs a thread count", self.kernel.name, ins.line, ins.full)
        row = self.emit(fn, ins, isa.OP_BAR, ins.full, ins.line)
        if arrive:
            row[F_AUX] = isa.A_BAR_ARRIVE
        ops = ins.operands
        red = [m for m in ins.mods if m in isa.BAR_RED]
        if "red" in ins.mods:
            row[F_AUX] = isa.BAR_RED[red[0]] << SUB_SHIFT
            row[F_D] = self.dst(fn, ins, ops[0])
            ops = ops[1:]
            row[F_CK], row[F_CV] = self.src(fn, ins, ops[-1], isa.T_PRED)
            if isinstance(ops[-1], Reg) and ops[-1].negate:
                row[F_CK] |= 8
            ops = ops[:-1]
        if ops:
            row[F_AK], row[F_AV] = self.src(fn, ins, ops[0], isa.T_U32)
        if len(ops) > 1:
            row[F_BK], row[F_BV] = self.src(fn, ins, ops[1], isa.T_U32)
        self.finish_static(row)

    d_barrier = d_bar

    def d_membar(self, fn, ins, pending, pending_calls) -> None:
        row = self.emit(fn, ins, isa.OP_MEMBAR, ins.full, ins.line)
        self.finish_static(row)

    d_fence = d_membar

    def _nop(self, fn, ins, pending, pending_calls) -> None:
        row = self.emit(fn, ins, isa.OP_NOP, ins.full, ins.line)
        self.finish_static(row)

    d_prefetch = d_prefetchu = d_nanosleep = d_pmevent = d_discard = d_applypriority = d_createpolicy = _nop

    def d_trap(self, fn, ins, pending, pending_calls) -> None:
        row = self.emit(fn, ins, isa.OP_TRAP, ins.full, ins.line)
        self.finish_static(row)

    d_brkpt = d_trap

    def d_bra(self, fn, ins, pending, pending_calls) -> None:
        row = self.emit(fn, ins, isa.OP_BRA, ins.full, ins.line)
        target = None
        for op in ins.operands:
            if isinstance(op, Sym):
                target = op.name
        if target is None:
            raise UnsupportedPTX("branch without a label", self.kernel.name, ins.line, ins.full)
        pending.append((len(self.rows) - 1, fn.name, target))
        self.finish_static(row)

    def d_ret(self, fn, ins, pending, pending_calls) -> None:
        if fn.is_entry:
            row = self.emit(fn, ins, isa.OP_EXIT, ins.full, ins.line)
        else:
            row = self.emit(fn, ins, isa.OP_BRA, ins.full, ins.line)
            pending.append((len(self.rows) - 1, fn.name, "$__retsite"))
        self.finish_static(row)

    def d_exit(self, fn, ins, pending, pending_calls) -> None:
        row = self.emit(fn, ins, isa.OP_EXIT, ins.full, ins.line)
        self.finish_static(row)

    def _indirect_call(self, fn, ins, pending, pending_calls) -> None:
        """``call (r), %fp, (a), proto``: a direct call to each possible target, guarded by the pointer's
        equality with that target's address; a pointer matching none of them traps (isa.TRAP_BAD_CALL)."""
        pointer = next(op for op in ins.operands if isinstance(op, Reg))
        plain = Instruction(ins.opcode, ins.mods, ins.operands, None, ins.line, ins.text)  # unguarded helpers
        hit, seen = self._temp(fn, "icp", 1), self._temp(fn, "ics", 1)
        self._emit(fn, plain, "setp", ("ne", "u64"), [seen, pointer, pointer])  # false: none matched yet
        for callee in self.indirect_targets(fn, ins):
            address = Imm(self.symbols[callee.name])
            if ins.guard is not None:
                self._emit(fn, plain, "setp", ("eq", "and", "u64"), [hit, pointer, address, ins.guard])
            else:
                self._emit(fn, plain, "setp", ("eq", "u64"), [hit, pointer, address])
            self._emit(fn, plain, "or", ("pred",), [seen, seen, hit])
            operands = [Sym(callee.name) if op is pointer else op
                        for op in ins.operands if not isinstance(op, Sym)]  # the prototype dropped
            self.d_call(fn, Instruction("call", ins.mods, operands, hit, ins.line, ins.text), pending, pending_calls)
        missed = Reg(seen.name, negate=True)
        if ins.guard is not None:
            self._emit(fn, plain, "and", ("pred",), [seen, Reg(seen.name, negate=True), ins.guard])
            missed = seen
        self._emit(fn, plain, "trap", (), [], guard=missed)
        self.rows[-1][F_AUX] = isa.TRAP_BAD_CALL << SUB_SHIFT

    def _heap_call(self, fn, ins, target: str, rets: list[str], args: list[str]) -> None:
        """malloc: a bump allocation of 16-byte granules from the device heap (NULL once it is exhausted, as
        CUDA's malloc returns); free: nothing (the heap is not reused)."""
        if target == "free":
            row = self.emit(fn, ins, isa.OP_NOP, ins.full, ins.line)
            self.finish_static(row)
            return
        if HEAP_CONTROL not in self.symbols:
            raise UnsupportedPTX("malloc without a device heap", self.kernel.name, ins.line, ins.full)
        control = self.symbols[HEAP_CONTROL]
        size, old, end = self._temp(fn, "hsz", 64), self._temp(fn, "hold", 64), self._temp(fn, "hend", 64)
        full = self._temp(fn, "hfull", 1)
        self._emit(fn, ins, "ld", ("param", "b64"), [size, Addr(Sym(args[0]))])
        self._emit(fn, ins, "add", ("u64",), [size, size, Imm(15)])
        self._emit(fn, ins, "and", ("b64",), [size, size, Imm(-16)])
        self._emit(fn, ins, "atom", ("global", "add", "u64"), [old, Addr(None, control), size])
        self._emit(fn, ins, "add", ("u64",), [size, old, size])
        self._emit(fn, ins, "ld", ("global", "u64"), [end, Addr(None, control + 8)])
        self._emit(fn, ins, "setp", ("gt", "u64"), [full, size, end])
        self._emit(fn, ins, "selp", ("b64",), [old, Imm(0), old, full])
        if rets:
            self._emit(fn, ins, "st", ("param", "b64"), [Addr(Sym(rets[0])), old])

    def d_call(self, fn, ins, pending, pending_calls) -> None:
        target = _call_target(ins)
        if target is None:
            self._indirect_call(fn, ins, pending, pending_calls)
            return
        rets, args = _call_lists(ins)
        if target in ("malloc", "free"):
            self._heap_call(fn, ins, target, rets, args)
            return
        if self.recursive and (target == fn.name or fn.name in self._reaches().get(target, ())):
            self._recursive_call(fn, ins, target, rets, args, pending_calls)
            return
        self._direct_call(fn, ins, target, rets, args, pending_calls)

    def _saved_state(self, fn: Function, skip: set[str]) -> tuple[list[Reg], list[tuple[int, int]]]:
        """What a recursive call in ``fn`` must keep: every register ``fn`` declares, and its frame slots
        (parameters, returns, locals, call-site parameters) as (offset, size), less the names in ``skip``."""
        regs = [Reg(name) for name in fn.regs if name != "_"]
        prefix = f"{fn.name}::__ndpgpu_"  # the decoder's own registers that hold values across the call
        regs += [Reg(key.split("::", 1)[1]) for key in self.reg_ids
                 if key.startswith(prefix) and key[len(prefix):] not in ("spfull", "spw")]
        slots = [(slot.offset, slot.size) for (owner, name), slot in self.frame.items()
                 if owner == fn.name and name not in skip and name != "$ndpgpu_stack"]
        return regs, slots

    def _recursive_call(self, fn, ins, target: str, rets: list[str], args: list[str], pending_calls) -> None:
        """A call that can lead back to ``fn``: its registers and frame slots go onto the thread's stack
        before the call and come back after it (the return values excepted); a stack overflow traps. Every
        active lane saves and restores, whatever the call's guard, so the guard itself survives the call."""
        sp = Reg(STACK_POINTER)
        guarded, ins = ins, Instruction(ins.opcode, ins.mods, ins.operands, None, ins.line, ins.text)
        callee = self.module.functions[target]
        # the return values are copied after the state (the guard among it) is back: the call's return
        # variables, and the callee's return slots when it is this function, are not restored
        skip = set(rets) | ({p.name for p in callee.returns} if callee.name == fn.name else set())
        regs, slots = self._saved_state(fn, skip)
        words = [(o + k, min(4, size - k)) for o, size in slots for k in range(0, size, 4)]
        size = 8 * len(regs) + 4 * len(words)
        size = (size + 15) // 16 * 16
        base = self.stack_base
        # (frame offset, stack offset, type) of each piece of the frame slots: whole words, bytes at a slot's end
        moves = [(off + k, base + 8 * len(regs) + 4 * j + k, "b32" if width == 4 else "b8")
                 for j, (off, width) in enumerate(words) for k in range(1 if width == 4 else width)]
        full = self._temp(fn, "spfull", 1)
        word = self._temp(fn, "spw", 32)
        self._emit(fn, ins, "setp", ("gt", "u32"), [full, sp, Imm(RECURSION_STACK_BYTES - size)])  # no room
        self._emit(fn, ins, "trap", (), [], guard=full)
        self.rows[-1][F_AUX] = isa.TRAP_STACK << SUB_SHIFT
        for i, r in enumerate(regs):
            self._emit(fn, ins, "st", ("local", "b64"), [Addr(sp, base + 8 * i), r])
        for frame_off, stack_off, kind in moves:
            self._emit(fn, ins, "ld", ("local", kind), [word, Addr(None, frame_off)])
            self._emit(fn, ins, "st", ("local", kind), [Addr(sp, stack_off), word])
        self._emit(fn, ins, "add", ("u32",), [sp, sp, Imm(size)])
        self._direct_call(fn, guarded, target, rets, args, pending_calls, copy_returns=False)
        self._emit(fn, ins, "sub", ("u32",), [sp, sp, Imm(size)])
        for frame_off, stack_off, kind in moves:
            self._emit(fn, ins, "ld", ("local", kind), [word, Addr(sp, stack_off)])
            self._emit(fn, ins, "st", ("local", kind), [Addr(None, frame_off), word])
        for i, r in enumerate(regs):
            self._emit(fn, ins, "ld", ("local", "b64"), [r, Addr(sp, base + 8 * i)])
        self._return_copies(fn, guarded, callee, rets)

    def _direct_call(self, fn, ins, target: str, rets: list[str], args: list[str], pending_calls,
                     copy_returns: bool = True) -> None:
        if target == "vprintf":
            self.has_printf = True
            row = self.emit(fn, ins, isa.OP_PRINTF, ins.full, ins.line)
            row[F_AOFF] = self.symbol_address(fn, args[0], ins) - isa.PFRAME_TAG
            row[F_AV] = self.symbol_address(fn, args[1], ins) - isa.PFRAME_TAG
            row[F_BV] = self.symbol_address(fn, rets[0], ins) - isa.PFRAME_TAG if rets else -1
            self.finish_static(row)
            return
        if target == "__assertfail":
            row = self.emit(fn, ins, isa.OP_TRAP, ins.full, ins.line)
            row[F_AUX] = 1 << SUB_SHIFT
            self.finish_static(row)
            return
        callee = self.module.functions[target]
        if len(args) != len(callee.params) or len(rets) != len(callee.returns):
            raise UnsupportedPTX(f"call to {target} with a mismatched argument list", self.kernel.name, ins.line)
        for a, p in zip(args, callee.params, strict=True):
            src = self.symbol_address(fn, a, ins) - isa.PFRAME_TAG
            dst = self.slot(callee, p.name, p.size, p.alignment).offset
            row = self.emit(fn, ins, isa.OP_CALLCOPY, "callcopy", ins.line)
            row[F_AV], row[F_BV], row[F_WIDTH] = src, dst, p.size
            self.finish_static(row)
        row = self.emit(fn, ins, isa.OP_CALL, ins.full, ins.line)
        pending_calls.append((len(self.rows) - 1, target))
        self.finish_static(row)
        if copy_returns:
            self._return_copies(fn, ins, callee, rets)

    def _return_copies(self, fn, ins, callee: Function, rets: list[str]) -> None:
        """The callee's return values into the call's return variables (for the lanes the guard selects)."""
        for r, p in zip(rets, callee.returns, strict=True):
            src = self.slot(callee, p.name, p.size, p.alignment).offset
            dst = self.symbol_address(fn, r, ins) - isa.PFRAME_TAG
            row = self.emit(fn, None, isa.OP_CALLCOPY, "callcopy", ins.line)
            row[F_AV], row[F_BV], row[F_WIDTH] = src, dst, p.size
            if ins.guard is not None:
                row[F_GUARD] = self.reg(fn, ins.guard.name, ins)
                row[F_GNEG] = 1 if ins.guard.negate else 0
            self.finish_static(row)

    def _warp_op(self, fn, ins, op: int, sub: int, t: int) -> list[int]:
        row = self.emit(fn, ins, op, ins.full, ins.line)
        row[F_TYPE] = t
        row[F_AUX] = (sub << SUB_SHIFT) | self._aux(ins)
        return row

    def d_shfl(self, fn, ins, pending, pending_calls) -> None:
        modes = [m for m in ins.mods if m in isa.SHFL_MODES]
        if "sync" not in ins.mods:
            raise UnsupportedPTX("shfl without .sync (removed in sm_70+)", self.kernel.name, ins.line, ins.full)
        row = self._warp_op(fn, ins, isa.OP_SHFL, isa.SHFL_MODES[modes[0]], isa.T_B32)
        d = ins.operands[0]
        if isinstance(d, PredPair):
            row[F_D] = self.dst(fn, ins, d.first)
            row[F_D2] = self.dst(fn, ins, d.second) if d.second is not None else -1
        else:
            row[F_D] = self.dst(fn, ins, d)
        s = ins.operands[1:]
        row[F_AK], row[F_AV] = self.src(fn, ins, s[0], isa.T_B32)
        row[F_BK], row[F_BV] = self.src(fn, ins, s[1], isa.T_B32)
        row[F_CK], row[F_CV] = self.src(fn, ins, s[2], isa.T_B32)
        row[F_DK], row[F_DV] = self.src(fn, ins, s[3], isa.T_B32)
        self.finish_static(row)

    def d_vote(self, fn, ins, pending, pending_calls) -> None:
        modes = [m for m in ins.mods if m in isa.VOTE_MODES]
        row = self._warp_op(fn, ins, isa.OP_VOTE, isa.VOTE_MODES[modes[0]], isa.T_B32)
        row[F_D] = self.dst(fn, ins, ins.operands[0])
        p = ins.operands[1]
        row[F_AK], row[F_AV] = self.src(fn, ins, Reg(p.name) if isinstance(p, Reg) else p, isa.T_PRED)
        if isinstance(p, Reg) and p.negate:
            row[F_AK] |= 8
        if len(ins.operands) > 2:
            row[F_BK], row[F_BV] = self.src(fn, ins, ins.operands[2], isa.T_B32)
        self.finish_static(row)

    def d_redux(self, fn, ins, pending, pending_calls) -> None:
        ops = [m for m in ins.mods if m in isa.REDUX_OPS]
        t = self._types(ins)[-1]
        row = self._warp_op(fn, ins, isa.OP_REDUX, isa.REDUX_OPS[ops[0]], t)
        row[F_D] = self.dst(fn, ins, ins.operands[0])
        row[F_AK], row[F_AV] = self.src(fn, ins, ins.operands[1], t)
        row[F_BK], row[F_BV] = self.src(fn, ins, ins.operands[2], isa.T_B32)
        self.finish_static(row)

    def d_match(self, fn, ins, pending, pending_calls) -> None:
        modes = [m for m in ins.mods if m in isa.MATCH_MODES]
        t = self._types(ins)[-1]
        row = self._warp_op(fn, ins, isa.OP_MATCH, isa.MATCH_MODES[modes[0]], t)
        d = ins.operands[0]
        if isinstance(d, PredPair):
            row[F_D] = self.dst(fn, ins, d.first)
            row[F_D2] = self.dst(fn, ins, d.second) if d.second is not None else -1
        else:
            row[F_D] = self.dst(fn, ins, d)
        row[F_AK], row[F_AV] = self.src(fn, ins, ins.operands[1], t)
        row[F_BK], row[F_BV] = self.src(fn, ins, ins.operands[2], isa.T_B32)
        self.finish_static(row)

    def d_activemask(self, fn, ins, pending, pending_calls) -> None:
        row = self._warp_op(fn, ins, isa.OP_ACTIVEMASK, 0, isa.T_B32)
        row[F_D] = self.dst(fn, ins, ins.operands[0])
        self.finish_static(row)

    def d_isspacep(self, fn, ins, pending, pending_calls) -> None:
        space = self._space(ins)
        row = self._warp_op(fn, ins, isa.OP_ISSPACEP, space, isa.T_U64)
        row[F_D] = self.dst(fn, ins, ins.operands[0])
        row[F_AK], row[F_AV] = self.src(fn, ins, ins.operands[1], isa.T_U64)
        self.finish_static(row)

    def d_tex(self, fn, ins, pending, pending_calls) -> None:
        raise UnsupportedPTX("texture instructions (use global memory)", self.kernel.name, ins.line, ins.full)

    d_tld4 = d_suld = d_sust = d_txq = d_tex


def _fast_kind(row: list[int]) -> int:
    """The fast-path class of a decoded ALU row (``isa.FAST_*``), or 0."""
    for k in (F_AK, F_BK, F_CK):
        if row[k] not in (K_NONE, K_REG, K_IMM):
            return isa.FAST_NONE  # a negated predicate operand
    if row[F_D2] >= 0 or row[F_DK] != K_NONE:
        return isa.FAST_NONE
    op, t, t2, aux = row[F_OP], row[F_TYPE], row[F_TYPE2], row[F_AUX]
    mul_mode = (aux >> MUL_SHIFT) & 3
    i32 = t in (isa.T_U32, isa.T_S32, isa.T_B32)
    i64 = t in (isa.T_U64, isa.T_S64, isa.T_B64)
    rnd = aux & isa.RND_MASK
    plain_float = rnd in (isa.RND_NONE, isa.RND_RN) and (aux & ~isa.RND_MASK) == 0
    if op == isa.OP_MOV:
        return isa.FAST_MOV
    if op == isa.OP_CVTA and t in (isa.T_U64, isa.T_B64, isa.T_S64) and \
            ((aux >> isa.SUB_SHIFT) & 15) not in (isa.SP_SHARED, isa.SP_LOCAL):
        return isa.FAST_MOV  # cvta{.to}.global.u64 (nvcc's every pointer parameter): the address itself
    if aux & ~(3 << MUL_SHIFT) and not (t in (isa.T_F32, isa.T_F64) and plain_float) and op != isa.OP_SETP:
        return isa.FAST_NONE
    if i32:
        if mul_mode == isa.MUL_WIDE:
            if op == isa.OP_MUL:
                return isa.FAST_MULWIDE_S32 if t == isa.T_S32 else isa.FAST_MULWIDE_U32
            if op == isa.OP_MAD:
                return isa.FAST_MADWIDE_S32 if t == isa.T_S32 else isa.FAST_MADWIDE_U32
            return isa.FAST_NONE
        if mul_mode != 0:
            return isa.FAST_NONE
        table = {isa.OP_ADD: isa.FAST_ADD32, isa.OP_SUB: isa.FAST_SUB32, isa.OP_MUL: isa.FAST_MUL32,
                 isa.OP_MAD: isa.FAST_MAD32, isa.OP_SHL: isa.FAST_SHL32, isa.OP_AND: isa.FAST_AND,
                 isa.OP_OR: isa.FAST_OR, isa.OP_XOR: isa.FAST_XOR}
        if op == isa.OP_SHR:
            return isa.FAST_SHR_S32 if t == isa.T_S32 else isa.FAST_SHR_U32
        if op == isa.OP_SETP and (aux >> BOOL_SHIFT) & 3 == 0 and aux & ~(31 << CMP_SHIFT) == 0:
            return isa.FAST_SETP_S32 if t == isa.T_S32 else isa.FAST_SETP_U32
        return table.get(op, isa.FAST_NONE)
    if i64 and mul_mode == 0:
        table = {isa.OP_ADD: isa.FAST_ADD64, isa.OP_SUB: isa.FAST_SUB64, isa.OP_MUL: isa.FAST_MUL64,
                 isa.OP_SHL: isa.FAST_SHL64, isa.OP_AND: isa.FAST_AND, isa.OP_OR: isa.FAST_OR,
                 isa.OP_XOR: isa.FAST_XOR}
        return table.get(op, isa.FAST_NONE)
    if t == isa.T_F32 and plain_float:
        table = {isa.OP_ADD: isa.FAST_FADD32, isa.OP_SUB: isa.FAST_FSUB32, isa.OP_MUL: isa.FAST_FMUL32,
                 isa.OP_FMA: isa.FAST_FFMA32, isa.OP_MAD: isa.FAST_FFMA32}
        return table.get(op, isa.FAST_NONE)
    if t == isa.T_F32 and op == isa.OP_SETP and (aux >> BOOL_SHIFT) & 3 == 0 and aux & ~(31 << CMP_SHIFT) == 0:
        return isa.FAST_SETP_F32
    if t == isa.T_F64 and plain_float:
        table = {isa.OP_ADD: isa.FAST_FADD64, isa.OP_MUL: isa.FAST_FMUL64, isa.OP_FMA: isa.FAST_FFMA64,
                 isa.OP_MAD: isa.FAST_FFMA64}
        return table.get(op, isa.FAST_NONE)
    if op == isa.OP_CVT and aux == 0:
        if t == isa.T_U64 and t2 in (isa.T_U32, isa.T_B32):
            return isa.FAST_CVT_U64_U32
        if t in (isa.T_S64, isa.T_U64) and t2 == isa.T_S32:
            return isa.FAST_CVT_S64_S32
    if op == isa.OP_SELP:
        return isa.FAST_SELP
    return isa.FAST_NONE


def _widened(t: int) -> int:
    return {isa.T_U16: isa.T_U32, isa.T_S16: isa.T_S32, isa.T_U32: isa.T_U64, isa.T_S32: isa.T_S64}.get(t, t)


def _find_var(fn: Function, name: str):
    for v in fn.variables:
        if v.name == name:
            return v
    return None


def _call_target(ins: Instruction) -> str | None:
    """The called function's name; None for an indirect call (a register target, with a prototype)."""
    for op in ins.operands:
        if isinstance(op, ArgList):
            continue  # the return-value list
        return op.name if isinstance(op, Sym) else None
    return None


def _call_lists(ins: Instruction) -> tuple[list[str], list[str]]:
    """Return-value and argument variable names of a ``call``."""
    lists = [op for op in ins.operands if isinstance(op, ArgList)]
    # the target: the first operand that is not a list (a function name, or an indirect call's register)
    target_pos = next((i for i, op in enumerate(ins.operands) if not isinstance(op, ArgList)), len(ins.operands))
    rets: list[str] = []
    args: list[str] = []
    for i, op in enumerate(ins.operands):
        if isinstance(op, ArgList):
            names = [x.name for x in op.items if isinstance(x, (Reg, Sym))]
            if i < target_pos:
                rets = names
            else:
                args = names
    del lists
    return rets, args


def decode_kernel(module: Module, kernel: str, symbols: dict[str, int], shared_layout: dict[str, int],
                  record_regs: dict[tuple[str, int], str] | None = None) -> Program:
    """Decode ``kernel`` of ``module``; ``symbols`` maps global/const variables to device addresses."""
    return _Decoder(module, kernel, symbols, shared_layout, record_regs).decode()
