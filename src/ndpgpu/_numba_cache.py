"""numba's on-disk cache, stamped with every source file a compiled function depends on.

numba keys a cached function by its own file alone, so an edit to a helper in another module (an ALU
routine the interpreter inlines, a constant in :mod:`ndpgpu.functional.isa`) would leave a stale
compiled engine in place. Here every ``cache=True`` function of a registered package gets a source stamp
that hashes its file *and* every module of the same package that file imports, transitively (found by
reading the import statements, so nothing is executed). Any edit anywhere in that closure makes numba
recompile; an untouched tree loads from the cache as before.

Processes of different source versions share no cache file. numba names a function's files after the function
alone (``name-line.py311.nbi`` and ``.1.nbc``, ``.2.nbc``, ...) and writes the index before the data, so a
process whose stamp differs renumbered from 1 and overwrote files that another version's index still pointed
to: a process loading in between took another version's compiled code, and compiled it into its callers
under its own, valid stamp (a stale engine that deadlocked the mesh was found this way). Here each file's
functions cache in a directory of their own stamp (``__pycache__/<module>-<stamp>/``, older ones pruned
after a day unused), and each process names its data files with a token of its own, so two processes that
both found an empty index never write the same file.

:func:`install` puts the locators in front of numba's own. Importing this module installs them; :mod:`ndpgpu`
imports it before any compiled module, because numba picks a function's locator when it is decorated.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import functools
import hashlib
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from numba.core import caching

from . import _numba_inline

_PACKAGES: dict[str, Path] = {}  # top-level package name -> its directory
_EXTRA: dict[Path, tuple[Path, ...]] = {}  # file -> files it depends on without importing them
_FIRST_SEEN: dict[Path, tuple[int, int]] = {}  # file -> (mtime_ns, size) when this process first listed it


def _note_files(files) -> None:
    """Remember each file's modification time and size as this process first sees it."""
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        _FIRST_SEEN.setdefault(f, (st.st_mtime_ns, st.st_size))


def add_dependencies(py_file: str | os.PathLike, files: list[str] | tuple[str, ...]) -> None:
    """Count ``files`` as imported by ``py_file`` (and so by everything importing it): for modules that
    load others at run time, such as the engine's hook table of registered mechanisms."""
    _EXTRA[Path(py_file).resolve()] = tuple(sorted(Path(f).resolve() for f in files))
    _note_files(_EXTRA[Path(py_file).resolve()])
    closure_files.cache_clear()


def register_package(name: str, directory: str | os.PathLike) -> None:
    """Stamp cached functions of package ``name`` (rooted at ``directory``) with their import closure."""
    _PACKAGES[name] = Path(directory).resolve()
    _note_files(_PACKAGES[name].rglob("*.py"))  # before any module of the package is imported
    closure_files.cache_clear()


def _package_of(py_file: str) -> tuple[str, Path] | None:
    path = Path(py_file).resolve()
    for name, root in _PACKAGES.items():
        if root == path.parent or root in path.parents:
            return name, root
    return None


