"""``ndpgpu reproduce all``: every registered reproduction, in one result store, with one index page.

The reproductions share the store and the trace directory, so a workload recorded at a scale for one of
them is recorded once for all (a recording's key is its workload, scale and provenance), and a point that two
of them share (same key) runs once. Each report is written to ``<out>/<name>/`` (``report.md``,
``report.html``, ``report.json``, figures); ``<out>/index.html`` links them.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

from .dask_pool import SchedulerError
from .htmlreport import write_index
from .report import Report, all_reproductions, reproduce
from .runner import _duration, default_store_path
from .store import ResultStore

# stop everything: an interruption (Ctrl-C, also as DuckDB's exception), or a cluster that is not there
FATAL: tuple[type[BaseException], ...] = (KeyboardInterrupt, duckdb.InterruptException, SchedulerError)


def _note(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


@dataclasses.dataclass
class AllReports:
    """What ``reproduce all`` wrote."""

    out_dir: Path
    index_path: Path
    reports: list[Report]
    errors: list[tuple[str, str]]  # (reproduction, error) of those that could not run at all
    elapsed_s: dict[str, float] = dataclasses.field(default_factory=dict)  # wall seconds per reproduction

    @property
    def points_failed(self) -> int:
        """Points that failed or never ran, over every report."""
        return sum(r.data["summary"]["points_failed"] + r.data["summary"].get("points_not_run", 0)
                   for r in self.reports)


def reproduce_all(
    scale: str | None = None,
    out_dir: str | Path | None = None,
    jobs: int = 1,
    store: str | Path | None = None,
    traces: str | Path | None = None,
    executor: str | None = None,
    executor_options: dict[str, Any] | None = None,
    progress: bool | None = None,
    scheduler: str | None = None,
    names: list[str] | None = None,
) -> AllReports:
    """Run every registered reproduction (or ``names``) at ``scale`` (default: each one's own) into one store;
    write each report under ``out_dir`` (default ``reports/all-<scale>``) and an ``index.html`` there.

    A reproduction that cannot run at all (an error before or outside its points) is listed in
    ``errors`` and the others still run; failed points are in each report, as for ``reproduce``.
    """
    out = Path(out_dir) if out_dir is not None else Path("reports") / f"all-{scale or 'default'}"
    store_path = Path(store) if store is not None else default_store_path()
    known = all_reproductions()
    todo = names if names is not None else sorted(known)
    reports: list[Report] = []
    errors: list[tuple[str, str]] = []
    elapsed: dict[str, float] = {}
    began = time.perf_counter()
    with ResultStore(store_path) as db:
        for i, name in enumerate(todo):
            start = time.perf_counter()
            if progress is not False:  # where a long run stands, between the sweeps' own progress
                _note(f"reproduce all: {i + 1}/{len(todo)} {name} ({i} done in {_duration(start - began)})")
            try:
                reports.append(reproduce(
                    name, scale, out / name, jobs, db, traces, executor, executor_options, progress,
                    scheduler, index_href="../index.html"))
            except FATAL:
                raise
            except Exception as exc:  # one broken reproduction must not hide the others' results
                errors.append((name, f"{type(exc).__name__}: {exc}"))
                print(f"ndpgpu: reproduction {name} could not run: {type(exc).__name__}: {exc}", file=sys.stderr)
            elapsed[name] = time.perf_counter() - start
            if progress is not False:
                how = "could not run" if errors and errors[-1][0] == name else "written"
                _note(f"reproduce all: {name} {how} after {_duration(elapsed[name])} ({i + 1}/{len(todo)}; "
                      f"{_duration(time.perf_counter() - began)} in all)")
    index = write_index(reports, out, scale or "default", store_path, errors)
    return AllReports(out, index, reports, errors, elapsed)
