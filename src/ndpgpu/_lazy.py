"""Names a package exports, imported from their submodule on first use (PEP 562), so that importing the package
stays cheap (``ndpgpu --help`` loads no store, runner or engine)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_getattr(package: str, where: dict[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: name -> its submodule in ``where``; a loaded name is kept in
    ``namespace`` (the package's globals), so it is looked up once."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    return __getattr__
