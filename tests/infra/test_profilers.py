"""The timing engine's two profilers (``benchmarks/engine_profile.py``, ``benchmarks/engine_lines.py``) patch a copy
of the engine's source by text: each patch must still find its place in today's engine, or an engine edit has
left a profiler that no longer runs."""

from __future__ import annotations

import runpy
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
SRC = Path(__file__).resolve().parents[2] / "src"


def _script(name: str) -> dict:
    """A benchmark script's names (it is not run as ``__main__``)."""
    return runpy.run_path(str(BENCH / name))


def test_engine_profile_patches_each_match_once():
    patches = _script("engine_profile.py")["patches"]()
    assert len(patches) >= 20
    for rel, old, new in patches:
        text = (SRC / rel).read_text()
        assert text.count(old) == 1, f"{rel}: {old[:60]!r} occurs {text.count(old)} times"
        assert new != old


def test_engine_lines_compiles_the_engine_with_line_tables_only(tmp_path):
    lines = _script("engine_lines.py")
    lines["instrument"](tmp_path)
    layout = (tmp_path / lines["LAYOUT"]).read_text()
    # every decorator of the engine's layout gets the line-table options; the copy has no numba caches
    decorators = [ln for ln in layout.splitlines() if "= nb.njit(cache=True" in ln]
    assert decorators and all("**_LINES" in ln for ln in decorators)
    assert "flags.dbg_directives_only = True" in layout
    assert not list(tmp_path.rglob("__pycache__"))
    # the package itself is untouched
    assert "**_LINES" not in (SRC / lines["LAYOUT"]).read_text()


def test_engine_lines_counts_the_engine_and_mechanisms_only():
    engine = _script("engine_lines.py")["ENGINE_NAME"]
    assert engine.search("_ZN6ndpgpu6timing6engine5issue8sm_ticksB4v1") is not None
    assert engine.search("_ZN6ndpgpu10mechanisms3tom8hardware6decide") is not None
    assert engine.search("_ZN6ndpgpu10functional6engine9exec_fast") is None
