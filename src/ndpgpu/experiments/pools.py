"""Where a sweep's tasks run: in this process, in a local process pool, or on a Dask cluster.

Every pool has the same small interface, used by the runner's loop (:mod:`ndpgpu.experiments.runner`):
``submit(fn, *args)`` returns a :class:`concurrent.futures.Future`; ``capacity()`` is how many tasks it runs
at once; ``stop(futures)`` abandons overdue tasks and says whether the pool must be rebuilt; ``shutdown``.
The Dask pool is in :mod:`ndpgpu.experiments.dask_pool`.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Protocol

from . import forkserver_guard, worker


class Pool(Protocol):
    """What the runner needs of a pool."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future: ...

    def capacity(self) -> int: ...

    def stop(self, futures: Iterable[Future]) -> bool: ...

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None: ...


class InlinePool:
    """``jobs=0``: tasks run in this process as they are submitted (no isolation; for debugging)."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        fut: Future = Future()
        fut.set_result(fn(*args))
        return fut

    def capacity(self) -> int:
        return 1

    def stop(self, futures: Iterable[Future]) -> bool:
        return False

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


class LocalPool(ProcessPoolExecutor):
    """``jobs`` worker processes on this machine, forked from a forkserver that imported ``preload`` once.

    Each worker watches this process (:func:`ndpgpu.experiments.worker.init_worker`): when it dies, even by
    SIGKILL, the workers exit, and with them the forkserver and the resource tracker.
    """

    def __init__(self, jobs: int, preload: tuple[str, ...]) -> None:
        if "forkserver" in multiprocessing.get_all_start_methods():
            # workers fork from a clean server process that imported the heavy modules once, so a pool
            # rebuilt after a worker died starts in milliseconds; the main process (threads, an open
            # database) is never forked
            ctx = multiprocessing.get_context("forkserver")
            os.environ[forkserver_guard.SWEEP_PID_ENV] = str(os.getpid())  # read by the guard in the forkserver
            ctx.set_forkserver_preload([forkserver_guard.__name__, worker.__name__, *preload])
        else:
            ctx = multiprocessing.get_context("spawn")
        self.jobs = jobs
        super().__init__(
            max_workers=jobs, mp_context=ctx, initializer=worker.init_worker, initargs=(preload, os.getpid())
        )

    def capacity(self) -> int:
        return self.jobs

    def stop(self, futures: Iterable[Future]) -> bool:
        """Kill every worker (a compiled loop cannot be interrupted from outside): the pool is rebuilt."""
        for process in list(getattr(self, "_processes", {}).values()):
            process.kill()
        return True
