"""The timing engine: machines as typed configs, a compiled trace-driven GPU model, statistics.

    from ndpgpu.timing import load_machine, list_machines, TimingSession
    m = load_machine("gtx480", overrides={"l1d.size_kb": 48, "l1d.assoc": 6})
    sess = TimingSession(m)
    st = sess.run_launch(trace)      # one KernelTrace per launch
    st.rows(); st.table(); sess.totals()

The compiled engine (and with it the hardware modules of the registered mechanisms, found by
``engine.hooks``) loads on first use of :class:`TimingSession` or :class:`LaunchStats`, not on
``import ndpgpu.timing``. See ``docs/timing.md``.
"""

from typing import Any

from .confighash import config_hash
from .interfaces import AddressMapping, CtaDispatch, DispatchPlan, ExecutionPlacement, Preloader
from .mechanism import MechanismHardware
from .occupancy import LaunchDoesNotFit, Occupancy, occupancy
from .presets import list_machines, load_machine
from .registry import UnknownImplementation, lookup, register
from .spec import Machine, MachineConfigError

_LAZY = {"SimulationStalled": "session", "TimingSession": "session", "LaunchStats": "stats"}

__all__ = [
    "AddressMapping", "CtaDispatch", "DispatchPlan", "ExecutionPlacement", "Preloader", "MechanismHardware",
    "LaunchDoesNotFit", "Occupancy", "occupancy", "UnknownImplementation", "lookup", "register",
    "SimulationStalled", "TimingSession", "Machine", "MachineConfigError", "config_hash", "list_machines",
    "load_machine", "LaunchStats",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
