"""One workload characterized (a traced functional run, optionally timed) or timed at ``paper`` scale, and
the runs isolated in child processes with a time limit."""

from __future__ import annotations

import dataclasses
import multiprocessing
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from .counts import characterize_traces, timing_columns


# ------------------------------------------------------------------------------------------- per workload
def _workload_info(name: str) -> dict[str, Any]:
    from ..base import get_workload

    try:
        cls = get_workload(name)
    except Exception as exc:  # noqa: BLE001 - reported in the row
        return {"name": name, "suite": "?", "papers": [], "scales": [], "error": f"{type(exc).__name__}: {exc}"}
    return {"name": name, "suite": cls.suite, "papers": list(cls.papers), "scales": list(cls.scales)}


def characterize_workload(name: str, scale: str = "small", machine: str | None = None,
                          copies: bool = True) -> dict[str, Any]:
    """One workload's row: registry info, the run's check, the characterization (and timing) metrics
    (``copies``: the timing replays the program's host copies too, see :func:`timing_columns`).

    Never raises for a failing workload: the row then carries ``error`` (and whatever was measured).
    """
    row = _workload_info(name)
    row["scale"] = scale
    if "error" in row:
        return row
    from ...api import Device
    from ..runner import run_workload

    t0 = time.perf_counter()
    try:
        num_sms = None
        if machine:
            from ...timing import load_machine

            num_sms = int(load_machine(machine).core.num_sms)
        dev = Device(trace=True, num_sms=num_sms, echo_printf=False)
        run = run_workload(name, scale, device=dev)
        row["passed"] = bool(run.passed)
        row["failed_checks"] = [c.message for c in run.checks if not c.passed]
        row["functional_seconds"] = float(run.wall_seconds)
        traces = run.device.traces
        row.update(characterize_traces(traces))
    except Exception as exc:  # noqa: BLE001 - a failing workload is reported in its row
        row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        row["traceback"] = traceback.format_exc(limit=6)
        row["seconds"] = time.perf_counter() - t0
        return row
    if machine:
        try:
            if row.get("truncated_launches"):
                raise ValueError("a trace was truncated by its size cap")
            row["timing"] = timing_columns(traces, machine, run.device.copies if copies else None)
        except Exception as exc:  # noqa: BLE001
            row["timing_error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    del traces, run, dev
    row["seconds"] = time.perf_counter() - t0
    return row


def paper_time(name: str, scale: str = "paper") -> dict[str, Any]:
    """Run ``name`` at ``scale`` functionally (no trace), checked; the wall times of the run."""
    row = _workload_info(name)
    row["scale"] = scale
    if "error" in row:
        return row
    from ...api import Device
    from ..runner import run_workload

    t0 = time.perf_counter()
    try:
        run = run_workload(name, scale, device=Device(trace=False, echo_printf=False))
    except Exception as exc:  # noqa: BLE001
        row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        row["wall_seconds"] = time.perf_counter() - t0
        return row
    row.update(passed=bool(run.passed), wall_seconds=time.perf_counter() - t0, launch_seconds=float(run.wall_seconds),
               launches=int(run.launches), thread_instructions=int(run.stats["thread_instructions"]),
               failed_checks=[c.message for c in run.checks if not c.passed])
    return row


# ------------------------------------------------------------------------------------------- isolation
def _child(conn: Any, fn_name: str, args: tuple) -> None:
    try:
        result = globals()[fn_name](*args)
    except BaseException as exc:  # noqa: BLE001 - whatever happens goes back to the parent
        result = {"name": args[0], "error": f"{type(exc).__name__}: {exc}"}
    conn.send(result)
    conn.close()


@dataclasses.dataclass
class _Job:
    name: str
    proc: Any
    conn: Any
    started: float


def run_isolated(fn_name: str, names: Sequence[str], extra: tuple = (), *, time_limit: float | None = None,
                 jobs: int = 1, on_result: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run ``fn_name(name, *extra)`` for each name in its own child process (at most ``jobs`` at once).

    A child that runs past ``time_limit`` seconds is killed and its row says ``over limit``; one that
    dies without an answer (a crash, memory) says how it ended. Rows come back in the order of ``names``.
    """
    ctx = multiprocessing.get_context("spawn")
    pending = list(names)
    running: list[_Job] = []
    results: dict[str, dict[str, Any]] = {}

    def finish(job: _Job, row: dict[str, Any]) -> None:
        job.conn.close()
        results[job.name] = row
        if on_result is not None:
            on_result(row)

    while pending or running:
        while pending and len(running) < max(1, jobs):
            name = pending.pop(0)
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(child, fn_name, (name, *extra)), daemon=True)
            proc.start()
            child.close()
            running.append(_Job(name, proc, parent, time.perf_counter()))
        time.sleep(0.05)
        for job in list(running):
            elapsed = time.perf_counter() - job.started
            if job.conn.poll():
                try:
                    row = job.conn.recv()
                except EOFError:
                    row = None
                job.proc.join(timeout=10)
                if row is None:
                    row = {**_workload_info(job.name), "error": f"child ended with exit code {job.proc.exitcode}"}
                running.remove(job)
                finish(job, row)
            elif not job.proc.is_alive():
                running.remove(job)
                finish(job, {**_workload_info(job.name),
                             "error": f"child ended without a result (exit code {job.proc.exitcode})"})
            elif time_limit is not None and elapsed > time_limit:
                job.proc.kill()
                job.proc.join(timeout=10)
                running.remove(job)
                finish(job, {**_workload_info(job.name), "over_limit": True, "time_limit": time_limit,
                             "wall_seconds": elapsed})
    return [results[n] for n in names]
