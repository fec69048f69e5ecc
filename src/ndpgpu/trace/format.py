"""The trace of one kernel launch: the only input of the timing engine.

A trace has three parts (all numpy arrays, persisted as one ``.npz`` file):

``static``
    One row per static instruction of the kernel (``STATIC_DTYPE``), indexed by PC (the instruction's
    position in the kernel's flat instruction list, calls inlined as separate functions appended after the
    kernel body). It tells the timing engine what each PC is: its operation class, PTX opcode, memory space
    and width, and which registers it reads and writes (for the scoreboard), its guard predicate among them
    (``guard``: ``@%p bra`` waits for the ``setp`` writing ``%p``).

``segments``
    The dynamic control stream, per warp. A segment (``SEGMENT_DTYPE``) says "warp ``warp`` executed the
    ``count`` instructions at PCs ``pc, pc+1, ... pc+count-1`` in order, with SIMT active mask ``mask``".
    Guard predicates do not split segments: an instruction whose guard is false in some lanes still issues,
    and its lanes still count in ``mask`` (memory records carry the exact lanes that accessed memory).
    Segments are stored grouped by warp (warp-major), in program order within each warp;
    ``warp_seg_start[w] : warp_seg_start[w+1]`` selects warp ``w``'s segments.

``mem``
    One record per dynamic memory instruction (``MEM_DTYPE``) in the same warp-major order; the k-th memory
    PC met while walking warp ``w``'s segments matches the k-th record of ``warp_mem_start[w] :
    warp_mem_start[w+1]``. ``mask`` holds the lanes that really accessed memory (guard predicate applied).
    Addresses are compressed where affine in the lane index: when ``addr_index == -1`` lane ``l`` accessed
    ``base + l * stride``, or, for a warp that spans rows of ``row_lanes`` lanes (a 2-D block of width 16, 8,
    4 or 2), ``base + (l % row_lanes) * stride + (l // row_lanes) * row_stride`` (``row_lanes`` 0: one row);
    otherwise ``lane_addrs[addr_index : addr_index + 32]`` holds the 32 lane addresses (inactive lanes hold
    0). :func:`lane_address_table` expands records of every form. Addresses are hardware addresses: global
    addresses as allocated, shared addresses as offsets in the CTA's shared memory, local addresses
    interleaved across the warp as hardware lays them out (word ``i`` of lane ``l`` of warp ``w`` at
    ``local_base + w * local_bytes_per_warp + i * 128 + l * 4``).

Warp ids are global: ``cta_linear * warps_per_cta + warp_in_cta``, ``cta_linear = x + y*gx + z*gx*gy``.
Register values that a mechanism asks for (TOM's trip counts) are recorded in ``regvals``
(``REGVAL_DTYPE``, warp-major, program order), one row per (dynamic instruction, requested register).
"""

from __future__ import annotations

import dataclasses
import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA_VERSION = 3  # 2: memory records affine by rows (row_stride, row_lanes); 3: the guard predicate (static)

# Operation classes (static table column ``op_class``); the timing engine maps them to units/latencies.
OP_CLASSES = (
    "int",      # integer/logic ALU
    "fp32",     # single-precision FPU
    "fp64",     # double precision
    "fp16",     # half precision
    "sfu",      # special function unit: rcp/sqrt/rsqrt/sin/cos/ex2/lg2 (and their expansions)
    "imul",     # integer multiply / mad
    "idiv",     # integer divide / remainder (a long instruction sequence on hardware)
    "fdiv",     # IEEE float divide (a long instruction sequence on hardware)
    "mov",      # moves, conversions that are cheap
    "cvt",      # conversions
    "setp",     # comparisons, predicate logic
    "branch",   # bra, call, ret, exit
    "barrier",  # bar.sync and friends
    "fence",    # membar / fence
    "load",
    "store",
    "atomic",   # atom / red
    "shfl",     # shfl / vote / redux / match
    "nop",
)
OP_CLASS = {name: i for i, name in enumerate(OP_CLASSES)}

# Memory spaces (static ``space`` and mem record ``space``).
SPACES = ("none", "global", "shared", "local", "const", "param", "generic")
SPACE = {name: i for i, name in enumerate(SPACES)}

MAX_REG_OPERANDS = 4

