"""TELEPORT as a session policy: ``teleport:<machine>[,mthwp][,key=value...]``.

* machine: ``real`` (the 48 KB set-associative buffer, gating), ``I``, ``S``, ``R`` (Sec. 5.2's ideal
  machines), ``l1`` (the same table through the engine's L1 preloader: lines into L1, no gating), or
  ``mthwp`` (no preloading, the MTHWP prefetcher alone: ``teleport:mthwp``);
* ``mthwp`` after a machine adds the MTHWP prefetcher at every L1 (``teleport:real,mthwp``: Sec. 5.4's
  MTHWP+TELEPORT; not with ``l1``);
* keys: ``buffer_kb`` (16/32/48/64), ``arb`` (``tpref``/``cpref``/``alt``), ``priority`` (0..3),
  ``table`` (entries), ``merge`` and ``split`` (0/1: the analysis's region options), ``smem_latency``,
  ``outstanding``, ``controller`` (``shared``/``core``), ``mthwp_period`` (MTHWP's throttling period, L1
  accesses per SM), ``mthwp_ids`` (``slot``/``global``: the warp ids of MTHWP's inter-warp table).

``prepare`` runs the precalculability analysis on every kernel of the recording's source (a registered
workload, or a .cu file ``ndpgpu run`` was given) and attaches the hardware. Usable on any kernel:
``ndpgpu run WORKLOAD --machine gtx480 --policy teleport:real`` or in a sweep's ``policies``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..policy import PolicyError, PolicyGrammar, SessionPolicy, Setting, register_policy
from .config import ARBITRATION, CONTROLLERS, MACHINES, MTHWP_IDS, Teleport, TeleportError
from .params import FIELDS
from .unit import STABLE_DECLINED, KernelPlan, TeleportHardware, TeleportPreloader

GRAMMAR = PolicyGrammar("teleport", heads=(*(m for m in MACHINES if m != "off"), "l1", "mthwp"),
                        switches=("mthwp",), settings=(
    Setting("buffer_kb"), Setting("arb", ARBITRATION, field="arbitration"), Setting("priority"),
    Setting("table", field="table_entries"), Setting("merge", bool), Setting("split", bool, field="split_rows"),
    Setting("smem_latency"), Setting("outstanding", field="max_outstanding"),
    Setting("mthwp_period", needs="mthwp"), Setting("controller", CONTROLLERS),
    Setting("mthwp_ids", MTHWP_IDS, needs="mthwp")),
    form=f"teleport:<machine>[,mthwp][,key=value...] with machine in "
         f"{', '.join([*(m for m in MACHINES if m != 'off'), 'l1', 'mthwp'])}")


def parse(spec: str) -> tuple[Teleport, bool]:
    """``machine[,mthwp][,key=value...]`` -> (the configuration, whether it is the L1 variant); PolicyError if
    bad."""
    parsed = GRAMMAR.parse(spec)
    l1, alone = parsed.head == "l1", parsed.head == "mthwp"
    if l1 and parsed.has("mthwp"):
        raise PolicyError(f"teleport:{spec}: mthwp needs the compiled hardware (a machine), not l1")
    if alone and parsed.switches:
        raise PolicyError(f"teleport:{spec}: mthwp alone is the machine; it takes no second mthwp")
    try:
        return Teleport(machine="real" if l1 else "off" if alone else parsed.head,
                        mthwp=alone or parsed.has("mthwp"), **parsed.settings), l1
    except TeleportError as exc:
        raise PolicyError(f"teleport:{spec}: {exc}") from exc


def kernel_plans(source: Any) -> dict[str, KernelPlan]:
    """The analysis of every kernel of a registered workload or a .cu/.ptx file (by name or path), or of the
    module a recording's run launched (a kernel file run by ``ndpgpu run``)."""
    from ..analyze import kernel_programs, load_module, recording_module

    if isinstance(source, str):
        module, _ = load_module(source)
    else:
        module = recording_module(source)
    return {k: KernelPlan.of(module.ir.functions[k]) for k, _p in kernel_programs(module)}


def on_machine(config: Teleport, explicit: frozenset[str], machine: Any) -> Teleport:
    """``config`` with the machine's TELEPORT parameters (``mechanisms.teleport``, :mod:`.params`) in every field
    the policy string did not set."""
    hw = machine.mechanism("teleport")
    return dataclasses.replace(config, **{k: getattr(hw, k) for k in FIELDS if k not in explicit})


class TeleportPolicy(SessionPolicy):
    """One TELEPORT configuration applied to a recording (the machine's ``mechanisms.teleport`` parameters in
    the fields the policy string leaves unset)."""

    def __init__(self, config: Teleport, l1: bool = False, explicit: frozenset[str] | None = None) -> None:
        self.config = config
        self.l1 = l1
        self.explicit = frozenset(dataclasses.asdict(config)) if explicit is None else explicit
        self._rows: list[tuple[str, str, float, str]] = []

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        self.config = on_machine(self.config, self.explicit, session.machine)
        source = getattr(recording, "source", None)
        off = self.config.machine == "off"  # MTHWP alone needs no analysis: it works on any kernel
        plans = {} if off else kernel_plans(source if source else recording)
        usable = sum(r.usable for p in plans.values() for r in p.reads)
        total = sum(len(p.reads) for p in plans.values())
        self._rows = [("teleport.analysis", "read_indexes", float(total), "indexes"),
                      ("teleport.analysis", "precalculable", float(usable), "indexes")]
        for k, v in dataclasses.asdict(self.config).items():
            if isinstance(v, (int, float, bool)) and v is not None:
                self._rows.append(("teleport.config", k, float(v), ""))
        if self.l1:
            session.set_preloader(TeleportPreloader(plans, self.config))
        else:
            session.attach(TeleportHardware(plans, self.config))

    def rows(self) -> list[tuple[str, str, float, str]]:
        return list(self._rows)

    def may_decline_sampling(self, kind: str) -> str | None:
        """Known from the policy string alone (it names the machine): a preloading machine may find rows to
        preload, so it declines stopping a launch once stable; waves it accepts (the S-machine's controller is
        projected as serial work, ``TeleportHardware.serial_work``); MTHWP alone (``off``) declines nothing."""
        if self.l1:  # the session stops no launch of a preloader once stable
            return "TELEPORT into the L1: a preloader's lines are a whole block's, whatever part of its warps runs" \
                if kind == "stable" else None
        if self.config.machine == "off":
            return None
        return STABLE_DECLINED if kind == "stable" else None


@register_policy(GRAMMAR)
def make_teleport_policy(spec: str) -> TeleportPolicy:
    return TeleportPolicy(*parse(spec), explicit=frozenset(GRAMMAR.parse(spec).settings))
