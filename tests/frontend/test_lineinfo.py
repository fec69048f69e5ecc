"""Source-level views: CUDA sources compile with -lineinfo by default (the same instructions), and errors, the
module and the per-PC table name each instruction's file:line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.lineinfo import CODE_NAME, SourceMap, line_map, pc_table_with_source
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

# line numbers matter below: the stray store is on line 5
OOB = """// writes 64 elements past its array
extern "C" __global__ void oob(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i + 64] = 1.0f;
}
"""

INLINED = """__device__ inline float twice(float v) {
    return v * 2.0f;
}
__device__ __noinline__ float thrice(float v) { return v * 3.0f; }
extern "C" __global__ void k(float *y) {
    int i = threadIdx.x;
    y[i] = twice(thrice(y[i]));
}
"""


@pytest.fixture
def oob_file(tmp_path: Path) -> Path:
    path = tmp_path / "oob.cu"
    path.write_text(OOB)
    return path


def test_loc_directives_map_lines_and_inlining() -> None:
    ptx = ('\t.loc\t1 7 3\n\tld.global.f32 %f1, [%rd1];\n'
           '\t.loc\t1 2 12, function_name $L__info_string0, inlined_at 1 7 3\n\tadd.f32 %f2, %f1, %f1;\n'
           '\t.file\t1 "/nowhere/y.cu"\n')
    assert line_map(ptx) == ({2: (1, 7), 4: (1, 2)}, {1: "/nowhere/y.cu"})
    smap = SourceMap(ptx)
    assert smap.lookup(2).short() == "y.cu:7" and smap.lookup(2).column == 3
    assert smap.lookup(4).short() == "y.cu:2, inlined at y.cu:7" and smap.lookup(4).outermost.line == 7
    chain = SourceMap('\t.loc\t1 3 5\n\t.loc\t2 122 3, function_name $L__a, inlined_at 1 3 5\n'
                      '\t.loc\t2 115 4, function_name $L__b, inlined_at 2 122 3\n\ttex.1d.v4.f32.s32 x;\n'
                      '\t.file\t1 "k.cu"\n\t.file\t2 "/inc/h.h"\n').lookup(4)
    assert chain.short() == "h.h:115, inlined at h.h:122, inlined at k.cu:3"  # one .loc per inlining level
    assert smap.lookup(1) is None and smap.lookup(3) is None  # directives, not instructions
    assert not SourceMap("\tret;\n")


@needs_nvcc
@pytest.mark.parametrize("src", [OOB, INLINED])
def test_lineinfo_changes_no_instruction(src: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default -lineinfo adds .loc/.file directives only: the same instructions and register counts (so it is
    on by default; NDPGPU_LINEINFO=0 turns it off)."""
    lined = ndpgpu.RawModule(code=src)
    monkeypatch.setenv("NDPGPU_LINEINFO", "0")
    plain = ndpgpu.RawModule(code=src)
    assert ".loc" in lined.ptx and ".loc" not in plain.ptx and not plain.source_map
    for name, fn in plain.ir.functions.items():
        assert [i.full for i in lined.ir.functions[name].body] == [i.full for i in fn.body], name
    assert lined.registers == plain.registers


@needs_nvcc
def test_bounds_check_error_names_the_cu_file_and_line(oob_file: Path) -> None:
    fn = ndpgpu.RawModule(path=str(oob_file)).get_function("oob")
    with ndpgpu.Device(bounds_check=True):
        out = ndpgpu.zeros(64, np.float32)
        with pytest.raises(ndpgpu.BoundsCheckError, match=r"first at oob\.cu:5 `out\[i \+ 64\] = 1\.0f;` "
                                                           r"\(PTX line \d+\)") as info:
            fn((1,), (64,), (out, np.int32(64)))
    assert info.value.violations[0]["source"] == "oob.cu:5 `out[i + 64] = 1.0f;`"


