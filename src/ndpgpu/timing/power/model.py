"""Energy of a launch (or of an application: statistics summed over its launches) from a parameter set.

    dynamic(component) = sum over its events of count x price
    static(component)  = units x (leakage W x time + clock_pj x cycles of its clock domain over the time)

Prices: the machine's ``energy.events`` (a preset's or an override's), else the parameter set's, else the
attached mechanism's declared default. A counted event without a price raises :class:`PowerModelError`
naming the machine and the event. A machine without a parameter set is priced by its ``energy.events``
alone, and shows no energy rows when it has none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import registry
from .events import EVENTS, declared_unit_energies
from .params import PowerParams, has_params, load_params

if TYPE_CHECKING:
    from ..stats import LaunchStats

Put = Callable[[str, str, Any, str], None]


class PowerModelError(ValueError):
    """A machine's power model cannot price what the launch counted (the message says which event)."""


@dataclasses.dataclass(frozen=True)
class EventEnergy:
    name: str
    component: str
    count: float
    unit: str
    price_pj: float
    source: str

    @property
    def energy_pj(self) -> float:
        return self.count * self.price_pj


@dataclasses.dataclass(frozen=True)
class StaticEnergy:
    component: str
    units: int
    leakage_w: float  # per unit
    clock_mhz: float
    clock_pj: float  # per unit and cycle
    time_s: float

    @property
    def power_w(self) -> float:
        return self.units * (self.leakage_w + self.clock_pj * 1e-12 * self.clock_mhz * 1e6)

    @property
    def energy_pj(self) -> float:
        return self.power_w * self.time_s * 1e12


@dataclasses.dataclass(frozen=True)
class EnergyReport:
    """Dynamic energy per event, static energy per component, over ``time_s``."""

    model: str
    time_s: float
    events: tuple[EventEnergy, ...]
    static: tuple[StaticEnergy, ...]

    def components(self) -> dict[str, tuple[float, float]]:
        """``{component: (dynamic pJ, static pJ)}`` in order of first appearance."""
        out: dict[str, list[float]] = {}
        for e in self.events:
            out.setdefault(e.component, [0.0, 0.0])[0] += e.energy_pj
        for s in self.static:
            out.setdefault(s.component, [0.0, 0.0])[1] += s.energy_pj
        return {k: (v[0], v[1]) for k, v in out.items()}

    @property
    def dynamic_pj(self) -> float:
        return sum(e.energy_pj for e in self.events)

    @property
    def static_pj(self) -> float:
        return sum(s.energy_pj for s in self.static)

    @property
    def total_pj(self) -> float:
        return self.dynamic_pj + self.static_pj

    @property
    def average_power_w(self) -> float:
        return self.total_pj * 1e-12 / self.time_s if self.time_s > 0 else 0.0


def model_name(st: LaunchStats) -> str | None:
    """The parameter set that prices ``st``'s machine: ``consts['power_model']`` when the session passes it,
    else the machine's name, else (a preset with overlays, ``gtx480+gpgpusim``) its preset's; None when no
    such set is shipped. Overlays change how the memory system is modelled, not what its events cost."""
    name = st.consts.get("power_model") or st.machine
    if not has_params(name) and "+" in name:
        name = name.split("+")[0]
    return name if has_params(name) else None


def _units(st: LaunchStats, per: str) -> int:
    K = st.consts
    if per == "sm":
        return int(K.get("num_sms", 0))
    if per == "stack_sm":
        return int((K.get("stack_sms") or {}).get("count", 0))
    if per == "slice":
        return int(st.per_slice.shape[0])
    if per == "channel":
        return int(K.get("channels", 0))
    if per == "stack":
        return int((K.get("stacks") or {}).get("count", 0))
    if per == "link":  # directions of the GPU's serial links
        return 2 * int(K["stacks"]["count"]) if K.get("links") else 0
    return 1  # chip


