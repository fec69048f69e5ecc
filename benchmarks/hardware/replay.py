"""Replay captured workloads on a real NVIDIA GPU and compare every launch's results with ndpgpu's, byte for byte.

Runs where the GPU is, with Python 3, NumPy and the CUDA driver (``libcuda.so.1``) only: the driver API through
ctypes, no CUDA toolkit package. ``capture.py`` made the captures on any machine.

    python3 replay.py --captures hwcap --mode jit --out results-jit.json
    python3 replay.py --captures hwcap --mode nofma --ptxas /usr/local/cuda/bin/ptxas --out results-nofma.json

Modes: ``jit`` hands the PTX to the driver, which compiles it for the GPU as a CUDA program's embedded PTX
would be (ptxas's defaults: it may contract a separate ``mul`` and ``add`` into one ``fma``, as the PTX ISA
allows for instructions without a rounding modifier); ``nofma`` compiles it first with ``ptxas --fmad=false``
for the GPU's architecture and loads the cubin, so every PTX instruction rounds as written.

Each launch starts from ndpgpu's memory (allocations zeroed when allocated, as ndpgpu's are; the host's copies;
after a launch whose results differ, ndpgpu's results are written back), so a difference is the launch's own.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import ctypes
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MAX_DEFAULT_DYNAMIC_SHARED = 48 * 1024
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6


class DriverError(RuntimeError):
    pass


class Driver:
    """The few CUDA driver entry points a replay needs."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.ctx = ctypes.c_void_p()
        self.call("cuInit", ctypes.c_uint(0))
        dev = ctypes.c_int()
        self.call("cuDeviceGet", ctypes.byref(dev), ctypes.c_int(0))
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(self.ctx), dev)
        self.call("cuCtxSetCurrent", self.ctx)
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.call("cuDeviceGetAttribute", ctypes.byref(major), ctypes.c_int(75), dev)  # compute capability major
        self.call("cuDeviceGetAttribute", ctypes.byref(minor), ctypes.c_int(76), dev)
        self.arch = f"sm_{major.value}{minor.value}"
        name = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", name, ctypes.c_int(256), dev)
        self.name = name.value.decode()
        version = ctypes.c_int()
        self.call("cuDriverGetVersion", ctypes.byref(version))
        self.version = version.value

    def call(self, fn: str, *args) -> None:
        rc = getattr(self.lib, fn)(*args)
        if rc != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorName(rc, ctypes.byref(text))
            raise DriverError(f"{fn}: {text.value.decode() if text.value else rc}")

    def load(self, image: bytes, ptx: bool) -> ctypes.c_void_p:
        module = ctypes.c_void_p()
        log = ctypes.create_string_buffer(16384)
        opts = (ctypes.c_int * 2)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(16384))
        data = ctypes.create_string_buffer(image + (b"\0" if ptx else b""))
        try:
            self.call("cuModuleLoadDataEx", ctypes.byref(module), data, ctypes.c_uint(2), opts, vals)
        except DriverError as e:
            raise DriverError(f"{e}: {log.value.decode(errors='replace')[:2000]}") from None
        return module

    def alloc(self, nbytes: int) -> int:
        ptr = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1)))
        self.call("cuMemsetD8_v2", ptr, ctypes.c_ubyte(0), ctypes.c_size_t(max(nbytes, 1)))
        return ptr.value

    def h2d(self, dst: int, data: bytes | np.ndarray) -> None:
        buf = np.ascontiguousarray(np.frombuffer(bytes(data), dtype=np.uint8) if isinstance(data, bytes) else data)
        if buf.size:
            self.call("cuMemcpyHtoD_v2", ctypes.c_uint64(dst), buf.ctypes.data_as(ctypes.c_void_p),
                      ctypes.c_size_t(buf.size))

    def d2h(self, src: int, nbytes: int) -> np.ndarray:
        out = np.empty(nbytes, dtype=np.uint8)
        if nbytes:
            self.call("cuMemcpyDtoH_v2", out.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(src),
                      ctypes.c_size_t(nbytes))
        return out

    def close(self) -> None:
        release = getattr(self.lib, "cuDevicePrimaryCtxRelease_v2", None) or self.lib.cuDevicePrimaryCtxRelease
        release(ctypes.c_int(0))


