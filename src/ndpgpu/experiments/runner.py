"""The sweep runner: record once per (workload, scale), fan out timing, store every point once.

``run_sweep(spec, jobs=N)``:

1. expands the spec into points, asks the executor for each workload's provenance and each point's
   machine config, and derives each point's store key (:func:`ndpgpu.experiments.provenance.point_key`);
2. skips keys already stored (``ok``; ``failed`` too unless ``retry_failed``): an interrupted sweep resumes;
3. runs one recording task per (workload, scale, provenance), reusing a finished recording on disk, then
   one timing task per point, in ``jobs`` local worker processes (``jobs=0``: in this process, for
   debugging) or, given a ``scheduler`` address, on that Dask cluster (:mod:`ndpgpu.experiments.dask_pool`);
4. stores each answer from this process's main loop, the single writer, one transaction per point.

A task that raises is stored as a failed point with its traceback; a local worker process that dies
(signal, out of memory) is detected, its tasks are rerun one at a time to find the culprit, which is stored
as failed (on a Dask cluster, Dask reruns a dead worker's tasks a bounded number of times, then the runner
stores the task as failed). Neither stops the sweep. Where a point ran changes neither its key nor its
results.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
import traceback
from collections import deque
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from . import worker
from .executors import make_executor
from .interfaces import Executor, MachineConfig, MetricRow, Provenance, RecordingManifest
from .points import Point, SpecError, SweepSpec, load_spec
from .pools import InlinePool, LocalPool, Pool
from .provenance import canonical_json, point_key, short_hash
from .store import PointRecord, ResultStore

DIED_MESSAGE = "the worker process died while running this task (killed by a signal or out of memory)"


def default_store_path() -> Path:
    """``$NDPGPU_RESULTS`` or ``results/ndpgpu.duckdb`` under the current directory."""
    return Path(os.environ.get("NDPGPU_RESULTS", "results/ndpgpu.duckdb"))


@dataclasses.dataclass
class PlannedPoint:
    """A point with its store key, resolved config and provenance."""

    point: Point
    key: str
    config: MachineConfig
    provenance: Provenance
    status: str | None = None  # stored status before the run (None: not stored)


@dataclasses.dataclass
class SweepPlan:
    """What a sweep will do: every point with its key, and which are already stored."""

    spec: SweepSpec
    executor: Executor
    points: list[PlannedPoint]

    @property
    def keys(self) -> list[str]:
        return [p.key for p in self.points]

    def todo(self, retry_failed: bool) -> list[PlannedPoint]:
        """Points to compute: not stored, or stored as failed when ``retry_failed``."""
        return [p for p in self.points if p.status is None or (p.status == "failed" and retry_failed)]


@dataclasses.dataclass
class SweepResult:
    """What a sweep did."""

    experiment: str
    store_path: Path
    points: list[PlannedPoint]
    reused: int = 0  # already stored before this run
    computed: int = 0  # stored by this run as ok
    failures: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (label, error) of this run
    recordings: int = 0  # recordings made by this run
    recordings_reused: int = 0  # finished recordings found on disk

    @property
    def keys(self) -> list[str]:
        return [p.key for p in self.points]

    @property
    def ok(self) -> bool:
        return not self.failures


def plan_sweep(spec: SweepSpec, store: ResultStore, scale: str | None = None) -> SweepPlan:
    """Expand ``spec``, resolve configs and provenance in this process, and look keys up in ``store``."""
    points = spec.expand(scale)
    executor = make_executor(spec.executor, spec.executor_options)
    provenance: dict[tuple[str, str], Provenance] = {}
    planned = []
    for point in points:
        ws = (point.workload, point.scale)
        if ws not in provenance:
            provenance[ws] = executor.identify(*ws)
        try:
            config = executor.configure(point)
        except Exception as exc:  # a bad machine name or override: the spec is wrong, stop before running
            raise SpecError(f"{point.label}: {type(exc).__name__}: {exc}") from exc
        prov = provenance[ws]
        key = point_key(
            executor=spec.executor,
            workload=point.workload,
            scale=point.scale,
            config_hash=config.config_hash,
            **dataclasses.asdict(prov),
        )
        planned.append(PlannedPoint(point, key, config, prov))
    statuses = store.statuses(p.key for p in planned)
    for p in planned:
        p.status = statuses.get(p.key)
    return SweepPlan(spec, executor, planned)


@dataclasses.dataclass
class _Group:
    workload: str
    scale: str
    rec_dir: Path
    points: list[PlannedPoint]
    key: dict[str, Any] = dataclasses.field(default_factory=dict)  # the identity its recording is made for


@dataclasses.dataclass
class _Task:
    kind: str  # "record" | "time"
    group: _Group
    point: PlannedPoint | None = None
    manifest: RecordingManifest | None = None
    isolated: bool = False

    def submit(self, pool: Any, executor: str, options: dict[str, Any]) -> Future:
        if self.kind == "record":
            g = self.group
            return pool.submit(worker.run_record, executor, options, g.workload, g.scale, str(g.rec_dir),
                               g.key or None)
        assert self.point is not None
        return pool.submit(worker.run_time, executor, options, self.point.point.model_dump(mode="json"), self.manifest)


def progress_interval() -> float:
    """Seconds between plain progress lines, and between the snapshots a sweep publishes of its store
    (``$NDPGPU_PROGRESS_INTERVAL``, default 30)."""
    try:
        return max(0.0, float(os.environ.get("NDPGPU_PROGRESS_INTERVAL", "30")))
    except ValueError:
        return 30.0


def _duration(seconds: float) -> str:
    """``42s``, ``12m05s``, ``1h02m``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


