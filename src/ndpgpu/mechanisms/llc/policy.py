"""LLC-Compute / Omni-Compute as a session policy: ``llc:<scheme>[,key=value...]``.

* scheme: ``llc`` (LLC-Compute), ``omni`` (Omni-Compute);
* keys: ``oq``, ``sq`` (queue entries), ``buffer``, ``alu_latency``, ``llc_read_cycles``, ``alu_width``
  (0: Omni cores share their SP units; 4/8/16/32: a dedicated ALU), ``smem_latency``
  (:class:`~.offload.ChainOffload`).

``prepare`` runs the compiler pass on every kernel of the recording's source (a registered workload, as
recorded: the paper's offload runs use the split-FMA / RED-Hybrid2 variants, which are workloads of their
own) and attaches the hardware. Usable on any kernel: ``ndpgpu run WORKLOAD --machine llc-mesh --policy
llc:omni`` or in a sweep's ``policies``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..policy import PolicyError, PolicyGrammar, SessionPolicy, Setting, register_policy
from .chains import ChainTable
from .config import SCHEMES, ChainOffload, ChainOffloadError
from .unit import STABLE_DECLINED, ChainOffloadHardware

GRAMMAR = PolicyGrammar("llc", heads=SCHEMES, settings=(
    Setting("oq"), Setting("sq"), Setting("buffer"), Setting("alu_latency"), Setting("llc_read_cycles"),
    Setting("alu_width", field="dedicated_alu_width"), Setting("smem_latency"), Setting("ack_after_store")))


def parse(spec: str) -> ChainOffload:
    """``scheme[,key=value...]`` -> the hardware's configuration (PolicyError on a bad spec)."""
    parsed = GRAMMAR.parse(spec)
    try:
        return ChainOffload(scheme=parsed.head, **parsed.settings)
    except ChainOffloadError as exc:
        raise PolicyError(f"llc:{spec}: {exc}") from exc


def chain_tables(source: Any) -> dict[str, ChainTable]:
    """The chain table of every kernel of a recording's module (or of a registered workload, by name)."""
    from types import SimpleNamespace

    from ..analyze import recording_module
    from .cli import analyze_module

    recording = SimpleNamespace(workload=source) if isinstance(source, str) else source
    return {t.kernel: t for t in analyze_module(recording_module(recording))}


class ChainOffloadPolicy(SessionPolicy):
    """One LLC-Compute / Omni-Compute configuration applied to a recording."""

    def __init__(self, config: ChainOffload) -> None:
        self.config = config
        self._rows: list[tuple[str, str, float, str]] = []

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        tables = chain_tables(recording)
        self._rows = [("llc", "chains", float(sum(len(t.chains) for t in tables.values())), "chains"),
                      ("llc", "omni_allowed", float(all(t.omni_allowed for t in tables.values())), "flag")]
        for k, v in dataclasses.asdict(self.config).items():
            if k != "scheme":
                self._rows.append(("llc.config", k, float(v), ""))
        session.attach(ChainOffloadHardware(tables, self.config))

    def rows(self) -> list[tuple[str, str, float, str]]:
        return list(self._rows)

    def may_decline_sampling(self, kind: str) -> str | None:
        if kind == "stable":
            return STABLE_DECLINED
        return None


@register_policy(GRAMMAR)
def make_llc_policy(spec: str) -> ChainOffloadPolicy:
    return ChainOffloadPolicy(parse(spec))