def _compare(expected: np.ndarray, got: np.ndarray) -> dict:
    """How two byte images differ: bytes, 4-byte words, the first offset, and read as float32 the largest
    distance in units in the last place (between finite values) and the count of NaN-pattern differences."""
    diff = np.flatnonzero(expected != got)
    out = {"bytes": int(diff.size), "first": int(diff[0]), "size": int(expected.size)}
    n4 = expected.size // 4 * 4
    if n4:
        e = expected[:n4].view(np.int32)
        g = got[:n4].view(np.int32)
        words = np.flatnonzero(e != g)
        out["words"] = int(words.size)
        if words.size:
            ef, gf = e[words].view(np.float32), g[words].view(np.float32)
            finite = np.isfinite(ef) & np.isfinite(gf)
            # ordered integer images of floats: the ULP distance is their difference
            def ordered(x):
                x = x.astype(np.int64)
                return np.where(x < 0, -(x & 0x7FFFFFFF), x)
            ulp = np.abs(ordered(e[words][finite]) - ordered(g[words][finite]))
            out["max_ulp_f32"] = int(ulp.max()) if ulp.size else None
            out["words_ulp1_f32"] = int((ulp == 1).sum())
            edges = (1, 2, 3, 5, 17, 1 << 62)  # 1, 2, 3-4, 5-16, more
            out["ulp_hist_f32"] = {(str(a) if b - a == 1 else f"{a}-{b - 1}" if b < edges[-1] else f"{a}+"):
                                   int(((ulp >= a) & (ulp < b)).sum()) for a, b in zip(edges, edges[1:], strict=False)}
            out["nonfinite"] = int((~finite).sum())
            k = int(words[0])
            out["sample"] = {"word": k, "ndpgpu": f"{int(e[k]) & 0xFFFFFFFF:08x}",
                             "gpu": f"{int(g[k]) & 0xFFFFFFFF:08x}"}
    return out