@needs_nvcc
def test_memory_fault_names_the_source_line(oob_file: Path) -> None:
    for module, name in ((ndpgpu.RawModule(path=str(oob_file)), "oob.cu"), (ndpgpu.RawModule(code=OOB), CODE_NAME)):
        with ndpgpu.Device():
            out = ndpgpu.zeros(4, np.float32)
            with pytest.raises(ndpgpu.MemoryFault) as info:
                module.get_function("oob")((4096,), (1024,), (out, np.int32(1 << 30)))
        assert f") at {name}:5 `out[i + 64] = 1.0f;`: global access" in str(info.value)
        assert "PTX line" in str(info.value)


@needs_nvcc
def test_module_and_function_expose_the_source_map(tmp_path: Path) -> None:
    mod = ndpgpu.RawModule(code=INLINED)
    fn = mod.get_function("k")
    by_pc = fn.source_map()
    prog = fn.program()
    assert set(by_pc) <= set(range(len(prog.line_of_pc))) and len(by_pc) > len(prog.line_of_pc) // 2
    assert all(loc.file == CODE_NAME for loc in by_pc.values())
    texts = {str(loc) for loc in by_pc.values()}
    assert "<code>:7 `y[i] = twice(thrice(y[i]));`" in texts
    assert "<code>:2 `return v * 2.0f;` (inlined at <code>:7 `y[i] = twice(thrice(y[i]));`)" in texts  # twice()
    fmul = next(n for n, line in enumerate(mod.ptx.splitlines(), 1) if "mul.f32" in line)  # thrice's multiply
    assert mod.source_line(fmul).line == 4 and mod.source_line(fmul).text.startswith("__device__ __noinline__")


@needs_nvcc
def test_a_cached_compile_names_its_own_file(tmp_path: Path) -> None:
    """nvcc's cache is keyed by content, so a second file with the same text reuses the first one's PTX; its
    .file entry still names the second file."""
    first, second = tmp_path / "a" / "one.cu", tmp_path / "b" / "two.cu"
    for p in (first, second):
        p.parent.mkdir()
        p.write_text(OOB)
    assert ndpgpu.RawModule(path=str(first)).source_line(_store_line(first)).file == str(first.resolve())
    again = ndpgpu.RawModule(path=str(second))
    loc = again.source_line(_store_line(second))
    assert loc.file == str(second.resolve()) and loc.short() == "two.cu:5"
    assert str(first) not in again.ptx


def _store_line(path: Path) -> int:
    ptx = ndpgpu.RawModule(path=str(path)).ptx
    return next(n for n, line in enumerate(ptx.splitlines(), 1) if "st.global" in line)


@needs_nvcc
def test_unsupported_ptx_names_the_source_line() -> None:
    src = """// a texture fetch on line 3
extern "C" __global__ void t(float *o, cudaTextureObject_t obj) {
    o[threadIdx.x] = tex1Dfetch<float>(obj, threadIdx.x);
}
"""
    mod = ndpgpu.RawModule(code=src)
    with pytest.raises(ndpgpu.UnsupportedPTX) as info:
        mod.get_function("t").program()
    # the fetch is CUDA's header code inlined twice, the second time into line 3
    assert "(at texture_indirect_functions.h:" in str(info.value)
    assert "inlined at <code>:3 `o[threadIdx.x] = tex1Dfetch<float>(obj, threadIdx.x);`))" in str(info.value)


@needs_nvcc
def test_pc_table_with_source_lines(oob_file: Path) -> None:
    from ndpgpu.timing import TimingSession

    fn = ndpgpu.RawModule(path=str(oob_file)).get_function("oob")
    with ndpgpu.Device(trace=True) as dev:
        out = ndpgpu.zeros(256, np.float32)
        fn((2,), (64,), (out, np.int32(128)))
    st = TimingSession("gtx480").run_launch(dev.traces[0])
    table = pc_table_with_source(st, fn.module.source_map)
    head, *rows = table.splitlines()
    assert head.endswith("source") and len(rows) == len(st.pc_table().splitlines()) - 1
    assert any("oob.cu:5 `out[i + 64] = 1.0f;`" in row and "st.global" in row for row in rows)
