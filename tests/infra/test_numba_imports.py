"""The cache stamp's import reader (``_numba_cache.imported_names``) finds exactly what a walk of every node of
the tree finds, while visiting statements only; closures stay what they were."""

from __future__ import annotations

import ast
from pathlib import Path

import ndpgpu
from ndpgpu import _numba_cache as nc

ROOT = Path(ndpgpu.__file__).resolve().parent


def _walked_imports(file: Path) -> set[Path]:
    """What a walk of every node finds: each import statement, at any depth, resolved inside the package."""
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


def test_statement_walk_finds_every_import_of_the_package():
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) > 100
    for f in files:
        assert nc._imports_of(ROOT, "ndpgpu", f) == _walked_imports(f), f


def test_imports_in_functions_branches_handlers_and_classes_are_found():
    tree = ast.parse("import a\nif x:\n    from . import b\nelse:\n    import c\ntry:\n    pass\nexcept E:\n"
                     "    from .d import e\nfinally:\n    import f\nclass K:\n    def m(self):\n        import g\n"
                     "match y:\n    case 1:\n        import h\nwith z:\n    for i in j:\n        import k\n"
                     "s = 'import nothing'  # from x import y\n")
    names = nc.imported_names(tree, ["pkg", "sub"])
    assert names == {"a", "pkg.sub", "pkg.sub.b", "c", "pkg.sub.d", "pkg.sub.d.e", "f", "g", "h", "k"}
