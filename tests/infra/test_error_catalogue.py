"""docs/errors.md lists every error class the package defines, and the classes no other test raises are
raised here, each by the input the catalogue names."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import ndpgpu

DOC = Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def _error_classes() -> set[str]:
    names: set[str] = set()
    for info in pkgutil.walk_packages(ndpgpu.__path__, "ndpgpu."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__
                    and not name.startswith("_")):
                names.add(name)
    return names


def test_every_error_class_is_in_the_catalogue():
    text = DOC.read_text()
    missing = sorted(n for n in _error_classes() if f"`{n}`" not in text)
    assert not missing, f"docs/errors.md does not describe {missing}"


HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"


def test_trap_and_misaligned_access():
    trap = HEADER + ".visible .entry k()\n{\n  trap;\n  ret;\n}\n"
    with pytest.raises(ndpgpu.KernelTrap, match="trap executed"):
        ndpgpu.RawModule(ptx=trap).get_function("k")((1,), (32,), ())
    odd = HEADER + """.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  add.s64 %rd2, %rd1, 2;
  ld.global.u32 %r1, [%rd2];
  ret;
}
"""
    buf = ndpgpu.zeros(4, np.uint32)
    with pytest.raises(ndpgpu.MisalignedAccess, match="misaligned global access"):
        ndpgpu.RawModule(ptx=odd).get_function("k")((1,), (1,), (buf,))


def test_trace_too_large_and_device_memory_errors():
    from ndpgpu.functional.launch import TraceTooLarge
    from ndpgpu.functional.memory import DeviceMemory, DeviceMemoryError

    loop = HEADER + """.visible .entry k()
{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  mov.u32 %r1, 0;
L:
  add.s32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 100000;
  @%p1 bra L;
  ret;
}
"""
    with ndpgpu.Device(trace=True, options=ndpgpu.LaunchOptions(trace_cap_bytes=1000, trace_overflow="error")):
        with pytest.raises(TraceTooLarge, match="trace_cap_bytes"):
            ndpgpu.RawModule(ptx=loop).get_function("k")((4,), (64,), ())
    mem = DeviceMemory()
    with pytest.raises(DeviceMemoryError, match="negative size"):
        mem.alloc(-1)
    with pytest.raises(DeviceMemoryError, match="not an allocation"):
        mem.free(0x1234)


def test_workload_analyze_implementation_and_cfg_errors(tmp_path):
    from ndpgpu.analysis.cfg import CFG, CFGError
    from ndpgpu.frontend.parser import parse_ptx
    from ndpgpu.mechanisms.analyze import AnalyzeError
    from ndpgpu.mechanisms.tom.cli import load_module
    from ndpgpu.timing.registry import UnknownImplementation, lookup
    from ndpgpu.workloads.base import WorkloadError, get_workload

    with pytest.raises(WorkloadError, match="unknown workload 'nosuch'"):
        get_workload("nosuch")
    with pytest.raises(AnalyzeError, match="no such file"):
        load_module(str(tmp_path / "missing.cu"))
    with pytest.raises(UnknownImplementation):
        lookup("scheduler", "nosuch")
    brx = parse_ptx(HEADER + """.visible .entry k(.param .u32 i)
{
  .reg .b32 %r<2>;
  ld.param.u32 %r1, [i];
  brx.idx %r1, T;
A:
  ret;
B:
  ret;
}
""")
    with pytest.raises(CFGError, match="indirect branches"):
        CFG(brx.functions["k"])