STATIC_DTYPE = np.dtype(
    [
        ("op_class", np.uint8),
        ("space", np.uint8),  # SPACE code of a memory instruction (generic resolved per record)
        ("width", np.uint16),  # bytes accessed per lane (vector forms included)
        ("opcode", np.int32),  # index into the trace's ``opcode_names``
        ("dst", np.int32, (MAX_REG_OPERANDS,)),  # register ids written, -1 padded
        ("src", np.int32, (MAX_REG_OPERANDS,)),  # register ids read, -1 padded
        ("line", np.int32),  # source line in the PTX text (for reports)
        ("guard", np.int32),  # the guard predicate's register id (``@%p``, read too), -1: unguarded
    ]
)

SEGMENT_DTYPE = np.dtype(
    [("warp", np.uint32), ("pc", np.uint32), ("count", np.uint32), ("mask", np.uint32)]
)

# Memory record flags.
MEM_LOAD = 1
MEM_STORE = 2
MEM_ATOMIC = 4

MEM_DTYPE = np.dtype(
    [
        ("warp", np.uint32),
        ("pc", np.uint32),
        ("mask", np.uint32),
        ("space", np.uint8),
        ("flags", np.uint8),
        ("size", np.uint16),  # bytes per lane
        ("base", np.uint64),
        ("stride", np.int64),
        ("addr_index", np.int64),  # -1: affine (base + lane*stride, by rows if row_lanes); else into lane_addrs
        ("row_stride", np.int64),  # affine by rows: the step from one row of row_lanes lanes to the next
        ("row_lanes", np.uint8),  # 0: one row of 32 lanes; else lanes per row (a power of two below 32)
    ]
)


