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
import dataclasses
import re
from collections.abc import Callable, Iterable
from typing import Any

from ..registry import Registry, discover, external_siblings

MECHANISM_MODULE = "policy"  # ndpgpu.mechanisms.<m>.policy registers a mechanism's policy factories


class PolicyError(ValueError):
    """An unknown policy name, or a spec its mechanism cannot parse."""


POLICIES: Registry[Callable[[str], SessionPolicy]] = Registry(
    "policy prefix", plural="policy prefixes", error=PolicyError,
    load=lambda: [*discover("ndpgpu.mechanisms", MECHANISM_MODULE), *external_siblings(MECHANISM_MODULE)])


class SessionPolicy(abc.ABC):
    """Prepares a :class:`~ndpgpu.timing.TimingSession` for one recording; holds no state across points."""

    @abc.abstractmethod
    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        """Attach mappings and extension points to ``session`` before ``traces`` (the recording's) replay."""

    def rows(self) -> list[tuple[str, str, float, str]]:
        """Extra ``(path, metric, value, unit)`` rows for the point (after the replay)."""
        return []

    def may_decline_sampling(self, kind: str) -> str | None:
        """Why some launch of this policy's hardware may be timed in full under sampled timing of ``kind``
        (``"waves"``: long launches timed on their first waves; ``"stable"``: short launches timed until their
        rate is stable), known before anything runs; ``None`` (the default) when none will be.

        The hardware decides launch by launch (``MechanismHardware.declines_sampling`` and
        ``declines_stable_sampling``); this is the superset a sampled reproduction needs before it runs, to time
        every point of a comparison the same way (a mechanism's point and its baseline: docs/sampling.md,
        "Paired points")."""
        return None


# ---------------------------------------------------------------------------------------- the spec grammar
@dataclasses.dataclass(frozen=True)
class Setting:
    """One ``key=value`` of a policy spec: ``kind`` is ``int``, ``float``, ``bool`` (written 0 or 1), ``str``,
    the allowed words (a tuple, or a mapping's keys), or a converter (raising ``ValueError`` on a bad value);
    ``field``: the name it takes in the mechanism's configuration (default: ``key``); ``needs``: a switch (or
    head) it is only valid with."""

    key: str
    kind: Any = int
    field: str = ""
    needs: str = ""

    @property
    def name(self) -> str:
        return self.field or self.key

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The allowed words, when the setting takes one of a set (a tuple, or a mapping's keys)."""
        kind = self.kind
        return tuple(kind) if isinstance(kind, (tuple, list, dict, frozenset, set)) else None

    def convert(self, value: str) -> Any:
        kind = self.kind
        if self.choices is not None:
            if value not in self.choices:
                raise ValueError(f"valid: {', '.join(self.choices)}")
            return value
        if kind is bool:
            if value not in ("0", "1"):
                raise ValueError("0 or 1")
            return value == "1"
        return kind(value)

    def describe(self) -> str:
        kind = self.kind
        if self.choices is not None:
            return "|".join(self.choices)
        return {int: "an integer", float: "a number", bool: "0 or 1", str: "a word"}.get(kind, "valid")


@dataclasses.dataclass(frozen=True)
class ParsedSpec:
    """A spec split by the grammar: its head word, its switches (in order) and its settings, converted and
    keyed by their configuration names."""

    head: str
    switches: tuple[str, ...]
    settings: dict[str, Any]

    def has(self, switch: str) -> bool:
        return switch in self.switches


@dataclasses.dataclass(frozen=True)
class PolicyGrammar:
    """The grammar every mechanism's policy spec follows: ``head[+switch...][,switch|,key=value...]``.

    ``heads``: the allowed first words; ``switches``: words after ``+`` (or alone between commas);
    ``settings``: the ``key=value`` pairs. A mechanism declares its grammar once and builds its configuration
    from the :class:`ParsedSpec` (its own rules between switches stay in the mechanism). Errors are
    :class:`PolicyError` (or ``error``) naming the spec, the bad part and what is allowed."""

    prefix: str
    heads: tuple[str, ...]
    switches: tuple[str, ...] = ()
    settings: tuple[Setting, ...] = ()
    error: type[PolicyError] = PolicyError
    form: str = ""  # the usage line errors show (default: made from the grammar)

    @property
    def words(self) -> tuple[str, ...]:
        """Every word of the grammar (for "did you mean" corrections)."""
        choices = [w for s in self.settings for w in (s.choices or ())]
        return tuple(dict.fromkeys([*self.heads, *self.switches, *(s.key for s in self.settings), *choices]))

    def usage(self) -> str:
        if self.form:
            return self.form
        out = f"{self.prefix}:<{'|'.join(self.heads)}>"
        if self.switches:
            out += f"[+{'|'.join(self.switches)}]"
        if self.settings:
            out += f"[,key=value] with keys {', '.join(s.key for s in self.settings)}"
        return out

    def parse(self, spec: str) -> ParsedSpec:
        where = f"{self.prefix}:{spec}"
        first, *items = [p.strip() for p in spec.split(",")]
        head, *switches = [w.strip() for w in first.split("+")]
        if head not in self.heads:
            raise self.error(f"{where}: expected {self.usage()} (unknown {head!r})")
        by_key = {s.key: s for s in self.settings}
        settings: dict[str, Any] = {}
        for item in items:
            key, eq, value = item.partition("=")
            if not eq:
                switches.append(item)
                continue
            setting = by_key.get(key)
            if setting is None:
                raise self.error(f"{where}: unknown setting {item!r}; settings: {', '.join(by_key)}")
            try:
                settings[setting.name] = setting.convert(value)
            except ValueError as exc:
                raise self.error(f"{where}: {key}={value!r} is not {setting.describe()} ({exc})") from None
        bad = [w for w in switches if w not in self.switches]
        if bad:
            raise self.error(f"{where}: unknown switch(es) {', '.join(map(repr, bad))}; switches: "
                             f"{', '.join(self.switches) or 'none'}")
        if len(set(switches)) != len(switches):
            raise self.error(f"{where}: a switch given twice")
        for setting in self.settings:
            if setting.needs and setting.name in settings and setting.needs not in (head, *switches):
                raise self.error(f"{where}: {setting.key} without {setting.needs}")
        return ParsedSpec(head, tuple(switches), settings)


# the words a mechanism's specs are made of (controls, mappings, switches, setting names, named values), by prefix:
# what a misspelt spec is corrected against ("tom:ctrl+tmpa": did you mean 'tom:ctrl+tmap'?)
POLICY_WORDS: dict[str, tuple[str, ...]] = {}


def register_policy(prefix: str | PolicyGrammar, words: Iterable[str] = ()
                    ) -> Callable[[Callable[[str], SessionPolicy]], Callable[[str], SessionPolicy]]:
    """Decorator: ``factory(spec)`` builds the policy named ``prefix:spec`` (a prefix is registered once).
    ``words``: the words its specs are made of (``+``/``,``/``=``-separated), for "did you mean" suggestions;
    given a :class:`PolicyGrammar`, its prefix and words."""
    if isinstance(prefix, PolicyGrammar):
        prefix, words = prefix.prefix, (*prefix.words, *words)
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
