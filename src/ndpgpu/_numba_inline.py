"""numba's IR inliner, made to copy a callee's blocks in linear time.

Before inlining a function marked ``inline="always"``, numba (0.68, ``InlineWorker.inline_ir``) copies the
callee's IR block by block, with one ``copy.deepcopy`` per block. Every block refers to the function's one
:class:`numba.core.ir.Scope`, which holds every variable of the function, and each of those calls starts with
an empty memo, so each block's copy copies the whole scope again: the cost grows with blocks x variables. The
timing engine inlines large scheduler functions (``timing/engine/issue.py``) this way, and these copies were
more than half of its first compile (measured in benchmarks/README.md, "Start-up").

:func:`install` gives that module a ``copy`` whose ``deepcopy`` of an IR block, called without a memo, shares
one memo among the blocks of one copy: the scope and each variable are copied once, and the copied blocks
share one scope copy, as the original blocks share one scope (numba's own rule: one scope per function). A
new copy begins, with a fresh memo, when a block of another scope arrives or a block already copied arrives
again (the next copy of the same IR). Every other call is ``copy.deepcopy`` itself. numba's result is the
same IR; ``tests/infra/test_numba_inline.py`` checks that inlined functions compute what they computed.

Only the numba version this was written against is patched; any other keeps numba's own copy. numba imports
its inliner only when it compiles, so the patch waits for that import (a process that loads every compiled
function from the cache never imports it).
"""

from __future__ import annotations

import copy
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numba
from numba.core import ir

PATCHED_FOR = "0.68."  # numba versions whose inliner copies as described above


class _BlockCopier:
    """Stands in for the ``copy`` module inside ``numba.core.inline_closurecall``."""

    def __init__(self) -> None:
        self._memo: dict[int, Any] | None = None
        self._scope: ir.Scope | None = None

    def deepcopy(self, x: Any, memo: dict[int, Any] | None = None) -> Any:
        if memo is not None or not isinstance(x, ir.Block):
            return copy.deepcopy(x, memo)
        if self._memo is None or x.scope is not self._scope or id(x) in self._memo:
            self._memo, self._scope = {}, x.scope  # (the memo keeps what it copied alive: ids stay unique)
        return copy.deepcopy(x, self._memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


_INLINER = "numba.core.inline_closurecall"


def _patch(module: ModuleType) -> None:
    if not isinstance(module.copy, _BlockCopier):
        module.copy = _BlockCopier()


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Finds numba's inliner module as the path finder does, and patches it once it has executed."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None):  # noqa: ANN201
        if fullname != _INLINER:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _patch(module)

        loader.exec_module = exec_module  # (this loader object is this spec's own)
        return spec


def install() -> bool:
    """Patch numba's inliner, now if it is imported, else when it is (idempotent); False when this numba version
    is not the one it was written for."""
    if not numba.__version__.startswith(PATCHED_FOR):
        return False
    if _INLINER in sys.modules:
        _patch(sys.modules[_INLINER])
    elif not any(isinstance(f, _PatchOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport())
    return True
