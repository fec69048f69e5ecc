"""No module of ``src/ndpgpu`` imports from a layer above its own (DESIGN.md: frontend, analysis, functional,
trace, timing, mechanisms, experiments), lazily imported or not. Read from the source with ``ast``: every
``import``/``from`` statement counts, wherever it stands in a module (a deferred import inside a function is
still a dependency), except those under ``if TYPE_CHECKING:`` (annotations only)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parents[2] / "src" / "ndpgpu"

# the layers, lowest first; a module may import from its own layer and the ones below it
LAYERS: dict[str, int] = {
    # utilities every layer may use: they import nothing of ndpgpu's but each other
    "registry": 0, "cliargs": 0, "clitable": 0, "clisummary": 0, "frames": 0, "timeseries": 0, "_lazy": 0,
    "_numba_cache": 0, "_numba_inline": 0, "yamlio": 0, "_compile_notice": 0, "__version__": 0,
    "frontend": 1,
    "analysis": 2,
    # the trace format is the contract between the functional engine (its writer) and the trace layer's
    # readers: it sits below both
    "trace.format": 2,
    "functional": 3,
    "trace": 4,
    "timing": 5, "machines": 5, "power": 5,  # with its presets and energy model (timing.power; power: its alias)
    # the CuPy-style API and its host side, and the workloads written against it (mechanisms analyse them)
    "api": 6, "host": 6, "workloads": 6,
    "mechanisms": 7,
    "experiments": 8,
    # the command line and tools above everything
    "cli": 9, "warmup": 9, "__main__": 9, "__init__": 9,
}


def _layer(parts: tuple[str, ...]) -> int:
    dotted = ".".join(parts)
    for name in (".".join(parts[:2]), parts[0]):
        if name in LAYERS:
            return LAYERS[name]
    raise AssertionError(f"ndpgpu.{dotted} belongs to no layer: add its package to LAYERS")


def _module_parts(path: Path) -> tuple[str, ...]:
    rel = path.relative_to(SRC).with_suffix("").parts
    return rel[:-1] if rel[-1] == "__init__" and len(rel) > 1 else rel


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _imports(path: Path) -> list[tuple[int, tuple[str, ...]]]:
    """(line, ndpgpu module parts) of every import of an ndpgpu module in ``path``."""
    parts = _module_parts(path)
    package = list(parts if path.name == "__init__.py" else parts[:-1])
    tree = ast.parse(path.read_text())
    skip = _type_checking_nodes(tree)
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "ndpgpu":
                target = node.module.split(".")[1:]
            else:
                continue
            if not target:  # ``from . import x`` at the package root: x is the module
                out.extend((node.lineno, (a.name,)) for a in node.names)
            elif len(target) == 1 and target[0] == "trace":
                out.extend((node.lineno, ("trace", a.name)) for a in node.names)
            else:
                out.append((node.lineno, tuple(target)))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "ndpgpu" and "." in a.name:
                    out.append((node.lineno, tuple(a.name.split(".")[1:])))
    return out


MODULES = sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_has_a_layer():
    for path in MODULES:
        _layer(_module_parts(path))


@pytest.mark.parametrize("top", sorted({p.relative_to(SRC).parts[0].removesuffix(".py") for p in MODULES}))
def test_no_module_imports_from_a_layer_above(top):
    bad = []
    for path in MODULES:
        parts = _module_parts(path)
        if parts[0].removesuffix(".py") != top:
            continue
        mine = _layer(parts)
        for line, target in _imports(path):
            if _layer(target) > mine:
                bad.append(f"{path.relative_to(SRC)}:{line} imports ndpgpu.{'.'.join(target)}")
    assert not bad, "imports from a layer above:\n" + "\n".join(bad)


def test_the_checker_sees_a_deferred_upward_import(tmp_path, monkeypatch):
    """A probe: an import inside a function is found, one under TYPE_CHECKING is not."""
    pkg = tmp_path / "ndpgpu" / "timing"
    pkg.mkdir(parents=True)
    probe = pkg / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..experiments import x\n"
                     "def f():\n    from ..mechanisms import y\n")
    monkeypatch.setattr(__import__(__name__), "SRC", tmp_path / "ndpgpu")
    assert [t for _, t in _imports(probe)] == [("mechanisms",)]
