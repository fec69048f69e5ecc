"""A real Dask cluster on the loopback interface for tests: ``dask scheduler`` and ``dask worker`` processes
started with Dask's own commands, as a user would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DASK = str(Path(sys.executable).with_name("dask"))


class LoopbackCluster:
    """A scheduler and ``workers`` single-threaded workers (no nanny: a killed worker stays dead)."""

    def __init__(self, tmp: Path, workers: int, env: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        self.env = {**os.environ, **(env or {})}
        self.file = tmp / "scheduler.json"
        self.procs: list[subprocess.Popen] = []
        self.scheduler = self._start([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(self.file)], "scheduler")
        self.address = self._scheduler_address(deadline=time.monotonic() + 60)
        self.workers = [self._start([DASK, "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                     "--host", "127.0.0.1", "--name", f"w{i}"], f"worker{i}") for i in range(workers)]
        self.wait_for_workers(workers)

    def _scheduler_address(self, deadline: float) -> str:
        """The address in the scheduler file, once the scheduler has written all of it: the file appears before
        its JSON is complete, so an empty or partial file is read again rather than parsed once."""
        while time.monotonic() < deadline:
            if self.scheduler.poll() is not None:
                log = (self.tmp / "scheduler.log").read_text()
                raise RuntimeError(f"dask scheduler exited with {self.scheduler.returncode}:\n{log}")
            try:
                return json.loads(self.file.read_text())["address"]
            except (FileNotFoundError, json.JSONDecodeError, KeyError):
                time.sleep(0.05)
        raise TimeoutError(f"dask scheduler wrote no address to {self.file} within 60 s")

    def _start(self, cmd: list[str], name: str) -> subprocess.Popen:
        log = (self.tmp / f"{name}.log").open("w")
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        self.procs.append(proc)
        return proc

    def client(self) -> Any:
        from distributed import Client

        return Client(self.address, timeout=30, set_as_default=False)

    def wait_for_workers(self, n: int) -> None:
        with self.client() as c:
            c.wait_for_workers(n, timeout=60)

    def scheduler_tasks(self) -> list[str]:
        """The keys of the ndpgpu tasks the scheduler still holds."""
        with self.client() as c:
            return c.run_on_scheduler(lambda dask_scheduler: [str(k) for k in dask_scheduler.tasks
                                                              if str(k).startswith("ndpgpu-")])

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
