"""The sweep runner with the fake executor: resume, failures, crashes, invalidation, determinism."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from expkit import MACHINES, WORKLOADS, fake_spec, log_calls

from ndpgpu.experiments.runner import DIED_MESSAGE, run_sweep
from ndpgpu.experiments.store import Filters, ResultStore
from ndpgpu.workloads.base import WORKLOADS as WORKLOAD_REGISTRY
from ndpgpu.workloads.base import Workload, register


def _stored(db: Path) -> tuple[list[tuple], list[tuple]]:
    """Every (key, status) point and every (key, name, value, unit) row, sorted."""
    with ResultStore(db, read_only=True) as store:
        points = sorted((p["key"], p["label"], p["status"]) for p in store.points())
        rows = sorted((r["key"], r["name"], r["value"], r["unit"]) for r in store.results())
    return points, rows


def test_sweep_records_once_per_workload_and_resumes_without_recomputing(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    spec = fake_spec(log=str(log))
    first = run_sweep(spec, jobs=0, store=tmp_path / "r.duckdb")
    n = len(WORKLOADS) * len(MACHINES)
    assert (first.computed, first.reused, first.failures) == (n, 0, [])
    assert sorted(log_calls(log, "record")) == sorted(f"{w}@tiny" for w in WORKLOADS)  # shared by both machines
    assert len(log_calls(log, "time")) == n
    points, rows = _stored(tmp_path / "r.duckdb")
    assert len(points) == n and {p[2] for p in points} == {"ok"}
    assert len(rows) == n * 7  # 5 timing metrics + 2 functional statistics per point

    again = run_sweep(spec, jobs=0, store=tmp_path / "r.duckdb")
    assert (again.computed, again.reused) == (0, n)
    assert len(log_calls(log, "time")) == n and len(log_calls(log, "record")) == len(WORKLOADS)

    # a new store with the same trace directory reuses the recordings on disk, and recomputes timing
    other = run_sweep(spec, jobs=0, store=tmp_path / "other.duckdb", traces=tmp_path / "t2")
    assert other.recordings == len(WORKLOADS)
    more = run_sweep(spec, jobs=0, store=tmp_path / "third.duckdb", traces=tmp_path / "t2")
    assert (more.recordings, more.recordings_reused, more.computed) == (0, len(WORKLOADS), n)
    assert _stored(tmp_path / "third.duckdb")[1] == _stored(tmp_path / "other.duckdb")[1]


def test_a_failed_point_is_reported_and_the_rest_complete(tmp_path: Path) -> None:
    spec = fake_spec(fail=["vecadd@tiny on v100"], fail_record=["bfs"], fail_check=["histogram"])
    result = run_sweep(spec, jobs=0, store=tmp_path / "r.duckdb")
    failed = dict(result.failures)
    assert set(failed) == {
        "vecadd@tiny on v100", "bfs@tiny on gtx480", "bfs@tiny on v100", "histogram@tiny on gtx480",
        "histogram@tiny on v100",
    }
    assert "fake timing failure" in failed["vecadd@tiny on v100"]
    assert failed["bfs@tiny on v100"].startswith("recording failed: RuntimeError: fake recording failure")
    assert "functional check failed for histogram@tiny" in failed["histogram@tiny on gtx480"]
    assert result.computed == len(WORKLOADS) * 2 - 5
    with ResultStore(tmp_path / "r.duckdb", read_only=True) as store:
        bad = {p["label"]: p for p in store.points(Filters(status="failed"))}
        assert "Traceback" in bad["vecadd@tiny on v100"]["traceback"]
        assert "raise RuntimeError" in bad["vecadd@tiny on v100"]["traceback"]
        assert not store.results(Filters(keys=[bad["vecadd@tiny on v100"]["key"]]))
    # failures are retried on resume (unless told not to); the fixed point then completes
    kept = run_sweep(spec, jobs=0, store=tmp_path / "r.duckdb", retry_failed=False)
    assert (kept.computed, kept.failures) == (0, [])
    fixed = run_sweep(fake_spec(), jobs=0, store=tmp_path / "r.duckdb")
    assert (fixed.computed, fixed.reused, fixed.failures) == (5, len(WORKLOADS) * 2 - 5, [])


def test_a_worker_killed_by_a_signal_fails_only_its_point(tmp_path: Path) -> None:
    crash = "vecadd@tiny on v100"
    spec = fake_spec(workloads=WORKLOADS[:3], crash=[crash], sleep_s=0.05)
    result = run_sweep(spec, jobs=2, store=tmp_path / "r.duckdb")
    assert result.failures == [(crash, DIED_MESSAGE)]
    points, _ = _stored(tmp_path / "r.duckdb")
    assert [p[1] for p in points if p[2] == "failed"] == [crash]
    assert sum(p[2] == "ok" for p in points) == 3 * 2 - 1


def test_two_worker_counts_store_identical_results(tmp_path: Path) -> None:
    spec = fake_spec(sleep_s=0.01)
    run_sweep(spec, jobs=1, store=tmp_path / "one.duckdb")
    run_sweep(spec, jobs=3, store=tmp_path / "three.duckdb")
    run_sweep(spec, jobs=0, store=tmp_path / "inline.duckdb")
    one = _stored(tmp_path / "one.duckdb")
    assert one == _stored(tmp_path / "three.duckdb") == _stored(tmp_path / "inline.duckdb")
    assert len(one[1]) == len(WORKLOADS) * 2 * 7


def test_resume_after_killing_the_sweep_recomputes_nothing_finished_and_loses_nothing(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    db = tmp_path / "r.duckdb"
    spec_path = tmp_path / "spec.yaml"
    spec = fake_spec(log=str(log), sleep_s=0.4)
    spec_path.write_text(yaml.safe_dump(spec.model_dump(mode="json")))
    cmd = [sys.executable, "-m", "ndpgpu.experiments.cli", "sweep", str(spec_path), "--jobs", "2",
           "--store", str(db), "--no-progress"]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120  # a loaded machine starts the workers slowly
    while len(log_calls(log)) < 4 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep, its workers and helpers, mid-way
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode() if proc.stderr else ""
    time.sleep(0.2)

    before_points, before_rows = _stored(db)
    finished = {label for _, label, status in before_points if status == "ok"}
    n = len(WORKLOADS) * len(MACHINES)
    assert 0 < len(finished) < n, "the sweep should be killed mid-way"
    calls_before = len(log_calls(log))
    recorded_before = log_calls(log, "record")

    result = run_sweep(fake_spec(log=str(log)), jobs=2, store=db)
    assert result.failures == []
    assert result.reused == len(finished)
    recomputed = log_calls(log)[calls_before:]
    assert set(recomputed).isdisjoint(finished), "a finished point was computed again"
    assert len(recomputed) == n - len(finished)
    # recordings committed before the kill were reused from disk. A finished point's recording was committed;
    # one merely logged may not have been (the kill can land between the fake's log line and the manifest's
    # write), so only the former are certain to be reused
    with ResultStore(db, read_only=True) as store:
        committed = {f"{p['workload']}@{p['scale']}" for p in store.points() if p["label"] in finished}
    assert committed and set(log_calls(log, "record")[len(recorded_before):]).isdisjoint(committed)

    after_points, after_rows = _stored(db)
    assert set(before_rows) <= set(after_rows), "a stored result was lost or changed"
    clean = run_sweep(fake_spec(), jobs=0, store=tmp_path / "clean.duckdb")
    assert clean.computed == n
    assert after_rows == _stored(tmp_path / "clean.duckdb")[1]


@pytest.fixture
def scratch_workload(tmp_path: Path):
    """A workload registered from files in ``tmp_path`` (removed from the registry afterwards)."""
    (tmp_path / "scratch.cu").write_text("__global__ void k(int *x) { x[0] = 1; }\n")

    class Scratch(Workload):
        name = "scratch_wl"
        suite = "scratch"
        description = "a workload whose source the test edits"
        sources = ("scratch.cu",)
        scales = {"tiny": {"n": 1}, "small": {"n": 2}, "paper": {"n": 3}}

        @classmethod
        def directory(cls) -> Path:
            return tmp_path

    register(Scratch)
    yield Scratch
    WORKLOAD_REGISTRY.unregister("scratch_wl")


def test_changing_a_workload_source_invalidates_its_results(tmp_path: Path, scratch_workload: type) -> None:
    log = tmp_path / "log.jsonl"
    spec = fake_spec(workloads=["scratch_wl", "saxpy"], log=str(log))
    db = tmp_path / "r.duckdb"
    first = run_sweep(spec, jobs=0, store=db)
    assert first.computed == 4
    assert run_sweep(spec, jobs=0, store=db).computed == 0

    (tmp_path / "scratch.cu").write_text("__global__ void k(int *x) { x[0] = 2; }\n")
    changed = run_sweep(spec, jobs=0, store=db)
    assert (changed.computed, changed.reused) == (2, 2)  # only the edited workload runs again
    assert log_calls(log)[-2:] == ["scratch_wl@tiny on gtx480", "scratch_wl@tiny on v100"]
    assert log_calls(log, "record")[-1] == "scratch_wl@tiny"  # and is recorded again
    new_keys = {p.key for p in changed.points if p.point.workload == "scratch_wl"}
    old_keys = {p.key for p in first.points if p.point.workload == "scratch_wl"}
    assert new_keys.isdisjoint(old_keys)

    salted = run_sweep(fake_spec(workloads=["saxpy"], source_salt={"saxpy": "edited"}), jobs=0, store=db)
    assert salted.computed == 2


def test_a_bad_machine_stops_the_sweep_before_anything_runs(tmp_path: Path) -> None:
    from ndpgpu.experiments.points import SpecError

    spec = fake_spec(machines=["gtx480"])
    with pytest.raises(SpecError, match=r"saxpy@tiny on v100: ValueError: unknown machine 'v100'"):
        run_sweep(spec, jobs=0, store=tmp_path / "r.duckdb")
    with ResultStore(tmp_path / "r.duckdb", read_only=True) as store:
        assert store.points() == []


def test_unknown_executor_lists_the_known_ones(tmp_path: Path) -> None:
    from ndpgpu.experiments.executors import ExecutorError

    spec = fake_spec().model_copy(update={"executor": "nope"})
    with pytest.raises(ExecutorError, match="known executors: fake, simulator"):
        run_sweep(spec, jobs=0, store=tmp_path / "r.duckdb")


def test_a_point_past_the_time_limit_fails_and_the_rest_complete(tmp_path: Path) -> None:
    """The hanging point's worker is killed at the spec's time limit and the point stored as failed; points
    that shared the pool with it are rerun, none is lost. (The limit is generous: only the hang reaches it.)"""
    hang = "vecadd@tiny on v100"
    spec = fake_spec(workloads=WORKLOADS[:3], hang=[hang]).model_copy(update={"time_limit_s": 10.0})
    result = run_sweep(spec, jobs=2, store=tmp_path / "r.duckdb")
    assert [label for label, _ in result.failures] == [hang]
    assert "time limit exceeded" in result.failures[0][1]
    points, _ = _stored(tmp_path / "r.duckdb")
    assert sum(p[2] == "ok" for p in points) == 3 * 2 - 1