def evaluate(st: LaunchStats) -> EnergyReport | None:
    """The energy of ``st`` on its machine's model; None when the machine has neither a parameter set nor
    prices of its own."""
    name = model_name(st)
    params = load_params(name) if name else PowerParams(name="(machine prices only)")
    overrides: dict[str, float] = dict(st.consts.get("energy", {}))
    legacy_static = float(st.consts.get("static_power_w", 0.0))
    if name is None and not overrides and not legacy_static:
        return None
    units = declared_unit_energies(st.mechanism)
    events: list[EventEnergy] = []
    missing: list[str] = []
    names = [*EVENTS, *(n for n in registry.names("energy_event") if n not in EVENTS)]
    for ev in names:
        count = registry.lookup("energy_event", ev)(st)
        if count is None:  # the machine has no such part
            continue
        component, unit = (EVENTS[ev][0], EVENTS[ev][2]) if ev in EVENTS else (None, "events")
        price = params.events.get(ev)
        component = component or (price.component if price and price.component else "other")
        if ev in overrides:
            events.append(EventEnergy(ev, component, float(count), unit, overrides[ev], "machine energy.events"))
        elif price is not None:
            events.append(EventEnergy(ev, component, float(count), unit, price.pj, price.source))
        elif name is not None and ev in EVENTS:
            missing.append(f"{ev} (counted {count:g})")
    for ctr, u in units.items():
        count = float(st.mechanism_counters.get(ctr, 0))
        price = params.events.get(ctr)
        pj, src = (overrides[ctr], "machine energy.events") if ctr in overrides else (
            (price.pj, price.source) if price is not None else (u.pj, u.source))
        events.append(EventEnergy(ctr, u.component, count, u.unit, pj, src))
    if missing:
        raise PowerModelError(
            f"machine {st.machine!r} (power parameter set {name!r}) has no price for: {', '.join(missing)}; "
            "add them to the set's 'events' (docs/power.md) or set energy.events.<event> on the machine")
    from ..stats import application_ps

    time_s = application_ps(st) * 1e-12  # static power draws during the host copies too
    static = [StaticEnergy(c, _units(st, s.per), s.w, float(st.consts.get(f"{s.clock}_mhz", 0.0)) if s.clock else 0.0,
                           s.clock_pj, time_s)
              for c, s in params.static.items()]
    if legacy_static:
        static.append(StaticEnergy("other", 1, legacy_static, 0.0, 0.0, time_s))
    return EnergyReport(params.name, time_s, tuple(events), tuple(s for s in static if s.units))


def put_rows(st: LaunchStats, put: Put) -> EnergyReport | None:
    """Add the energy rows of ``st`` in both windows (docs/metrics.md, "Energy windows").

    The application window (kernels and host copies: static power draws during the copies too):
    ``energy.application`` (total, dynamic, static), per event ``energy.<event>`` (count, price, energy), per
    component ``energy.<component>`` (dynamic, static, total) and ``energy`` (total, dynamic, static; the same
    as ``energy.application``). The kernels' window (GPUWattch's: what the papers report): ``energy.kernel``
    (total, dynamic, static) and per component ``energy.<component>.kernel``; dynamic energy is the kernels'
    alone in both windows (a copy prices no event), static energy scales with the window's time.
    ``power`` (average, dynamic, static) is over the kernels' time, ``power.application`` over the
    application's. Nothing when the machine has no model."""
    rep = evaluate(st)
    if rep is None:
        return None
    app_s = rep.time_s
    kernel_s = st.time_ps * 1e-12
    share = kernel_s / app_s if app_s > 0 else 1.0  # the kernels' share of the static energy
    for e in rep.events:
        put(f"energy.{e.name}", "count", e.count, e.unit)
        put(f"energy.{e.name}", "price", e.price_pj, "pJ")
        put(f"energy.{e.name}", "energy", e.energy_pj, "pJ")
    for comp, (dyn, stat) in rep.components().items():
        put(f"energy.{comp}", "dynamic", dyn, "pJ")
        put(f"energy.{comp}", "static", stat, "pJ")
        put(f"energy.{comp}", "total", dyn + stat, "pJ")
        put(f"energy.{comp}", "kernel", dyn + stat * share, "pJ")
    put("energy", "model", rep.model, "")
    put("energy", "dynamic", rep.dynamic_pj, "pJ")
    put("energy", "static", rep.static_pj, "pJ")
    put("energy", "total", rep.total_pj, "pJ")
    kernel_static = rep.static_pj * share
    for window, dyn, stat in (("kernel", rep.dynamic_pj, kernel_static),
                              ("application", rep.dynamic_pj, rep.static_pj)):
        put(f"energy.{window}", "dynamic", dyn, "pJ")
        put(f"energy.{window}", "static", stat, "pJ")
        put(f"energy.{window}", "total", dyn + stat, "pJ")
    put("power", "average", (rep.dynamic_pj + kernel_static) * 1e-12 / kernel_s if kernel_s > 0 else 0.0, "W")
    put("power", "dynamic", rep.dynamic_pj * 1e-12 / kernel_s if kernel_s > 0 else 0.0, "W")
    put("power", "static", kernel_static * 1e-12 / kernel_s if kernel_s > 0 else 0.0, "W")
    put("power", "application", rep.average_power_w, "W")
    return rep
