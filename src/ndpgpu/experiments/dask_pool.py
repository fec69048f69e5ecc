"""A sweep's tasks on a Dask cluster (``dask.distributed``): the pool behind ``--scheduler``.

The runner submits recordings and points to the cluster as tasks and stores each answer itself (the single
DuckDB writer stays on the client). Dask reruns the tasks of a worker that died on the remaining workers, at
most ``distributed.scheduler.allowed-failures`` times (a scheduler setting; Dask's default is 3); a task
that kills that many workers ends as ``KilledWorker``, which the runner stores as a failed point. When the
client goes away, the scheduler forgets its tasks: queued ones never start.

The cluster is named by an address (``tcp://host:8786``), found in this order: the ``scheduler`` argument,
``$NDPGPU_SCHEDULER``, then Dask's own configuration ``scheduler-address`` (``$DASK_SCHEDULER_ADDRESS``).
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError, Future
from typing import Any

SCHEDULER_ENV = "NDPGPU_SCHEDULER"
CONNECT_TIMEOUT_S = 30.0


class SchedulerError(ConnectionError):
    """A Dask scheduler that cannot be reached, or an address that is not one."""


def resolve_scheduler(scheduler: str | None = None) -> str | None:
    """The scheduler address to use, or None for the local pool (see the module docstring for the order)."""
    if scheduler:
        return scheduler
    if os.environ.get(SCHEDULER_ENV):
        return os.environ[SCHEDULER_ENV]
    import dask

    address = dask.config.get("scheduler-address", None)
    return str(address) if address else None


def _unreachable(address: str, why: str) -> SchedulerError:
    return SchedulerError(
        f"cannot reach the Dask scheduler at {address} ({why}); start one with `dask scheduler` and workers "
        "with `dask worker ADDRESS` (docs/experiments.md)"
    )


def _probe(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast on a TCP address nobody listens at (the client itself would retry until its timeout)."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return  # tls, ucx, inproc...: left to Dask
    host, _, port = rest.rpartition(":")
    if not port.isdigit():
        raise SchedulerError(f"scheduler address {address!r} has no port (expected tcp://HOST:PORT)")
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise _unreachable(address, f"{type(exc).__name__}: {exc}") from exc


def is_killed_worker(exc: BaseException) -> bool:
    """True when ``exc`` says a task's workers kept dying (Dask gave up on it)."""
    from distributed import KilledWorker

    return isinstance(exc, KilledWorker)


class DaskPool:
    """Tasks on the Dask cluster at ``address``; the pool interface of :mod:`ndpgpu.experiments.pools`."""

    def __init__(self, address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        from distributed import Client

        if "://" not in address and ":" not in address:
            raise SchedulerError(f"scheduler address {address!r} (from --scheduler, ${SCHEDULER_ENV} or Dask's "
                                 "scheduler-address) is not one: expected tcp://HOST:PORT")
        _probe(address)
        try:
            self.client = Client(address, timeout=timeout_s, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise _unreachable(address, f"{type(exc).__name__}: {exc}") from exc
        self.address = address
        self._futures: dict[Future, Any] = {}

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Submit ``fn(*args)`` as a task with a fresh key (a rerun is a new task, never a cached result)."""
        done: Future = Future()
        task = self.client.submit(fn, *args, key=f"ndpgpu-{fn.__name__}-{uuid.uuid4().hex}", pure=False)
        self._futures[done] = task

        def finished(task_future: Any) -> None:
            try:
                done.set_result(task_future.result())
            except CancelledError as exc:
                if not done.done():
                    done.set_exception(exc)
            except BaseException as exc:  # KilledWorker, a task that could not be unpickled on the worker...
                done.set_exception(exc)
            finally:
                self._futures.pop(done, None)

        task.add_done_callback(finished)
        return done

    def capacity(self) -> int:
        """The worker threads of the cluster now (at least 1: tasks wait for workers to join)."""
        try:
            return max(1, sum(self.client.nthreads().values()))
        except (OSError, TimeoutError):
            return 1

    def stop(self, futures: Iterable[Future]) -> bool:
        """Release the overdue tasks; a task already running finishes on its worker (Dask cannot interrupt a
        thread) and its answer is dropped. The pool stays usable."""
        tasks = [self._futures.pop(f) for f in futures if f in self._futures]
        if tasks:
            self.client.cancel(tasks)
        return False

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        if cancel_futures and self._futures:
            try:
                self.client.cancel(list(self._futures.values()))
            except Exception:  # the cluster may be gone already; closing is what matters
                pass
        self.client.close()
