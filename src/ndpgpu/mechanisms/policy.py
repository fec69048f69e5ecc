"""Session policies: what a mechanism attaches to a timing session before a recording is replayed.

A point's ``policy`` names one: ``baseline`` (nothing attached) or ``<prefix>:<spec>``, e.g.
``tom:ctrl+tmap``. A mechanism registers a factory per prefix in its ``ndpgpu.mechanisms.<m>.policy``
module (found by package, :data:`POLICIES`); the simulator executor builds the policy, lets it ``prepare``
the session from the recording (candidate blocks, learned mappings, offload plans) and adds the policy's
own ``rows`` to the point's metrics.

This module belongs to the mechanisms layer (each mechanism's ``policy`` module imports it to register itself);
the experiments layer and the CLI only build policies by name (:func:`make_policy`).
"""

from __future__ import annotations

import abc
import re
from collections.abc import Callable, Iterable
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


# the words a mechanism's specs are made of (controls, mappings, switches, setting names, named values), by prefix:
# what a misspelt spec is corrected against ("tom:ctrl+tmpa": did you mean 'tom:ctrl+tmap'?)
POLICY_WORDS: dict[str, tuple[str, ...]] = {}


def register_policy(prefix: str, words: Iterable[str] = ()
                    ) -> Callable[[Callable[[str], SessionPolicy]], Callable[[str], SessionPolicy]]:
    """Decorator: ``factory(spec)`` builds the policy named ``prefix:spec`` (a prefix is registered once).
    ``words``: the words its specs are made of (``+``/``,``/``=``-separated), for "did you mean" suggestions."""
    if words:
        POLICY_WORDS[prefix] = tuple(words)
    return POLICIES.register(prefix)


def _numeric(token: str) -> bool:
    """A setting's value that is a number or a shape (``0.6``, ``1e3``, ``4x2``): never corrected."""
    try:
        float(token)
        return True
    except ValueError:
        return all(part.isdigit() for part in token.split("x")) and bool(token)


def _corrected_spec(prefix: str, spec: str) -> str:
    """``spec`` with each word that is not one of ``prefix``'s known words replaced by the closest known one."""
    from ..registry import suggestions

    known = POLICY_WORDS.get(prefix, ())
    if not known:
        return spec
    out = []
    for token in re.split(r"([+,=])", spec):
        stripped = token.strip()
        if stripped in ("+", ",", "=", "") or stripped in known or _numeric(stripped):
            out.append(token)
            continue
        close = suggestions(stripped, known, n=1) or [k for k in known if sorted(k) == sorted(stripped)][:1]
        out.append(close[0] if close else token)  # the closest word, else one of the same letters ('fp': 'pf')
    return "".join(out)


def suggest_policy(name: str) -> tuple[str | None, str]:
    """A correction of a misspelt policy ``name``: ``(the corrected name that parses, "")``, or ``(None, hint)``
    where only the prefix could be corrected (the hint names it, with what its mechanism says of the spec), or
    ``(None, "")`` when nothing close is known."""
    from ..registry import suggestions

    prefix, sep, spec = name.partition(":")
    if not sep:
        close = suggestions(name, ["baseline", *POLICIES.names()], n=1)
        if close == ["baseline"] and name != "baseline":
            return "baseline", ""
        return None, (f"a {close[0]!r} policy is written '{close[0]}:<spec>'" if close else "")
    if prefix not in POLICIES:
        close = suggestions(prefix, POLICIES.names(), n=1)
        if not close:
            return None, ""
        prefix = close[0]
    fixed = f"{prefix}:{_corrected_spec(prefix, spec)}"
    if fixed == name:
        return None, ""
    try:
        POLICIES.get(prefix)(fixed.partition(":")[2])
    except PolicyError as exc:
        if prefix != name.partition(":")[0]:
            return None, f"did you mean the prefix {prefix!r}? ({exc})"
        return None, ""
    return fixed, ""


def make_policy(name: str) -> SessionPolicy:
    """The policy ``name`` (``prefix:spec``); an unknown prefix lists the known ones, and a misspelt name (prefix,
    control, mapping, switch or setting) comes with the closest one that parses ("did you mean ...?")."""
    prefix, sep, spec = name.partition(":")
    if not sep or prefix not in POLICIES:
        fixed, hint = suggest_policy(name)
        hint = f"; did you mean {fixed!r}?" if fixed else (f"; {hint}" if hint else "")
        raise PolicyError(f"unknown policy {name!r}: policies are 'baseline' or '<prefix>:<spec>' with prefix one of "
                          f"{', '.join(POLICIES.names())}{hint}")
    try:
        return POLICIES.get(prefix)(spec)
    except PolicyError as exc:
        fixed, _ = suggest_policy(name)
        if fixed is None:
            raise
        raise type(exc)(f"{exc}; did you mean {fixed!r}?") from None
