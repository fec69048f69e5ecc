"""report.html and the index of ``ndpgpu reproduce all``: what they show, that they stand alone, and that
headless Chromium loads them without a console error and with every image."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest
from chromekit import find_chromium, visit
from expkit import log_calls

from ndpgpu.cli import main as cli_main
from ndpgpu.experiments.points import Grid, SweepSpec
from ndpgpu.experiments.report import REPRODUCTIONS, Check, Reproduction, all_reproductions, register_reproduction
from ndpgpu.experiments.reproduce_all import reproduce_all
from ndpgpu.experiments.results import ResultSet

ARTIFACTS = Path(os.environ.get("NDPGPU_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts"))
NAME = "html_toy"


@pytest.fixture
def toy():
    """A reproduction whose check names need escaping, with a failed point and a calibrated check."""

    @register_reproduction
    class Toy(Reproduction):
        name = NAME
        title = "Toy <paper> & co"
        paper = "Somebody et al., 2026"
        default_scale = "tiny"
        differences = "Line one.\nLine <two> and `code <x>`."

        def spec(self, scale: str) -> SweepSpec:
            return SweepSpec(name=f"{NAME}-{scale}", executor="fake",
                             executor_options={"fail": ["vecadd@tiny on toy"]},
                             grid=[Grid(workloads=["saxpy", "vecadd"], scales=[scale], machines=["gtx480", "toy"])])

        def checks(self, results: ResultSet) -> list[Check]:
            fitted = Check.above("fitted", 0.5, 1.0, calibrated=True)
            fitted.why = "the <statistics> & why"
            return [Check.close("cycles < 10^9 & > 0", 1.0, 1.0, 0.0, unit="x"), fitted]

    yield Toy
    REPRODUCTIONS.unregister(NAME)


def _img_sources(page: str) -> list[str]:
    return re.findall(r'<img src="([^"]*)"', page)


def test_report_html_has_checks_figures_configuration_and_stands_alone(tmp_path: Path, toy) -> None:
    done = reproduce_all("tiny", tmp_path / "out", jobs=0, store=tmp_path / "r.duckdb", names=["builtin", NAME],
                         executor="fake")
    assert done.errors == []
    builtin, mine = done.reports
    page = (builtin.out_dir / "report.html").read_text()
    for check in builtin.data["checks"]:
        assert html.escape(check["name"], quote=False) in page
    sources = _img_sources(page)
    assert len(sources) == len(builtin.data["figures"]) > 0
    assert all(s.startswith("data:image/png;base64,") for s in sources)  # embedded: no file beside it needed
    for p in builtin.data["points"]:
        assert p["key"] in page and p["config_hash"] in page
    assert builtin.data["code_version"] in page and 'href="../index.html"' in page

    toy_page = (mine.out_dir / "report.html").read_text()
    assert "<title>Toy &lt;paper&gt; &amp; co</title>" in toy_page and "cycles &lt; 10^9 &amp; &gt; 0" in toy_page
    assert "Line &lt;two&gt; and <code>code &lt;x&gt;</code>." in toy_page and "<paper>" not in toy_page
    assert '<td class="pass">PASS</td>' in toy_page and '<td class="fail calibrated">FAIL (calibrated)</td>' in toy_page
    assert "vecadd@tiny on toy</td><td>RuntimeError: fake timing failure" in toy_page
    assert "1 failed" in toy_page
    assert "(&gt; 1). the &lt;statistics&gt; &amp; why</li>" in toy_page  # a failing check's explanation
    assert "(> 1). the <statistics> & why" in (mine.out_dir / "report.md").read_text()
    assert mine.data["checks"][1]["why"] == "the <statistics> & why"

    index = done.index_path.read_text()
    assert 'href="builtin/report.html"' in index and f'href="{NAME}/report.html"' in index
    assert "1 of 1 (+1 calibrated)" in index and "3 of 4" in index  # the toy: 1 evidence check passes, 1 point failed


def test_reproduce_all_runs_every_registered_reproduction_in_one_store(tmp_path: Path, toy, capsys) -> None:
    log = tmp_path / "log.jsonl"
    out = tmp_path / "all"
    code = cli_main(["reproduce", "all", "--scale", "tiny", "--executor", "fake", "--executor-option",
                     f"log={log}", "--jobs", "0", "--store", str(tmp_path / "r.duckdb"), "--out", str(out),
                     "--no-progress"])
    assert code == 0  # (--executor-option replaces each spec's options: the toy's failing point passes here)
    printed = capsys.readouterr().out
    listing = json.loads(printed.strip().splitlines()[-1])
    names = sorted(all_reproductions())
    assert NAME in names and "tom" in names
    assert listing["reports"] == [str(out / n / "report.md") for n in names]
    for n in names:
        assert (out / n / "report.html").exists() and f'href="{n}/report.html"' in (out / "index.html").read_text()
    records, timed = log_calls(log, "record"), len(log_calls(log, "time"))
    assert len(records) == len(set(records))  # a workload shared by reproductions is recorded once
    assert {"saxpy@tiny", "vecadd@tiny"} <= set(records)
    # the same command again: every point and recording comes from the store
    assert cli_main(["reproduce", "all", "--scale", "tiny", "--executor", "fake", "--executor-option",
                     f"log={log}", "--jobs", "0", "--store", str(tmp_path / "r.duckdb"), "--out", str(out),
                     "--no-progress"]) == 0
    assert log_calls(log, "record") == records and len(log_calls(log, "time")) == timed


def test_a_reproduction_that_cannot_run_is_listed_and_the_others_still_run(tmp_path: Path) -> None:
    @register_reproduction
    class Broken(Reproduction):
        name = "html_broken"
        title = "Broken"

        def spec(self, scale: str) -> SweepSpec:
            raise ValueError("no points at this scale")

    try:
        done = reproduce_all("tiny", tmp_path / "o", jobs=0, store=tmp_path / "r.duckdb",
                             names=["html_broken", "builtin"], executor="fake")
    finally:
        REPRODUCTIONS.unregister("html_broken")
    assert done.errors == [("html_broken", "ValueError: no points at this scale")]
    assert [r.name for r in done.reports] == ["builtin"]
    assert "html_broken: ValueError: no points at this scale" in done.index_path.read_text()


CHROMIUM = find_chromium()


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium to render the report: apt-get install chromium "
                                             "(scripts/setup.sh does so when run as root)")
def test_chromium_loads_the_reports_without_errors_and_with_every_image(tmp_path: Path, toy) -> None:
    assert CHROMIUM is not None
    # the harness itself: a broken image and a console error are seen
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><title>bad</title><img src="missing.png"><script>console.error("boom")</script>')
    seen = visit(bad, CHROMIUM)
    assert any("boom" in e for e in seen.console_errors) and seen.images[0]["width"] == 0

    done = reproduce_all("tiny", tmp_path / "out", jobs=0, store=tmp_path / "r.duckdb", names=["builtin", NAME],
                         executor="fake")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for page, name in [(done.index_path, "index"), *[(r.out_dir / "report.html", r.name) for r in done.reports]]:
        v = visit(page, CHROMIUM)
        assert v.console_errors == [], f"{page}: {v.console_errors}"
        assert all(i["complete"] and i["width"] > 0 and i["height"] > 0 for i in v.images), f"{page}: {v.images}"
        assert v.screenshot[:8] == b"\x89PNG\r\n\x1a\n"
        (ARTIFACTS / f"html-report-{name}.png").write_bytes(v.screenshot)
        if name == "builtin":
            assert len(v.images) == len(done.reports[0].data["figures"]) > 0
            assert v.title == done.reports[0].data["title"]
