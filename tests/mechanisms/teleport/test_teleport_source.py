"""The source view (the paper's Table 1): each global read mapped back to its CUDA line through the PTX
``.loc`` line info of a -lineinfo compile, with its class and precalculability; a .ptx without line info
says so; the command line prints it."""

from __future__ import annotations

import json

import pytest

from ndpgpu.cli import main
from ndpgpu.mechanisms.analyze import AnalyzeError
from ndpgpu.mechanisms.teleport.source import format_source, line_map, load_with_lines, source_reads

SRC = """extern "C" __global__ void k(const float *a, const int *idx, float *o, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float x = a[t];
  float y = a[idx[t]];
  o[t] = x + y;
}
"""


@pytest.fixture()
def cu(tmp_path):
    p = tmp_path / "view.cu"
    p.write_text(SRC)
    return p


def test_reads_map_to_their_source_lines(cu):
    module, _ = load_with_lines(str(cu))
    by_line: dict[int | None, list] = {}
    for r in source_reads(module):
        by_line.setdefault(r.line, []).append(r)
    assert set(by_line) == {4, 5}
    (ax,) = by_line[4]
    assert ax.array == "a" and ax.text == "float x = a[t];"
    assert ax.cls == "quasi-static" and ax.degree == 1 and ax.precalculable
    classes = sorted((r.cls, r.precalculable, r.array) for r in by_line[5])
    assert classes == [("indirect", False, None), ("quasi-static", True, "idx")]  # a[idx[t]] and idx[t]
    assert all(r.text == "float y = a[idx[t]];" for r in by_line[5])
    assert ax.block_min is not None and by_line[5][0].ptx_line > 0


def test_line_map_follows_loc_directives():
    ptx = '\t.loc\t1 7 3\n\tld.global.f32 %f1, [%rd1];\n\t.loc\t1 9 1\n\tret;\n\t.file\t1 "/x/y.cu"\n'
    lines, files = line_map(ptx)
    assert lines[2] == (1, 7) and lines[4] == (1, 9) and files == {1: "/x/y.cu"}


def test_same_classes_as_without_line_info(cu, monkeypatch):
    """-lineinfo adds .loc directives only: the analysis finds the same reads, classes and bounds."""
    from ndpgpu.api import RawModule
    from ndpgpu.mechanisms.teleport.classify import classify_reads

    monkeypatch.setenv("NDPGPU_LINEINFO", "0")
    plain = classify_reads(RawModule(path=str(cu)).ir.functions["k"])
    monkeypatch.delenv("NDPGPU_LINEINFO")
    module, _ = load_with_lines(str(cu))
    lined = classify_reads(module.ir.functions["k"])
    assert [(r.array, r.cls, r.degree, str(r.expr)) for r in plain] == [
        (r.array, r.cls, r.degree, str(r.expr)) for r in lined]


def test_ptx_without_line_info(cu, tmp_path, monkeypatch):
    from ndpgpu.api import RawModule

    ptx = tmp_path / "view.ptx"
    monkeypatch.setenv("NDPGPU_LINEINFO", "0")  # -lineinfo is the default otherwise
    ptx.write_text(RawModule(path=str(cu)).ptx)  # compiled without -lineinfo: no .loc
    module, what = load_with_lines(str(ptx))
    rows = source_reads(module)
    assert rows and all(r.line is None for r in rows)
    assert "no .loc line info" in format_source(rows, what)


def test_command_line(cu, capsys):
    assert main(["analyze", "teleport", str(cu), "--source"]) == 0
    out = capsys.readouterr().out
    assert "Table 1" in out and "float y = a[idx[t]];" in out and "indirect" in out
    assert main(["analyze", "teleport", str(cu), "--source", "--format", "json"]) == 0
    reads = json.loads(capsys.readouterr().out)["reads"]
    assert sorted(r["line"] for r in reads) == [4, 5, 5]


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(AnalyzeError, match="no such file"):
        load_with_lines(str(tmp_path / "nope.cu"))
