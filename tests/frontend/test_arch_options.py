"""The target architecture named in nvcc options as CuPy and nvcc users write them (``-arch=sm_80``,
``-arch sm_86``, ``--gpu-architecture=``, ``-gencode=arch=...,code=...``, ``compute_XX``): ``split_arch`` picks
it out, refuses what cannot be compiled for (``native``, a flag without its value, two architectures, an
``arch=`` keyword that disagrees), and the module is compiled for it (``__CUDA_ARCH__``), from Python and from
``ndpgpu run FILE.cu --option=...``.

References: nvcc's documented option spellings (``--gpu-architecture``/``-arch``, ``--generate-code``/
``-gencode arch=compute_XX,code=sm_XX``) and ``__CUDA_ARCH__`` = 100 x major + 10 x minor.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import ndpgpu
from ndpgpu.cli import main as cli_main
from ndpgpu.frontend import nvcc
from ndpgpu.frontend.nvcc import split_arch

needs_nvcc = pytest.mark.skipif(not nvcc.nvcc_available(), reason="nvcc and a host compiler are required")


@pytest.mark.parametrize("options, arch, rest", [
    (("-arch=sm_80",), "sm_80", []),
    (("-arch", "sm_86"), "sm_86", []),
    (("--gpu-architecture=sm_90",), "sm_90", []),
    (("--gpu-architecture", "sm_89"), "sm_89", []),
    (("-gencode=arch=compute_80,code=sm_80",), "sm_80", []),
    (("-gencode", "arch=compute_89,code=[sm_89,compute_89]"), "sm_89", []),
    (("-arch=compute_80", "-O3"), "sm_80", ["-O3"]),
    (("-DX=1", "-arch=sm_86", "-std=c++17"), "sm_86", ["-DX=1", "-std=c++17"]),
    (("-arch=sm_80", "-arch=sm_80"), "sm_80", []),  # the same architecture twice is one
    ((), "sm_75", []),
    (("-O3", "-lineinfo"), "sm_75", ["-O3", "-lineinfo"]),
])
def test_split_arch_finds_the_architecture(options, arch, rest):
    assert split_arch(options) == (arch, rest)
    assert split_arch(list(options)) == (arch, rest)


def test_split_arch_keyword():
    assert split_arch((), arch="sm_80") == ("sm_80", [])
    assert split_arch(("-O3",), arch="sm_90") == ("sm_90", ["-O3"])
    assert split_arch(("-arch=sm_80",), arch="sm_80") == ("sm_80", [])  # the same in both: fine
    assert split_arch(("-arch=compute_80",), arch="sm_80") == ("sm_80", [])
    assert nvcc.DEFAULT_ARCH == "sm_75"


@pytest.mark.parametrize("options, arch, match", [
    (("-arch=native",), None, "native"),
    (("-arch=all",), None, "all"),
    (("-arch",), None, "needs a value"),
    (("-O3", "--gpu-architecture"), None, "needs a value"),
    (("-arch=sm_80", "-arch=sm_86"), None, "several architectures"),
    (("-arch=sm_80", "-gencode=arch=compute_90,code=sm_90"), None, "several architectures"),
    (("-arch=sm_80",), "sm_86", "disagrees"),
    (("-gencode=arch=compute_89,code=sm_89",), "sm_75", "disagrees"),
])
def test_split_arch_refusals(options, arch, match):
    with pytest.raises(ValueError, match=match):
        split_arch(options, arch)


ARCH_SRC = 'extern "C" __global__ void which(int* out) { out[0] = __CUDA_ARCH__; }\n'


@needs_nvcc
@pytest.mark.parametrize("options, kwargs, want", [
    (("-arch=sm_80",), {}, 800),
    (("-gencode", "arch=compute_86,code=sm_86"), {}, 860),
    ((), {"arch": "sm_90"}, 900),
    ((), {}, 750),
])
def test_module_is_compiled_for_the_named_architecture(options, kwargs, want):
    module = ndpgpu.RawModule(code=ARCH_SRC, options=options, **kwargs)
    assert module.arch == f"sm_{want // 10}"
    assert f".target sm_{want // 10}" in module.ptx
    out = ndpgpu.zeros(1, np.int32)
    module.get_function("which")((1,), (1,), (out,))
    assert int(out.get()[0]) == want


@needs_nvcc
def test_module_options_that_disagree_are_refused():
    with pytest.raises(ValueError, match="disagrees"):
        ndpgpu.RawModule(code=ARCH_SRC, options=("-arch=sm_80",), arch="sm_86")
    with pytest.raises(ValueError, match="native"):
        ndpgpu.RawModule(code=ARCH_SRC, options=("-arch=native",))


@needs_nvcc
def test_cli_run_passes_the_architecture_option(tmp_path, capsys):
    src = tmp_path / "k.cu"
    src.write_text(ARCH_SRC)
    ref = tmp_path / "ref.npy"
    np.save(ref, np.array([800], np.int32))
    argv = ["run", str(src), "--kernel", "which", "--grid", "1", "--block", "1", "--arg", "out=i32[1]",
            "--expect", f"out={ref}", "--json"]
    assert cli_main([*argv, "--option=-arch=sm_80"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["passed"] and [c["name"] for c in doc["checks"]] == ["out"]
    assert cli_main(argv) == 1  # compiled for the default sm_75, out is 750: the check fails
    doc = json.loads(capsys.readouterr().out)
    assert not doc["passed"]
