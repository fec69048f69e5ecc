"""The GPU power and energy model (docs/power.md).

Dynamic energy is a sum over events (counts from a launch's statistics) times a price per event, grouped
by component; static power (leakage per unit, and the ungated clock tree of its clock domain) is charged
over the launch's time. Prices and static powers come from a parameter set per machine
(:mod:`.params`, YAML with a source for every value); mechanisms declare the energies of their own units
with :func:`declare_unit_energies`.

    from ndpgpu.power import evaluate
    rep = evaluate(stats)          # an EnergyReport, or None when the machine has no parameter set
    rep.total_pj, rep.components()["dram"], rep.average_power_w
"""

from __future__ import annotations

from .events import EVENTS, UnitEnergy, declare_unit_energies, declared_unit_energies, event_component
from .model import EnergyReport, EventEnergy, PowerModelError, StaticEnergy, evaluate, put_rows
from .params import PowerParams, PowerParamsError, StaticPower, list_param_sets, load_params

__all__ = [
    "EVENTS", "EnergyReport", "EventEnergy", "PowerModelError", "PowerParams", "PowerParamsError", "StaticEnergy",
    "StaticPower", "UnitEnergy", "declare_unit_energies", "declared_unit_energies", "evaluate", "event_component",
    "list_param_sets", "load_params", "put_rows",
]
