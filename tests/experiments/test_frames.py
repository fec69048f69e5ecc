"""Statistics and results as typed DataFrames (pandas, polars) and as HTML for notebooks."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ndpgpu import frames
from ndpgpu.experiments.points import spec_from_dict
from ndpgpu.experiments.runner import run_sweep
from ndpgpu.experiments.store import ResultStore
from ndpgpu.timing import load_machine
from ndpgpu.workloads.runner import run_workload

pd = pytest.importorskip("pandas", reason="pandas is in the dev extra")
pl = pytest.importorskip("polars", reason="polars is in the dev extra")


@pytest.fixture(scope="module")
def totals():
    return run_workload("saxpy", "tiny", machine="gtx480").device.totals()


def test_launch_stats_to_pandas_has_typed_columns_and_units(totals) -> None:
    df = totals.to_pandas()
    assert str(df["value"].dtype) == "float64" and str(df["unit"].dtype) == "category"
    assert str(df["path"].dtype) == "string" and str(df["launch_id"].dtype) == "int64"
    numeric = [(p, m, v) for p, m, v, _u in totals.rows() if p != "launch"]
    assert len(df) == len(numeric)
    row = df[(df["path"] == "l2") & (df["metric"] == "bandwidth")].iloc[0]
    assert row["value"] == pytest.approx(totals["l2.bandwidth"]) and row["unit"] == "GB/s"
    assert df.attrs["units"]["copies.time"] == "ns"
    assert set(df["machine"]) == {"gtx480"}


def test_launch_stats_to_polars(totals) -> None:
    df = totals.to_polars()
    assert df.schema["value"] == pl.Float64 and df.schema["unit"] == pl.Categorical
    got = df.filter((pl.col("path") == "kernel") & (pl.col("metric") == "time"))["value"][0]
    assert got == pytest.approx(totals["kernel.time"])


def test_text_rows_keep_their_text() -> None:
    rows = [("launch", "kernel", "k<&>", ""), ("pc.0", "opcode", "ld.global", ""), ("pc.0", "issued", 3, "warp-instr")]
    df = frames.stats_to_pandas(rows)
    assert math.isnan(df["value"][0]) and df["text"][0] == "ld.global" and df["value"][1] == 3.0
    assert df["kernel"][0] == "k<&>"


def test_html_display(totals) -> None:
    out = totals._repr_html_()
    assert out.startswith("<table>") and "<caption>(total) (launch -1) on gtx480" in out
    assert "bandwidth" in out and "GB/s" in out
    assert "&lt;b&gt;" in frames.html_table(["x"], [["<b>"]])  # escaped


def test_a_missing_library_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str):
        raise ImportError(name)

    monkeypatch.setattr(frames.importlib, "import_module", refuse)
    with pytest.raises(ImportError, match=r"pip install pandas"):
        frames.require("pandas")


def test_results_frame_has_swept_overrides_as_columns_with_defaults(tmp_path: Path) -> None:
    spec = spec_from_dict({"name": "frames", "executor": "fake",
                           "grid": {"workloads": ["saxpy", "vecadd"], "scales": ["tiny"], "machines": ["gtx480"],
                                    "overrides": [{}, {"l1d.size_kb": 48, "l1d.assoc": 6}]}})
    db = tmp_path / "r.duckdb"
    run_sweep(spec, jobs=0, store=db, traces=tmp_path / "traces", progress=False)
    with ResultStore(db, read_only=True) as store:
        df = store.to_pandas()
        rows = store.results()
        pdf = store.to_polars()
    assert len(df) == 4  # one row per point
    default = load_machine("gtx480").l1d.size_kb
    assert sorted(df["l1d.size_kb"].tolist()) == sorted([default, default, 48, 48])
    assert df["l1d.size_kb"].dtype.kind in "if"  # numeric, as the machine's field (not an object column)
    assert df.attrs["overrides"] == ["l1d.assoc", "l1d.size_kb"]
    metric = rows[0]["name"]
    assert str(df[metric].dtype) == "float64" and df.attrs["units"][metric] == rows[0]["unit"]
    one = next(r for r in rows if r["name"] == metric)
    assert df.loc[df["key"] == one["key"], metric].iloc[0] == pytest.approx(one["value"])
    assert pdf.height == 4 and pdf.schema[metric] == pl.Float64


def test_report_and_table_html(tmp_path: Path) -> None:
    from ndpgpu.experiments.report import Check, Report
    from ndpgpu.experiments.results import Table

    table = Table("speedup", "Speedup", ["workload", "x"], [["bp", 1.25], ["km", None]])
    report = Report("tom", tmp_path, {"summary": {"evidence_passed": 1, "evidence": 2, "points_failed": 0}}, [table],
                    [Check.close("bp speedup", 1.29, 1.25, rtol=0.15), Check.above("km", 0.2, 0.5)])
    out = report._repr_html_()
    assert "1 of 2 checks pass" in out and "bp speedup" in out and "PASS" in out and "FAIL" in out
    assert "<caption>Speedup</caption>" in out and "&mdash;" in out  # a missing value
