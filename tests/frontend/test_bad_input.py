"""Bad input is refused with a typed error naming what and where, never silently accepted."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ndpgpu
from ndpgpu.cli import main as cli_main
from ndpgpu.frontend import nvcc
from ndpgpu.frontend.parser import parse_ptx

needs_nvcc = pytest.mark.skipif(not nvcc.nvcc_available(), reason="nvcc and a host compiler are required")

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"

TYPO_PTX = HEADER + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 7;
  st.gloabl.u32 [%rd1], %r1;
  ret;
}
"""

REDUX_PTX = HEADER + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  redux.sync.add.u32 %r2, %r1, 0xffffffff;
  st.global.u32 [%rd1], %r2;
  ret;
}
"""


def test_a_misspelt_state_space_is_a_parse_error_at_its_line():
    with pytest.raises(ndpgpu.PTXParseError, match=r":10:\d+: unknown modifier \.gloabl of st"):
        parse_ptx(TYPO_PTX)
    for good in ("ld.global.nc.L1::no_allocate.v4.f32", "st.volatile.shared.v2.u64", "atom.global.cas.b32",
                 "red.relaxed.gpu.global.add.f32", "ld.global.L2::128B.u32", "st.global.L1::evict_last.b32"):
        parse_ptx(TYPO_PTX.replace("st.gloabl.u32", good))  # the ISA's modifiers are accepted


@needs_nvcc
def test_ptxas_rejection_is_not_a_register_count_of_zero(tmp_path, monkeypatch):
    """``redux`` needs sm_80: ptxas rejects this sm_75 PTX. It still runs functionally (ndpgpu executes
    PTX), but asking for its register count, or recording a trace for timing, raises CompileError with
    ptxas's message instead of assuming 0 registers (unbounded occupancy)."""
    monkeypatch.setenv("NDPGPU_CACHE_DIR", str(tmp_path))
    fn = ndpgpu.RawModule(ptx=REDUX_PTX).get_function("k")
    out = ndpgpu.zeros(1, np.uint32)
    fn((1,), (32,), (out,))
    assert out.get()[0] == sum(range(32))
    with pytest.raises(ndpgpu.CompileError, match="requires .target sm_80"):
        _ = fn.num_regs
    with ndpgpu.Device(trace=True):
        out = ndpgpu.zeros(1, np.uint32)
        with pytest.raises(ndpgpu.CompileError, match="ptxas"):
            fn((1,), (32,), (out,))


@needs_nvcc
def test_a_truncated_register_cache_file_is_recomputed(tmp_path, monkeypatch):
    monkeypatch.setenv("NDPGPU_CACHE_DIR", str(tmp_path))
    ptx = HEADER + ".visible .entry k(.param .u64 out)\n{\n  ret;\n}\n"
    first = nvcc.ptx_registers(ptx)
    [path] = (tmp_path / "regs").glob("*.json")
    path.write_text(path.read_text()[:3])  # a crash mid-write, as before writes were atomic
    assert nvcc.ptx_registers(ptx) == first
    assert json.loads(path.read_text()) == first
    assert not list((tmp_path / "regs").glob("*.tmp*"))


def test_machine_overrides_refuse_booleans_for_numbers():
    from ndpgpu.timing import load_machine
    from ndpgpu.timing.spec import MachineConfigError

    with pytest.raises(MachineConfigError, match="num_sms: expected a number, got true"):
        load_machine("gtx480", overrides={"core.num_sms": True})
    assert load_machine("gtx480", overrides={"core.num_sms": 8}).core.num_sms == 8


def test_cli_refuses_negative_jobs_and_overrides_without_a_machine(capsys):
    with pytest.raises(SystemExit) as info:
        cli_main(["sweep", "spec.yaml", "--jobs", "-3"])
    assert info.value.code == 2 and "expected a non-negative integer, got -3" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        cli_main(["workloads", "characterize", "--jobs", "0"])
    assert info.value.code == 2 and "expected a positive integer, got 0" in capsys.readouterr().err
    assert cli_main(["run", "vecadd", "--set", "l2.size_kb=128"]) == 2  # every usage error: exit status 2
    assert "name the machine with --machine" in capsys.readouterr().err


TEX_AND_INDIRECT_SRC = r"""
extern "C" __global__ void t(float* o, cudaTextureObject_t obj) { o[0] = tex1Dfetch<float>(obj, 3); }
typedef float (*fp)(float);
__device__ float sq(float x) { return x * x; }
__device__ float cu(float x) { return x * x * x; }
__device__ fp table[2] = {sq, cu};
extern "C" __global__ void ind(float* o, int k) { o[0] = table[k](o[1]); }
"""


@needs_nvcc
def test_textures_are_unsupported_ptx_naming_the_instruction_and_indirect_calls_run():
    """Both parse (they used to be PTXParseErrors at a bracket or a prototype declaration); the decoder refuses
    the texture fetch with the instruction's line, and runs the call through the function-pointer table."""
    mod = ndpgpu.RawModule(code=TEX_AND_INDIRECT_SRC)
    lines = mod.ptx.splitlines()
    with pytest.raises(ndpgpu.UnsupportedPTX, match="texture instructions") as info:
        mod.get_function("t").program()
    assert "tex." in lines[info.value.line - 1]
    out = ndpgpu.asarray(np.array([0, 3], np.float32))
    mod.get_function("ind")((1,), (1,), (out, np.int32(1)))
    assert out.get()[0] == 27.0


def test_a_partial_machine_file_says_which_fields_took_defaults(tmp_path):
    from ndpgpu.timing import load_machine
    from ndpgpu.timing.presets import MachineDefaultsWarning

    partial = tmp_path / "partial.yaml"
    partial.write_text("name: partial\ncore:\n  num_sms: 4\n")
    with pytest.warns(MachineDefaultsWarning, match=r"leaves \d+ fields at their defaults: clocks, dram, ") as rec:
        machine = load_machine(partial)
    assert machine.core.num_sms == 4 and "l2" in str(rec[0].message)
    based = tmp_path / "based.yaml"
    based.write_text("extends: gtx480\nname: based\ncore:\n  num_sms: 4\n")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", MachineDefaultsWarning)
        assert load_machine(based).core.num_sms == 4  # a complete tree: nothing defaulted, no warning
