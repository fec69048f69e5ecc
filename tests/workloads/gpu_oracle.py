"""Run the built-in and corpus workloads on a real NVIDIA GPU, as an oracle for kernels and references.

A minimal stand-in for ndpgpu's public API (``asarray``/``zeros``/``empty``, device arrays with
``get``/``set``, a module with ``get_function``/``get_global``), written against the CUDA driver API
through ctypes, so it needs only ``libcuda``, ``nvcc`` and NumPy. Each workload's own ``launch`` runs
unchanged on the GPU and its outputs are compared with its NumPy reference and tolerances: a failure
here is a bug in the workload, not in the simulator.

``python tests/workloads/gpu_oracle.py [scales] [--save DIR]`` prints, per output, the worst error as
a fraction of the tolerance; ``--save`` also writes the GPU's values of the outputs checked with a
tolerance to ``DIR/gpu_<scale>.npz``, to compare a simulator's bits with.
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

_lib: ctypes.CDLL | None = None


def _cuda() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        lib = ctypes.CDLL("libcuda.so.1")
        c = ctypes
        u64, size, vp, ptr = c.c_uint64, c.c_size_t, c.c_void_p, c.POINTER
        signatures = {
            "cuMemAlloc_v2": [ptr(u64), size],
            "cuMemFree_v2": [u64],
            "cuMemcpyDtoH_v2": [vp, u64, size],
            "cuMemcpyHtoD_v2": [u64, vp, size],
            "cuMemsetD8_v2": [u64, c.c_ubyte, size],
            "cuLaunchKernel": [vp, *[c.c_uint] * 7, vp, vp, vp],
            "cuModuleLoadData": [ptr(vp), c.c_char_p],
            "cuModuleGetFunction": [ptr(vp), vp, c.c_char_p],
            "cuModuleGetGlobal_v2": [ptr(u64), ptr(size), vp, c.c_char_p],
        }
        for fname, argtypes in signatures.items():
            getattr(lib, fname).argtypes = argtypes
        _check(lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        _check(lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        ctx = ctypes.c_void_p()
        _check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        _check(lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        _lib = lib
    return _lib


def _check(status: int, what: str) -> None:
    if status != 0:
        name = ctypes.c_char_p()
        if _lib is not None:
            _lib.cuGetErrorName(status, ctypes.byref(name))
        raise RuntimeError(f"{what} failed: CUDA error {status} {name.value or b''!r}")


def available() -> bool:
    """True when a CUDA driver with at least one device and nvcc are present."""
    try:
        lib = _cuda()
    except (OSError, RuntimeError):
        return False
    count = ctypes.c_int()
    return (
        lib.cuDeviceGetCount(ctypes.byref(count)) == 0
        and count.value > 0
        and shutil.which("nvcc") is not None
    )


def num_sms() -> int:
    lib = _cuda()
    value = ctypes.c_int()
    _check(
        lib.cuDeviceGetAttribute(ctypes.byref(value), 16, 0), "cuDeviceGetAttribute"
    )  # MULTIPROCESSOR_COUNT
    return value.value


class DeviceArray:
    """Device memory holding an array of ``shape`` and ``dtype`` (structured dtypes too)."""

    def __init__(self, shape: tuple[int, ...], dtype: Any, ptr: int | None = None) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        self._owned = ptr is None
        if ptr is None:
            p = ctypes.c_uint64()
            _check(_cuda().cuMemAlloc_v2(ctypes.byref(p), max(self.nbytes, 1)), "cuMemAlloc")
            ptr = p.value
        self.ptr = int(ptr)

    def get(self) -> np.ndarray:
        host = np.empty(self.shape, dtype=self.dtype)
        _check(
            _cuda().cuMemcpyDtoH_v2(host.ctypes.data, ctypes.c_uint64(self.ptr), self.nbytes), "cuMemcpyDtoH"
        )
        return host

    def set(self, host: np.ndarray) -> None:
        src = np.ascontiguousarray(host)
        if src.nbytes != self.nbytes:
            raise ValueError(f"set: {src.nbytes} bytes into a device array of {self.nbytes}")
        _check(
            _cuda().cuMemcpyHtoD_v2(ctypes.c_uint64(self.ptr), src.ctypes.data, self.nbytes), "cuMemcpyHtoD"
        )

    def __del__(self) -> None:
        if self._owned and _lib is not None:
            _lib.cuMemFree_v2(self.ptr)


def _shape(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)


def asarray(host: Any) -> DeviceArray:
    src = np.ascontiguousarray(host)
    arr = DeviceArray(src.shape, src.dtype)
    arr.set(src)
    return arr


def zeros(shape: Any, dtype: Any = np.float64) -> DeviceArray:
    arr = DeviceArray(_shape(shape), dtype)
    _check(_cuda().cuMemsetD8_v2(arr.ptr, 0, arr.nbytes), "cuMemsetD8")
    return arr


def empty(shape: Any, dtype: Any = np.float64) -> DeviceArray:
    return DeviceArray(_shape(shape), dtype)


def _dims(d: Any) -> tuple[int, int, int]:
    t = (int(d),) if np.isscalar(d) else tuple(int(v) for v in d)
    return (t + (1, 1))[:3]  # type: ignore[return-value]


class Function:
    def __init__(self, handle: ctypes.c_void_p, name: str) -> None:
        self.handle = handle
        self.name = name

    def __call__(self, grid: Any, block: Any, args: tuple[Any, ...], shared_mem: int = 0) -> None:
        keep = []
        for a in args:
            if isinstance(a, DeviceArray):
                keep.append(ctypes.c_uint64(a.ptr))
            elif isinstance(a, np.generic):
                keep.append(ctypes.create_string_buffer(a.tobytes(), max(a.nbytes, 1)))
            else:
                raise TypeError(f"{self.name}: argument of type {type(a).__name__} (use numpy scalars)")
        params = (ctypes.c_void_p * max(len(keep), 1))(
            *[ctypes.cast(ctypes.byref(k), ctypes.c_void_p) for k in keep]
        )
        g, b = _dims(grid), _dims(block)
        lib = _cuda()
        _check(
            lib.cuLaunchKernel(self.handle, *g, *b, int(shared_mem), None, params, None),
            f"launch {self.name}",
        )
        _check(lib.cuCtxSynchronize(), f"kernel {self.name}")
        sys.stdout.flush()


class Module:
    """The workload's sources compiled by nvcc to PTX (sm_75, as the simulator gets them) and loaded."""

    _ptx_cache: dict[tuple[Path, tuple[str, ...]], str] = {}

    def __init__(self, sources: list[Path], options: tuple[str, ...] = ()) -> None:
        self._modules: list[tuple[ctypes.c_void_p, str]] = []
        for src in sources:
            key = (src, tuple(options))
            if key not in self._ptx_cache:
                with tempfile.TemporaryDirectory() as tmp:
                    out = Path(tmp) / (src.stem + ".ptx")
                    cmd = ["nvcc", "-arch=sm_75", "-ptx", *options, str(src), "-o", str(out)]
                    subprocess.run(cmd, check=True, capture_output=True)
                    self._ptx_cache[key] = out.read_text()
            ptx = self._ptx_cache[key]
            mod = ctypes.c_void_p()
            _check(_cuda().cuModuleLoadData(ctypes.byref(mod), ptx.encode() + b"\0"), f"load {src.name}")
            self._modules.append((mod, ptx))

    def _resolve(self, name: str, kind: str) -> tuple[ctypes.c_void_p, str]:
        pattern = (
            r"\.entry\s+([\w$]+)" if kind == "entry" else r"\.(?:const|global)\s+[^;]*?([\w$]+)\s*(?:\[|;|=)"
        )
        hits = []
        for mod, ptx in self._modules:
            for sym in re.findall(pattern, ptx):
                plain = sym
                m = re.match(r"_Z(\d+)(\w+)", sym)
                if m:
                    plain = m.group(2)[: int(m.group(1))]
                if name in (sym, plain):
                    hits.append((mod, sym))
        if len(hits) != 1:
            raise KeyError(f"{kind} {name!r}: {len(hits)} matches")
        return hits[0]

    def get_function(self, name: str) -> Function:
        mod, sym = self._resolve(name, "entry")
        fn = ctypes.c_void_p()
        _check(_cuda().cuModuleGetFunction(ctypes.byref(fn), mod, sym.encode()), f"get_function {name}")
        return Function(fn, name)

    def get_global(self, name: str) -> DeviceArray:
        mod, sym = self._resolve(name, "global")
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        _check(_cuda().cuModuleGetGlobal_v2(ctypes.byref(ptr), ctypes.byref(size), mod, sym.encode()), name)
        return DeviceArray((size.value,), np.uint8, ptr=ptr.value)


