"""Fixtures for the experiment machinery: sweeps run with the ``fake`` executor (no nvcc, no simulator)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("ndpgpu") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))


from expkit import fake_spec  # noqa: E402


@pytest.fixture
def spec_factory() -> Any:
    return fake_spec