def _module_file(root: Path, package: str, dotted: str) -> Path | None:
    """The file of module ``dotted`` (absolute, inside ``package``), or None when it is not ours."""
    parts = dotted.split(".")
    if parts[0] != package:
        return None
    base = root.joinpath(*parts[1:])
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _dotted_name(root: Path, package: str, file: Path) -> str:
    rel = file.relative_to(root).with_suffix("")
    parts = [package, *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


_IMPORTS: dict[tuple[Path, int, int], tuple[str, ...]] = {}  # (file, mtime_ns, size) -> dotted names it imports
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")  # where a statement holds statements


def _import_statements(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every ``import``/``from`` statement of a module at any depth (in functions, classes, branches, ``try``),
    found by walking statements only: the expressions, most of a tree's nodes, are never visited."""
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for field in _BODIES:
            children = getattr(node, field, None)
            if children:
                todo.extend(children)


def imported_names(tree: ast.Module, here: list[str]) -> set[str]:
    """Absolute dotted names the import statements of ``tree`` name (``here``: the importing module's package,
    for relative imports): each module, and each ``module.name`` of a ``from`` import (a submodule or not)."""
    names: set[str] = set()
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        if node.level:
            anchor = here[: len(here) - node.level + 1]
            origin = ".".join([*anchor, node.module] if node.module else anchor)
        else:
            origin = node.module or ""
        names.add(origin)
        names.update(f"{origin}.{alias.name}" for alias in node.names)
    return names


def _imports_of(root: Path, package: str, file: Path) -> set[Path]:
    """Files of ``package`` that ``file`` imports directly (``import``/``from`` statements at any depth),
    remembered per file version: every compiled module's closure walks many of the same files."""
    st = file.stat()
    key = (file, st.st_mtime_ns, st.st_size)
    if key not in _IMPORTS:
        me = _dotted_name(root, package, file)
        here = me.split(".") if file.name == "__init__.py" else me.split(".")[:-1]
        _IMPORTS[key] = tuple(sorted(imported_names(ast.parse(file.read_bytes(), filename=str(file)), here)))
    found: set[Path] = set()
    for dotted in _IMPORTS[key]:
        target = _module_file(root, package, dotted)
        if target is not None and target != file:
            found.add(target)
    return found


@functools.cache
def closure_files(py_file: str) -> tuple[Path, ...]:
    """``py_file`` and every file of a registered package it imports, directly or not, or depends on
    (:func:`add_dependencies`), sorted."""
    start = Path(py_file).resolve()
    seen = {start}
    todo = [start]
    while todo:
        file = todo.pop()
        deps = set(_EXTRA.get(file, ()))
        owner = _package_of(str(file))
        if owner is not None:
            deps |= _imports_of(owner[1], owner[0], file)
        for dep in sorted(deps):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return tuple(sorted(seen))


_DIGESTS: dict[tuple[Path, int, int], bytes] = {}  # (file, mtime_ns, size) -> sha256 of its contents


def _file_digest(file: Path) -> bytes:
    """sha256 of ``file``'s contents, read again only when its modification time or size changed (every
    compiled function of a module stamps the same closure, several times as it is decorated)."""
    st = file.stat()
    key = (file, st.st_mtime_ns, st.st_size)
    if key not in _DIGESTS:
        _DIGESTS[key] = hashlib.sha256(file.read_bytes()).digest()
    return _DIGESTS[key]


def closure_stamp(py_file: str) -> str:
    """A hash of the contents (and package-relative names) of :func:`closure_files`."""
    digest = hashlib.sha256()
    owner = _package_of(py_file)
    for file in closure_files(py_file):
        inside = owner is not None and (owner[1] == file.parent or owner[1] in file.parents)
        name = str(file.relative_to(owner[1])) if inside else str(file)
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(_file_digest(file))
    return "closure:" + digest.hexdigest()


def changed_since_start(py_file: str) -> bool:
    """Whether a file of ``py_file``'s closure changed on disk after this process first listed it. Modules
    are imported lazily, so a process may hold a module's old constants in memory while the stamp hashes the
    edited file: what it compiles then must not be stored under that stamp (the next process would load it)."""
    for f in closure_files(py_file):
        try:
            st = f.stat()
        except OSError:
            return True
        if _FIRST_SEEN.get(f, (st.st_mtime_ns, st.st_size)) != (st.st_mtime_ns, st.st_size):
            return True
    return False


STAMP_CHARS = 16  # hex digits of the closure stamp in a cache directory's name
PRUNE_AFTER_S = 86400.0  # another stamp's directory of the same module is removed after a day unused (a
# process touches its directories when it decorates their functions)


def stamp_directory(py_file: str) -> str:
    """The cache subdirectory of ``py_file``'s compiled functions: the module's name and its closure stamp."""
    return f"{Path(py_file).stem}-{closure_stamp(py_file).removeprefix('closure:')[:STAMP_CHARS]}"


def prune_stamp_directories(path: str, now: float | None = None) -> list[str]:
    """Remove the directories of the same module's other stamps beside ``path`` that nothing has written to
    for :data:`PRUNE_AFTER_S`; returns them. A process still running such a version then only recompiles
    what it finds missing."""
    here = Path(path)
    module = here.name.rsplit("-", 1)[0]
    now = time.time() if now is None else now
    removed = []
    for other in here.parent.glob(f"{module}-*"):
        if other == here or not other.is_dir() or other.name.rsplit("-", 1)[0] != module:
            continue
        try:
            if now - other.stat().st_mtime > PRUNE_AFTER_S:
                shutil.rmtree(other, ignore_errors=True)
                removed.append(str(other))
        except OSError:
            continue
    return removed


_PROCESS_TOKEN = uuid.uuid4().hex[:12]


def _data_name_of_this_process(self, number: int) -> str:
    """numba's data file name with this process's token: ``name-line.py311.<n>.<token>.nbc``."""
    return self._data_name_pattern.format(number=number).removesuffix(".nbc") + f".{_PROCESS_TOKEN}.nbc"


@functools.cache
def _scratch_dir() -> str:
    """A cache directory private to this process, removed when it exits."""
    path = tempfile.mkdtemp(prefix="ndpgpu-numba-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


class _ClosureStampMixin:
    """Overrides a numba locator's source stamp with the import-closure hash for registered packages, and
    keeps code compiled from sources edited during the run out of the shared cache."""

    _py_file: str

    def get_source_stamp(self):
        return closure_stamp(self._py_file)

    def get_cache_path(self):
        if changed_since_start(self._py_file):
            return _scratch_dir()
        return os.path.join(super().get_cache_path(), stamp_directory(self._py_file))

    def ensure_cache_path(self):
        super().ensure_cache_path()
        path = self.get_cache_path()
        with contextlib.suppress(OSError):
            os.utime(path)  # in use: not pruned for another day
        prune_stamp_directories(path)

    @classmethod
    def from_function(cls, py_func, py_file):
        if _package_of(py_file) is None and Path(py_file).resolve() not in _EXTRA:
            return None
        return super().from_function(py_func, py_file)


class ClosureUserProvidedLocator(_ClosureStampMixin, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR`` when set."""


class ClosureInTreeLocator(_ClosureStampMixin, caching.InTreeCacheLocator):
    """``__pycache__`` beside the source (the usual case for a checkout or an editable install)."""


class ClosureUserWideLocator(_ClosureStampMixin, caching.UserWideCacheLocator):
    """The user's cache directory, for a read-only installation."""


LOCATORS = (ClosureUserProvidedLocator, ClosureInTreeLocator, ClosureUserWideLocator)


def install() -> None:
    """Register :mod:`ndpgpu` and put the closure-stamped locators first in numba's list (idempotent)."""
    register_package("ndpgpu", Path(__file__).parent)
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    classes = impl._locator_classes
    for locator in reversed(LOCATORS):
        if locator not in classes:
            classes.insert(0, locator)
    caching.IndexDataCacheFile._data_name = _data_name_of_this_process


install()

# every compiled module imports this one first: the place to fix numba's inliner too (its own module says why)
_numba_inline.install()