def install(namespace: Any) -> None:
    """Point ``namespace.asarray/zeros/empty`` (the ``ndpgpu`` module) at this driver."""
    namespace.asarray, namespace.zeros, namespace.empty = asarray, zeros, empty


def run_on_gpu(name: str, scale: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[Any]]:
    """Run one workload on the GPU (after :func:`install`); returns outputs, reference and checks."""
    from ndpgpu.workloads.base import RunContext, check_outputs, get_workload

    cls = get_workload(name)
    w = cls()
    p = cls.params(scale)
    inp = w.inputs(p, np.random.default_rng(cls.seed))
    module = Module(cls.source_paths(), cls.options)
    ctx = RunContext(module=module, device=SimpleNamespace(num_sms=num_sms()), scale=scale, params=p)
    out = w.launch(ctx, inp, p)
    ref = w.reference(inp, p)
    return out, ref, check_outputs(out, ref, cls.tolerance)


def _tolerance_use(out: np.ndarray, ref: np.ndarray, tol: Any) -> float:
    """Worst |out - ref| as a fraction of the allowed ``atol + rtol*|ref|`` (0 when exact)."""
    o, r = np.asarray(out, np.float64), np.asarray(ref, np.float64)
    finite = np.isfinite(o) & np.isfinite(r)
    diff = np.abs(o[finite] - r[finite])
    if not diff.size or not diff.max():
        return 0.0
    allowed = tol.atol + tol.rtol * np.abs(r[finite])
    return float(np.max(diff / np.maximum(allowed, 1e-300)))


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    import ndpgpu
    from ndpgpu.workloads.base import Tolerance, all_workloads

    install(ndpgpu)
    save_dir = None
    if "--save" in argv:
        k = argv.index("--save")
        save_dir = Path(argv[k + 1])
        argv = argv[:k] + argv[k + 2 :]
    scales = argv or ["tiny", "small"]
    failed = 0
    saved: dict[str, dict[str, np.ndarray]] = {s: {} for s in scales}
    for name, cls in all_workloads().items():
        if cls.suite not in ("builtin", "corpus"):
            continue
        for scale in scales:
            try:
                out, ref, checks = run_on_gpu(name, scale)
            except Exception as exc:  # report and go on with the next workload
                print(f"ERROR {name}/{scale}: {type(exc).__name__}: {exc}", flush=True)
                failed += 1
                continue
            for key, tol in cls.tolerance.items():  # outputs whose bits the reference does not pin down
                if (tol.rtol or tol.atol) and key in out:
                    saved[scale][f"{name}/{key}"] = np.asarray(out[key])
            ok = all(c.passed for c in checks)
            failed += not ok
            use = {
                c.name: _tolerance_use(out[c.name], ref[c.name], cls.tolerance.get(c.name, Tolerance()))
                for c in checks
                if np.asarray(ref[c.name]).dtype.kind == "f" and c.name in out
            }
            worst = ", ".join(f"{k}={v:.3g}" for k, v in use.items() if v)
            print(f"{'ok  ' if ok else 'FAIL'} {name}/{scale} {worst}", flush=True)
            for c in checks:
                if not c.passed:
                    print(f"     {c.message}", flush=True)
    if save_dir is not None:
        save_dir.mkdir(parents=True, exist_ok=True)
        for scale, arrays in saved.items():
            np.savez_compressed(save_dir / f"gpu_{scale}.npz", **arrays)
    print(f"{failed} failing", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
