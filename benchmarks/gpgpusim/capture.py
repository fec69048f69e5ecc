"""Capture a registered workload's host side as a replayable script for a CUDA host program.

The workload runs functionally on ndpgpu (no timing). Every kernel launch is recorded with its module's PTX,
mangled name, grid, block, dynamic shared memory and packed parameters; every host write into device memory
before a launch (recorded copies, and host-side writes found by comparing each allocation with its contents
after the previous launch) becomes a copy in the script, with its bytes as they stood at launch time. Pointer
parameters are written as (allocation, offset) so the host program can translate them to its own addresses.

Script format (one operation a line, read by ``player.cpp``)::

    var  NAME SIZE CONST          a module global (__device__ / __constant__), registered by name
    alloc SIZE                    cudaMalloc, in ndpgpu's allocation order
    func NAME                     a kernel, registered by its mangled name
    h2d  KIND INDEX OFFSET NBYTES DATAOFFSET   KIND a (allocation) or v (global variable)
    launch FUNC GX GY GZ BX BY BZ SHMEM NPARAMS then per parameter: SIZE p ALLOC OFFSET | SIZE v VAR OFFSET | SIZE x HEX
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import ndpgpu
from ndpgpu import api
from ndpgpu.host.arguments import dims, pack_arg
from ndpgpu.workloads.base import RunContext, get_workload
from ndpgpu.workloads.runner import _module_for


@dataclasses.dataclass
class Captured:
    """What one workload run did on the device, ready to be written as a script."""

    name: str
    scale: str
    ptx: str
    ops: list[str]
    data: bytearray
    launches: int
    kernels: list[str]
    thread_instructions: int
    warp_instructions: int


class _Recorder:
    def __init__(self, dev: api.Device):
        self.dev = dev
        self.ops: list[str] = []
        self.data = bytearray()
        self.snapshots: dict[int, np.ndarray] = {}  # allocation address -> contents after the last launch
        self.allocs_seen: dict[int, int] = {}  # ndpgpu allocation address -> script index
        self.vars_seen: dict[int, int] = {}  # global variable address -> script index
        self.funcs: dict[str, int] = {}
        self.copies_seen = 0
        self.ptx: str | None = None
        self.module: Any = None

    # -- allocations -------------------------------------------------------------------------------
    def _sync_allocations(self) -> None:
        for a in self.dev.memory.allocations:
            if a.address in self.allocs_seen or a.address in self.vars_seen:
                continue
            label = a.label or ""
            if label.startswith(("global ", "const ")):
                space, name = label.split(" ", 1)
                self.vars_seen[a.address] = len(self.vars_seen)
                self.ops.append(f"var {name} {a.size} {1 if space == 'const' else 0}")
            elif a.freed:
                continue
            else:
                self.allocs_seen[a.address] = len(self.allocs_seen)
                self.ops.append(f"alloc {max(a.size, 1)}")

    def _locate(self, addr: int) -> tuple[str, int, int] | None:
        """(kind, index, offset) of a device address, or None when it is in no allocation."""
        for a in self.dev.memory.allocations:
            if a.address <= addr < a.address + max(a.size, 1) or (a.size == 0 and addr == a.address):
                if a.address in self.vars_seen:
                    return "v", self.vars_seen[a.address], addr - a.address
                if a.address in self.allocs_seen:
                    return "a", self.allocs_seen[a.address], addr - a.address
        return None

    def _emit_h2d(self, addr: int, nbytes: int) -> None:
        where = self._locate(addr)
        if where is None or nbytes <= 0:
            return
        kind, idx, off = where
        blob = self.dev.memory.read(addr, nbytes).tobytes()
        self.ops.append(f"h2d {kind} {idx} {off} {nbytes} {len(self.data)}")
        self.data += blob

    def before_launch(self) -> None:
        self._sync_allocations()
        copied: list[tuple[int, int]] = []
        for c in self.dev.copies[self.copies_seen:]:
            if c["direction"] == "h2d":
                copied.append((c["addr"], c["bytes"]))
                self._emit_h2d(c["addr"], c["bytes"])
        self.copies_seen = len(self.dev.copies)
        # host writes that are no recorded copy: allocations whose contents changed since the last launch
        for a in self.dev.memory.allocations:
            if a.address not in self.allocs_seen or a.freed or a.size == 0:
                continue
            now = self.dev.memory.read(a.address, a.size)
            before = self.snapshots.get(a.address)
            if before is None:
                before = np.zeros_like(now)
            diff = np.flatnonzero(now != before)
            if diff.size == 0:
                continue
            lo, hi = int(diff[0]), int(diff[-1]) + 1
            covered = any(c0 <= a.address + lo and a.address + hi <= c0 + n for c0, n in copied)
            if not covered:
                self._emit_h2d(a.address + lo, hi - lo)

    def after_launch(self) -> None:
        self._sync_allocations()
        for a in self.dev.memory.allocations:
            if a.address in self.allocs_seen and not a.freed and a.size > 0:
                self.snapshots[a.address] = self.dev.memory.read(a.address, a.size).copy()

    def launch_line(self, fn: Any, grid, block, args, shared_mem: int) -> str:
        if self.module is None:
            self.module = fn.module
            self.ptx = fn.module.ptx
        elif fn.module is not self.module:
            raise RuntimeError("the workload launches kernels of more than one module; not supported")
        if fn.name not in self.funcs:
            self.funcs[fn.name] = len(self.funcs)
            self.ops.append(f"func {fn.name}")
        g = dims(grid, "grid")
        b = dims(block, "block")
        params = fn.kernel.params
        names = fn.module._param_names(fn.name, len(params)) or (None,) * len(params)
        parts: list[str] = []
        for i, (p, a) in enumerate(zip(params, args, strict=True)):
            raw = pack_arg(p, a, i, fn.name, names[i])
            size = len(raw)
            if isinstance(a, api.DeviceArray) or (size == 8 and p.type.name in ("u64", "b64", "s64")):
                value = int.from_bytes(raw, "little")
                where = self._locate(value)
                if where is not None:
                    kind, idx, off = where
                    parts.append(f"{size} {'p' if kind == 'a' else 'v'} {idx} {off}")
                    continue
            parts.append(f"{size} x {raw.hex() or '00'}")
        return (f"launch {self.funcs[fn.name]} {g[0]} {g[1]} {g[2]} {b[0]} {b[1]} {b[2]} {int(shared_mem)} "
                f"{len(parts)} " + " ".join(parts))


def run_recorded(dev: api.Device, rec: _Recorder, body: Callable[[], Any]) -> None:
    """Run ``body`` on ``dev`` with every kernel launch on it recorded by ``rec`` (launches on other devices
    run unrecorded)."""
    original = api.Function.__call__

    def wrapped(fn, grid, block, args, shared_mem: int = 0, stream=None, **kw):
        if api.get_device() is not dev:
            return original(fn, grid, block, args, shared_mem, stream, **kw)
        rec.before_launch()
        line = rec.launch_line(fn, grid, block, args, shared_mem)
        original(fn, grid, block, args, shared_mem, stream, **kw)
        rec.ops.append(line)
        rec.after_launch()
        return None

    api.Function.__call__ = wrapped  # type: ignore[method-assign]
    try:
        with dev:
            body()
    finally:
        api.Function.__call__ = original  # type: ignore[method-assign]


def capture(name: str, scale: str, params: dict[str, Any] | None = None, num_sms: int = 15) -> Captured:
    """Run workload ``name`` at ``scale`` (with ``params`` overriding the scale's parameters) and record it.
    ``num_sms`` is the SM count of the machine it is compared on: workloads that size their grid by it
    (``ctx.num_sms``) launch what they launch there."""
    cls = get_workload(name)
    p = {**cls.params(scale), **(params or {})}
    workload = cls()
    inputs = workload.inputs(p, np.random.default_rng(cls.seed))
    module = _module_for(cls)
    dev = ndpgpu.Device(trace=False, num_sms=num_sms)
    rec = _Recorder(dev)
    run_recorded(dev, rec, lambda: workload.launch(RunContext(module, dev, scale, p), inputs, p))
    return Captured(name, scale, rec.ptx or module.ptx, rec.ops, rec.data, len(dev.launches), list(rec.funcs),
                    int(sum(r.thread_instructions for r in dev.launches)),
                    int(sum(r.warp_instructions for r in dev.launches)))


def clean_ptx(ptx: str) -> str:
    """The PTX without debug line information (``.loc``/``.file`` and the debug sections): no instruction
    changes, and GPGPU-Sim 4.0's parser predates the newer forms of those directives."""
    out: list[str] = []
    skip = 0
    for line in ptx.splitlines():
        s = line.strip()
        if s.split(maxsplit=1)[:1] in ([".loc"], [".file"]):  # not ".local", a local-memory declaration
            continue
        if s.startswith(".section") and "debug" in s:
            skip = 1
            continue
        if skip:  # a debug section ends at its closing brace
            if s == "}":
                skip = 0
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def write_capture(c: Captured, directory: Path) -> None:
    """Write ``kernel.ptx``, ``script.txt``, ``data.bin`` and ``capture.json`` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "kernel.ptx").write_text(clean_ptx(c.ptx))
    (directory / "script.txt").write_text("\n".join(c.ops) + "\n")
    (directory / "data.bin").write_bytes(bytes(c.data))
    (directory / "capture.json").write_text(json.dumps({
        "name": c.name, "scale": c.scale, "launches": c.launches, "kernels": c.kernels,
        "thread_instructions": c.thread_instructions, "warp_instructions": c.warp_instructions,
    }, indent=1))
