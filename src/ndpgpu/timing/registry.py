"""Registered implementations, selected by name from machine YAML (``impl: gto``).

Every pluggable part of a machine (warp scheduler, CTA dispatch, DRAM standard, address mapping, ...)
is a *kind*; implementations register under ``(kind, name)``::

    @register("cta_dispatch", "round_robin")
    class RoundRobin(CtaDispatch): ...

Mechanism packages register their own implementations from their own modules; nothing in ``timing/``
needs to change. An unknown name fails listing the valid ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_REGISTRY: dict[str, dict[str, Any]] = {}


class UnknownImplementation(KeyError):
    """No implementation of that kind is registered under that name."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


def register(kind: str, name: str) -> Callable[[T], T]:
    """Class or function decorator: make ``obj`` the implementation ``name`` of ``kind``."""

    def deco(obj: T) -> T:
        table = _REGISTRY.setdefault(kind, {})
        if name in table and table[name] is not obj:
            raise ValueError(f"{kind} implementation {name!r} is already registered ({table[name]!r})")
        table[name] = obj
        try:
            obj.impl_name = name  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            pass
        return obj

    return deco


def lookup(kind: str, name: str) -> Any:
    """The implementation ``name`` of ``kind``; raise :class:`UnknownImplementation` listing valid names."""
    _ensure_builtin()
    table = _REGISTRY.get(kind, {})
    if name not in table:
        valid = ", ".join(sorted(table)) or "(none registered)"
        raise UnknownImplementation(f"unknown {kind} implementation {name!r}; valid: {valid}")
    return table[name]


def names(kind: str) -> list[str]:
    """Registered implementation names of ``kind``, sorted."""
    _ensure_builtin()
    return sorted(_REGISTRY.get(kind, {}))


def kinds() -> list[str]:
    """Every kind that has at least one implementation."""
    _ensure_builtin()
    return sorted(_REGISTRY)


_loaded = False


def _ensure_builtin() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        from . import policies  # noqa: F401  (registers the built-in implementations)
