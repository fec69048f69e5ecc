"""The timing engine: machines as typed configs, a compiled trace-driven GPU model, statistics.

    from ndpgpu.timing import load_machine, list_machines, TimingSession
    m = load_machine("gtx480", overrides={"l1d.size_kb": 48})
    sess = TimingSession(m)
    st = sess.run_launch(trace)      # one KernelTrace per launch
    st.rows(); st.table(); sess.totals()

See ``docs/timing.md``.
"""

from .interfaces import AddressMapping, CtaDispatch, DispatchPlan, ExecutionPlacement, Preloader
from .occupancy import LaunchDoesNotFit, Occupancy, occupancy
from .registry import UnknownImplementation, lookup, register
from .session import SimulationStalled, TimingSession
from .spec import Machine, MachineConfigError, config_hash, list_machines, load_machine
from .stats import LaunchStats

__all__ = [
    "AddressMapping", "CtaDispatch", "DispatchPlan", "ExecutionPlacement", "Preloader", "LaunchDoesNotFit",
    "Occupancy", "occupancy", "UnknownImplementation", "lookup", "register", "SimulationStalled", "TimingSession",
    "Machine", "MachineConfigError", "config_hash", "list_machines", "load_machine", "LaunchStats",
]
