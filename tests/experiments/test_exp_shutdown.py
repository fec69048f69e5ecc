"""Killing a sweep (SIGKILL of the client alone, as by the OOM killer or `kill -9 PID`) leaves no process of
its local pool behind: workers, forkserver and resource tracker all end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml
from expkit import fake_spec, log_calls


def _group(pgid: int) -> dict[int, str]:
    """The live processes of process group ``pgid``: pid -> command line."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z" and int(fields[2]) == pgid:
                out[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
    return out


def test_a_killed_sweep_leaves_no_orphaned_worker(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(fake_spec(log=str(log), sleep_s=0.5).model_dump(mode="json")))
    cmd = [sys.executable, "-m", "ndpgpu.experiments.cli", "sweep", str(spec), "--jobs", "2", "--store",
           str(tmp_path / "r.duckdb"), "--no-progress"]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(log_calls(log)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        helpers = {pid: c for pid, c in _group(proc.pid).items() if pid != proc.pid}
        assert sum("forkserver" in c for c in helpers.values()) >= 3, helpers  # the server and two workers
        proc.kill()  # the client only, not its group
        proc.wait()
        deadline = time.monotonic() + 15
        while _group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _group(proc.pid) == {}, "orphaned processes of the killed sweep"
    finally:
        for pid in _group(proc.pid):
            os.kill(pid, signal.SIGKILL)
