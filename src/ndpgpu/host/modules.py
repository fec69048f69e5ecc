"""A module's names and its image in one device's memory: C++ names a mangled symbol answers to, NVRTC-style
name expressions, module-scope variables placed and initialised, the device malloc heap, and the shared-memory
layout a kernel uses."""

from __future__ import annotations

import re
import struct
from typing import TYPE_CHECKING, Any

import numpy as np

from ..frontend.ir import Module
from ..functional import isa
from ..functional.decode import HEAP_CONTROL, Program, UnsupportedPTX, decode_kernel
from ..functional.memory import DeviceMemory

if TYPE_CHECKING:
    from .device import Device
    from .kernels import RawModule

MANGLED_RE = re.compile(r"^_Z(N)?")


def demangled_names(mangled: str) -> list[str]:
    """Plain names a mangled C++ name answers to: ``foo`` for ``_Z3fooPf``, ``ns::foo`` and ``foo`` for
    ``_ZN2ns3fooEPf``; templates ``_Z3fooIfEvPT_`` answer to ``foo``."""
    if not mangled.startswith("_Z"):
        return [mangled]
    s = mangled[2:]
    parts: list[str] = []
    nested = s.startswith("N")
    if nested:
        s = s[1:]
    while s and s[0].isdigit():
        m = re.match(r"(\d+)", s)
        assert m is not None
        n = int(m.group(1))
        s = s[len(m.group(1)):]
        parts.append(s[:n])
        s = s[n:]
        if not nested:
            break
        if s.startswith("I"):  # template arguments of a nested name: stop at the name
            break
    if not parts:
        return [mangled]
    return ["::".join(parts), parts[-1]]


def check_name_expressions(names: Any) -> tuple[str, ...]:
    if names is None:
        return ()
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise TypeError("name_expressions must be a sequence of str, e.g. ('scale<float>', 'scale<double>')")
    for n in names:
        if not n.strip() or re.search(r"[;{}\n\"'#]", n):
            raise ValueError(f"name_expressions: {n!r} is not a C++ name such as 'scale<float>'")
    return tuple(names)


NAME_EXPRESSION_PREFIX = "__ndpgpu_name_expression_"


def instantiations(names: tuple[str, ...]) -> str:
    """Source lines that make nvcc instantiate each named template by taking its address, as NVRTC's name
    expressions do. The address goes into a ``__device__`` pointer, so the PTX names the symbol the compiler
    chose for it (enum and other template arguments resolved as C++ resolves them)."""
    lines = [f"__device__ void *{NAME_EXPRESSION_PREFIX}{i} = (void *)&{n};" for i, n in enumerate(names)]
    return ("\n" + "\n".join(lines) + "\n") if lines else ""


def ptx_target(ptx: str) -> str | None:
    m = re.search(r"^\s*\.target\s+(sm_\d+a?)", ptx, re.M)
    return m.group(1) if m else None


VAR_DTYPES = {"u8": np.uint8, "s8": np.int8, "b8": np.uint8, "u16": np.uint16, "s16": np.int16, "b16": np.uint16,
               "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "u64": np.uint64, "s64": np.int64,
               "b64": np.uint64, "f32": np.float32, "f64": np.float64, "f16": np.float16}


def var_dtype(ptx_type: str) -> np.dtype:
    return np.dtype(VAR_DTYPES.get(ptx_type, np.uint8))


