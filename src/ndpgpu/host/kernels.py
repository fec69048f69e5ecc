"""Modules and kernels: ``RawModule`` (CUDA source, .cu/.ptx file or PTX text, compiled and parsed),
``Function`` (one kernel: launch validation, argument packing, execution) and ``RawKernel``."""

from __future__ import annotations

import difflib
import hashlib
import math
import operator
import re
import sys
from pathlib import Path
from typing import Any

from ..analysis.pointers import param_pointers
from ..frontend import cparams, lineinfo, nvcc
from ..frontend.demangle import demangle, name_key, qualified_name
from ..frontend.ir import Module
from ..frontend.parser import parse_ptx
from ..functional.decode import Program
from ..functional.launch import BoundsCheckError, LaunchOptions, execute
from .arguments import dims, pack_arg, shared_mem_bytes
from .limits import (
    MAX_STATIC_SHARED,
    MAX_THREADS_PER_BLOCK,
    REGISTERS_PER_SM,
    check_cooperative,
    check_dimensions,
    check_resources,
    check_shared_memory,
    ctas_per_sm,
    shared_limit,
    warp_registers,
)
from .modules import (
    NAME_EXPRESSION_PREFIX,
    LoadedModule,
    check_name_expressions,
    demangled_names,
    instantiations,
    ptx_target,
    var_dtype,
)

__all__ = ["RawModule", "Function", "RawKernel", "SymbolLookupError"]


from .arrays import DeviceArray
from .device import Device, get_device