def lane_address_table(mem: np.ndarray, lane_addrs: np.ndarray) -> np.ndarray:
    """The 32 lane addresses of every record of ``mem`` (int64, one row per record), from whichever form each
    record has: affine, affine by rows, or listed in ``lane_addrs`` (listed inactive lanes read 0, affine ones
    what the formula gives)."""
    lanes = np.arange(32, dtype=np.int64)
    rows = mem["row_lanes"].astype(np.int64)
    width = np.where(rows > 0, rows, 32)[:, None]
    addr = (mem["base"].astype(np.int64)[:, None] + (lanes % width) * mem["stride"].astype(np.int64)[:, None]
            + (lanes // width) * mem["row_stride"].astype(np.int64)[:, None])
    aidx = mem["addr_index"].astype(np.int64)
    listed = aidx >= 0
    if listed.any():
        addr[listed] = lane_addrs.astype(np.int64, copy=False)[aidx[listed, None] + lanes]
    return addr

REGVAL_DTYPE = np.dtype(
    [("warp", np.uint32), ("pc", np.uint32), ("reg", np.int32), ("values", np.uint64, (32,))]
)


class TraceError(Exception):
    """A trace file is missing, of another schema version, or inconsistent."""


class TracePrefixExhausted(TraceError):
    """A truncated trace (its size cap stopped recording) was timed past the end of a warp's recorded prefix."""


@dataclasses.dataclass
class LaunchInfo:
    """What the timing engine needs to know about the launch itself."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int  # static + dynamic shared memory per CTA
    regs_per_thread: int
    local_bytes_per_thread: int
    local_base: int
    launch_id: int = 0
    nvcc_version: str = ""
    arch: str = ""
    param_bytes: str = ""  # the kernel's argument buffer as hex (PTX parameter layout); "" in older traces
    # where the kernel's code sits in its module as GPGPU-Sim assembles it (every defined function in PTX order,
    # one slot per instruction, labels taking none): the instructions before it, the module's total, and the
    # module's identity (a hash of its PTX); -1 / 0 / "" when not known (older traces, hand-built ones)
    code_offset: int = -1
    module_insts: int = 0
    module_id: str = ""

    @property
    def num_ctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def threads_per_cta(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def warps_per_cta(self) -> int:
        return (self.threads_per_cta + 31) // 32


@dataclasses.dataclass
class KernelTrace:
    """One launch's trace; see the module docstring for the meaning of each array."""

    launch: LaunchInfo
    opcode_names: list[str]
    static: np.ndarray  # STATIC_DTYPE
    segments: np.ndarray  # SEGMENT_DTYPE, warp-major
    warp_seg_start: np.ndarray  # int64, num_warps + 1
    mem: np.ndarray  # MEM_DTYPE, warp-major
    warp_mem_start: np.ndarray  # int64, num_warps + 1
    lane_addrs: np.ndarray  # uint64
    regvals: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, REGVAL_DTYPE))
    # True when the size cap stopped recording (LaunchOptions.trace_overflow="prefix"): each warp keeps the
    # instructions it ran before the cut; ``cut_warps`` lists the warps cut before their exit, and the CTAs
    # from warp ``unstarted_from`` on had not started (no instruction kept). Timing such a trace needs a window
    # that closes before any of those warps runs out of instructions (TracePrefixExhausted otherwise).
    truncated: bool = False
    cut_warps: list[int] = dataclasses.field(default_factory=list)
    unstarted_from: int = -1  # -1: every warp started (a whole trace)

    def complete_warps(self) -> np.ndarray:
        """Per warp, whether its recorded stream reaches the warp's exit (all True for a whole trace)."""
        done = np.ones(self.num_warps, dtype=bool)
        if self.truncated:
            done[np.asarray(self.cut_warps, dtype=np.int64)] = False
            if self.unstarted_from >= 0:
                done[self.unstarted_from:] = False
        return done

    @property
    def num_warps(self) -> int:
        return len(self.warp_seg_start) - 1

    def warp_instructions(self) -> int:
        """Dynamic warp-instructions in the trace."""
        return int(self.segments["count"].sum(dtype=np.int64))

    def thread_instructions(self) -> int:
        """Dynamic thread-instructions (active lanes, guard predicates not applied)."""
        lanes = np.bitwise_count(self.segments["mask"]).astype(np.int64)
        return int((lanes * self.segments["count"]).sum())

    def lane_addresses(self, i: int) -> np.ndarray:
        """The 32 lane addresses of memory record ``i`` (inactive lanes 0)."""
        mask = int(self.mem[i]["mask"])
        addrs = lane_address_table(self.mem[i : i + 1], self.lane_addrs)[0].astype(np.uint64)
        active = ((mask >> np.arange(32)) & 1).astype(bool)
        addrs[~active] = 0
        return addrs

    def validate(self) -> None:
        """Check internal consistency; raise TraceError naming what is wrong."""
        if self.static.dtype != STATIC_DTYPE:
            raise TraceError("static table has the wrong dtype")
        n = self.num_warps
        if len(self.warp_mem_start) != n + 1:
            raise TraceError(f"warp_mem_start has {len(self.warp_mem_start)} entries, expected {n + 1}")
        if n and (self.segments["pc"] + self.segments["count"] > len(self.static)).any():
            raise TraceError("a segment runs past the static instruction table")
        rows = self.mem["row_lanes"]
        bad = np.nonzero(~np.isin(rows, (0, 2, 4, 8, 16)) | ((rows > 0) & (self.mem["addr_index"] >= 0)))[0]
        if len(bad):
            raise TraceError(f"memory record {int(bad[0])}: row_lanes {int(rows[bad[0]])} is not 0, 2, 4, 8 or 16 "
                             "on an affine record")

    def save(self, path: str | Path) -> Path:
        """Write the trace to ``path`` (a ``.npz`` file) with its schema version."""
        path = Path(path)
        meta = {
            "schema_version": SCHEMA_VERSION,
            "launch": dataclasses.asdict(self.launch),
            "opcode_names": self.opcode_names,
            "truncated": self.truncated,
            "cut_warps": list(self.cut_warps),
            "unstarted_from": self.unstarted_from,
        }
        np.savez(
            path,
            meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
            static=self.static,
            segments=self.segments,
            warp_seg_start=self.warp_seg_start,
            mem=self.mem,
            warp_mem_start=self.warp_mem_start,
            lane_addrs=self.lane_addrs,
            regvals=self.regvals,
        )
        return path if path.suffix == ".npz" else path.with_suffix(path.suffix + ".npz")

    @staticmethod
    def verify(path: str | Path) -> None:
        """Integrity check of a saved trace (every member's CRC, the metadata's JSON); raise
        :class:`TraceError` naming the file when it is missing, truncated, corrupt or not a trace."""
        path = Path(path)
        if not path.exists():
            raise TraceError(f"no trace file at {path}")
        try:
            with zipfile.ZipFile(path) as z:
                bad = z.testzip()
                if bad is not None:
                    raise zipfile.BadZipFile(f"member {bad} fails its CRC check")
                missing = {f"{k}.npy" for k in _ARRAYS} - set(z.namelist())
            if missing:
                raise KeyError(f"missing arrays {sorted(missing)}")
            with np.load(path) as arrays:
                json.loads(bytes(arrays["meta"]).decode())
        except (zipfile.BadZipFile, OSError, EOFError, KeyError, ValueError, zlib.error) as exc:
            raise TraceError(_corrupt(path, exc)) from None

    @classmethod
    def load(cls, path: str | Path, mmap: bool = False) -> KernelTrace:
        """Read a trace written by :meth:`save`; refuse other schema versions and unreadable files. ``mmap``:
        map the three large arrays (segments, memory records, lane addresses) from the file copy-on-write
        instead of reading them: their pages are the file's until written, so processes timing one recording
        share them and a paper-scale trace does not count against a worker's private memory."""
        path = Path(path)
        if not path.exists():
            raise TraceError(f"no trace file at {path}")
        try:
            return cls._load(path, mmap)
        except TraceError:
            raise
        except (zipfile.BadZipFile, OSError, EOFError, KeyError, ValueError, zlib.error) as exc:
            raise TraceError(_corrupt(path, exc)) from None

    @classmethod
    def _load(cls, path: Path, mmap: bool = False) -> KernelTrace:
        mapped = _mapped_members(path, _MAPPABLE) if mmap else {}
        with np.load(path) as z:
            meta: dict[str, Any] = json.loads(bytes(z["meta"]).decode())
            if meta.get("schema_version") != SCHEMA_VERSION:
                raise TraceError(
                    f"{path}: trace schema version {meta.get('schema_version')} is not the supported "
                    f"version {SCHEMA_VERSION}; re-run the functional engine to regenerate it"
                )
            launch = meta["launch"]
            launch["grid"] = tuple(launch["grid"])
            launch["block"] = tuple(launch["block"])
            return cls(
                launch=LaunchInfo(**launch),
                opcode_names=list(meta["opcode_names"]),
                static=z["static"],
                segments=mapped["segments"] if "segments" in mapped else z["segments"],
                warp_seg_start=z["warp_seg_start"],
                mem=mapped["mem"] if "mem" in mapped else z["mem"],
                warp_mem_start=z["warp_mem_start"],
                lane_addrs=mapped["lane_addrs"] if "lane_addrs" in mapped else z["lane_addrs"],
                regvals=z["regvals"],
                truncated=bool(meta["truncated"]),
                cut_warps=[int(w) for w in meta.get("cut_warps", [])],
                unstarted_from=int(meta.get("unstarted_from", -1)),
            )


