"""The cache stamp's import reader (``_numba_cache.imported_names``) names at least what Python's parser finds."""

from __future__ import annotations

import ast
from pathlib import Path

import ndpgpu
from ndpgpu import _numba_cache as nc

ROOT = Path(ndpgpu.__file__).resolve().parent


def _parsed_imports(file: Path) -> set[Path]:
    """What the earlier AST walk found: every import statement, at any depth, resolved inside the package."""
    tree = ast.parse(file.read_bytes())
    me = nc._dotted_name(ROOT, "ndpgpu", file)
    here = me.split(".") if file.name == "__init__.py" else me.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            origin = (".".join([*here[: len(here) - node.level + 1], *([node.module] if node.module else [])])
                      if node.level else node.module or "")
            names = [origin] + [f"{origin}.{a.name}" for a in node.names]
        else:
            continue
        for dotted in names:
            t = nc._module_file(ROOT, "ndpgpu", dotted)
            if t is not None and t != file:
                found.add(t)
    return found


def test_text_reader_finds_every_parsed_import_of_the_package():
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) > 100
    for f in files:
        parsed = _parsed_imports(f)
        read = nc._imports_of(ROOT, "ndpgpu", f)
        assert parsed <= read, f"{f}: the reader misses {sorted(map(str, parsed - read))}"


def test_reader_handles_parentheses_continuations_aliases_and_relative_imports():
    text = ("from .engine import (\n    loop,  # the loop\n    issue as iss,\n)\n"
            "import numpy as np, ndpgpu.timing.spec\n"
            "from .. import registry, \\\n    sampling\nif x: from . import hooks\n")
    names = nc.imported_names(text, ["ndpgpu", "timing"])
    assert {"ndpgpu.timing.engine.loop", "ndpgpu.timing.engine.issue", "ndpgpu.timing.spec", "ndpgpu.registry",
            "ndpgpu.sampling", "ndpgpu.timing.hooks", "numpy"} <= names
