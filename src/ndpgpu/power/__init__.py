"""The power and energy model, by its public name: it lives in :mod:`ndpgpu.timing.power` (energy rows are part
of every launch's statistics, so the model belongs to the timing layer). ``from ndpgpu.power import evaluate``
and the other names below keep working."""

from __future__ import annotations

from ..timing.power import (
    EVENTS,
    EnergyReport,
    EventEnergy,
    PowerModelError,
    PowerParams,
    PowerParamsError,
    StaticEnergy,
    StaticPower,
    UnitEnergy,
    declare_unit_energies,
    declared_unit_energies,
    evaluate,
    event_component,
    events,
    list_param_sets,
    load_params,
    model,
    params,
    put_rows,
)

__all__ = [
    "EVENTS", "EnergyReport", "EventEnergy", "PowerModelError", "PowerParams", "PowerParamsError", "StaticEnergy",
    "StaticPower", "UnitEnergy", "declare_unit_energies", "declared_unit_energies", "evaluate", "event_component",
    "list_param_sets", "load_params", "put_rows", "events", "model", "params",
]
