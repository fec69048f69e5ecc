"""Packaging: an SPDX license expression (no setuptools deprecation), the version written in one place
(``ndpgpu.__version__``, read by setuptools), and ``py.typed`` shipped for type checkers."""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import ndpgpu

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_license_is_an_spdx_expression() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    assert int(PYPROJECT["build-system"]["requires"][0].split(">=")[1]) >= 77  # the SPDX form's setuptools


def test_the_version_is_written_once() -> None:
    assert "version" not in PYPROJECT["project"] and "version" in PYPROJECT["project"]["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ndpgpu.__version__"}
    assert importlib.metadata.version("ndpgpu") == ndpgpu.__version__


def test_py_typed_is_shipped() -> None:
    assert (Path(ndpgpu.__file__).parent / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["ndpgpu"]
