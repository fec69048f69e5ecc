"""Registered implementations, selected by name from machine YAML (``impl: gto``).

Every pluggable part of a machine (warp scheduler, CTA dispatch, DRAM standard, address mapping, ...)
is a *kind*; implementations register under ``(kind, name)``::

    @register("cta_dispatch", "round_robin")
    class RoundRobin(CtaDispatch): ...

Each kind is a :class:`ndpgpu.registry.Registry`; the first lookup imports the built-in implementations
(:mod:`ndpgpu.timing.policies`). Mechanism packages register their own implementations from their own
modules; nothing in ``timing/`` needs to change. An unknown name fails listing the valid ones; a second
implementation under a taken name is refused.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar

from ..registry import Registry, UnknownName

T = TypeVar("T")

_REGISTRY: dict[str, dict[str, Any]] = {}  # kind -> name -> implementation (each kind's Registry's entries)
_KINDS: dict[str, Registry[Any]] = {}


class UnknownImplementation(UnknownName):
    """No implementation of that kind is registered under that name (a ``KeyError``)."""


MECHANISM_PARAMS = "mechanism_params"  # a mechanism's machine parameters: the Spec of ``Machine.mechanisms[name]``


def _load_builtin() -> None:
    importlib.import_module("ndpgpu.timing.policies")
    importlib.import_module("ndpgpu.timing.power.events")  # the energy events


def _load_mechanism_params() -> None:
    """Every mechanism's ``params`` module, inside the package and beside an outside mechanism's hardware
    (found by name, as policies are: ``ndpgpu.registry.discover``, ``external_siblings``)."""
    from ..registry import discover, external_siblings

    discover("ndpgpu.mechanisms", "params")
    external_siblings("params")


def _kind(kind: str) -> Registry[Any]:
    table = _KINDS.get(kind)
    if table is None:
        load = _load_mechanism_params if kind == MECHANISM_PARAMS else _load_builtin
        table = _KINDS[kind] = Registry(f"{kind} implementation", error=UnknownImplementation,
                                        load=load, entries=_REGISTRY.setdefault(kind, {}))
    return table


def register(kind: str, name: str) -> Callable[[T], T]:
    """Class or function decorator: make ``obj`` the implementation ``name`` of ``kind``."""

    def deco(obj: T) -> T:
        _kind(kind).register(name, obj)
        try:
            obj.impl_name = name  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            pass
        return obj

    return deco


def register_machine_params(mechanism: str) -> Callable[[T], T]:
    """Class decorator for a mechanism's ``params`` module: ``cls`` (a ``timing.spec.Spec``) is the typed subtree
    ``mechanisms.<mechanism>`` of a machine (YAML, ``--set mechanisms.<mechanism>.<field>=...``), read back with
    ``Machine.mechanism(mechanism)`` (its defaults where the machine sets none)."""
    return register(MECHANISM_PARAMS, mechanism)


def lookup(kind: str, name: str) -> Any:
    """The implementation ``name`` of ``kind``; raise :class:`UnknownImplementation` listing valid names."""
    return _kind(kind).get(name)


def names(kind: str) -> list[str]:
    """Registered implementation names of ``kind``, sorted."""
    return _kind(kind).names()


def kinds() -> list[str]:
    """Every kind that has at least one implementation."""
    _load_builtin()
    return sorted(k for k, table in _REGISTRY.items() if table)
