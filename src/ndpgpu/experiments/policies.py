"""Session policies: what a mechanism attaches to a timing session before a recording is replayed.

A point's ``policy`` names one: ``baseline`` (nothing attached) or ``<prefix>:<spec>``, e.g.
``tom:ctrl+tmap``. Mechanism packages register a factory per prefix; the simulator executor builds the
policy, lets it ``prepare`` the session from the recording (candidate blocks, learned mappings, offload
plans) and adds the policy's own ``rows`` to the point's metrics.
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Callable
from typing import Any

# modules whose import registers policies (a mechanism's policy module registers on import)
POLICY_MODULES = ("ndpgpu.mechanisms.tom.policy",)
_FACTORIES: dict[str, Callable[[str], SessionPolicy]] = {}


class PolicyError(ValueError):
    """An unknown policy name, or a spec its mechanism cannot parse."""


class SessionPolicy(abc.ABC):
    """Prepares a :class:`~ndpgpu.timing.TimingSession` for one recording; holds no state across points."""

    @abc.abstractmethod
    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        """Attach mappings and extension points to ``session`` before ``traces`` (the recording's) replay."""

    def rows(self) -> list[tuple[str, str, float, str]]:
        """Extra ``(path, metric, value, unit)`` rows for the point (after the replay)."""
        return []


def register_policy(prefix: str) -> Callable[[Callable[[str], SessionPolicy]], Callable[[str], SessionPolicy]]:
    """Decorator: ``factory(spec)`` builds the policy named ``prefix:spec``."""

    def deco(factory: Callable[[str], SessionPolicy]) -> Callable[[str], SessionPolicy]:
        if prefix in _FACTORIES and _FACTORIES[prefix] is not factory:
            raise PolicyError(f"two policy factories for prefix {prefix!r}")
        _FACTORIES[prefix] = factory
        return factory

    return deco


def make_policy(name: str) -> SessionPolicy:
    """The policy ``name`` (``prefix:spec``); an unknown prefix lists the known ones."""
    for module in POLICY_MODULES:
        importlib.import_module(module)
    prefix, sep, spec = name.partition(":")
    if not sep or prefix not in _FACTORIES:
        raise PolicyError(f"unknown policy {name!r}: policies are 'baseline' or '<prefix>:<spec>' with prefix one of "
                          f"{', '.join(sorted(_FACTORIES))}")
    return _FACTORIES[prefix](spec)
