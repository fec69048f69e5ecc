"""The GPU bit-exactness harness (``benchmarks/hardware``) without a GPU: a stand-in driver keeps device memory
in NumPy, so the capture's bookkeeping (launches, host copies, results per launch, pointer relocations) and the
replay's comparison are checked here; only the kernels' execution needs the real GPU."""

from __future__ import annotations

import ctypes
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import ndpgpu

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


capture = _load("_hw_capture", BENCH / "hardware" / "capture.py")
replay = _load("_hw_replay", BENCH / "hardware" / "replay.py")
gs_capture = sys.modules["_gs_capture"]


class FakeGPU:
    """Device memory in NumPy at addresses unlike ndpgpu's; a launch either does nothing or, as a GPU that
    computes what ndpgpu computed, writes the capture's results of that launch (``expect``)."""

    arch = "sm_90"
    name = "fake"

    def __init__(self, expect=None, sizes=None):
        self.mem: dict[int, np.ndarray] = {}
        self.next = 0x5000_0000_0000
        self.expect, self.launches, self.keys = expect, 0, {}
        self.var_sizes = sizes or {}

    def _new(self, n: int) -> int:
        p = self.next
        self.next += (n + 0xFFF) // 0x1000 * 0x1000 + 0x1000
        self.mem[p] = np.zeros(max(n, 1), np.uint8)
        return p

    def load(self, image, ptx):
        return ctypes.c_void_p(1)

    def alloc(self, n: int) -> int:
        p = self._new(n)
        self.keys[p] = f"a{sum(k.startswith('a') for k in self.keys.values())}"
        return p

    def call(self, fn: str, *args) -> None:
        if fn == "cuModuleGetGlobal_v2":
            name = args[3].decode()
            size = self.var_sizes[name]
            p = self._new(size)
            self.keys[p] = f"v{sum(k.startswith('v') for k in self.keys.values())}"
            args[0]._obj.value, args[1]._obj.value = p, size
        elif fn in ("cuLaunchKernel", "cuLaunchCooperativeKernel") and self.expect is not None:
            for p, key in self.keys.items():
                change = f"L{self.launches}_{key}"
                if change in self.expect.files:
                    self.mem[p][:] = self.expect[change]
            self.launches += 1

    def _at(self, address: int) -> tuple[np.ndarray, int]:
        for base, m in self.mem.items():
            if base <= address < base + m.size:
                return m, address - base
        raise AssertionError(f"fake GPU: {address:#x} is in no allocation")

    def h2d(self, dst: int, data) -> None:
        m, off = self._at(dst)
        d = np.frombuffer(bytes(data), np.uint8) if isinstance(data, bytes) else data
        m[off:off + d.size] = d

    def d2h(self, src: int, n: int) -> np.ndarray:
        m, off = self._at(src)
        return m[off:off + n].copy()

    def close(self) -> None:
        pass


def _replay(tmp_path: Path, name: str, rec, dev, monkeypatch, computing: bool) -> dict:
    folder = tmp_path / name
    capture.write(name, "tiny", dev, rec, folder)
    sizes = {f.split()[1]: int(f.split()[2]) for f in (folder / "script.txt").read_text().splitlines()
             if f.startswith("var ")}
    expect = np.load(folder / "expect.npz") if computing else None
    monkeypatch.setattr(replay, "Driver", lambda: FakeGPU(expect, sizes))
    return replay.replay_one(folder, "jit", None)


SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}"""


def test_a_gpu_that_computes_what_ndpgpu_computed_matches_and_one_that_does_nothing_differs(tmp_path, monkeypatch):
    n = 1000

    def body():
        fn = ndpgpu.RawModule(code=SAXPY).get_function("saxpy")
        x = ndpgpu.asarray(np.arange(n, dtype=np.float32))
        y = ndpgpu.asarray(np.ones(n, dtype=np.float32))
        for _ in range(3):  # three launches, each reading the last one's y
            fn(((n + 255) // 256,), (256,), (np.float32(0.5), x, y, np.int32(n)))

    dev, rec = capture.record(body)
    assert len(rec.after) == 3 and sum(1 for op in rec.ops if op.startswith("launch")) == 3
    good = _replay(tmp_path, "saxpy", rec, dev, monkeypatch, computing=True)
    assert good["status"] == "match" and good["launches_run"] == 3, good
    idle = _replay(tmp_path, "saxpy_idle", rec, dev, monkeypatch, computing=False)
    assert idle["status"] == "differs" and idle["launches_differing"] == 3
    assert {m["buffer"] for m in idle["mismatches"]} == {"a1"}  # y only; x is never written
    first = idle["mismatches"][0]
    # y = 0.5 x + 1 against the untouched 1.0: every element but y[0] (= 1.0) differs; y[1] = 1.5 is
    # 0x3FC00000 against 0x3F800000, so the first differing byte is byte 2 of word 1 (little-endian)
    assert first["words"] == n - 1 and first["first"] == 6


POINTER = r"""
__constant__ const float *c_src;
__constant__ int c_sizes[4];
extern "C" __global__ void twice(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * c_src[i] + c_sizes[i % 4];
}"""


def test_a_device_pointer_kept_in_constant_memory_is_relocated(tmp_path, monkeypatch):
    from ndpgpu.workloads.builtin._common import set_global

    n = 256

    def body():
        mod = ndpgpu.RawModule(code=POINTER)
        src = ndpgpu.asarray(np.arange(n, dtype=np.float32) + 1.0)
        out = ndpgpu.zeros(n, np.float32)
        set_global(mod, "c_src", np.array([src.ptr], np.uint64))
        # two int pairs that read as ndpgpu's default first address (0x7_0000_0000): sizes, not pointers
        set_global(mod, "c_sizes", np.array([0, 7, 0, 7], np.int32))
        mod.get_function("twice")((1,), (n,), (out, np.int32(n)))

    dev, rec = capture.record(body)
    assert rec.relocations == 1
    reloc = [op for op in rec.ops if op.startswith("reloc")]
    variables = [op.split()[1] for op in rec.ops if op.startswith("var ")]
    assert reloc == [f"reloc v {variables.index('c_src')} 0 a 0 0"]  # c_src holds allocation 0's address
    folder = tmp_path / "pointer"
    capture.write("pointer", "tiny", dev, rec, folder)
    seen = {}
    sizes = {"c_src": 8, "c_sizes": 16}

    class Watching(FakeGPU):
        def call(self, fn, *args):
            if fn == "cuLaunchKernel":  # the constant holds the fake GPU's address of src, not ndpgpu's
                var = next(p for p, k in self.keys.items() if k == f"v{variables.index('c_src')}")
                seen["pointer"] = int(self.mem[var][:8].view("<u8")[0])
                seen["src"] = next(p for p, k in self.keys.items() if k == "a0")
            super().call(fn, *args)

    monkeypatch.setattr(replay, "Driver", lambda: Watching(np.load(folder / "expect.npz"), sizes))
    result = replay.replay_one(folder, "jit", None)
    assert result["status"] == "match", result
    assert seen["pointer"] == seen["src"] != 0


def test_clean_ptx_keeps_local_memory_and_drops_line_information():
    ptx = ("\t.file\t1 \"k.cu\"\n\t.local .align 16 .b8 \t__local_depot0[64];\n\t.loc\t1 5 3\n"
           "\tmov.u64 \t%SPL, __local_depot0;\n")
    out = gs_capture.clean_ptx(ptx)
    assert "__local_depot0[64]" in out and "mov.u64" in out
    assert ".loc" not in out.replace(".local", "") and ".file" not in out


@pytest.mark.parametrize(("got", "ulp"), [(np.float32(2.0), 0), (np.nextafter(np.float32(2), np.float32(3)), 1),
                                          (np.float32(2.0) + np.float32(2.0 ** -20), 4)])
def test_compare_counts_units_in_the_last_place(got, ulp):
    expected = np.array([1.0, 2.0], np.float32).view(np.uint8)
    actual = np.array([1.0, got], np.float32).view(np.uint8)
    d = replay._compare(expected, actual) if ulp else None
    if ulp == 0:
        assert np.array_equal(expected, actual)
        return
    assert d["words"] == 1 and d["max_ulp_f32"] == ulp and d["first"] >= 4
    # -0.0 against +0.0 differs in its bits by 0 ulp: counted as a differing word, not as an error in value
    z = replay._compare(np.array([-0.0], np.float32).view(np.uint8), np.array([0.0], np.float32).view(np.uint8))
    assert z["words"] == 1 and z["max_ulp_f32"] == 0
