"""Run one kernel launch on the compiled engine: state set-up, trace chunks, errors, printf."""

from __future__ import annotations

import dataclasses
import math
import os
import re
import struct
import sys
import time

import numpy as np

from .._compile_notice import first_call
from ..trace import format as tf
from . import engine as E
from . import isa
from ._assemble import scatter_mem, scatter_segments, warp_major_destinations
from .decode import Program
from .memory import Allocation, DeviceMemory


class KernelError(RuntimeError):
    """A launch stopped abnormally; the message names kernel, block, thread, PC and PTX line."""


class MemoryFault(KernelError):
    """An access outside mapped memory (or outside shared/local/param bounds)."""


class MisalignedAccess(KernelError):
    """An access whose address is not a multiple of its size."""


class BarrierDeadlock(KernelError):
    """Every live warp of a CTA waits at a barrier that cannot complete."""


class InstructionBudgetExceeded(KernelError):
    """The launch ran more warp-instructions than its budget allows."""


class IndependentThreadSchedulingRequired(KernelError):
    """A warp spun in a divergent state: code that relies on sm_70+ independent thread scheduling."""


class KernelTrap(KernelError):
    """``trap`` or a failed device-side ``assert``."""


class BoundsCheckError(KernelError):
    """The bounds-checking mode found accesses outside every allocation."""

    def __init__(self, message: str, violations: list[dict]):
        super().__init__(message)
        self.violations = violations


class TraceTooLarge(KernelError):
    """The trace of the launch would exceed the configured size cap."""


@dataclasses.dataclass
class LaunchOptions:
    """Knobs of one functional launch."""

    trace: bool = False
    trace_cap_bytes: int = 4 * 1024**3
    # past the cap: "prefix" stops recording and runs the launch to its end (the trace keeps each warp's
    # first instructions and is marked truncated: timing it needs a window, sim.max_warp_instructions, that
    # closes before a warp reaches the end of its prefix); "error" raises TraceTooLarge
    trace_overflow: str = "prefix"
    trace_chunk_records: int = 1 << 18  # segments and memory records per recording buffer (written out when full)
    # warp-instructions a launch may run; None: $NDPGPU_BUDGET_WARP_INSTRUCTIONS, else launch_budget() of the
    # grid (2^28, about a minute of simulation, or 65,536 per warp of the grid when that is more)
    budget_warp_instructions: int | None = None
    its_limit: int = 20_000_000  # instructions a warp may run diverged without reconverging
    # warp-instructions a CTA's other warps may run while one of its warps waits at a barrier
    barrier_wait_limit: int = 1 << 26
    slice_warp_instructions: int = 1 << 22  # the compiled loop returns this often so that Ctrl-C works
    quantum: int = 2048  # instructions a warp runs before the next warp gets its turn
    # CTAs resident at once (their warps take turns, so a block spinning on another resident block's flag
    # yields to it); None: what the device holds for the kernel (ndpgpu.api.resident_ctas), else 64
    max_resident_ctas: int | None = None
    progress_seconds: float | None = 10.0  # a launch running longer prints a line on stderr this often
    resident_bytes: int = 512 * 1024**2  # memory budget of resident CTA state
    bounds_check: bool = False
    num_sms: int = 80  # value of %nsmid (and %smid = CTA id modulo it)
    record_regs: dict[int, int] = dataclasses.field(default_factory=dict)  # pc -> register id
    local_base: int = 0x0000_00F0_0000_0000  # hardware address of the local-memory region (trace)

    def __post_init__(self) -> None:
        if self.trace_overflow not in ("prefix", "error"):
            raise ValueError(f"LaunchOptions.trace_overflow must be 'prefix' or 'error', not {self.trace_overflow!r}")


@dataclasses.dataclass
class LaunchResult:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    warp_instructions: int
    thread_instructions: int
    wall_seconds: float
    printf: list[str]
    trace: tf.KernelTrace | None
    bounds_violations: list[dict]

    def __repr__(self) -> str:  # short: the trace and printf output are reachable as attributes
        grid, block = "x".join(map(str, self.grid)), "x".join(map(str, self.block))
        return (f"<LaunchResult {self.kernel} grid={grid} block={block} "
                f"warp_instructions={self.warp_instructions:,} thread_instructions={self.thread_instructions:,} "
                f"{self.wall_seconds:.3f} s{' traced' if self.trace is not None else ''}>")


_STATUS_ERRORS = {
    isa.ST_MEM_FAULT: MemoryFault,
    isa.ST_MISALIGNED: MisalignedAccess,
    isa.ST_BARRIER_DEADLOCK: BarrierDeadlock,
    isa.ST_BUDGET: InstructionBudgetExceeded,
    isa.ST_ITS: IndependentThreadSchedulingRequired,
    isa.ST_TRAP: KernelTrap,
    isa.ST_STACK: KernelError,
}
_SPACE_NAMES = {isa.SP_GLOBAL: "global", isa.SP_SHARED: "shared", isa.SP_LOCAL: "local",
                isa.SP_CONST: "const", isa.SP_PARAM: "param", isa.SP_GENERIC: "generic"}


