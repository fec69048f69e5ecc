"""Two mechanisms in one session, beyond the papers: ``compose:<policy>;<policy>``.

A session holds one mechanism's compiled hardware at a time, but some mechanisms act through other hooks: TELEPORT's
``teleport:l1`` variant preloads its tiles through the engine's L1 preloader, IP-NDP's PACA through the CTA
dispatcher, TOM's learned mapping through the address map. A pair is compatible when at most one of its policies
attaches hardware; each policy then prepares the same session in turn and the rows of both are kept.
"""

from __future__ import annotations

from typing import Any

from ...mechanisms.policy import POLICIES, PolicyError, SessionPolicy, make_policy

PAIRS: dict[str, tuple[str, str, str]] = {
    "teleport+llc": ("llc-mesh", "compose:teleport:l1;llc:llc",
                     "TELEPORT's preloads (into L1, through the engine's preloader) with LLC-Compute's chains"),
}
"""Compositions ``ndpgpu explore --compose`` times: name -> (machine, policy, what it combines)."""


class _Recorder:
    """Stands in for the session while a policy prepares: notes whether it attaches hardware."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self.attached = False

    def attach(self, hardware: Any) -> None:
        self.attached = True
        self._session.attach(hardware)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class ComposedPolicy(SessionPolicy):
    """Policies prepared one after the other on one session; refused when two attach hardware."""

    def __init__(self, parts: list[SessionPolicy], names: list[str]) -> None:
        self.parts, self.names = parts, names

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        attached = []
        for part, name in zip(self.parts, self.names, strict=True):
            rec = _Recorder(session)
            part.prepare(rec, recording, traces)
            if rec.attached:
                attached.append(name)
        if len(attached) > 1:
            raise PolicyError(f"compose: {' and '.join(attached)} both attach compiled hardware; a session holds one")

    def rows(self) -> list[tuple[str, str, float, str]]:
        return [r for p in self.parts for r in p.rows()]


def make_composed(spec: str) -> ComposedPolicy:
    names = [s.strip() for s in spec.split(";") if s.strip()]
    if len(names) < 2 or any(n.startswith("compose:") for n in names):
        raise PolicyError(f"compose:{spec}: expected compose:<policy>;<policy> (two or more mechanisms' policies)")
    return ComposedPolicy([make_policy(n) for n in names], names)


POLICIES.register("compose", make_composed)  # on import (the explore executor imports this module)