class LoadedModule:
    """A module's globals placed in one device's memory, and its kernels decoded for that device."""

    def __init__(self, module: RawModule, dev: Device):
        self.module = module
        self.device = dev
        self.symbols: dict[str, int] = {}
        ir = module.ir
        pending_init = []
        const_lo, const_hi = 0, 0
        # constants first and together, so that one range tells them from globals (isspacep.const)
        placed = sorted((v for v in ir.variables.values() if v.space in ("global", "const") and not v.extern),
                        key=lambda v: v.space != "const")
        for var in placed:
            addr = dev.memory.alloc(max(var.size, 1), f"{var.space} {var.name}", var.alignment)
            self.symbols[var.name] = addr
            if var.space == "const":
                const_lo = const_lo or addr
                const_hi = addr + max(var.size, 1)
            if var.init:
                pending_init.append((var, addr))
        self.const_range = (const_lo, const_hi)
        if "malloc" in ir.functions:  # device-side malloc / new: the device's heap
            self.symbols[HEAP_CONTROL] = device_heap(dev.memory)
        # device functions have addresses too: function pointers and vtables hold them (indirect calls)
        for i, fname in enumerate(sorted(n for n, f in ir.functions.items() if not f.is_entry)):
            self.symbols.setdefault(fname, isa.FUNCTION_WINDOW + 16 * i)
        for var, addr in pending_init:
            dev.memory.write(addr, init_bytes(var, self.symbols))
        self.programs: dict[str, tuple[Program, int]] = {}

    def program(self, kernel: str) -> tuple[Program, int]:
        if kernel not in self.programs:
            offsets, static_bytes = shared_layout(self.module.ir, kernel)
            try:
                prog = decode_kernel(self.module.ir, kernel, self.symbols, offsets)
            except UnsupportedPTX as exc:
                loc = self.module.source_line(exc.line) if exc.line else None
                if loc is not None and exc.args:
                    exc.args = (f"{exc.args[0]} (at {loc})", *exc.args[1:])
                raise
            prog.shared_static_bytes = static_bytes
            prog.const_range = self.const_range
            self.programs[kernel] = (prog, static_bytes)
        return self.programs[kernel]


DEVICE_HEAP_BYTES = 8 * 1024 * 1024  # CUDA's default cudaLimitMallocHeapSize


def device_heap(memory: DeviceMemory) -> int:
    """The device's malloc heap (made on first use): the address of its control block, which holds the next
    free address and the heap's end."""
    control, made = memory.workspace("device malloc heap control", 16)
    if made:
        base, _ = memory.workspace("device malloc heap", DEVICE_HEAP_BYTES)
        memory.write(control, struct.pack("<QQ", base, base + DEVICE_HEAP_BYTES))
    return control


def init_bytes(var, symbols: dict[str, int]) -> bytes:
    """The initial contents of a module-scope variable."""
    dtype = var_dtype(var.type.name)
    out = bytearray()
    for item in var.init or []:
        if isinstance(item, tuple):  # ("addr"|"generic", name, offset)
            out += struct.pack("<Q", symbols.get(item[1], 0) + item[2])
            continue
        value = item.value if hasattr(item, "value") else item
        out += np.array(value).astype(dtype).tobytes()
    out = out[: var.size] if var.size else out
    return bytes(out) + b"\0" * max(0, var.size - len(out))


def shared_layout(ir: Module, kernel: str) -> tuple[dict[str, int], int]:
    """Offsets of the shared variables a kernel (and its callees) uses; extern arrays go last."""
    used: list[str] = []
    seen_fn: set[str] = set()
    shared_vars = {n: v for n, v in ir.variables.items() if v.space == "shared"}
    local_shared = []

    def visit(fname: str) -> None:
        if fname in seen_fn or fname not in ir.functions:
            return
        seen_fn.add(fname)
        fn = ir.functions[fname]
        local_shared.extend(v for v in fn.variables if v.space == "shared")
        for ins in fn.body:
            for op in ins.operands:
                for name in symbol_names(op):
                    if name in shared_vars and name not in used:
                        used.append(name)
                    if name in ir.functions and ins.opcode == "call":
                        visit(name)

    visit(kernel)
    layout: dict[str, int] = {}
    top = 0
    dynamic = []
    for v in [shared_vars[n] for n in used] + local_shared:
        if v.extern or (v.array and v.array[0] == 0):
            dynamic.append(v)
            continue
        al = v.alignment
        top = (top + al - 1) // al * al
        layout[v.name] = top
        top += v.size
    dyn_off = (top + 15) // 16 * 16 if dynamic else top
    for v in dynamic:
        layout[v.name] = dyn_off
    return layout, dyn_off if dynamic else top


def symbol_names(op) -> list[str]:
    from ..frontend.ir import Addr, ArgList, Sym, Vec

    if isinstance(op, Sym):
        return [op.name]
    if isinstance(op, Addr) and isinstance(op.base, Sym):
        return [op.base.name]
    if isinstance(op, (Vec, ArgList)):
        out = []
        for it in op.items:
            if it is not None:
                out.extend(symbol_names(it))
        return out
    return []
