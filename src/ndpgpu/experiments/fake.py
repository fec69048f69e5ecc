"""A fake executor for tests and for trying the machinery without nvcc or the simulator.

Its metrics are deterministic functions of the point; it can sleep, fail, or kill its own worker on
request, and logs each call, so tests can interrupt a sweep and count recomputations. Options
(``executor_options`` of a spec):

``hang``
    point labels or workloads whose timing call sleeps for an hour (for the sweep's time limit).
``sleep_s`` / ``record_sleep_s``
    seconds each timing / recording call sleeps.
``fail`` / ``crash``
    workload names or point labels whose timing raises / whose worker process kills itself (SIGKILL).
``fail_record`` / ``fail_check``
    workload names whose recording raises / whose functional output check fails.
``log``
    a file that gets one JSON line per finished call: ``{"call", "label", "key", "pid"}``.
``source_salt``
    ``{workload: text}`` mixed into a workload's source hash, as if its source had changed.
``machines``
    the machine names ``configure`` accepts (default: any).
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from .executors import register_executor
from .interfaces import Executor, MachineConfig, MetricRow, Provenance, RecordingManifest
from .points import Point
from .provenance import canonical_json, code_version, short_hash, workload_source_hash


def _number(*parts: str) -> int:
    return int(short_hash(canonical_json(parts)), 16)


@register_executor("fake")
class FakeExecutor(Executor):
    """Deterministic made-up metrics (see the module docstring for the options)."""

    def _matches(self, option: str, point: Point | None, workload: str) -> bool:
        names = self.options.get(option, [])
        return workload in names or (point is not None and point.label in names)

    def _log(self, call: str, label: str) -> None:
        path = self.options.get("log")
        if path:
            line = json.dumps({"call": call, "label": label, "pid": os.getpid()}) + "\n"
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)

    def identify(self, workload: str, scale: str) -> Provenance:
        from ndpgpu.workloads.base import get_workload

        cls = get_workload(workload)
        salt = str(self.options.get("source_salt", {}).get(workload, ""))
        source = workload_source_hash(cls)
        return Provenance(
            source_hash=short_hash(source + salt) if salt else source,
            input_hash=short_hash(canonical_json(cls.params(scale))),
            nvcc_version="fake",
            arch="sm_fake",
            code_version=code_version(),
        )

    def configure(self, point: Point) -> MachineConfig:
        known = self.options.get("machines")
        if known is not None and point.machine not in known:
            raise ValueError(f"unknown machine {point.machine!r}; known machines: {', '.join(known)}")
        config = {"machine": point.machine, "policy": point.policy, "overrides": point.overrides}
        return MachineConfig(config_hash=short_hash("fake" + canonical_json(config)), config=config)

    def verify(self, recording: RecordingManifest) -> None:
        for path in recording.trace_paths:
            json.loads(Path(path).read_text())  # a truncated fake trace fails here

    def record(self, workload: str, scale: str, trace_dir: Path) -> RecordingManifest:
        time.sleep(float(self.options.get("record_sleep_s", 0.0)))
        if self._matches("fail_record", None, workload):
            raise RuntimeError(f"fake recording failure for {workload}@{scale}")
        n = _number(workload, scale)
        trace = trace_dir / "launch0.json"
        trace.write_text(json.dumps({"workload": workload, "scale": scale, "n": n}))
        passed = not self._matches("fail_check", None, workload)
        self._log("record", f"{workload}@{scale}")
        return RecordingManifest(
            workload=workload,
            scale=scale,
            passed=passed,
            checks=[
                {
                    "name": "out",
                    "passed": passed,
                    "message": "out: ok" if passed else "out: 3 elements differ",
                }
            ],
            trace_paths=[str(trace)],
            stats={"launches": 1.0, "warp_instructions": float(1000 + n % 9000)},
            provenance={"nvcc_version": "fake", "arch": "sm_fake"},
        )

    def time(self, point: Point, recording: RecordingManifest) -> list[MetricRow]:
        if self._matches("crash", point, point.workload):
            os.kill(os.getpid(), signal.SIGKILL)
        if self._matches("hang", point, point.workload):
            time.sleep(3600.0)  # a point that never finishes in reasonable time
        time.sleep(float(self.options.get("sleep_s", 0.0)))
        if self._matches("fail", point, point.workload):
            raise RuntimeError(f"fake timing failure for {point.label}")
        trace = json.loads(Path(recording.trace_paths[0]).read_text())
        instructions = float(recording.stats["warp_instructions"] * 32)
        speed = 1.0 + _number(point.machine, point.policy, point.overrides_json) % 7
        cycles = float(500 + trace["n"] % 50_000) / speed
        self._log("time", point.label)
        return [
            MetricRow("", "cycles", cycles, "cycle"),
            MetricRow("", "thread_instructions", instructions, "instruction"),
            MetricRow("", "ipc", instructions / cycles, "instruction/cycle"),
            MetricRow("dram", "bytes", float(trace["n"] % 100_000) * 32.0, "byte"),
            MetricRow("l2", "miss_rate", (trace["n"] % 1000) / 1000.0, "ratio"),
        ]
