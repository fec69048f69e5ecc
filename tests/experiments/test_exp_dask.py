"""Sweeps on a real Dask cluster (a scheduler and workers on the loopback interface, started with Dask's own
commands): the same statistics as the local run, a worker killed mid-sweep loses and duplicates nothing, 1, 2
and 4 workers agree, a point that keeps killing its workers is stored as failed, a dead client's tasks are
dropped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from daskkit import LoopbackCluster
from expkit import MACHINES, WORKLOADS, fake_spec, log_calls

from ndpgpu.experiments.dask_pool import SCHEDULER_ENV, SchedulerError, resolve_scheduler
from ndpgpu.experiments.runner import DIED_MESSAGE, run_sweep
from ndpgpu.experiments.store import ResultStore

N = len(WORKLOADS) * len(MACHINES)


def _stored(db: Path) -> tuple[list[tuple], list[tuple]]:
    """Every (key, label, status) point and every (key, name, value, unit) row, sorted (duplicates kept)."""
    with ResultStore(db, read_only=True) as store:
        points = sorted((p["key"], p["label"], p["status"]) for p in store.points())
        rows = sorted((r["key"], r["name"], r["value"], r["unit"]) for r in store.results())
    return points, rows


def _pids(log: Path) -> set[int]:
    return {json.loads(line)["pid"] for line in log.read_text().splitlines() if '"time"' in line}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[tuple], list[tuple]]:
    """The sweep run in this process: what every cluster run must store."""
    db = tmp_path_factory.mktemp("local") / "r.duckdb"
    run_sweep(fake_spec(), jobs=0, store=db)
    return _stored(db)


@pytest.fixture
def cluster(tmp_path: Path):
    c = LoopbackCluster(tmp_path, workers=2)
    yield c
    c.close()


def test_a_loopback_cluster_stores_the_statistics_of_the_local_run(tmp_path: Path, cluster, reference) -> None:
    log = tmp_path / "log.jsonl"
    result = run_sweep(fake_spec(log=str(log), sleep_s=0.05), store=tmp_path / "r.duckdb", traces=tmp_path / "traces",
                       scheduler=cluster.address)
    assert (result.computed, result.failures, result.recordings) == (N, [], len(WORKLOADS))
    assert _stored(tmp_path / "r.duckdb")[1] == reference[1]
    assert len(_pids(log)) == 2 and os.getpid() not in _pids(log)  # both workers ran points; this process none
    assert cluster.scheduler_tasks() == []  # the client released every task


def test_a_worker_killed_mid_sweep_loses_nothing_and_stores_each_point_once(tmp_path: Path, cluster,
                                                                            reference) -> None:
    log = tmp_path / "log.jsonl"
    victim = cluster.workers[0]

    def kill_after_three_points() -> None:
        deadline = time.monotonic() + 60
        while len(log_calls(log)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(victim.pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_after_three_points)
    killer.start()
    result = run_sweep(fake_spec(log=str(log), sleep_s=0.3), store=tmp_path / "r.duckdb",
                       traces=tmp_path / "traces", scheduler=cluster.address)
    killer.join()
    assert victim.wait(timeout=10) == -signal.SIGKILL
    assert 3 <= len(log_calls(log, "time")) < N + 2  # the kill came mid-sweep (its task at most rerun)
    assert (result.computed, result.failures) == (N, [])
    points, rows = _stored(tmp_path / "r.duckdb")
    assert points == reference[0] and rows == reference[1]  # every point once, no row lost or doubled
    assert set(log_calls(log)) == {p[1] for p in reference[0]}


def test_one_two_and_four_workers_store_identical_results(tmp_path: Path, reference) -> None:
    """Workers as threads of this process (the process boundary is the loopback tests' subject): only the
    number of workers, and so the order in which answers arrive, changes."""
    from distributed import LocalCluster

    for n in (1, 2, 4):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=False, dashboard_address=None) as local:
            db = tmp_path / f"w{n}.duckdb"
            result = run_sweep(fake_spec(), store=db, traces=tmp_path / f"t{n}", scheduler=local.scheduler_address)
        assert (result.computed, result.failures) == (N, [])
        assert _stored(db) == reference, f"{n} workers"


def test_a_point_that_keeps_killing_its_worker_is_stored_as_failed(tmp_path: Path, reference) -> None:
    """Dask reruns a dead worker's task at most ``allowed-failures`` times (1 here, a scheduler setting): the
    point then is stored as failed, after killing two of the three workers; the third runs the rest."""
    crash = "vecadd@tiny on v100"
    cluster = LoopbackCluster(tmp_path, workers=3, env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"})
    try:
        result = run_sweep(fake_spec(workloads=WORKLOADS[:3], crash=[crash]), store=tmp_path / "r.db",
                           traces=tmp_path / "t", scheduler=cluster.address)
        assert sum(w.poll() is not None for w in cluster.workers) == 2
    finally:
        cluster.close()
    [(label, error)] = result.failures
    assert label == crash and error.startswith(DIED_MESSAGE) and "Dask gave up" in error and "KilledWorker" in error
    points, rows = _stored(tmp_path / "r.db")
    assert [p[1] for p in points if p[2] == "failed"] == [crash]
    ok = [p for p in reference[0] if p[1] != crash and p[1].split("@")[0] in WORKLOADS[:3]]
    assert [p for p in points if p[2] == "ok"] == ok
    assert rows == [r for r in reference[1] if r[0] in {p[0] for p in ok}]


def test_a_killed_client_leaves_no_task_on_the_cluster(tmp_path: Path, cluster) -> None:
    log = tmp_path / "log.jsonl"
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(yaml.safe_dump(fake_spec(log=str(log), sleep_s=0.3).model_dump(mode="json")))
    cmd = [sys.executable, "-m", "ndpgpu.experiments.cli", "sweep", str(spec_path), "--store",
           str(tmp_path / "r.duckdb"), "--traces", str(tmp_path / "traces"), "--no-progress"]
    proc = subprocess.Popen(cmd, env={**os.environ, SCHEDULER_ENV: cluster.address}, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(log_calls(log)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    at_kill = len(log_calls(log))
    deadline = time.monotonic() + 20
    while cluster.scheduler_tasks() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cluster.scheduler_tasks() == []  # the scheduler forgot the dead client's tasks
    time.sleep(1.0)  # longer than three points take: queued tasks would have finished by now
    assert len(log_calls(log)) <= at_kill + 2 < N  # at most the two running tasks finished afterwards


def test_the_scheduler_comes_from_the_argument_the_environment_or_dask_config(monkeypatch) -> None:
    import dask

    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    with dask.config.set({"scheduler-address": None}):
        assert resolve_scheduler(None) is None
        with dask.config.set({"scheduler-address": "tcp://10.0.0.1:8786"}):
            assert resolve_scheduler(None) == "tcp://10.0.0.1:8786"
            monkeypatch.setenv(SCHEDULER_ENV, "tcp://10.0.0.2:8786")
            assert resolve_scheduler(None) == "tcp://10.0.0.2:8786"
            assert resolve_scheduler("tcp://10.0.0.3:8786") == "tcp://10.0.0.3:8786"


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path, capsys) -> None:
    with pytest.raises(SchedulerError, match=r"cannot reach the Dask scheduler at tcp://127.0.0.1:9 .*dask scheduler"):
        run_sweep(fake_spec(), store=tmp_path / "r.duckdb", scheduler="tcp://127.0.0.1:9")
    from ndpgpu.cli import main as cli_main

    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(fake_spec().model_dump(mode="json")))
    assert cli_main(["sweep", str(spec), "--store", str(tmp_path / "r.duckdb"), "--scheduler", "nonsense"]) == 2
    assert "scheduler address 'nonsense' (from --scheduler" in capsys.readouterr().err
