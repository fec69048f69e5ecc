"""What a worker process runs: one recording or one timed point per task.

Tasks and their answers are plain picklable values. An exception inside a task becomes an ``"error"``
answer carrying the traceback; only a dying process (signal, out of memory) escapes to the runner.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import shutil
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

from . import lifeline
from .executors import make_executor
from .interfaces import Executor, RecordingManifest, RecordingMismatchWarning
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


def recording_key(workload: str, scale: str, provenance: Any) -> dict[str, Any]:
    """The identity a recording is made for: workload, scale and its provenance (``Executor.identify``)."""
    prov = dataclasses.asdict(provenance) if dataclasses.is_dataclass(provenance) else dict(provenance)
    return {"workload": workload, "scale": scale, **prov}


def run_record(executor: str, options: dict[str, Any], workload: str, scale: str, rec_dir: str,
               key: dict[str, Any] | None = None) -> dict[str, Any]:
    """Record ``workload`` at ``scale`` into ``rec_dir`` unless a finished recording of the same ``key``
    (:func:`recording_key`; default: the executor's ``identify``) with unchanged trace files is there."""
    final = Path(rec_dir)
    start = time.perf_counter()
    try:
        if key is None:
            key = recording_key(workload, scale, _executor(executor, options).identify(workload, scale))
        if (final / RecordingManifest.FILE).exists():
            reused = _reusable(final, _executor(executor, options), key)
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
        manifest.seal(key)
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


def _reusable(final: Path, executor: Executor, key: dict[str, Any]) -> RecordingManifest | None:
    """The finished recording in ``final`` if it was recorded for ``key``, its trace files are the ones it
    recorded (sha256) and they read back intact (``Executor.verify``); otherwise it is moved aside (kept for
    inspection, named in a message on stderr) and None says: record again."""
    try:
        manifest = RecordingManifest.load(final)
        executor.verify(manifest)  # intact (a trace's CRC) ...
        mismatches = manifest.identity_mismatches(key)  # ... and this key's recording, file by file
        if not mismatches:
            return manifest
    except Exception as exc:  # a corrupt manifest or trace: never fail every rerun on it
        aside = _move_aside(final, "corrupt")
        print(f"ndpgpu: recording {final} is unreadable ({type(exc).__name__}: {exc}); moved to {aside} and "
              "recorded again", file=sys.stderr)
        return None
    aside = _move_aside(final, "mismatch")
    message = (f"recording {final} is not the recording of {key.get('workload')}@{key.get('scale')}: "
               + "; ".join(mismatches) + f"; moved to {aside} and recorded again")
    print(f"ndpgpu: {message}", file=sys.stderr)
    warnings.warn(message, RecordingMismatchWarning, stacklevel=2)
    return None


def _move_aside(final: Path, why: str) -> Path:
    aside = final.parent / f".{final.name}.{why}.{os.getpid()}"
    shutil.rmtree(aside, ignore_errors=True)
    final.rename(aside)
    return aside


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