def replay_one(directory: Path, mode: str, ptxas: str | None) -> dict:
    t0 = time.time()
    info = json.loads((directory / "capture.json").read_text())
    ptx = (directory / "kernel.ptx").read_bytes()
    data = (directory / "data.bin").read_bytes()
    expect = np.load(directory / "expect.npz")
    result: dict = {"name": info["name"], "launches": info["launches"], "mode": mode}
    drv = Driver()
    result["gpu"] = drv.name
    try:
        if mode == "nofma":
            with tempfile.TemporaryDirectory() as tmp:
                src, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
                src.write_bytes(ptx)
                r = subprocess.run([ptxas, f"-arch={drv.arch}", "--fmad=false", "-o", str(cubin), str(src)],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    raise DriverError(f"ptxas: {r.stderr.strip()[:2000]}")
                module = drv.load(cubin.read_bytes(), ptx=False)
        else:
            module = drv.load(ptx, ptx=True)
        allocs: list[int] = []
        sizes: dict[str, int] = {}
        where: dict[str, int] = {}
        mirror: dict[str, np.ndarray] = {}  # ndpgpu's contents, as the launches leave them
        funcs: list[tuple[str, ctypes.c_void_p]] = []
        relocated: dict[str, dict[int, int]] = {}  # module variable -> offset -> the GPU address written there
        launch = 0
        mismatches: list[dict] = []
        launches_differing = 0
        lines = [x.split() for x in (directory / "script.txt").read_text().splitlines() if x.strip()]
        # module variables exist from the module's load on (the capture may list one only after the launch
        # that first loaded the module): number them in the order listed, before anything runs
        for nvars, f in enumerate(f for f in lines if f[0] == "var"):
            ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
            drv.call("cuModuleGetGlobal_v2", ctypes.byref(ptr), ctypes.byref(size), module, f[1].encode())
            key = f"v{nvars}"
            where[key], sizes[key] = ptr.value, int(f[2])
            mirror[key] = drv.d2h(ptr.value, int(f[2]))
        for f in lines:
            op = f[0]
            if op == "var":
                continue
            if op == "alloc":
                key = f"a{len(allocs)}"
                allocs.append(drv.alloc(int(f[1])))
                where[key], sizes[key] = allocs[-1], int(f[1])
                mirror[key] = np.zeros(int(f[1]), dtype=np.uint8)
            elif op == "func":
                fn = ctypes.c_void_p()
                drv.call("cuModuleGetFunction", ctypes.byref(fn), module, f[1].encode())
                funcs.append((f[1], fn))
            elif op == "h2d":
                key = f"{f[1]}{f[2]}"
                off, n, at = int(f[3]), int(f[4]), int(f[5])
                blob = data[at:at + n]
                drv.h2d(where[key] + off, blob)
                mirror[key][off:off + n] = np.frombuffer(blob, dtype=np.uint8)
            elif op == "reloc":  # an allocation's address inside a module variable: the GPU's, not ndpgpu's
                key, off = f"{f[1]}{f[2]}", int(f[3])
                address = where[f"{f[4]}{f[5]}"] + int(f[6])
                drv.h2d(where[key] + off, address.to_bytes(8, "little"))
                relocated.setdefault(key, {})[off] = address
            elif op == "launch":
                name, fn = funcs[int(f[1])]
                gx, gy, gz, bx, by, bz, shmem, nparams = (int(x) for x in f[2:10])
                rest = f[10:]
                buffers = []
                i = 0
                for _ in range(nparams):
                    size, kind = int(rest[i]), rest[i + 1]
                    if kind == "x":
                        raw = bytes.fromhex(rest[i + 2])[:size]
                        i += 3
                    else:
                        key = f"{'a' if kind == 'p' else 'v'}{rest[i + 2]}"
                        raw = (where[key] + int(rest[i + 3])).to_bytes(8, "little")[:size]
                        i += 4
                    buffers.append(ctypes.create_string_buffer(raw, max(size, 1)))
                params = (ctypes.c_void_p * max(1, len(buffers)))(*[ctypes.cast(b, ctypes.c_void_p) for b in buffers])
                if shmem > MAX_DEFAULT_DYNAMIC_SHARED:
                    drv.call("cuFuncSetAttribute", fn, ctypes.c_int(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
                             ctypes.c_int(shmem))
                entry = "cuLaunchCooperativeKernel" if name in info.get("cooperative", []) else "cuLaunchKernel"
                launch_args = [fn, ctypes.c_uint(gx), ctypes.c_uint(gy), ctypes.c_uint(gz), ctypes.c_uint(bx),
                               ctypes.c_uint(by), ctypes.c_uint(bz), ctypes.c_uint(shmem), ctypes.c_void_p(0), params]
                if entry == "cuLaunchKernel":
                    launch_args.append(ctypes.c_void_p(0))
                drv.call(entry, *launch_args)
                drv.call("cuCtxSynchronize")
                differs = False
                for key, digest in info["after"][launch].items():
                    change = f"L{launch}_{key}"
                    if change in expect.files:
                        mirror[key] = expect[change]
                    if hashlib.sha256(mirror[key].tobytes()).hexdigest() != digest:
                        raise DriverError(f"capture inconsistent at launch {launch}, {key}")
                    got = drv.d2h(where[key], sizes[key])
                    want = mirror[key]
                    if key in relocated:  # ndpgpu's bytes with the GPU's addresses where the host wrote them
                        want = want.copy()
                        for off, address in relocated[key].items():
                            want[off:off + 8] = np.frombuffer(address.to_bytes(8, "little"), dtype=np.uint8)
                    if np.array_equal(got, want):
                        continue
                    differs = True
                    d = _compare(want, got)
                    d.update(launch=launch, kernel=name, buffer=key)
                    if len(mismatches) < 20:
                        mismatches.append(d)
                    drv.h2d(where[key], want)  # go on from ndpgpu's results
                launches_differing += differs
                launch += 1
        result.update(status="match" if launches_differing == 0 else "differs", launches_run=launch,
                      launches_differing=launches_differing, mismatches=mismatches)
    except DriverError as e:
        result.update(status="error", error=str(e))
    finally:
        drv.close()
    result["seconds"] = round(time.time() - t0, 2)
    return result


def _worker(args: tuple[str, str, str | None, float]) -> dict:
    directory, mode, ptxas, timeout = args
    try:
        r = subprocess.run([sys.executable, __file__, "--one", directory, "--mode", mode] +
                           (["--ptxas", ptxas] if ptxas else []), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"name": Path(directory).name, "mode": mode, "status": "error", "error": f"over {timeout:.0f} s"}
    lines = [x for x in r.stdout.splitlines() if x.startswith("{\"name\"")]
    if r.returncode == 0 and lines:
        return json.loads(lines[-1])
    return {"name": Path(directory).name, "mode": mode, "status": "error",
            "error": f"exit {r.returncode}: {(r.stderr or r.stdout).strip()[-1500:]}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--captures", type=Path)
    ap.add_argument("--one", type=Path, help="replay one capture folder and print its result as JSON")
    ap.add_argument("--mode", choices=["jit", "nofma"], default="jit")
    ap.add_argument("--ptxas", default=None)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per workload")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(replay_one(args.one, args.mode, args.ptxas)), flush=True)
        return 0
    index = json.loads((args.captures / "index.json").read_text())
    names = sorted(index["captured"])
    jobs = [(str(args.captures / n), args.mode, args.ptxas, args.timeout) for n in names]
    results = []
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(_worker, j): j for j in jobs}
        for fut in cf.as_completed(futures):
            try:
                res = fut.result()
            except Exception as e:  # noqa: BLE001
                res = {"name": Path(futures[fut][0]).name, "mode": args.mode, "status": "error", "error": repr(e)}
            results.append(res)
            print(f"{res['name']}: {res['status']}", flush=True)
    results.sort(key=lambda r: r["name"])
    counts = {s: sum(r["status"] == s for r in results) for s in ("match", "differs", "error")}
    out = {"mode": args.mode, "counts": counts, "skipped_at_capture": index["skipped"], "results": results,
           "host": os.uname().nodename}
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
