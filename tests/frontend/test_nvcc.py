"""The nvcc driver: caching, register counts, provenance, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend import nvcc

needs_nvcc = pytest.mark.skipif(not nvcc.nvcc_available(), reason="nvcc and a host compiler are required")

SRC = "extern \"C\" __global__ void k(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] = x[i] * X + 1.0f; }"


@needs_nvcc
def test_compile_is_cached_by_content_options_and_arch(tmp_path, monkeypatch):
    monkeypatch.setenv("NDPGPU_CACHE_DIR", str(tmp_path))
    first = nvcc.compile_cuda(SRC, ("-DX=2.0f",))
    again = nvcc.compile_cuda(SRC, ("-DX=2.0f",))
    other = nvcc.compile_cuda(SRC, ("-DX=3.0f",))
    newer = nvcc.compile_cuda(SRC, ("-DX=2.0f",), arch="sm_80")
    assert not first.from_cache and again.from_cache and again.ptx == first.ptx
    assert not other.from_cache and "0f40400000" in other.ptx  # 3.0f
    assert newer.arch == "sm_80" and ".target sm_80" in newer.ptx
    assert first.arch == nvcc.DEFAULT_ARCH and first.nvcc_version.count(".") == 2
    assert first.registers["k"] > 0  # from ptxas -v


@needs_nvcc
def test_module_records_provenance_and_registers():
    k = ndpgpu.RawKernel(SRC, "k", options=("-DX=2.0f",))
    assert k.module.arch == "sm_75" and k.module.nvcc_version
    assert k.num_regs == k.module.registers["k"] > 0
    with ndpgpu.Device(trace=True) as dev:
        k((1,), (32,), (ndpgpu.zeros(32, "float32"), 32))
    launch = dev.traces[0].launch
    assert launch.regs_per_thread == k.num_regs and launch.arch == "sm_75"


@needs_nvcc
def test_compile_errors_carry_nvccs_diagnostics():
    with pytest.raises(ndpgpu.CompileError, match="undefined"):
        ndpgpu.RawModule(code="__global__ void k() { undefined_thing(); }")


def test_missing_nvcc_is_a_clear_error(monkeypatch):
    nvcc.toolchain.cache_clear()
    monkeypatch.setenv("NDPGPU_NVCC", "/nonexistent/nvcc")
    try:
        with pytest.raises(ndpgpu.ToolchainError, match="nvcc was not found"):
            nvcc.toolchain()
    finally:
        nvcc.toolchain.cache_clear()


@needs_nvcc
def test_code_that_includes_a_file_named_kernel_cu_compiles(tmp_path, monkeypatch):
    """A ``code=`` source used to be written to a temporary ``kernel.cu``, so ``#include "kernel.cu"`` (a
    common name, its folder on ``-I``) included the source itself, recursively."""
    monkeypatch.setenv("NDPGPU_CACHE_DIR", str(tmp_path / "cache"))
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "kernel.cu").write_text("__device__ float twice(float x) { return 2.0f * x; }\n")
    src = '#include "kernel.cu"\nextern "C" __global__ void k(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }\n'
    mod = ndpgpu.RawModule(code=src, options=(f"-I{lib}",))
    x = ndpgpu.asarray(np.arange(4, dtype=np.float32))
    mod.get_function("k")((1,), (4,), (x,))
    assert x.get().tolist() == [0.0, 2.0, 4.0, 6.0]


@needs_nvcc
def test_path_sources_compile_in_place_with_relative_includes(tmp_path, monkeypatch):
    """``path=`` compiles the file where it is: a quoted include relative to it resolves (also one that
    climbs out of its folder), and a relative ``-I`` means the caller's working directory."""
    monkeypatch.setenv("NDPGPU_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "scale.h").write_text("#define SCALE 3.0f\n")
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "offset.h").write_text("#define OFFSET 1.0f\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernel.cu").write_text(
        '#include "../common/scale.h"\n#include "offset.h"\n'
        'extern "C" __global__ void k(float* x) { x[threadIdx.x] = x[threadIdx.x] * SCALE + OFFSET; }\n')
    monkeypatch.chdir(tmp_path)
    mod = ndpgpu.RawModule(path=str(tmp_path / "src" / "kernel.cu"), options=("-Iinc",))
    x = ndpgpu.asarray(np.arange(3, dtype=np.float32))
    mod.get_function("k")((1,), (3,), (x,))
    assert x.get().tolist() == [1.0, 4.0, 7.0]
