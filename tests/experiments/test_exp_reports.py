"""Reports: report.json follows the shipped schema, checks (calibrated ones not counted), figures, and
the generated documents, all driven by the fake executor."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from expkit import WORKLOADS

from ndpgpu.experiments.plots import BarChart, draw_bar_chart
from ndpgpu.experiments.points import Grid, SweepSpec
from ndpgpu.experiments.report import (
    REPRODUCTIONS,
    Check,
    Reproduction,
    ReproductionError,
    all_reproductions,
    load_schema,
    register_reproduction,
    reproduce,
    validate_report,
    write_document,
)
from ndpgpu.experiments.results import ResultSet, Table


def _png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_builtin_study_report_validates_against_the_schema(tmp_path: Path) -> None:
    report = reproduce("builtin", "tiny", tmp_path / "out", jobs=0, store=tmp_path / "r.duckdb", executor="fake")
    data = json.loads(report.json_path.read_text())
    jsonschema.validate(data, load_schema())
    assert data["summary"]["points"] == data["summary"]["points_ok"] == 20  # 10 built-in workloads x 2
    assert {p["machine"] for p in data["points"]} == {"gtx480", "v100"}
    assert all("cycles" in p["metrics"] and p["metrics"]["cycles"]["unit"] == "cycle" for p in data["points"])
    assert [c["passed"] for c in data["checks"]] == [True, True]
    for fig in data["figures"]:
        assert _png(report.out_dir / fig["file"])
    md = report.markdown_path.read_text()
    assert "**PASS**" in md and "![V100 speedup over GTX480 (cycle ratio)](figures/v100_speedup.png)" in md
    assert "## Differences from the paper" in md and "| saxpy | " in md
    # the same command again reuses every stored point and writes the same report.json
    again = reproduce("builtin", "tiny", tmp_path / "out2", jobs=0, store=tmp_path / "r.duckdb", executor="fake")
    assert again.data == report.data


def test_schema_rejects_a_malformed_report(tmp_path: Path) -> None:
    report = reproduce("builtin", "tiny", tmp_path / "out", jobs=0, store=tmp_path / "r.duckdb", executor="fake")
    data = json.loads(report.json_path.read_text())
    broken = json.loads(json.dumps(data))
    del broken["checks"][0]["passed"]
    with pytest.raises(jsonschema.ValidationError, match="'passed' is a required property"):
        validate_report(broken)
    broken = json.loads(json.dumps(data))
    broken["points"][0]["error"] = "an ok point carries no error"
    with pytest.raises(jsonschema.ValidationError):
        validate_report(broken)
    broken = json.loads(json.dumps(data))
    broken["summary"]["extra"] = 1
    with pytest.raises(jsonschema.ValidationError):
        validate_report(broken)


@pytest.fixture
def toy_reproduction():
    @register_reproduction
    class Toy(Reproduction):
        name = "toy"
        title = "A toy paper"
        paper = "Somebody et al., Toy Conference 2026"
        default_scale = "tiny"
        paper_numbers = {"speedup": {"saxpy": 2.0, "vecadd": 2.5}}
        key_metrics = ("cycles",)
        differences = "The toy machine has no L3."

        def spec(self, scale: str) -> SweepSpec:
            return SweepSpec(
                name=f"toy-{scale}",
                executor="fake",
                executor_options={"fail": ["vecadd@tiny on v100"]},
                grid=[Grid(workloads=["saxpy", "vecadd"], scales=[scale], machines=["gtx480", "v100"])],
            )

        def figures(self, results: ResultSet) -> list[BarChart]:
            speedup = results.ratio("cycles", "gtx480", "v100")
            paper = self.paper_numbers["speedup"]
            return [BarChart("speedup", "Speedup", "x", results.workloads,
                             {"v100": [speedup[w] for w in results.workloads]},
                             paper={"v100": [paper[w] for w in results.workloads]}, reference_line=1.0)]

        def tables(self, results: ResultSet) -> list[Table]:
            return [results.table("cycles", "Cycles")]

        def checks(self, results: ResultSet) -> list[Check]:
            speedup = results.ratio("cycles", "gtx480", "v100")
            return [
                Check.close("saxpy speedup", 2.0, speedup["saxpy"], rtol=10.0),  # passes
                Check.close("vecadd speedup", 2.5, speedup["vecadd"], rtol=0.1),  # its point failed: no value
                Check.above("saxpy fitted", speedup["saxpy"], 1e9, calibrated=True),  # fails, not counted
            ]

    yield Toy
    REPRODUCTIONS.unregister("toy")


def test_checks_failures_and_calibrated_checks_in_the_report(tmp_path: Path, toy_reproduction: type) -> None:
    assert "toy" in all_reproductions()
    report = reproduce("toy", out_dir=tmp_path / "toy", jobs=0, store=tmp_path / "r.duckdb")
    s = report.data["summary"]
    assert (s["checks"], s["evidence"], s["evidence_passed"], s["calibrated"]) == (3, 2, 1, 1)
    assert (s["points"], s["points_failed"]) == (4, 1)
    assert not report.passed
    checks = {c["name"]: c for c in report.data["checks"]}
    assert checks["vecadd speedup"]["ours"] is None and not checks["vecadd speedup"]["passed"]
    assert checks["saxpy fitted"]["calibrated"] is True
    failed = [p for p in report.data["points"] if p["status"] == "failed"]
    assert [p["label"] for p in failed] == ["vecadd@tiny on v100"] and "fake timing failure" in failed[0]["error"]
    assert all(set(p["metrics"]) <= {"cycles"} for p in report.data["points"])
    md = report.markdown_path.read_text()
    assert "| saxpy fitted | > 1e+09 |" in md and "**FAIL (calibrated)**" in md
    assert "1 calibrated check reported but not counted" in md
    assert "## Failed points" in md and "vecadd@tiny on v100" in md
    assert "The toy machine has no L3." in md and "- vecadd speedup: ours — against the paper's 2.5" in md
    assert _png(tmp_path / "toy" / "figures" / "speedup.png")
    jsonschema.validate(report.data, load_schema())


def test_generated_documents_come_from_the_machinery(tmp_path: Path) -> None:
    store = tmp_path / "r.duckdb"
    char = reproduce("characterization", "tiny", tmp_path / "c", jobs=0, store=store, executor="fake")
    doc = write_document(char, tmp_path / "docs" / "workloads.md").read_text()
    assert "do not edit" in doc and "| workload | suite | description |" in doc
    for w in WORKLOADS:
        assert f"| {w} | builtin |" in doc
    table = char.tables[0]
    assert table.columns[3:] == ["launches", "warp_instructions", "cycles", "ipc"]

    cross = reproduce("gpgpusim", "paper", tmp_path / "g", jobs=0, store=store, executor="fake")
    rows = {(r[0], r[1], r[2]): r for r in cross.tables[0].rows}
    assert rows[("gtx480", "vecadd", "cycles")][3] == 86_605
    assert rows[("v100", "sgemm_naive", "ipc")][3] == 1337.3
    assert {p["scale"] for p in cross.data["points"]} == {"paper", "gpgpusim"}
    # hardware-faithful presets: cycles on both, thread-instructions on gtx480 (6); with the gpgpusim overlay:
    # cycles, and per component (DRAM bandwidth, bus utilisation, fetch latency, L2 miss rate and bandwidth) (16)
    assert len(cross.checks) == 22
    assert rows[("gtx480-gpgpusim", "vecadd", "cycles")][3] == 86_605  # compared with the same GPGPU-Sim run
    # GPGPU-Sim's achieved DRAM bandwidth: (reads x 32 B + write-backs x 64 B) / (86,605 cycles at 700 MHz)
    dram = rows[("gtx480-gpgpusim", "vecadd", "dram_bandwidth_gbs")][3]
    assert dram == pytest.approx((262_154 * 32 + 60_938 * 64) / (86_605 / 700e6) / 1e9)
    assert reproduce("gpgpusim", "tiny", tmp_path / "g2", jobs=0, store=store, executor="fake").checks == []


def test_unknown_reproduction_lists_the_known_ones() -> None:
    with pytest.raises(ReproductionError, match="known reproductions: builtin, characterization, gpgpusim"):
        reproduce("nope")


def _svg_texts(path: Path) -> list[str]:
    import xml.etree.ElementTree as ET

    return [t.text or "" for t in ET.parse(path).iter("{http://www.w3.org/2000/svg}text")]


def test_bar_chart_with_missing_values_and_no_mean(tmp_path: Path) -> None:
    chart = BarChart("c", "t", "y", ["a", "b"], {"s1": [1.0, None], "s2": [2.0, 3.0]}, mean=None, log_y=True,
                     paper={"s2": [2.5, None]})
    assert _png(draw_bar_chart(chart, tmp_path / "c.png"))
    assert (tmp_path / "c.pdf").read_bytes().startswith(b"%PDF")
    texts = _svg_texts(tmp_path / "c.svg")
    for label in ("s1", "s2", "paper", "no result"):  # every mark drawn has its legend entry, once
        assert texts.count(label) == 1, (label, texts)


def test_stacked_chart_splits_each_group_bar_into_its_parts(tmp_path: Path) -> None:
    stacks = {"base": {"TX": [0.5, 0.4], "RX": [0.5, 0.6]}, "tom": {"TX": [0.2, None], "RX": [0.3, None]}}
    chart = BarChart("s", "t", "y", ["KM", "BFS"], {}, mean=None, stacks=stacks, reference_line=1.0)
    draw_bar_chart(chart, tmp_path / "s.png", formats=("svg",))
    assert not (tmp_path / "s.png").exists()  # only the formats asked for
    texts = _svg_texts(tmp_path / "s.svg")
    assert texts.count("TX") == 1 and texts.count("RX") == 1 and texts.count("no result") == 1
    assert texts.count("base") == 2 and texts.count("tom") == 2  # each group named under its bar per category
    assert {"KM", "BFS"} <= set(texts)
    cats, series, _ = BarChart("c", "t", "y", ["a", "b"], {"s": [1.0, 4.0]}).with_mean()
    assert cats == ["a", "b", "GMEAN"] and series["s"][-1] == pytest.approx(2.0)


def test_the_mean_group_marks_the_papers_own_mean_never_one_of_a_few_values() -> None:
    series = {"s": [1.0, 4.0, 2.0], "t": [1.0, 1.0, 1.0], "u": [2.0, 2.0, 2.0]}
    paper = {"s": [0.36, None, None], "t": [1.0, 9.0, 3.0]}
    _, _, marks = BarChart("c", "t", "y", ["a", "b", "c"], series, paper=paper, paper_mean={"u": 1.3}).with_mean()
    assert marks["s"] == [0.36, None, None, None]  # one known value is not the paper's average
    assert marks["t"][-1] == pytest.approx(3.0)  # every value known: their geometric mean
    assert marks["u"] == [None, None, None, 1.3]  # the paper's stated mean
    _, _, stated = BarChart("c", "t", "y", ["a", "b", "c"], series, paper=paper,
                            paper_mean={"s": 0.97}).with_mean()
    assert stated["s"][-1] == 0.97


def test_stored_only_reports_what_is_stored_and_runs_nothing(tmp_path: Path) -> None:
    """``--stored-only`` on an empty store runs no point and lists every one as missing; after a run, it writes
    the same report as the run did."""
    store = tmp_path / "r.duckdb"
    empty = reproduce("builtin", "tiny", tmp_path / "empty", jobs=0, store=store, executor="fake", stored_only=True)
    assert empty.data["summary"]["points"] == 20 and empty.data["summary"]["points_ok"] == 0
    assert {p["status"] for p in empty.data["points"]} == {"missing"}
    ran = reproduce("builtin", "tiny", tmp_path / "ran", jobs=0, store=store, executor="fake")
    again = reproduce("builtin", "tiny", tmp_path / "again", jobs=0, store=store, executor="fake", stored_only=True)
    assert again.data == ran.data
