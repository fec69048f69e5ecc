"""The timing engine's two profilers (``benchmarks/engine_profile.py``, ``benchmarks/engine_lines.py``) patch a copy
of the engine's source by text: each patch must still find its place in today's engine, or an engine edit has
left a profiler that no longer runs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
SRC = Path(__file__).resolve().parents[2] / "src"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_engine_profile_patches_each_match_once():
    profile = _load("_engine_profile", BENCH / "engine_profile.py")
    patches = profile.patches()
    assert len(patches) >= 20
    for rel, old, new in patches:
        text = (SRC / rel).read_text()
        assert text.count(old) == 1, f"{rel}: {old[:60]!r} occurs {text.count(old)} times"
        assert new != old


def test_engine_lines_compiles_the_engine_with_line_tables_only(tmp_path):
    lines = _load("_engine_lines", BENCH / "engine_lines.py")
    lines.instrument(tmp_path)
    layout = (tmp_path / lines.LAYOUT).read_text()
    # every decorator of the engine's layout gets the line-table options; the copy has no numba caches
    decorators = [ln for ln in layout.splitlines() if "= nb.njit(cache=True" in ln]
    assert decorators and all("**_LINES" in ln for ln in decorators)
    assert "flags.dbg_directives_only = True" in layout
    assert not list(tmp_path.rglob("__pycache__"))
    # the package itself is untouched
    assert "**_LINES" not in (SRC / lines.LAYOUT).read_text()


def test_engine_lines_counts_the_engine_and_mechanisms_only():
    lines = _load("_engine_lines", BENCH / "engine_lines.py")
    assert lines.ENGINE_NAME.search("_ZN6ndpgpu6timing6engine5issue8sm_ticksB4v1") is not None
    assert lines.ENGINE_NAME.search("_ZN6ndpgpu10mechanisms3tom8hardware6decide") is not None
    assert lines.ENGINE_NAME.search("_ZN6ndpgpu10functional6engine9exec_fast") is None