BUDGET_FLOOR = 1 << 28  # about a minute of simulation: over 3x the longest paper-scale launch (8e7)
BUDGET_PER_WARP = 1 << 16
BUDGET_ENV = "NDPGPU_BUDGET_WARP_INSTRUCTIONS"


def launch_budget(options: LaunchOptions, warps: int) -> int:
    """The warp-instruction budget of a launch of ``warps`` warps: ``options.budget_warp_instructions``, else
    ``$NDPGPU_BUDGET_WARP_INSTRUCTIONS``, else the larger of 2^28 and 65,536 per warp, so that a runaway
    kernel stops in a time that grows with its grid, not after hours."""
    if options.budget_warp_instructions is not None:
        return int(options.budget_warp_instructions)
    env = os.environ.get(BUDGET_ENV, "").strip()
    if env:
        try:
            return int(float(env))
        except ValueError:
            raise ValueError(f"${BUDGET_ENV} = {env!r} is not a number of warp-instructions") from None
    return max(BUDGET_FLOOR, BUDGET_PER_WARP * warps)


def _progress(program: Program, ctr: np.ndarray, ncta: int, budget: int, nslots: int, elapsed: float) -> None:
    """One line on stderr for a launch still running (any stream, not only a terminal)."""
    done = int(ctr[E.N_CTAS_DONE])
    running = int(ctr[E.N_NEXT_CTA]) - done
    sys.stderr.write(f"ndpgpu: kernel {program.kernel!r} still running after {elapsed:.0f} s: "
                     f"{int(ctr[E.N_WARP_INSTR]):,} warp-instructions of a budget of {budget:,}; {done} of {ncta} "
                     f"blocks done, {running} running (at most {nslots} resident)\n")
    sys.stderr.flush()