_ARRAYS = ("meta", "static", "segments", "warp_seg_start", "mem", "warp_mem_start", "lane_addrs", "regvals")
_MAPPABLE = ("segments", "mem", "lane_addrs")


def _mapped_members(path: Path, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The members ``names`` of an .npz file as copy-on-write memory maps (``np.memmap`` mode ``c``: writable,
    so compiled code sees the same array types as after a read). A member stored compressed, empty or with
    Python objects is left out (read as usual)."""
    out: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(path) as zf, open(path, "rb") as f:
        for name in names:
            info = zf.getinfo(f"{name}.npy")
            if info.compress_type != zipfile.ZIP_STORED:
                continue
            f.seek(info.header_offset)
            local = f.read(30)  # the member's local header: its name and extra field lengths at bytes 26-29
            if local[:4] != b"PK\x03\x04":
                continue
            name_len, extra_len = struct.unpack("<HH", local[26:30])
            f.seek(info.header_offset + 30 + name_len + extra_len)
            version = np.lib.format.read_magic(f)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read_header(f)
            if dtype.hasobject or not int(np.prod(shape)):
                continue
            out[name] = np.memmap(path, dtype=dtype, mode="c", offset=f.tell(), shape=shape,
                                  order="F" if fortran else "C")
    return out


def _corrupt(path: Path, exc: BaseException) -> str:
    return (f"{path}: the trace file is truncated or corrupt ({type(exc).__name__}: {exc}); delete it, or its "
            "recording directory, to re-record it (sweeps re-record a corrupt recording by themselves)")