class SymbolLookupError(KeyError):
    """A module has no kernel or variable of that name (or the name is ambiguous); the message lists what
    the module defines. A ``KeyError`` (so a ``LookupError``) whose text prints without KeyError's quotes."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class RawModule:
    """A CUDA C++ source, a .cu/.ptx file, or PTX text, compiled (nvcc, cached) and parsed.

    ``options`` are nvcc options (``-I``, ``-D``, ``-std=``, ``--use_fast_math``...); ``arch`` defaults to
    ``sm_75``. The compiled module is loaded into each device (its globals allocated) on first use.
    ``name_expressions`` (CuPy's): C++ names such as ``"scale<float>"`` or ``"ns::f<3>"``; templates among
    them are instantiated, and ``get_function``/``get_global`` accept them: the compiler resolves each one to
    its symbol (enum and typedef arguments included, as NVRTC does), and for PTX text they are matched by
    demangling the module's symbols (``frontend.demangle``). CuPy's ``backend``, ``translate_cucomplex``,
    ``enable_cooperative_groups`` and ``jitify`` are accepted and have no effect here (nvcc always compiles);
    any other keyword is a ``TypeError``.
    """

    def __init__(self, code: str | None = None, options: tuple[str, ...] | list[str] = (), *, path: str | None = None,
                 ptx: str | None = None, arch: str | None = None, name_expressions=None, backend: str = "nvcc",
                 translate_cucomplex: bool = False, enable_cooperative_groups: bool = False, jitify: bool = False):
        if sum(x is not None for x in (code, path, ptx)) != 1:
            raise ValueError("RawModule needs exactly one of code=, path= or ptx=")
        self.options = tuple(options)
        self.name_expressions = check_name_expressions(name_expressions)
        source_dir = None
        source_path = None
        filename = "kernel.cu"
        if path is not None:
            p = Path(path)
            if not p.exists():
                raise FileNotFoundError(f"RawModule: no such file {path}")
            if p.suffix == ".ptx":
                ptx = p.read_text()
            else:
                code = p.read_text()
                source_dir = p.parent
                source_path = p
                filename = p.name
        if ptx is not None:
            self.ptx = ptx
            self.nvcc_version = ""
            self.arch = arch or ptx_target(ptx) or ""
            self.registers_error: str | None = None
            try:
                self.registers = nvcc.ptx_registers(ptx, self.arch or None) if nvcc.nvcc_available() else {}
            except nvcc.ToolchainError:
                self.registers = {}
            except nvcc.CompileError as exc:  # runs functionally; timing needs the counts and says why not
                self.registers = {}
                self.registers_error = str(exc)
            self.source = None
        else:
            source = (code or "") + instantiations(self.name_expressions)
            if self.name_expressions and source_path is not None:  # the file, included where it is
                source = f'#include "{source_path.resolve()}"' + instantiations(self.name_expressions)
                source_path = None
            compiled = nvcc.compile_cuda(source, self.options, arch, filename, source_dir, source_path)
            self.ptx = compiled.ptx
            self.nvcc_version = compiled.nvcc_version
            self.arch = compiled.arch
            self.registers = compiled.registers
            self.registers_error = None
            self.source = code
        if ptx is not None:  # the .file entries name what they name
            self._source_map = lineinfo.SourceMap(self.ptx)
        elif source_path is not None:  # compiled where it is
            self._source_map = lineinfo.SourceMap(self.ptx, str(Path(source_path).resolve()), code)
        else:  # code= (or a file with name expressions, included by a temporary file): no file of its own
            self._source_map = lineinfo.SourceMap(self.ptx, nvcc.SOURCE_NAME, source, lineinfo.CODE_NAME)
        self.ir: Module = parse_ptx(self.ptx, source=filename if ptx is None else "<ptx>")
        self._ptx_lines = self.ptx.splitlines()
        self._loaded: dict[int, LoadedModule] = {}
        self._functions: dict[str, Function] = {}
        self._expressions = self._map_name_expressions()
        self._cpp_kernels: dict | None = None  # the source's kernel parameter names, read when first needed
        self._layout: tuple[dict[str, int], int, str] | None = None

    def _param_names(self, kernel: str, count: int) -> tuple[str | None, ...] | None:
        """The C++ names of ``kernel``'s parameters from the CUDA source (``frontend.cparams``); None for PTX
        given as text, or where the source does not tell them unambiguously."""
        if getattr(self, "source", None) is None:
            return None
        if getattr(self, "_cpp_kernels", None) is None:
            try:
                self._cpp_kernels = cparams.source_kernels(self.source)
            except Exception:  # a name is a nicety: an unreadable source leaves the PTX names
                self._cpp_kernels = {}
        return cparams.kernel_param_names(self._cpp_kernels, kernel, count)

    @property
    def kernel_names(self) -> list[str]:
        return list(self.ir.kernels)

    @property
    def source_map(self) -> lineinfo.SourceMap:
        """PTX line -> CUDA source line for this module (``.lookup(n)``; false when its PTX has no line info:
        PTX given without ``.loc`` directives, or ``NDPGPU_LINEINFO=0``)."""
        return self._source_map

    def source_line(self, ptx_line: int) -> lineinfo.SourceLine | None:
        """The CUDA file, line, column and text the instruction on ``ptx_line`` of :attr:`ptx` comes from
        (``str()`` gives ``k.cu:12 `text```; a ``code=`` source is named ``<code>``); None where the PTX has no
        line info. PTX line numbers are those errors, traces (``Program.line_of_pc``) and per-PC tables
        name."""
        return self._source_map.lookup(ptx_line)

    def _symbols(self) -> list[str]:
        return [*self.ir.kernels, *(n for n, v in self.ir.variables.items()
                                    if v.space in ("global", "const") and not n.startswith(NAME_EXPRESSION_PREFIX))]

    def _compiled_name(self, index: int) -> str | None:
        """The symbol nvcc put in name expression ``index``'s pointer (None for PTX given as text)."""
        if self.source is None:  # PTX text: its pointers (if any) belong to another list of expressions
            return None
        var = self.ir.variables.get(f"{NAME_EXPRESSION_PREFIX}{index}")
        items = [x for x in (var.init or []) if isinstance(x, tuple)] if var is not None else []
        return items[0][1] if len(items) == 1 and items[0][1] in self._symbols() else None

    def code_layout(self) -> tuple[dict[str, int], int, str]:
        """Each defined function's instruction offset in the module as GPGPU-Sim lays it out (``Module.code_layout``),
        the module's instruction count, and the module's identity (a hash of its PTX)."""
        if self._layout is None:
            offsets, total = self.ir.code_layout()
            self._layout = (offsets, total, hashlib.sha256(self.ptx.encode()).hexdigest()[:16])
        return self._layout

    def _map_name_expressions(self) -> dict[str, str]:
        """Each name expression -> the mangled symbol it names (by the demangled qualified name)."""
        if not self.name_expressions:
            return {}
        keys: dict[str, list[str]] = {}
        for sym in self._symbols():
            decl = demangle(sym)
            keys.setdefault(name_key(qualified_name(decl) if decl else sym), []).append(sym)
        out: dict[str, str] = {}
        for i, expr in enumerate(self.name_expressions):
            compiled = self._compiled_name(i)
            if compiled is not None:
                out[expr] = compiled
                continue
            found = keys.get(name_key(expr), [])
            if len(found) != 1:
                what = "matches no kernel or variable" if not found else f"matches {', '.join(found)}"
                raise ValueError(f"RawModule: name expression {expr!r} {what}; {self._closest(expr)} (template "
                                 "arguments are matched as the demangler spells them, e.g. an enum value as "
                                 "(Alg)1)")
            out[expr] = found[0]
        return out

    def _closest(self, expr: str, most: int = 8) -> str:
        """The module's symbols whose demangled names are most like ``expr`` (a long module, such as one
        including CUB, defines thousands)."""
        symbols = self._symbols()
        if not symbols:
            return "the module defines nothing"
        names = {s: qualified_name(demangle(s)) if demangle(s) else s for s in symbols}
        near = difflib.get_close_matches(expr, list(names.values()), n=most, cutoff=0.0)
        shown = [next(s for s, n in names.items() if n == name) for name in near]
        more = f" (of {len(symbols)})" if len(symbols) > len(shown) else ""
        return f"the closest it defines{more}: {', '.join(self._describe(s) for s in shown)}"

    @staticmethod
    def _describe(sym: str) -> str:
        decl = demangle(sym)
        return f"{sym} ({decl})" if decl else sym

    def _resolve(self, name: str, kinds, what: str = "kernel") -> str:
        table = kinds
        if name in table:
            return name
        expr = self._expressions.get(name) if hasattr(self, "_expressions") else None
        if expr is not None and expr in table:
            return expr
        matches = [k for k in table if name in demangled_names(k)]
        if not matches and "<" in name:  # a template instance by its C++ name
            key = name_key(name)
            matches = [k for k in table if (d := demangle(k)) and name_key(qualified_name(d)) == key]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise SymbolLookupError(f"{name!r} is ambiguous: it names {', '.join(matches)}; pass the mangled name")
        if not table:
            decl = "`.entry`" if what == "kernel" else "`.global` or `.const` variable"
            raise SymbolLookupError(f"no {what} {name!r} in the module: its PTX defines no {what} (no {decl}); check "
                                    "that the source or PTX given to RawModule is the intended one and not empty")
        raise SymbolLookupError(f"no kernel or variable {name!r} in the module; it defines "
                                f"{', '.join(self._describe(k) for k in table)} (pass one of these names, a "
                                "name expression given to RawModule, or a unique plain C++ name)")

    def get_function(self, name: str) -> Function:
        """A kernel by mangled name, by a name expression, or by plain C++ name when that is unique."""
        mangled = self._resolve(name, self.ir.kernels)
        if mangled not in self._functions:
            self._functions[mangled] = Function(self, mangled)
        return self._functions[mangled]

    def get_global(self, name: str) -> DeviceArray:
        """A ``__device__`` or ``__constant__`` variable of the current device, readable and writable."""
        variables = {n: v for n, v in self.ir.variables.items() if v.space in ("global", "const")}
        vname = self._resolve(name, variables, "variable")
        dev = get_device()
        loaded = self._load(dev)
        var = variables[vname]
        dtype = var_dtype(var.type.name)
        count = max(1, var.size // dtype.itemsize)
        return DeviceArray((count,), dtype, dev, ptr=loaded.symbols[vname])

    def _load(self, dev: Device) -> LoadedModule:
        loaded = self._loaded.get(dev.id)
        if loaded is None:
            loaded = LoadedModule(self, dev)
            self._loaded[dev.id] = loaded
        return loaded


class Function:
    """A kernel handle; call it as ``fn(grid, block, args, shared_mem=0)``."""

    def __init__(self, module: RawModule, name: str):
        self.module = module
        self.name = name
        self.kernel = module.ir.functions[name]

    @property
    def num_regs(self) -> int:
        """Registers per thread from ptxas (0 when no ptxas is installed).

        Raises :class:`CompileError` when ptxas rejected the module's PTX: timing a kernel whose register
        count is unknown would silently assume unbounded occupancy."""
        error = getattr(self.module, "registers_error", None)
        if error is not None:
            raise nvcc.CompileError(f"{self.name}: {error}")
        return int(self.module.registers.get(self.name, 0))

    @property
    def attributes(self) -> dict[str, int]:
        """CuPy's attribute dictionary (cudaFuncAttributes)."""
        return {name: getattr(self, name) for name in (
            "binary_version", "cache_mode_ca", "const_size_bytes", "local_size_bytes", "max_dynamic_shared_size_bytes",
            "max_threads_per_block", "num_regs", "preferred_shared_memory_carveout", "ptx_version",
            "shared_size_bytes")}

    @property
    def max_threads_per_block(self) -> int:
        """The largest block this kernel launches with: 1024, its ``__launch_bounds__``, and what the register
        file holds at its register count (as :func:`check_resources` enforces)."""
        limit = MAX_THREADS_PER_BLOCK
        bounds = self.kernel.directives.get("maxntid") or self.kernel.directives.get("reqntid")
        if bounds:
            limit = min(limit, math.prod(bounds))
        regs = self.module.registers.get(self.name)
        if regs:
            limit = min(limit, REGISTERS_PER_SM // warp_registers(regs) * 32)
        return limit

    @property
    def shared_size_bytes(self) -> int:
        """Static ``__shared__`` bytes."""
        return int(self.module._load(get_device()).program(self.name)[1])

    @property
    def local_size_bytes(self) -> int:
        return int(self.module._load(get_device()).program(self.name)[0].local_bytes)

    @property
    def const_size_bytes(self) -> int:
        """Bytes of the module's ``__constant__`` variables."""
        return sum(v.size for v in self.module.ir.variables.values() if v.space == "const")

    @property
    def ptx_version(self) -> int:
        """The PTX ISA version of the module, as CUDA reports it (9.0 -> 90)."""
        m = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", self.module.ptx, re.M)
        return int(m.group(1)) * 10 + int(m.group(2)) if m else 0

    @property
    def binary_version(self) -> int:
        """The target architecture (sm_80 -> 80)."""
        return int(re.sub(r"\D", "", self.module.arch or "") or 0)

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        """CUDA's default, 48 KiB less the static shared memory, until set (as CuPy code does before launching
        with more, CUDA's cudaFuncSetAttribute): a launch with more dynamic shared memory is refused."""
        return getattr(self, "_max_dynamic_shared", MAX_STATIC_SHARED - self.shared_size_bytes)

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise TypeError(f"{self.name}: max_dynamic_shared_size_bytes must be an int number of bytes, got "
                            f"{value!r}")
        top = shared_limit(self.module.arch) - self.shared_size_bytes
        if not 0 <= operator.index(value) <= top:
            raise ValueError(f"{self.name}: max_dynamic_shared_size_bytes = {value} is outside 0 to {top} "
                             f"({self.module.arch or 'sm_75'}'s per-block limit less the kernel's static "
                             "shared memory)")
        self._max_dynamic_shared = operator.index(value)

    cache_mode_ca = 0
    preferred_shared_memory_carveout = -1  # settable as in CuPy; a hint without effect here

    def program(self, device: Device | None = None) -> Program:
        """The decoded program of this kernel for ``device`` (the current one by default)."""
        return self.module._load(device or get_device()).program(self.name)[0]

    def source_map(self, device: Device | None = None) -> dict[int, lineinfo.SourceLine]:
        """PC -> CUDA source line of each instruction of the decoded program (:meth:`program`) that has one:
        the PCs of traces and of ``LaunchStats.per_pc`` (``ndpgpu.frontend.lineinfo.pc_table_with_source``
        prints the per-PC table with this column)."""
        lines = self.program(device).line_of_pc
        out = {}
        for pc, ln in enumerate(lines):
            loc = self.module.source_line(int(ln)) if ln else None
            if loc is not None:
                out[pc] = loc
        return out

    def _pointers(self, prog: Program, dev: Device, raws: list[bytes]) -> dict[int, tuple[Any, str]]:
        """PC -> (allocation, parameter) for each global access whose address comes from one pointer parameter
        that points into a live allocation (bounds checking: an access outside it is reported)."""
        if not hasattr(self, "_pointer_lines"):
            self._pointer_lines = param_pointers(self.kernel)
        index = {p.name: i for i, p in enumerate(self.kernel.params)}
        allocs = {}
        for name in set(self._pointer_lines.values()):
            raw = raws[index[name]]
            value = int.from_bytes(raw[:8], "little") if len(raw) == 8 else -1
            alloc = dev.memory.nearest_below(value)
            if alloc is not None and alloc.address <= value < alloc.end:
                allocs[name] = alloc
        out = {}
        for pc, line in enumerate(prog.line_of_pc):
            name = self._pointer_lines.get(int(line))
            if name in allocs:
                out[pc] = (allocs[name], name)
        return out

    def __call__(self, grid, block, args, shared_mem: int = 0, stream=None, *, trace: bool | None = None,
                 record_regs: dict[int, int] | None = None) -> None:
        """Launch on the current device; returns None like CuPy (the launch's :class:`LaunchResult`, with its
        trace, is ``Device.launches[-1]``; its timing statistics, with a machine, ``Device.launch_stats[-1]``)."""
        dev = get_device()
        grid3 = dims(grid, "grid")
        block3 = dims(block, "block")
        check_dimensions(self.name, grid3, block3)  # before the kernel is decoded
        if not isinstance(args, (tuple, list)):
            raise TypeError("kernel arguments must be a tuple or list")
        params = self.kernel.params
        if len(args) != len(params):
            raise TypeError(f"{self.name} takes {len(params)} arguments, {len(args)} were given")
        for a in args:
            if isinstance(a, DeviceArray) and a.device is not dev:
                raise ValueError(f"{self.name}: an argument belongs to {a.device}, not the current {dev}")
        buf = bytearray()
        names = self.module._param_names(self.name, len(params)) or (None,) * len(params)
        raws = []
        for i, (p, a) in enumerate(zip(params, args, strict=True)):
            raw = pack_arg(p, a, i, self.name, names[i])
            raws.append(raw)
            al = p.alignment
            buf += b"\0" * ((-len(buf)) % al)
            buf += raw
        loaded = self.module._load(dev)
        prog, static = loaded.program(self.name)
        check_shared_memory(self.name, int(static), shared_mem_bytes(self.name, shared_mem),
                            self.module.arch or "sm_75",
                            getattr(self, "_max_dynamic_shared", MAX_STATIC_SHARED - int(static)))
        check_resources(self.name, block3, self.kernel.directives, self.module.registers.get(self.name))
        if prog.grid_sync:
            check_cooperative(self.name, grid3, block3, self.module.arch or "sm_75", dev.num_sms,
                              self.module.registers.get(self.name))
        if shared_mem and not _uses_dynamic_shared(self.module.ir, self.name):
            pass  # allowed: CUDA accepts unused dynamic shared memory
        options = dev.options
        do_trace = dev.trace if trace is None else trace
        regs_per_thread = self.num_regs if do_trace else 0  # a trace is for timing: its count must be known
        opts = LaunchOptions(**{**options.__dict__, "trace": do_trace, "record_regs": record_regs or {}})
        per_sm = ctas_per_sm(self.module.arch or "sm_75", block3, self.module.registers.get(self.name),
                             int(static) + operator.index(shared_mem))  # the device's residency, by default
        pointers = self._pointers(prog, dev, raws) if opts.bounds_check else None
        result = execute(prog, dev.memory, grid3, block3, bytes(buf), operator.index(shared_mem), static, opts,
                         launch_id=len(dev.launches), source_lines=self.module._ptx_lines,
                         source_map=self.module.source_map, pc_pointers=pointers,
                         residency=(dev.num_sms, per_sm))
        if result.trace is not None:
            result.trace.launch.regs_per_thread = regs_per_thread
            result.trace.launch.nvcc_version = self.module.nvcc_version
            result.trace.launch.arch = self.module.arch
            offsets, total, module_id = self.module.code_layout()
            result.trace.launch.code_offset = offsets.get(self.name, -1)
            result.trace.launch.module_insts = total
            result.trace.launch.module_id = module_id
            dev.traces.append(result.trace)
            dev.trace_source_maps.append(self.module.source_map)
        dev.launches.append(result)
        if result.printf:
            dev.printf_output.extend(result.printf)
            if dev.echo_printf:
                sys.stdout.write("".join(result.printf))
        if result.bounds_violations:
            v = result.bounds_violations
            first = v[0]
            at = f"{first['source']} (PTX line {first['line']})" if first.get("source") else \
                f"PTX line {first['line']}"
            raise BoundsCheckError(
                f"{self.name}: {len(v)} access(es) outside their allocation; first at {at}, "
                f"block {first['block']}, thread {first['thread']}, address {first['address']:#x}"
                f" ({first['where']})", v)
        if dev.measurement is not None and result.trace is not None:
            dev.launch_stats.append(dev.measurement.launch(result.trace))


def _uses_dynamic_shared(ir: Module, kernel: str) -> bool:
    return any(v.space == "shared" and (v.extern or (v.array and v.array[0] == 0)) for v in ir.variables.values())


class RawKernel(Function):
    """Single-kernel shorthand: ``RawKernel(code, name, options=())``."""

    def __init__(self, code: str, name: str, options: tuple[str, ...] | list[str] = (), **kwargs: Any):
        module = RawModule(code=code, options=options, **kwargs)
        mangled = module._resolve(name, module.ir.kernels)
        super().__init__(module, mangled)
