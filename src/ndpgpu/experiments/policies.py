"""Session policies: what a mechanism attaches to a timing session before a recording is replayed.

A point's ``policy`` names one: ``baseline`` (nothing attached) or ``<prefix>:<spec>``, e.g.
``tom:ctrl+tmap``. A mechanism registers a factory per prefix in its ``ndpgpu.mechanisms.<m>.policy``
module (found by package, :data:`POLICIES`); the simulator executor builds the policy, lets it ``prepare``
the session from the recording (candidate blocks, learned mappings, offload plans) and adds the policy's
own ``rows`` to the point's metrics.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

from ..registry import Registry, discover

MECHANISM_MODULE = "policy"  # ndpgpu.mechanisms.<m>.policy registers a mechanism's policy factories


class PolicyError(ValueError):
    """An unknown policy name, or a spec its mechanism cannot parse."""


POLICIES: Registry[Callable[[str], SessionPolicy]] = Registry(
    "policy prefix", plural="policy prefixes", error=PolicyError,
    load=lambda: discover("ndpgpu.mechanisms", MECHANISM_MODULE))


class SessionPolicy(abc.ABC):
    """Prepares a :class:`~ndpgpu.timing.TimingSession` for one recording; holds no state across points."""

    @abc.abstractmethod
    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        """Attach mappings and extension points to ``session`` before ``traces`` (the recording's) replay."""

    def rows(self) -> list[tuple[str, str, float, str]]:
        """Extra ``(path, metric, value, unit)`` rows for the point (after the replay)."""
        return []


def register_policy(prefix: str) -> Callable[[Callable[[str], SessionPolicy]], Callable[[str], SessionPolicy]]:
    """Decorator: ``factory(spec)`` builds the policy named ``prefix:spec`` (a prefix is registered once)."""
    return POLICIES.register(prefix)


def make_policy(name: str) -> SessionPolicy:
    """The policy ``name`` (``prefix:spec``); an unknown prefix lists the known ones."""
    prefix, sep, spec = name.partition(":")
    if not sep or prefix not in POLICIES:
        raise PolicyError(f"unknown policy {name!r}: policies are 'baseline' or '<prefix>:<spec>' with prefix one of "
                          f"{', '.join(POLICIES.names())}")
    return POLICIES.get(prefix)(spec)
