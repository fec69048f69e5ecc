"""Shared helpers of the experiment-machinery tests (a uniquely named module: every test directory has a
``conftest``, so importing helpers from ``conftest`` depends on the collection order)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ndpgpu.experiments.points import SweepSpec, spec_from_dict

WORKLOADS = ["saxpy", "vecadd", "histogram", "sgemm_naive", "warp_reduce", "bfs"]
MACHINES = ["gtx480", "v100"]


def fake_spec(name: str = "t", workloads: list[str] | None = None, **options: Any) -> SweepSpec:
    """A tiny-scale sweep of built-in workloads on two machines, run by the fake executor."""
    return spec_from_dict(
        {
            "name": name,
            "executor": "fake",
            "executor_options": options,
            "grid": {"workloads": workloads or WORKLOADS, "scales": ["tiny"], "machines": MACHINES},
        }
    )


def log_calls(path: Path, call: str = "time") -> list[str]:
    """Labels of the fake executor's finished calls of one kind, in order."""
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [entry["label"] for entry in lines if entry["call"] == call]
