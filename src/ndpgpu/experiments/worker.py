"""What a worker process runs: one recording or one timed point per task.

Tasks and their answers are plain picklable values. An exception inside a task becomes an ``"error"``
answer carrying the traceback; only a dying process (signal, out of memory) escapes to the runner.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from . import lifeline
from .executors import make_executor
from .interfaces import Executor, RecordingManifest
from .points import Point

_EXECUTORS: dict[tuple[str, str], Executor] = {}


def init_worker(preload: tuple[str, ...], client_pid: int | None = None) -> None:
    """Process initializer: exit with ``client_pid`` (the sweep's process), then import the executor's heavy
    modules once, before the first task."""
    if client_pid is not None:
        lifeline.follow_parent()
        lifeline.watch(client_pid)
    for module in preload:
        try:
            importlib.import_module(module)
        except ImportError:
            pass  # the task that needs it reports the error


def _executor(name: str, options: dict[str, Any]) -> Executor:
    import json

    cache_key = (name, json.dumps(options, sort_keys=True, default=str))
    if cache_key not in _EXECUTORS:
        _EXECUTORS[cache_key] = make_executor(name, options)
    return _EXECUTORS[cache_key]


def _error(exc: BaseException) -> dict[str, Any]:
    return {
        "status": "error",
        "error": f"{type(exc).__name__}: {exc}",
        "traceback": "".join(traceback.format_exception(exc)),
    }


def run_record(executor: str, options: dict[str, Any], workload: str, scale: str, rec_dir: str) -> dict[str, Any]:
    """Record ``workload`` at ``scale`` into ``rec_dir`` unless a finished recording is already there."""
    final = Path(rec_dir)
    start = time.perf_counter()
    try:
        if (final / RecordingManifest.FILE).exists():
            reused = _reusable(final, _executor(executor, options))
            if reused is not None:
                return {"status": "ok", "manifest": reused}
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.parent / f".{final.name}.{os.getpid()}.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        with (tmp / "stdout.txt").open("w") as out, contextlib.redirect_stdout(out):  # device printf
            manifest = _executor(executor, options).record(workload, scale, tmp)
        manifest.elapsed_s = time.perf_counter() - start
        if not manifest.passed:  # kept only while its points are stored as failed; a retry records again
            shutil.rmtree(tmp, ignore_errors=True)
            return {"status": "ok", "manifest": manifest}
        manifest.save(tmp)
        try:
            tmp.rename(final)
        except OSError:  # another sweep finished the same recording first: use theirs
            shutil.rmtree(tmp, ignore_errors=True)
        manifest = RecordingManifest.load(final)
        manifest.reused = False
        return {"status": "ok", "manifest": manifest}
    except Exception as exc:  # every failure is reported; none stops the sweep
        return _error(exc)


def _reusable(final: Path, executor: Executor) -> RecordingManifest | None:
    """The finished recording in ``final`` if its manifest and traces read back intact (``Executor.verify``);
    otherwise it is moved aside (kept for inspection, named in a warning) and None says: record again."""
    try:
        manifest = RecordingManifest.load(final)
        executor.verify(manifest)
        return manifest
    except Exception as exc:  # a corrupt manifest or trace: never fail every rerun on it
        aside = final.parent / f".{final.name}.corrupt.{os.getpid()}"
        shutil.rmtree(aside, ignore_errors=True)
        final.rename(aside)
        print(f"ndpgpu: recording {final} is unreadable ({type(exc).__name__}: {exc}); moved to {aside} and "
              "recorded again", file=sys.stderr)
        return None


def run_time(
    executor: str, options: dict[str, Any], point: dict[str, Any], manifest: RecordingManifest
) -> dict[str, Any]:
    """Time one point on its recording; return its metric rows and the seconds it took."""
    start = time.perf_counter()
    try:
        rows = _executor(executor, options).time(Point.model_validate(point), manifest)
        return {"status": "ok", "rows": list(rows), "elapsed_s": time.perf_counter() - start}
    except Exception as exc:
        return _error(exc)