@dataclasses.dataclass
class SweepState:
    """How far a sweep got: set on the exception that interrupted it (``exc.sweep_state``) so that the command
    line can say what finished, what failed and what never ran."""

    experiment: str
    points: int  # the sweep's points
    stored: int  # already stored before this run
    done: int  # finished by this run (ok or failed)
    failed: int  # of which failed
    elapsed_s: float

    @property
    def not_run(self) -> int:
        """Points this run did not reach (interrupted): neither stored before nor finished."""
        return self.points - self.stored - self.done

    def line(self, interrupted: bool) -> str:
        head = "interrupted" if interrupted else "done"
        text = (f"{self.experiment}: {head} after {_duration(self.elapsed_s)}: {self.done} point(s) finished "
                f"({self.failed} failed)")
        if self.stored:
            text += f", {self.stored} already stored"
        if self.not_run:
            text += f", {self.not_run} not run"
        return text


class _Progress:
    """Progress on stderr: a rich live display (``mode="live"``, stderr a terminal), plain lines (``"lines"``:
    at most every :func:`progress_interval` seconds and at each recording done, for logs and pipes), or nothing
    (None)."""

    def __init__(self, mode: str | None, title: str, recordings: int, points: int, stored: int = 0) -> None:
        self.mode, self.title = mode, title
        self.failed = self.done = self.recordings_done = 0
        self.recordings, self.points, self.stored = recordings, points, stored
        self.start = time.monotonic()
        self.interval = progress_interval()
        self.last_line = self.start
        self.bar: Any = None
        if mode == "lines" and points:
            self._line(f"{points} point(s) to run ({stored} already stored), {recordings} recording(s)")
        if mode != "live":
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
        )
        self.rec = self.bar.add_task(f"{title}: recordings", total=recordings, note="")
        self.pts = self.bar.add_task(f"{title}: points", total=points, note="")
        self.bar.start()

    def _line(self, text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {self.title}: {text}", file=sys.stderr, flush=True)
        self.last_line = time.monotonic()

    def status(self) -> str:
        """``points 120/480 (3 failed), recordings 5/10; 12m30s elapsed, about 37m left``."""
        elapsed = time.monotonic() - self.start
        text = (f"points {self.done}/{self.points}" + (f" ({self.failed} failed)" if self.failed else "")
                + f", recordings {self.recordings_done}/{self.recordings}; {_duration(elapsed)} elapsed")
        if self.done and self.done < self.points:
            text += f", about {_duration(elapsed / self.done * (self.points - self.done))} left"
        elif not self.done and self.points:
            text += ", an estimate after the first point"
        return text

    def tick(self) -> None:
        """A plain line when one is due (the sweep's loop calls this whenever it wakes)."""
        if self.mode == "lines" and time.monotonic() - self.last_line >= self.interval:
            self._line(self.status())

    def recorded(self) -> None:
        self.recordings_done += 1
        if self.bar:
            self.bar.advance(self.rec)
        if self.mode == "lines":
            self._line(self.status())

    def point_done(self, failed: bool) -> None:
        self.failed += failed
        self.done += 1
        if self.bar:
            note = f"[red]{self.failed} failed" if self.failed else ""
            self.bar.update(self.pts, advance=1, note=note)
        self.tick()

    def state(self) -> SweepState:
        return SweepState(self.title, self.points + self.stored, self.stored, self.done, self.failed,
                          time.monotonic() - self.start)

    def stop(self, interrupted: bool = False) -> None:
        if self.bar:
            self.bar.stop()
        if self.mode is not None and (self.points or interrupted):
            print(f"[{time.strftime('%H:%M:%S')}] {self.state().line(interrupted)}", file=sys.stderr, flush=True)


class _Sweep:
    """One run of a plan: the scheduler loop and the single writer."""

    def __init__(self, plan: SweepPlan, store: ResultStore, jobs: int, progress: str | None,
                 scheduler: str | None = None) -> None:
        self.plan = plan
        self.scheduler = scheduler
        self.store = store
        self.jobs = jobs
        self.spec = plan.spec
        self.result = SweepResult(plan.spec.name, store.path, plan.points)
        self.show_progress = progress

    # -- the writer --------------------------------------------------------------------------------
    def _record(self, p: PlannedPoint, manifest: RecordingManifest | None) -> PointRecord:
        pt = p.point
        return PointRecord(
            key=p.key,
            label=pt.label,
            workload=pt.workload,
            scale=pt.scale,
            machine=pt.machine,
            policy=pt.policy,
            overrides=pt.overrides_json,
            executor=self.spec.executor,
            config_hash=p.config.config_hash,
            config=canonical_json(p.config.config),
            provenance=canonical_json(manifest.provenance if manifest else {}),
            **dataclasses.asdict(p.provenance),
        )

    def _store_ok(self, p: PlannedPoint, manifest: RecordingManifest, rows: list[MetricRow], elapsed: float) -> None:
        rec = self._record(p, manifest)
        rec.elapsed_s = elapsed
        functional = [MetricRow("functional", k, v, _stat_unit(k)) for k, v in sorted(manifest.stats.items())]
        self.store.write_point(rec, list(rows) + functional)
        self.result.computed += 1
        self.progress.point_done(False)

    def _store_failed(self, p: PlannedPoint, manifest: RecordingManifest | None, error: str, tb: str) -> None:
        rec = self._record(p, manifest)
        rec.status, rec.error, rec.traceback = "failed", error, tb
        self.store.write_point(rec)
        self.result.failures.append((p.point.label, error))
        self.progress.point_done(True)

    # -- answers -----------------------------------------------------------------------------------
    def _answer(self, task: _Task, answer: dict[str, Any]) -> list[_Task]:
        """Store what ``answer`` finished; return the tasks it unlocks."""
        group = task.group
        if task.kind == "record":
            self.progress.recorded()
            if answer["status"] != "ok":
                for p in group.points:
                    self._store_failed(p, None, f"recording failed: {answer['error']}", answer["traceback"])
                return []
            manifest: RecordingManifest = answer["manifest"]
            if manifest.reused:
                self.result.recordings_reused += 1
            else:
                self.result.recordings += 1
            if not manifest.passed:
                msg = f"functional check failed for {group.workload}@{group.scale}: "
                msg += manifest.failure_message()
                for p in group.points:
                    self._store_failed(p, manifest, msg, "")
                return []
            return [_Task("time", group, p, manifest) for p in group.points]
        assert task.point is not None and task.manifest is not None
        if answer["status"] == "ok":
            self._store_ok(task.point, task.manifest, answer["rows"], answer["elapsed_s"])
        else:
            self._store_failed(task.point, task.manifest, answer["error"], answer["traceback"])
        return []

    def _died(self, task: _Task) -> None:
        if task.kind == "record":
            self.progress.recorded()
            for p in task.group.points:
                self._store_failed(p, None, f"recording failed: {DIED_MESSAGE}", "")
        else:
            assert task.point is not None
            self._store_failed(task.point, task.manifest, DIED_MESSAGE, "")

    # -- the scheduler -----------------------------------------------------------------------------
    def _new_pool(self) -> Pool:
        if self.scheduler is not None:
            from .dask_pool import DaskPool

            return DaskPool(self.scheduler)
        if self.jobs <= 0:
            return InlinePool()
        return LocalPool(self.jobs, tuple(self.plan.executor.preload))

    def run(self, groups: list[_Group]) -> SweepResult:
        todo = sum(len(g.points) for g in groups)
        mode = self.show_progress if todo > 0 else None
        self.progress = _Progress(mode, self.spec.name, len(groups), todo, len(self.plan.points) - todo)
        self._snapshot(force=True)  # a reader of the store (`ndpgpu results`) reads this while the sweep writes
        try:
            self._loop(deque(_Task("record", g) for g in groups))
        except BaseException as exc:
            with contextlib.suppress(AttributeError, TypeError):  # say how far it got (cli: "N not run")
                exc.sweep_state = self.progress.state()  # type: ignore[union-attr]
            self.progress.stop(interrupted=True)
            raise
        else:
            self.progress.stop()
        finally:
            self._snapshot(force=False, final=True)
        return self.result

    def _snapshot(self, force: bool, final: bool = False) -> None:
        """Publish a copy of the store for readers (``ResultStore.publish_snapshot``): at the start, then at most
        every :func:`progress_interval` seconds (and no more than 5% of the time) while points are written,
        and at the end."""
        written = self.result.computed + len(self.result.failures)
        now = time.monotonic()
        last = getattr(self, "_snap", None)
        if not force and (last is None or written == last[1]):
            return
        if not force and not final and now - last[0] < max(progress_interval(), 20 * last[2]):
            return
        began = time.monotonic()
        self.store.publish_snapshot()
        self._snap = (now, written, time.monotonic() - began)

    def _tick(self) -> None:
        self.progress.tick()
        self._snapshot(force=False)

    def _loop(self, pending: deque[_Task]) -> None:
        name, options = self.spec.executor, self.spec.executor_options
        suspects: deque[_Task] = deque()  # tasks in flight when a worker died: rerun one at a time
        running: dict[Future, _Task] = {}
        started: dict[Future, float] = {}
        limit = self.spec.time_limit_s if self.jobs > 0 or self.scheduler is not None else None
        pool = self._new_pool()
        finished = False
        try:
            while pending or suspects or running:
                broken = False
                try:
                    if suspects:
                        if not running:
                            task = suspects.popleft()
                            task.isolated = True
                            fut = task.submit(pool, name, options)
                            running[fut], started[fut] = task, time.monotonic()
                    else:
                        while pending and len(running) < pool.capacity():
                            task = pending.popleft()
                            try:
                                fut = task.submit(pool, name, options)
                                running[fut], started[fut] = task, time.monotonic()
                            except BrokenProcessPool:
                                pending.appendleft(task)
                                raise
                except BrokenProcessPool:
                    broken = True
                if not broken:
                    timeout = None
                    if limit is not None and running:
                        timeout = max(0.05, min(started[f] for f in running) + limit - time.monotonic())
                    if self.progress.mode == "lines" or self.store.snapshots:  # wake for progress and snapshots
                        timeout = min(timeout or 1e9, max(1.0, progress_interval()))
                    done, _ = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
                    broken = self._collect(done, running, pending, suspects)
                    self._tick()
                    if limit is not None and self._stop_overdue(running, started, limit, pool):
                        broken = True  # the overdue tasks' workers were killed: the others rerun
                if broken:  # every other task of the broken pool fails too: collect them, then a new pool
                    done, _ = wait(running)
                    self._collect(done, running, pending, suspects)
                    pool.shutdown(wait=True)
                    pool = self._new_pool()
            finished = True
        finally:
            # interrupted: don't wait for running tasks (their points were not stored and will rerun); stop
            # their workers, which a SIGINT to this process alone (kill -INT, not a terminal's Ctrl-C to the
            # whole group) leaves running, and which the interpreter's exit would otherwise wait for
            if not finished and running:
                with contextlib.suppress(Exception):
                    pool.stop(list(running))
            pool.shutdown(wait=finished, cancel_futures=True)

    def _stop_overdue(self, running: dict[Future, _Task], started: dict[Future, float], limit: float,
                      pool: Pool) -> bool:
        """Store tasks running longer than ``limit`` as failed and stop them (the local pool kills its workers:
        a compiled loop cannot be interrupted from outside); True when the pool must be rebuilt."""
        now = time.monotonic()
        overdue = [f for f in running if now - started[f] > limit]
        if not overdue:
            return False
        for fut in overdue:
            task = running.pop(fut)
            message = f"time limit exceeded: still running after {limit:g} s (the spec's time_limit_s)"
            if task.kind == "record":
                self.progress.recorded()
                for p in task.group.points:
                    self._store_failed(p, None, f"recording failed: {message}", "")
            else:
                assert task.point is not None
                self._store_failed(task.point, task.manifest, message, "")
        return pool.stop(overdue)

    def _collect(
        self,
        done: Iterable[Future],
        running: dict[Future, _Task],
        pending: deque[_Task],
        suspects: deque[_Task],
    ) -> bool:
        broken = False
        for fut in sorted(done, key=lambda f: _order(running[f])):
            task = running.pop(fut)
            try:
                answer = fut.result()
            except BrokenProcessPool:
                broken = True
                if task.isolated:
                    self._died(task)
                else:
                    suspects.append(task)
                continue
            except Exception as exc:  # on a cluster: the task's workers kept dying, or it never started
                answer = _lost(exc)
            pending.extendleft(reversed(self._answer(task, answer)))
        return broken


def _lost(exc: BaseException) -> dict[str, Any]:
    """The answer of a task that produced none: Dask gave up after its workers died, or the task could not
    run at all (say, ndpgpu missing on a worker)."""
    from .dask_pool import is_killed_worker

    if is_killed_worker(exc):
        error = f"{DIED_MESSAGE}: Dask gave up after its workers died (KilledWorker: {exc})"
    else:
        error = f"{type(exc).__name__}: {exc}"
    return {"status": "error", "error": error, "traceback": "".join(traceback.format_exception(exc))}


def _stat_unit(stat: str) -> str:
    """The unit of a functional statistic, read from its name (the runner gives none)."""
    for word, unit in (("instructions", "instruction"), ("launches", "launch"), ("bytes", "byte")):
        if stat.endswith(word):
            return unit
    return ""


def _order(task: _Task) -> tuple[str, str]:
    return (task.kind, task.point.key if task.point else task.group.rec_dir.name)


def run_sweep(
    spec: SweepSpec | str | Path,
    jobs: int = 1,
    store: ResultStore | str | Path | None = None,
    traces: str | Path | None = None,
    scale: str | None = None,
    retry_failed: bool = True,
    progress: bool | None = None,
    executor: str | None = None,
    executor_options: dict[str, Any] | None = None,
    scheduler: str | None = None,
) -> SweepResult:
    """Run every point of ``spec`` not already stored; see the module docstring.

    ``store``: a :class:`ResultStore` or a database path (default :func:`default_store_path`);
    ``traces``: where recordings persist (default ``traces/`` beside the store; on a cluster, a directory
    every worker reads at the same path); ``scale`` replaces every point's scale;
    ``executor``/``executor_options`` replace the spec's; ``progress``: True a live display, False nothing, None
    (default) a live display when stderr is a terminal and otherwise plain lines (points done and failed,
    recordings, elapsed time and an estimate of what remains; at most every :func:`progress_interval` seconds
    and at each recording done); ``scheduler``: a Dask scheduler address (default
    :func:`ndpgpu.experiments.dask_pool.resolve_scheduler`: ``$NDPGPU_SCHEDULER`` or Dask's configured
    ``scheduler-address``), instead of ``jobs`` local processes.
    """
    from .dask_pool import resolve_scheduler

    if not isinstance(spec, SweepSpec):
        spec = load_spec(spec)
    spec = spec.with_executor(executor, executor_options)
    own = not isinstance(store, ResultStore)
    db = ResultStore(store if store is not None else default_store_path()) if own else store
    assert isinstance(db, ResultStore)
    try:
        plan = plan_sweep(spec, db, scale)
        db.add_membership(spec.name, plan.keys)
        traces_root = (Path(traces) if traces is not None else db.path.parent / "traces").absolute()
        todo = plan.todo(retry_failed)
        groups: dict[str, _Group] = {}
        for p in todo:
            rec_key = short_hash(
                canonical_json([spec.executor, p.point.workload, p.point.scale, dataclasses.asdict(p.provenance)])
            )
            if rec_key not in groups:
                rec_dir = traces_root / p.point.workload / p.point.scale / rec_key
                groups[rec_key] = _Group(p.point.workload, p.point.scale, rec_dir, [],
                                         worker.recording_key(p.point.workload, p.point.scale, p.provenance))
            groups[rec_key].points.append(p)
        if progress is None:  # a live display on a terminal, else plain lines (a log, a pipe, a notebook)
            show: str | None = "live" if sys.stderr.isatty() else "lines"
        else:
            show = "live" if progress else None
        result = _Sweep(plan, db, jobs, show, resolve_scheduler(scheduler)).run(list(groups.values()))
        result.reused = len(plan.points) - len(todo)
        return result
    finally:
        if own:
            db.close()
