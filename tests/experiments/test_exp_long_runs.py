"""Long runs: plain progress lines when stderr is not a terminal, ``ndpgpu results`` while a sweep writes the store
(the writer's snapshot), points never run reported as "not run" apart from failed ones, and reports over a partial
set saying so."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from expkit import fake_spec

from ndpgpu.experiments import cli
from ndpgpu.experiments.report import reproduce
from ndpgpu.experiments.runner import _Sweep, run_sweep
from ndpgpu.experiments.store import ResultStore, snapshot_path

PROGRESS = re.compile(r"^\[\d\d:\d\d:\d\d\] t: points (\d+)/12(?: \((\d+) failed\))?, recordings (\d+)/6; "
                      r"\S+ elapsed(, about \S+ left|, an estimate after the first point)?$")


def test_plain_progress_lines_at_each_recording_and_at_most_every_interval(tmp_path, capsys, monkeypatch):
    """stderr is not a terminal here: progress=None gives plain lines, not a live display."""
    monkeypatch.setenv("NDPGPU_PROGRESS_INTERVAL", "3600")  # so only the recordings (and start, end) print
    run_sweep(fake_spec(fail=["bfs"]), jobs=0, store=tmp_path / "r.duckdb")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith("t: 12 point(s) to run (0 already stored), 6 recording(s)")
    middle = [PROGRESS.match(line) for line in lines[1:-1]]
    assert len(middle) == 6 and all(middle), lines  # one per recording, nothing more
    assert [int(m.group(3)) for m in middle] == [1, 2, 3, 4, 5, 6]
    assert middle[0].group(4) == ", an estimate after the first point" and "left" in middle[-1].group(4)
    assert re.search(r"t: done after \S+: 12 point\(s\) finished \(2 failed\)$", lines[-1])


def test_progress_lines_with_a_short_interval_and_nothing_with_no_progress(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NDPGPU_PROGRESS_INTERVAL", "0")
    run_sweep(fake_spec(), jobs=0, store=tmp_path / "r.duckdb")
    err = capsys.readouterr().err
    assert "points 12/12" in err and "about" in err and "left" in err
    run_sweep(fake_spec(name="u", workloads=["saxpy"]), jobs=0, store=tmp_path / "r2.duckdb", progress=False)
    assert capsys.readouterr().err == ""


def _write_spec(path: Path, **options) -> Path:
    spec = {"name": "t", "executor": "fake", "executor_options": options,
            "grid": {"workloads": ["saxpy", "vecadd", "histogram", "sgemm_naive", "warp_reduce", "bfs"],
                     "scales": ["tiny"], "machines": ["gtx480", "v100"]}}
    path.write_text(yaml.safe_dump(spec))
    return path


def test_an_interrupted_sweep_reports_what_never_ran_apart_from_failures(tmp_path, capsys, monkeypatch):
    store = tmp_path / "r.duckdb"
    spec = _write_spec(tmp_path / "spec.yaml", fail=["saxpy@tiny on gtx480"])
    real = _Sweep._store_ok
    calls = []

    def interrupt_on_the_third(self, *a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, *a, **kw)

    monkeypatch.setattr(_Sweep, "_store_ok", interrupt_on_the_third)
    assert cli.main(["sweep", str(spec), "--store", str(store), "--jobs", "0", "--no-progress"]) == 130
    err = capsys.readouterr().err
    # saxpy's gtx480 point failed, two points stored ok, the rest never ran
    assert "t: interrupted after" in err and "3 point(s) finished (1 failed), 9 not run" in err, err
    assert "run the same command again to run the 9 not run" in err
    assert cli.main(["results", "--store", str(store), "--experiments", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"experiment": "t", "points": 12, "ok": 2, "failed": 1,
                                                    "not_run": 9}]
    monkeypatch.setattr(_Sweep, "_store_ok", real)
    assert cli.main(["sweep", str(spec), "--store", str(store), "--jobs", "0", "--no-progress"]) == 1  # resumes
    assert "2 already stored, 9 computed, 1 failed" in capsys.readouterr().out  # the failure is retried
    assert cli.main(["results", "--store", str(store), "--experiments"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["t\t12\t11\t1\t0"]


def test_a_report_over_a_partial_set_says_so(tmp_path: Path) -> None:
    store = tmp_path / "r.duckdb"
    run_sweep(fake_spec(name="part", workloads=["saxpy", "vecadd"]), jobs=0, store=store, progress=False)
    partial = reproduce("builtin", "tiny", tmp_path / "partial", jobs=0, store=store, executor="fake",
                        stored_only=True)
    s = partial.data["summary"]
    # builtin runs ten workloads on gtx480 and v100; saxpy's and vecadd's points are the sweep's, stored
    assert (s["points"], s["points_ok"], s["points_failed"], s["points_not_run"], s["partial"]) == (20, 4, 0, 16, True)
    assert not partial.passed
    md = partial.markdown_path.read_text()
    assert "- Points: 4 of 20 ran, **16 not run**" in md and "- **Partial**: this report covers 4 of its 20" in md
    assert "## Points not run" in md and "## Failed points" not in md and "| not run |" in md
    html = (partial.out_dir / "report.html").read_text()
    assert "16 not run" in html and "Points not run" in html
    full = reproduce("builtin", "tiny", tmp_path / "full", jobs=0, store=store, executor="fake", progress=False)
    s = full.data["summary"]
    assert (s["points_ok"], s["points_not_run"], s["partial"]) == (20, 0, False) and full.passed
    assert "Partial" not in full.markdown_path.read_text()


def test_stored_only_with_points_not_run_exits_1_and_says_partial(tmp_path, capsys) -> None:
    args = ["reproduce", "builtin", "--scale", "tiny", "--store", str(tmp_path / "r.duckdb"), "--executor", "fake",
            "--jobs", "0", "--out", str(tmp_path / "rep"), "--stored-only"]
    assert cli.main(args) == cli.EXIT_FAILED_POINTS
    assert "points 0/20 ran, 20 not run (a partial report)" in capsys.readouterr().out


def test_results_reads_the_writers_snapshot_while_a_sweep_runs(tmp_path: Path, capsys) -> None:
    """DuckDB lets no other process open a store being written: `ndpgpu results` reads the snapshot the sweep
    publishes beside it, says so on stderr, and reads the store itself once the sweep is over."""
    store = tmp_path / "r.duckdb"
    spec = _write_spec(tmp_path / "spec.yaml", sleep_s=0.4)
    env = {**os.environ, "NDPGPU_PROGRESS_INTERVAL": "0.5"}
    proc = subprocess.Popen([sys.executable, "-m", "ndpgpu", "sweep", str(spec), "--store", str(store), "--jobs",
                             "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not snapshot_path(store).exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no snapshot published"
            time.sleep(0.1)
        seen = []
        while proc.poll() is None:
            assert cli.main(["results", "--store", str(store), "--experiments", "--json"]) == 0
            out, err = capsys.readouterr()
            if err:  # (else the sweep has closed the store, and is exiting)
                assert "is being written by a running sweep (PID" in err and "showing the snapshot" in err
                seen.append(json.loads(out)[0]["ok"] if json.loads(out) else 0)
            time.sleep(0.3)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert seen and seen == sorted(seen) and seen[-1] > seen[0], seen  # the snapshot follows the sweep
    # plain progress lines on the sweep's stderr (a pipe, not a terminal)
    assert "points 12/12" in err and "t: done after" in err
    assert not snapshot_path(store).exists()  # removed when the writer closed the store
    assert cli.main(["results", "--store", str(store), "--experiments", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)[0]["ok"] == 12


def test_a_locked_store_without_a_snapshot_says_when_one_appears(tmp_path: Path) -> None:
    """A writer that published nothing yet (another tool holding the store, or a sweep just starting)."""
    store = tmp_path / "r.duckdb"
    ResultStore(store).close()
    code = (f"import duckdb, time; c = duckdb.connect({str(store)!r}); print('held', flush=True); time.sleep(30)")
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        from ndpgpu.experiments.store import StoreError

        with pytest.raises(StoreError, match="has published no snapshot to read yet"):
            ResultStore.open_for_reading(store)
    finally:
        holder.kill()
        holder.wait()


def test_reproduce_all_says_where_it_stands_between_reproductions(tmp_path: Path, capsys) -> None:
    from ndpgpu.experiments.reproduce_all import reproduce_all

    reproduce_all("tiny", tmp_path / "all", 0, tmp_path / "r.duckdb", executor="fake", names=["builtin"])
    err = capsys.readouterr().err
    assert re.search(r"\] reproduce all: 1/1 builtin \(0 done in 0s\)", err), err
    assert "builtin-tiny: 20 point(s) to run (0 already stored)" in err  # the sweep's own lines, in between
    assert re.search(r"\] reproduce all: builtin written after \S+ \(1/1; \S+ in all\)", err), err