def _views(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return buf, buf.view(np.uint16), buf.view(np.uint32), buf.view(np.uint64)


def execute(program: Program, memory: DeviceMemory, grid: tuple[int, int, int], block: tuple[int, int, int],
            params: bytes, dynamic_shared: int, shared_static: int, options: LaunchOptions,
            launch_id: int = 0, source_lines: list[str] | None = None, source_map=None,
            pc_pointers: dict[int, tuple[Allocation, str]] | None = None,
            residency: tuple[int, int] | None = None) -> LaunchResult:
    """Run ``program`` over ``grid`` x ``block`` threads against ``memory``. ``pc_pointers`` (bounds checking):
    PC -> the allocation its address comes from and the parameter that points to it; an access of that PC
    outside it (into a neighbour) is a violation. ``residency``: (SMs, these blocks per SM), the blocks
    resident at once unless ``options.max_resident_ctas`` is set (without either, 64)."""
    t0 = time.perf_counter()
    nthreads = block[0] * block[1] * block[2]
    ncta = grid[0] * grid[1] * grid[2]
    wpc = (nthreads + 31) // 32
    nregs = program.num_regs
    shared_bytes = (shared_static + dynamic_shared + 15) // 16 * 16
    frame = program.frame_bytes
    per_slot = wpc * nregs * 32 * 8 + shared_bytes + wpc * 32 * frame + 1024
    if options.max_resident_ctas is not None:
        resident = options.max_resident_ctas
    else:
        resident = residency[0] * residency[1] if residency else 64
    nslots = max(1, min(ncta, resident, options.resident_bytes // max(per_slot, 1)))
    grid_sync = 0
    if program.grid_sync:  # a cooperative launch: every CTA resident at once, and a zeroed sync workspace
        nslots = ncta
        grid_sync = _grid_sync_workspace(memory)
    param_bytes = (len(params) + 15) // 16 * 16
    shared_base = param_bytes
    frame_base = shared_base + nslots * shared_bytes
    scratch_size = frame_base + nslots * wpc * 32 * frame
    scratch = np.zeros((scratch_size + 7) // 8 * 8 + 8, dtype=np.uint8)
    scratch[: len(params)] = np.frombuffer(params, dtype=np.uint8)
    regs = np.zeros(nslots * wpc * nregs * 32, dtype=np.uint64)

    cfg = np.zeros(E.C_SIZE, dtype=np.int64)
    cfg[E.C_NREGS] = nregs
    cfg[E.C_WPC] = wpc
    cfg[E.C_NTHREADS] = nthreads
    cfg[E.C_NCTA] = ncta
    cfg[E.C_NSLOTS] = nslots
    cfg[E.C_GX], cfg[E.C_GY], cfg[E.C_GZ] = grid
    cfg[E.C_BX], cfg[E.C_BY], cfg[E.C_BZ] = block
    cfg[E.C_GBASE] = memory.layout.base
    cfg[E.C_GMAPPED] = memory.mapped_bytes
    cfg[E.C_SHARED_BYTES] = shared_bytes
    cfg[E.C_FRAME_BYTES] = frame
    cfg[E.C_SHARED_BASE] = shared_base
    cfg[E.C_FRAME_BASE] = frame_base
    cfg[E.C_PARAM_BYTES] = len(params)
    cfg[E.C_TRACE] = 1 if options.trace else 0
    cfg[E.C_QUANTUM] = options.quantum
    budget = launch_budget(options, ncta * wpc)
    cfg[E.C_BUDGET] = budget
    cfg[E.C_ITS_LIMIT] = options.its_limit
    cfg[E.C_SLICE] = max(1, options.slice_warp_instructions)
    cfg[E.C_BARWAIT_LIMIT] = options.barrier_wait_limit
    cfg[E.C_LOCAL_BASE] = options.local_base
    cfg[E.C_NUM_SMS] = max(1, options.num_sms)
    freed_lo, freed_hi = memory.freed_bounds()
    cfg[E.C_BOUNDS] = E.BOUNDS_CHECK if options.bounds_check else E.BOUNDS_FREED if len(freed_lo) else 0
    cfg[E.C_DYN_SMEM] = dynamic_shared
    cfg[E.C_LOCAL_BYTES] = program.local_bytes
    cfg[E.C_SPECIALS] = program.used_specials
    cfg[E.C_CONST_LO], cfg[E.C_CONST_HI] = program.const_range
    cfg[E.C_GRID_SYNC] = grid_sync
    cfg[E.C_CALL_FRAMES] = 1 if program.recursive else 0

    chunk = max(options.trace_chunk_records, 64)
    seg_cap = chunk if options.trace else 1
    mem_cap = chunk if options.trace else 1
    addr_cap = 8 * chunk if options.trace else 64
    reg_cap = max(chunk // 64, 4) if options.trace else 1
    cfg[E.C_SEG_CAP], cfg[E.C_MEM_CAP], cfg[E.C_ADDR_CAP], cfg[E.C_REG_CAP] = seg_cap, mem_cap, addr_cap, reg_cap
    seg = np.zeros((seg_cap, 4), dtype=np.int64)
    mrec = np.zeros((mem_cap, 11), dtype=np.int64)
    laddr = np.zeros(addr_cap, dtype=np.uint64)
    regrec = np.zeros((reg_cap, 35), dtype=np.int64)
    code = program.code
    if options.record_regs:
        code = code.copy()
        for pc, rid in options.record_regs.items():
            code[pc, isa.F_REGREC] = rid
    # printf records per launch (CUDA's 1 MiB FIFO holds about as many short lines) and argument bytes per
    # call (CUDA allows 32 arguments of at most 8 bytes)
    pf_cap = 32768 if program.has_printf else 1
    pf_meta = np.zeros((pf_cap, 4), dtype=np.int64)
    pf_bytes = np.zeros((pf_cap, 256 if program.has_printf else 1), dtype=np.uint8)
    if options.bounds_check:
        alloc_lo, alloc_hi = memory.allocation_bounds()
    elif len(freed_lo):
        alloc_lo, alloc_hi = freed_lo, freed_hi  # freed memory is unmapped: an access faults
    else:
        alloc_lo, alloc_hi = np.zeros(1, np.int64), np.zeros(1, np.int64)
    cfg[E.C_NALLOC] = alloc_lo.shape[0]
    if options.bounds_check and pc_pointers:
        npc = len(program.code)
        per_pc_lo, per_pc_hi = np.full(npc, -1, np.int64), np.zeros(npc, np.int64)
        for pc, (alloc, _) in pc_pointers.items():
            if 0 <= pc < npc:
                per_pc_lo[pc], per_pc_hi[pc] = alloc.address, alloc.end
        alloc_lo, alloc_hi = np.concatenate([alloc_lo, per_pc_lo]), np.concatenate([alloc_hi, per_pc_hi])
    bc = np.zeros((1024 if options.bounds_check else 1, 4), dtype=np.int64)

    nws = nslots * wpc
    depth = 514 if program.recursive else 66  # SIMT stack entries per warp
    simt_pc = np.zeros((nws, depth), dtype=np.int64)
    simt_rpc = np.zeros((nws, depth), dtype=np.int64)
    simt_mask = np.zeros((nws, depth), dtype=np.int64)
    sp = np.full(nws, -1, dtype=np.int64)
    exited = np.zeros(nws, dtype=np.int64)
    wstate = np.zeros(nws, dtype=np.int64)
    call_stack = np.zeros((nws, 256 if program.recursive else 32), dtype=np.int64)
    csp = np.zeros(nws, dtype=np.int64)
    cs_pc = np.zeros(nws, dtype=np.int64)
    cs_count = np.zeros(nws, dtype=np.int64)
    cs_mask = np.zeros(nws, dtype=np.int64)
    icount = np.zeros(nws, dtype=np.int64)
    stall = np.zeros(nws, dtype=np.int64)
    slot_cta = np.full(nslots, -1, dtype=np.int64)
    wbar = np.zeros((nws, 8 + 16), dtype=np.int64)  # per warp; per CTA in its first warp: bar.arrive counts
    ctr = np.zeros(E.N_SIZE, dtype=np.int64)
    err = np.zeros(8, dtype=np.int64)
    g8, g16, g32, g64 = _views(memory.buf)
    s8, s16, s32, s64 = _views(scratch)

    seg_chunks: list[np.ndarray] = []
    mem_chunks: list[np.ndarray] = []
    addr_chunks: list[np.ndarray] = []
    reg_chunks: list[np.ndarray] = []
    addr_offset = 0
    trace_bytes = 0
    cut: _Cut | None = None  # set when the trace's cap stopped recording
    next_progress = t0 + options.progress_seconds if options.progress_seconds is not None else math.inf
    while True:
        with first_call("functional", "1 to 3 minutes"):
            status = E.run(code, cfg, ctr, err, regs, g8, g16, g32, g64, s8, s16, s32, s64,
                           simt_pc, simt_rpc, simt_mask, sp, exited, wstate, call_stack, csp,
                           cs_pc, cs_count, cs_mask, icount, stall, slot_cta, wbar,
                           seg, mrec, laddr, regrec, pf_meta, pf_bytes, alloc_lo, alloc_hi, bc)
        if options.trace and cut is None and (status in (isa.ST_TRACE_FULL, isa.ST_DONE)):
            n_seg, n_mem, n_addr, n_reg = ctr[E.N_SEG], ctr[E.N_MEM], ctr[E.N_ADDR], ctr[E.N_REGREC]
            seg_chunks.append(seg[:n_seg].copy())
            chunk = mrec[:n_mem].copy()
            chunk[chunk[:, 8] >= 0, 8] += addr_offset
            mem_chunks.append(chunk)
            addr_chunks.append(laddr[:n_addr].copy())
            reg_chunks.append(regrec[:n_reg].copy())
            addr_offset += n_addr
            trace_bytes += n_seg * 16 + n_mem * tf.MEM_DTYPE.itemsize + n_addr * 8 + n_reg * 280
            ctr[E.N_SEG] = ctr[E.N_MEM] = ctr[E.N_ADDR] = ctr[E.N_REGREC] = 0
            if trace_bytes > options.trace_cap_bytes and status != isa.ST_DONE:  # (a whole trace is kept)
                if options.trace_overflow != "prefix":
                    raise TraceTooLarge(
                        f"kernel {program.kernel!r}: the trace exceeds its cap of {options.trace_cap_bytes} "
                        "bytes; raise LaunchOptions.trace_cap_bytes, run a smaller scale, or record a prefix "
                        "(LaunchOptions.trace_overflow='prefix') and time it within a window"
                    )
                cut = _cut_recording(cfg, ctr, wpc, ncta, slot_cta, wstate, sp, simt_mask, exited, cs_pc,
                                     cs_count, cs_mask)
                seg_chunks.append(cut.pending)
        if status == isa.ST_TRACE_FULL or status == isa.ST_YIELD:
            now = time.perf_counter()
            if now >= next_progress:
                _progress(program, ctr, ncta, budget, nslots, now - t0)
                next_progress = now + max(options.progress_seconds or 0.0, 0.0)
            continue  # a KeyboardInterrupt raised by Python's signal handler surfaces here
        if status != isa.ST_DONE:
            raise _error(status, err, program, grid, block, source_lines, options, source_map, budget,
                         (nslots, ncta, int(ctr[E.N_NEXT_CTA]), int(ctr[E.N_CTAS_DONE])), residency, memory)
        break
    printf_lines = _format_printf(pf_meta, pf_bytes, int(ctr[E.N_PF]), memory, block) if program.has_printf else []
    violations: list[dict] = []
    if options.bounds_check and ctr[E.N_BC] > 0:
        for k in range(min(int(ctr[E.N_BC]), bc.shape[0])):
            pc, cta, thread, addr = (int(x) for x in bc[k])
            line = int(program.line_of_pc[pc])
            violations.append({
                "pc": pc, "line": line, "block": _unlinear(cta, grid),
                "thread": _unlinear(thread, block), "address": addr,
                "where": _where(memory, addr, (pc_pointers or {}).get(pc)),
                "source": _source(source_map, line),
            })
    trace = None
    if options.trace:
        trace = _assemble_trace(program, seg_chunks, mem_chunks, addr_chunks, reg_chunks, grid, block,
                                shared_bytes, options, launch_id, ncta * wpc)
        trace.launch.param_bytes = bytes(params).hex()  # the launch's argument buffer (a launch parameter)
        if cut is not None:
            trace.truncated = True
            trace.cut_warps = cut.cut_warps
            trace.unstarted_from = cut.unstarted_from
    result = LaunchResult(
        kernel=program.kernel, grid=grid, block=block, warp_instructions=int(ctr[E.N_WARP_INSTR]),
        thread_instructions=int(ctr[E.N_THREAD_INSTR]), wall_seconds=time.perf_counter() - t0,
        printf=printf_lines, trace=trace, bounds_violations=violations,
    )
    return result


@dataclasses.dataclass
class _Cut:
    """Where the trace's cap stopped recording: the segments the warps had not yet written out, the warps
    cut before their end, and the first warp of the CTAs not yet started (none of their instructions kept)."""

    pending: np.ndarray
    cut_warps: list[int]
    unstarted_from: int


def _cut_recording(cfg, ctr, wpc, ncta, slot_cta, wstate, sp, simt_mask, exited, cs_pc, cs_count,
                   cs_mask) -> _Cut:
    """Stop recording between two instructions (the compiled loop returns only there): write out each
    resident warp's open segment, so that its segments and memory records end at the same instruction, and
    note which warps' streams end before their exit."""
    cfg[E.C_TRACE] = 0
    pending, cut_warps = [], []
    for ws in range(len(wstate)):
        cta = int(slot_cta[ws // wpc])
        if cta < 0:
            continue
        gwarp = cta * wpc + ws % wpc
        if cs_count[ws] > 0:
            pending.append((gwarp, int(cs_pc[ws]), int(cs_count[ws]), int(cs_mask[ws])))
            cs_count[ws] = 0
        live = [int(simt_mask[ws, t]) & ~int(exited[ws]) for t in range(int(sp[ws]) + 1)]
        if wstate[ws] != E.W_DONE and any(live):
            cut_warps.append(gwarp)
    rows = np.array(pending, dtype=np.int64).reshape(-1, 4)
    return _Cut(rows, sorted(cut_warps), min(int(ctr[E.N_NEXT_CTA]), ncta) * wpc)


def _grid_sync_workspace(memory: DeviceMemory) -> int:
    """The device's grid-sync workspace (allocated once, zeroed before each cooperative launch): cooperative
    groups' grid.sync() counts arrivals in its second 32-bit word, which the driver's %envreg1/2 point to."""
    address, _ = memory.workspace("grid-sync workspace", 16)
    memory.write(address, bytes(16))
    return address


def _where(memory: DeviceMemory, addr: int, pointer: tuple[Allocation, str] | None = None) -> str:
    """Where a stray address lies relative to the allocations (for bounds-check reports); ``pointer``: the
    allocation the access's address comes from and its parameter, when known."""
    if pointer is not None and not pointer[0].address <= addr < pointer[0].end:
        alloc, param = pointer
        other = memory.find(addr)
        inside = f", inside {other.describe()}" if other is not None else ""
        if addr >= alloc.end:
            return f"{addr - alloc.end} bytes past the end of {alloc.describe()} (parameter {param}){inside}"
        return f"{alloc.address - addr} bytes before the start of {alloc.describe()} (parameter {param}){inside}"
    below = memory.nearest_below(addr, freed=True)
    if below is None:
        return "below every allocation"
    if below.freed and addr < below.end:
        return f"{addr - below.address} bytes into {below.describe()} (use after free)"
    return f"{addr - below.end} bytes past the end of {below.describe()}"


def _unlinear(i: int, dims: tuple[int, int, int]) -> tuple[int, int, int]:
    return (i % dims[0], (i // dims[0]) % dims[1], i // (dims[0] * dims[1]))


def _source(source_map, line: int) -> str | None:
    """``k.cu:12 `text``` for PTX line ``line`` when the module has line info (``-lineinfo``), else None."""
    loc = source_map.lookup(line) if source_map is not None and line > 0 else None
    return str(loc) if loc is not None else None


def _error(status: int, err: np.ndarray, program: Program, grid, block, source_lines,
           options: LaunchOptions, source_map=None, budget: int = 0,
           progress: tuple[int, int, int, int] = (0, 0, 0, 0),
           residency: tuple[int, int] | None = None, memory: DeviceMemory | None = None) -> KernelError:
    cls = _STATUS_ERRORS.get(status, KernelError)
    pc = int(err[E.E_PC])
    cta = int(err[E.E_CTA])
    thread = int(err[E.E_WARP]) * 32 + int(err[E.E_LANE])
    line = int(program.line_of_pc[pc]) if 0 <= pc < len(program.line_of_pc) else 0
    text = ""
    if source_lines and 0 < line <= len(source_lines):
        text = f" `{source_lines[line - 1].strip()}`"
    src = _source(source_map, line)
    at_source = f" at {src}" if src else ""
    where = (f"kernel {program.kernel!r}, block {_unlinear(cta, grid)}, thread {_unlinear(thread, block)}, "
             f"PC {pc} (PTX line {line}{text}){at_source}")
    addr = int(err[E.E_ADDR]) & ((1 << 64) - 1)
    space = _SPACE_NAMES.get(int(err[E.E_SPACE]), "?")
    if status == isa.ST_MEM_FAULT:
        freed = memory.freed_at(addr) if memory is not None else None
        if freed is not None:
            site = f" by free() at {freed.freed_site}" if freed.freed_site else ""
            return cls(f"{where}: {space} access to address {addr:#x}, {addr - freed.address} bytes into "
                       f"{freed.describe()} (use after free: its memory was unmapped{site}); keep the array "
                       "until the kernels that read it have run, or pass the live one")
        return cls(f"{where}: {space} access to address {addr:#x} outside mapped memory")
    if status == isa.ST_MISALIGNED:
        return cls(f"{where}: misaligned {space} access at address {addr:#x}")
    if status == isa.ST_BARRIER_DEADLOCK and int(err[E.E_EXTRA]) > 0:
        return cls(f"kernel {program.kernel!r}, block {_unlinear(cta, grid)}: barrier cannot complete "
                   f"(warp {int(err[E.E_WARP])} waits near PC {pc}, PTX line {line}{at_source}, while the block's "
                   f"other warps ran {int(err[E.E_EXTRA])} warp-instructions without arriving: a spin-wait on a "
                   "value only the waiting warps would write never ends; raise "
                   "LaunchOptions.barrier_wait_limit if they really work that long between barriers)")
    if status == isa.ST_BARRIER_DEADLOCK:
        return cls(f"kernel {program.kernel!r}, block {_unlinear(cta, grid)}: barrier cannot complete "
                   f"(warp {int(err[E.E_WARP])} waits near PC {pc}, PTX line {line}{at_source}; other warps "
                   "exited or wait elsewhere)")
    if status == isa.ST_BUDGET:
        nslots, ncta, started, done = progress
        if options.budget_warp_instructions is not None:
            how = "LaunchOptions.budget_warp_instructions"
        elif os.environ.get(BUDGET_ENV, "").strip():
            how = f"${BUDGET_ENV}"
        else:
            how = f"the default: the larger of 2^28 and {BUDGET_PER_WARP:,} per warp of the grid"
        message = (f"{where}: the launch ran more than its budget of {budget:,} warp-instructions ({how}); "
                   "a loop that never ends? If it is meant to run longer, raise the budget with "
                   "ndpgpu.Device(options=ndpgpu.LaunchOptions(budget_warp_instructions=N)) or "
                   f"${BUDGET_ENV}=N, or run a smaller problem")
        if started < ncta:
            if options.max_resident_ctas is not None:
                why, real = f"LaunchOptions.max_resident_ctas={options.max_resident_ctas}", ""
            elif residency:
                why = (f"the device's residency for these blocks: {residency[0]} SMs x {residency[1]}, "
                       "LaunchOptions.max_resident_ctas=None")
                real = ", on a GPU of this size too"
            else:
                why, real = "LaunchOptions.max_resident_ctas unset: 64", ""
            message += (f". Note: {ncta - started} of the grid's {ncta} blocks never started: the resident-block "
                        f"limit is {nslots} ({why}) and {done} of the resident blocks finished. Blocks that wait "
                        f"(spin) on a flag only a block not yet started sets never finish{real}; launch at most "
                        f"{nslots} blocks, or raise the limit with "
                        "ndpgpu.Device(options=ndpgpu.LaunchOptions(max_resident_ctas=N))")
        return cls(message)
    if status == isa.ST_ITS and int(err[E.E_SPACE]) == 1:
        return cls(f"{where}: the member mask {addr:#010x} of this .sync warp instruction names threads that "
                   "are on another path of a divergent branch; sm_70+ independent thread scheduling would run "
                   "them to this instruction, which the SIMT-stack model does not provide (call it where the "
                   "named threads are converged, or name only the active ones, e.g. __activemask())")
    if status == isa.ST_ITS:
        return cls(f"{where}: a warp ran more than its_limit instructions diverged without reconverging; this "
                   "code likely needs sm_70+ independent thread scheduling (e.g. an intra-warp lock), which the "
                   "SIMT-stack model does not provide")
    if status == isa.ST_TRAP:
        what = {isa.TRAP_ASSERT: "device-side assert failed",
                isa.TRAP_CP_ASYNC: "cp.async with a register src-size that is not a multiple of 4 bytes (not "
                                   "supported: sizes of whole 32-bit words are)",
                isa.TRAP_BAD_CALL: "an indirect call through a pointer that is no device function's address "
                                   "with the call's shape (a null or corrupt function pointer or vtable)",
                isa.TRAP_STACK: "the recursion stack is full (16 KiB per thread: the recursion is too deep)",
                }.get(int(err[E.E_SPACE]),
                                                                                   "trap executed")
        return cls(f"{where}: {what}")
    return cls(f"{where}: SIMT or call stack overflow")


def _assemble_trace(program: Program, seg_chunks, mem_chunks, addr_chunks, reg_chunks, grid, block,
                    shared_bytes: int, options: LaunchOptions, launch_id: int, num_warps: int) -> tf.KernelTrace:
    """The launch's trace from its recording chunks. The chunk lists are consumed: each chunk is released once
    its rows are placed (largest first), so a paper-scale recording does not hold its chunks and the whole
    trace at once."""
    if not mem_chunks:
        mem_chunks.append(np.zeros((0, 11), np.int64))
    mem_arr = np.zeros(sum(len(c) for c in mem_chunks), dtype=tf.MEM_DTYPE)
    fields = [mem_arr[f] for f in ("warp", "pc", "mask", "space", "flags", "size", "base", "stride", "addr_index",
                                   "row_stride", "row_lanes")]
    dests, warp_mem_start = warp_major_destinations(mem_chunks, num_warps)
    for i in range(len(mem_chunks)):
        scatter_mem(mem_chunks[i], dests[i], *fields)
        mem_chunks[i] = dests[i] = None
    addrs = np.empty(sum(len(c) for c in addr_chunks), dtype=np.uint64)
    at = 0
    for i in range(len(addr_chunks)):
        addrs[at : at + len(addr_chunks[i])] = addr_chunks[i]
        at += len(addr_chunks[i])
        addr_chunks[i] = None
    if not seg_chunks:
        seg_chunks.append(np.zeros((0, 4), np.int64))
    seg_arr = np.zeros(sum(len(c) for c in seg_chunks), dtype=tf.SEGMENT_DTYPE)
    dests, warp_seg_start = warp_major_destinations(seg_chunks, num_warps)
    for i in range(len(seg_chunks)):
        scatter_segments(seg_chunks[i], dests[i], seg_arr["warp"], seg_arr["pc"], seg_arr["count"], seg_arr["mask"])
        seg_chunks[i] = dests[i] = None
    regs = np.concatenate(reg_chunks) if reg_chunks else np.zeros((0, 35), np.int64)
    reg_arr = np.zeros(len(regs), dtype=tf.REGVAL_DTYPE)
    if len(regs):
        order = np.argsort(regs[:, 0], kind="stable")
        regs = regs[order]
        reg_arr["warp"] = regs[:, 0]
        reg_arr["pc"] = regs[:, 1]
        reg_arr["reg"] = regs[:, 2]
        reg_arr["values"] = regs[:, 3:].astype(np.uint64)
    launch = tf.LaunchInfo(
        kernel=program.kernel, grid=tuple(grid), block=tuple(block), shared_bytes=shared_bytes,
        regs_per_thread=0, local_bytes_per_thread=program.frame_bytes, local_base=options.local_base,
        launch_id=launch_id,
    )
    return tf.KernelTrace(
        launch=launch, opcode_names=list(program.opcode_names), static=program.static, segments=seg_arr,
        warp_seg_start=warp_seg_start, mem=mem_arr, warp_mem_start=warp_mem_start, lane_addrs=addrs,
        regvals=reg_arr,
    )


# ---- printf -----------------------------------------------------------------------------------------
_FMT_RE = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|L|z|j|t)?([diouxXcsfFeEgGaAp%])")


def _read_cstring(memory: DeviceMemory, address: int, limit: int = 4096) -> str:
    off = address - memory.layout.base
    if off < 0 or off >= memory.mapped_bytes:
        return f"<bad string pointer {address:#x}>"
    raw = memory.buf[off : min(off + limit, memory.mapped_bytes)].tobytes()
    end = raw.find(b"\0")
    return raw[: end if end >= 0 else len(raw)].decode("utf-8", errors="replace")


def _hex_float(v: float, prec: int | None, upper: bool, alt: bool) -> str:
    """C's ``%a``: ``0x1.8p+1``; shortest digits without a precision, rounded to nearest-even with one."""
    if v != v or v in (float("inf"), float("-inf")):
        text = "nan" if v != v else ("-inf" if v < 0 else "inf")
        return text.upper() if upper else text
    sign = "-" if math.copysign(1.0, v) < 0 else ""
    mant, _, exp = float.hex(abs(v))[2:].partition("p")
    lead_s, _, frac_s = mant.partition(".")
    lead, frac, bits = int(lead_s), int(frac_s or "0", 16), 4 * len(frac_s)
    if v == 0:
        exp = "+0"
    if prec is None:
        digits = (f"{frac:0{bits // 4}x}" if bits else "").rstrip("0")
    else:
        keep = 4 * prec
        if keep < bits:  # round the fraction to prec hex digits, ties to even
            drop = bits - keep
            q, r = divmod(frac, 1 << drop)
            half = 1 << (drop - 1)
            if r > half or (r == half and (q if keep else lead) & 1):  # parity of the last kept digit
                q += 1
            if q >> keep:  # carried into the leading digit
                lead, q = lead + 1, q - (1 << keep)
            frac, bits = q, keep
        else:
            frac, bits = frac << (keep - bits), keep
        digits = f"{frac:0{prec}x}" if prec else ""
    point = "." if digits or alt else ""
    text = f"{sign}0x{lead}{point}{digits}p{int(exp):+d}"
    return text.upper() if upper else text


def format_printf(fmt: str, argbuf: bytes, memory: DeviceMemory) -> str:
    """Format one device printf call the way CUDA's vprintf lays out its argument buffer."""
    out = []
    pos = 0
    off = 0

    def take(size: int) -> bytes:
        nonlocal off
        off = (off + size - 1) // size * size
        chunk = argbuf[off : off + size]
        off += size
        if len(chunk) < size:
            chunk = chunk + b"\0" * (size - len(chunk))
        return chunk

    for m in _FMT_RE.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":  # the int arguments come first: a negative width left-justifies
            w = struct.unpack("<i", take(4))[0]
            flags, width = (flags + "-", str(-w)) if w < 0 else (flags, str(w))
        if prec == "*":  # a negative precision is as if none were given
            pv = struct.unpack("<i", take(4))[0]
            prec = str(pv) if pv >= 0 else None
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        if conv in "di":
            if length in ("l", "ll", "j", "z", "t"):
                v = struct.unpack("<q", take(8))[0]
            else:
                v = struct.unpack("<i", take(4))[0]
                if length in ("h", "hh"):  # converted to short / signed char, as C does
                    nbits = 16 if length == "h" else 8
                    v &= (1 << nbits) - 1
                    v -= (v >> (nbits - 1)) << nbits
            out.append((spec + "d") % v)
        elif conv in "ouxX":
            if length in ("l", "ll", "j", "z", "t"):
                v = struct.unpack("<Q", take(8))[0]
            else:
                v = struct.unpack("<I", take(4))[0]
                if length == "h":  # converted to unsigned short / unsigned char
                    v &= 0xFFFF
                elif length == "hh":
                    v &= 0xFF
            out.append((spec + conv) % v)
        elif conv == "c":
            v = struct.unpack("<i", take(4))[0]
            out.append((spec + "c") % chr(v & 0xFF))
        elif conv in "aA":
            v = struct.unpack("<d", take(8))[0]
            text = _hex_float(v, int(prec) if prec is not None else None, conv == "A", "#" in flags)
            if "+" in flags and not text.startswith("-"):
                text = "+" + text
            elif " " in flags and not text.startswith("-"):
                text = " " + text
            out.append(text.ljust(int(width)) if "-" in flags and width else text.rjust(int(width or 0)))
        elif conv in "fFeEgG":
            v = struct.unpack("<d", take(8))[0]
            out.append((spec + conv) % v)
        elif conv == "s":
            ptr = struct.unpack("<Q", take(8))[0]
            out.append((spec + "s") % _read_cstring(memory, ptr))
        elif conv == "p":
            ptr = struct.unpack("<Q", take(8))[0]
            out.append(f"{ptr:#x}")
    out.append(fmt[pos:])
    return "".join(out)


def _format_printf(pf_meta, pf_bytes, count: int, memory: DeviceMemory, block) -> list[str]:
    lines = []
    for k in range(min(count, pf_meta.shape[0])):
        fmt_addr = int(pf_meta[k, 2])
        fmt = _read_cstring(memory, fmt_addr)
        nbytes = int(pf_meta[k, 3])
        lines.append(format_printf(fmt, pf_bytes[k, :nbytes].tobytes(), memory))
    if count > pf_meta.shape[0]:
        lines.append(f"[ndpgpu: {count - pf_meta.shape[0]} further printf calls were dropped]\n")
    return lines
