"""Fixtures for the analysis tests: CUDA compiled by nvcc into a temporary directory."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("ndpgpu") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from ndpgpu.frontend.ir import Module  # noqa: E402
from ndpgpu.frontend.parser import parse_ptx  # noqa: E402


def _nvcc() -> str | None:
    return shutil.which("nvcc")


@pytest.fixture(scope="session")
def nvcc_compile(tmp_path_factory):
    """``compile(src) -> Module``: nvcc -arch=sm_75 -ptx in a temporary directory (skips without nvcc)."""
    exe = _nvcc()
    if exe is None:
        pytest.skip("nvcc is not on PATH: the nvcc-compiled analysis tests need the CUDA toolkit")
    if shutil.which("g++") is None and shutil.which("c++") is None:
        pytest.skip("nvcc needs a host C++ compiler (g++) even for -ptx, and none is on PATH")
    root = tmp_path_factory.mktemp("nvcc")
    cache: dict[str, Module] = {}

    def compile_(src: str, *options: str) -> Module:
        key = src + "\0" + "\0".join(options)
        if key in cache:
            return cache[key]
        n = len(cache)
        cu = root / f"k{n}.cu"
        ptx = root / f"k{n}.ptx"
        cu.write_text(src)
        proc = subprocess.run([exe, "-arch=sm_75", "-ptx", *options, str(cu), "-o", str(ptx)],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"nvcc failed:\n{proc.stderr}")
        mod = parse_ptx(ptx.read_text(), str(ptx))
        cache[key] = mod
        return mod

    return compile_
