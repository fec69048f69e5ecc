"""Capture registered workloads for a bit-exact check on a real GPU (``replay.py`` runs them there).

Each workload runs functionally on ndpgpu, recorded as ``benchmarks/gpgpusim/capture.py`` records it for
GPGPU-Sim (the module's PTX, allocations, host copies, launches with pointers as allocation + offset). On top of
that, after every launch this records what ndpgpu's functional engine left in device memory: a SHA-256 of every
live allocation and module variable, and the full bytes of those the launch changed. ``replay.py`` runs the
same launches on a GPU from the same inputs and compares every launch's results with these, byte for byte.

    python benchmarks/hardware/capture.py --scale tiny --out hwcap        # every registered workload
    python benchmarks/hardware/capture.py --only saxpy,vecadd --out hwcap

Writes one folder per workload (``kernel.ptx``, ``script.txt``, ``data.bin``, ``capture.json``,
``expect.npz``) and ``index.json`` listing what was captured and what was skipped, with the reason.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import ndpgpu
from ndpgpu import api
from ndpgpu.functional.memory import MemoryLayout
from ndpgpu.workloads.base import RunContext, all_workloads, get_workload
from ndpgpu.workloads.runner import _module_for

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_gs_capture", _HERE.parent / "gpgpusim" / "capture.py")
_gs = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
sys.modules["_gs_capture"] = _gs
_spec.loader.exec_module(_gs)  # type: ignore[union-attr]

# Device addresses start here rather than at ndpgpu's default 0x7_0000_0000: a relocation is any 8-byte word
# of a module variable that falls inside an allocation, and with the default base an int pair (0, 7) in a
# struct of sizes reads as the first allocation's address (it did, in heartwall's). No kernel of the registry
# depends on where its arrays lie, only on their alignment, which a page-aligned base keeps.
ARENA_BASE = 0x4B1D_0000_0000
MAX_EXPECT_BYTES = 24 << 20  # a workload whose changed bytes over all launches exceed this is skipped


class _Expecting(_gs._Recorder):
    """The GPGPU-Sim recorder, also keeping each launch's results."""

    def __init__(self, dev: api.Device):
        super().__init__(dev)
        self.after: list[dict[str, str]] = []  # per launch: "a3" / "v0" -> sha256 of its bytes after it
        self.changed: dict[str, np.ndarray] = {}  # "L{launch}_{a3}" -> bytes after the launch (changed only)
        self.changed_bytes = 0
        self.before: dict[str, bytes] = {}
        self.cooperative: set[str] = set()
        self.relocations = 0

    def _emit_h2d(self, addr: int, nbytes: int) -> None:
        """The copy, and where it writes into a module variable the address of an allocation (a struct of
        device pointers in ``__constant__`` memory, as Rodinia's heartwall keeps), a relocation: the GPU's
        allocations lie elsewhere. Only module variables are scanned: in an allocation's data an int pair
        can look like an address, and the arena's base (``ARENA_BASE``) makes a false match unlikely."""
        super()._emit_h2d(addr, nbytes)
        where = self._locate(addr)
        if where is None or where[0] != "v" or nbytes < 8:
            return
        _, index, offset = where
        live = [a for a in self.dev.memory.allocations if a.address in self.allocs_seen]
        if not live:
            return
        lo = min(a.address for a in live)
        hi = max(a.address + max(a.size, 1) for a in live)
        start = (-offset) % 8
        count = (nbytes - start) // 8
        words = self.dev.memory.read(addr + start, count * 8).view("<u8")
        for i in np.flatnonzero((words >= lo) & (words < hi)):
            target = self._locate(int(words[i]))
            if target is not None and target[0] == "a":
                self.ops.append(f"reloc v {index} {offset + start + 8 * int(i)} a {target[1]} {target[2]}")
                self.relocations += 1

    def _live(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for a in self.dev.memory.allocations:
            if a.freed or a.size == 0:
                continue
            if a.address in self.allocs_seen:
                out[f"a{self.allocs_seen[a.address]}"] = self.dev.memory.read(a.address, a.size)
            elif a.address in self.vars_seen:
                out[f"v{self.vars_seen[a.address]}"] = self.dev.memory.read(a.address, a.size)
        return out

    def before_launch(self) -> None:
        super().before_launch()
        self.before = {k: hashlib.sha256(v.tobytes()).hexdigest() for k, v in self._live().items()}

    def launch_line(self, fn: Any, grid, block, args, shared_mem: int) -> str:
        if fn.module._load(self.dev).program(fn.name)[0].grid_sync:
            self.cooperative.add(fn.name)  # replayed with cuLaunchCooperativeKernel
        return super().launch_line(fn, grid, block, args, shared_mem)

    def after_launch(self) -> None:
        super().after_launch()
        launch = len(self.after)
        digests: dict[str, str] = {}
        for key, data in self._live().items():
            digest = hashlib.sha256(data.tobytes()).hexdigest()
            digests[key] = digest
            if self.before.get(key) != digest:
                self.changed[f"L{launch}_{key}"] = data.copy()
                self.changed_bytes += data.size
        self.after.append(digests)
        if self.changed_bytes > MAX_EXPECT_BYTES:
            raise _TooLarge(f"results over {MAX_EXPECT_BYTES >> 20} MiB at launch {len(self.after)}")


def record(body: Callable[[], Any]) -> tuple[Any, _Expecting]:
    """Run ``body`` (which launches kernels on the current device) on a fresh ndpgpu device, recording every
    launch with its results."""
    dev = ndpgpu.Device(trace=False, layout=MemoryLayout(base=ARENA_BASE))
    rec = _Expecting(dev)
    _gs.run_recorded(dev, rec, body)
    return dev, rec


def capture(name: str, scale: str) -> tuple[Any, _Expecting]:
    """Run workload ``name`` at ``scale`` functionally and record it with every launch's results."""
    cls = get_workload(name)
    p = cls.params(scale)
    workload = cls()
    inputs = workload.inputs(p, np.random.default_rng(cls.seed))
    module = _module_for(cls)
    return record(lambda: workload.launch(RunContext(module, api.get_device(), scale, p), inputs, p))


PROBE = "approx_probe"  # not a registered workload: benchmarks/hardware/approx_probe.cu
PROBE_OUTPUTS = ("ex2", "ex2_noftz", "lg2", "sin", "cos", "rsqrt", "rcp", "tanh", "expf", "logf", "divf")


def capture_probe(n: int = 1 << 16) -> tuple[Any, _Expecting]:
    """Run the .approx probe on ``n`` inputs: for ex2, sin, cos, tanh and the exponential, uniform in
    [-30, 30) plus every float32 with a fixed exponent in [0.5, 1) (a dense stretch of fractions); for lg2,
    rsqrt, rcp and the divisor, positive values spread over 2^-30 .. 2^30."""
    rng = np.random.default_rng(48)
    dense = np.arange(n // 4, dtype=np.uint32) * np.uint32((1 << 23) // (n // 4)) | np.uint32(0x3F000000)
    x = np.concatenate([rng.uniform(-30, 30, n - dense.size).astype(np.float32), dense.view(np.float32)])
    p = np.exp2(rng.uniform(-30, 30, n)).astype(np.float32)
    source = (_HERE / "approx_probe.cu").read_text()

    def body() -> None:
        fn = ndpgpu.RawModule(code=source).get_function("approx_probe")
        outs = [ndpgpu.zeros(n, np.float32) for _ in PROBE_OUTPUTS]
        fn((n // 256,), (256,), (ndpgpu.asarray(x), ndpgpu.asarray(p), np.int32(n), *outs))

    return record(body)


class _TooLarge(Exception):
    pass


def write(name: str, scale: str, dev: Any, rec: _Expecting, directory: Path) -> dict[str, Any]:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "kernel.ptx").write_text(_gs.clean_ptx(rec.ptx or ""))
    (directory / "script.txt").write_text("\n".join(rec.ops) + "\n")
    (directory / "data.bin").write_bytes(bytes(rec.data))
    np.savez_compressed(directory / "expect.npz", **rec.changed)
    info = {"name": name, "scale": scale, "launches": len(rec.after), "kernels": list(rec.funcs),
            "cooperative": sorted(rec.cooperative), "relocations": rec.relocations, "after": rec.after,
            "warp_instructions": int(sum(r.warp_instructions for r in dev.launches)),
            "ndpgpu": ndpgpu.__version__}
    (directory / "capture.json").write_text(json.dumps(info))
    return {k: info[k] for k in ("launches", "kernels", "cooperative", "relocations", "warp_instructions")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", default="tiny")
    ap.add_argument("--only", default="", help="comma-separated workload names (default: every registered one)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--probe", action="store_true",
                    help="also (alone, without --only) capture the .approx probe (approx_probe.cu)")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or ([] if args.probe else sorted(all_workloads()))
    index: dict[str, Any] = {"scale": args.scale, "captured": {}, "skipped": {}}
    if args.probe:
        names = [*names, PROBE] if args.only else [PROBE]
    for name in names:
        try:
            dev, rec = capture_probe() if name == PROBE else capture(name, args.scale)
            if not rec.after:
                raise _TooLarge("no kernel launch")
            index["captured"][name] = write(name, args.scale, dev, rec, args.out / name)
            print(f"{name}: {len(rec.after)} launches", flush=True)
        except Exception as e:  # noqa: BLE001 - every reason is reported in the index
            reason = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            index["skipped"][name] = reason
            print(f"{name}: skipped ({reason})", flush=True)
            if not isinstance(e, (_TooLarge, RuntimeError)):
                traceback.print_exc(limit=2)
    (args.out / "index.json").write_text(json.dumps(index, indent=1))
    print(f"{len(index['captured'])} captured, {len(index['skipped'])} skipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
