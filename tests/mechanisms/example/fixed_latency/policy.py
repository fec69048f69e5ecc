"""The accelerator as a session policy: ``fixedlat:pcs,start=S,end=E[,latency=L]`` (without ``latency``: the
machine's ``mechanisms.fixed_latency.latency``, 500 unless set).

Found without naming it anywhere in ndpgpu: the policy registry imports the ``policy`` module beside each
outside mechanism's hardware module (``NDPGPU_MECHANISMS=fixed_latency.hardware``), as it imports
``ndpgpu.mechanisms.<m>.policy`` for the mechanisms inside the package.
"""

from __future__ import annotations

from typing import Any

from ndpgpu.mechanisms.policy import PolicyError, PolicyGrammar, SessionPolicy, Setting, register_policy

from .accelerator import FixedLatencyAccelerator

GRAMMAR = PolicyGrammar("fixedlat", heads=("pcs",), settings=(Setting("start"), Setting("end"), Setting("latency")))


class FixedLatencyPolicy(SessionPolicy):
    """Attaches the accelerator for the stretch ``[start, end)`` of PCs."""

    def __init__(self, start: int, end: int, latency: int | None) -> None:
        self.start, self.end, self.latency = start, end, latency

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        if self.latency is None:  # the machine's (mechanisms.fixed_latency.latency, params.py)
            self.latency = session.machine.mechanism("fixed_latency").latency
        session.attach(FixedLatencyAccelerator(self.start, self.end, self.latency))

    def rows(self) -> list[tuple[str, str, float, str]]:
        return [("accelerator.config", "latency", float(self.latency or 0), "cycles")]


@register_policy(GRAMMAR)
def make_fixed_latency_policy(spec: str) -> FixedLatencyPolicy:
    parsed = GRAMMAR.parse(spec)
    missing = [k for k in ("start", "end") if k not in parsed.settings]
    if missing:
        raise PolicyError(f"fixedlat:{spec}: needs {' and '.join(missing)} (the stretch's first and last PC)")
    return FixedLatencyPolicy(parsed.settings["start"], parsed.settings["end"], parsed.settings.get("latency"))
