"""Fixtures for the experiment machinery: sweeps run with the ``fake`` executor (no nvcc, no simulator)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("ndpgpu") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from ndpgpu.experiments.points import SweepSpec, spec_from_dict  # noqa: E402

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


@pytest.fixture
def spec_factory() -> Any:
    return fake_spec
