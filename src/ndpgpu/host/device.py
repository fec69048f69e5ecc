"""The simulated device: memory, launch options, an optional timing machine, and the current device
(a per-thread stack of ``with Device(...)`` blocks, else a default functional device)."""

from __future__ import annotations

import itertools
import threading

from ..functional.launch import LaunchOptions, LaunchResult
from ..functional.memory import DeviceMemory, MemoryLayout

__all__ = ["Device", "get_device"]


_device_ids = itertools.count()
_local = threading.local()


class Device:
    """A simulated GPU: memory, launch options, and optionally a timing machine.

    Use as a context manager to make it current::

        with ndpgpu.Device(trace=True) as dev:
            ...launches...
        dev.traces  # one KernelTrace per launch
    """

    def __init__(self, machine: str | None = None, *, overrides: dict | None = None, trace: bool | None = None,
                 bounds_check: bool = False, layout: MemoryLayout | None = None, num_sms: int | None = None,
                 echo_printf: bool = True, options: LaunchOptions | None = None):
        self.id = next(_device_ids)
        self.options = options or LaunchOptions()
        self.options.bounds_check = bounds_check or self.options.bounds_check
        # bounds checking separates allocations by guard zones, so overruns into a neighbour are seen
        self.memory = DeviceMemory(layout, guard_zones=self.options.bounds_check)
        self.machine_name = machine
        self.overrides = dict(overrides or {})
        self.trace = bool(trace) if trace is not None else machine is not None
        self.echo_printf = echo_printf
        self.launches: list[LaunchResult] = []
        self.traces: list = []
        self.trace_source_maps: list = []  # per trace: its module's PTX -> CUDA source map (per-PC views)
        self.copies: list[dict] = []  # host<->device copies in program order: direction, bytes, addr, before_launch
        self.printf_output: list[str] = []
        self.timing = None
        self.measurement = None  # the one measuring path (ndpgpu.timing.measure), fed as the program runs
        self.launch_stats: list = []
        if machine is not None:
            from ..timing import TimingSession, load_machine  # imported lazily: timing is optional
            from ..timing.measure import Measurement

            self.machine = load_machine(machine, overrides=self.overrides)
            self.timing = TimingSession(self.machine)
            self.measurement = Measurement(self.timing)
            self.num_sms = int(getattr(self.machine, "num_sms", None) or num_sms or 15)
        else:
            self.machine = None
            self.num_sms = num_sms or 80
        self.options.num_sms = self.num_sms
        self._stack_depth = 0

    # context management: a stack of current devices per thread
    def __enter__(self) -> Device:
        stack = _stack()
        stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        stack = _stack()
        if stack and stack[-1] is self:
            stack.pop()

    def record_copy(self, direction: str, nbytes: int, addr: int) -> None:
        """Log a host<->device copy (replayed by the experiment executor) and time it on the machine."""
        self.copies.append({"direction": direction, "bytes": int(nbytes), "addr": int(addr),
                            "before_launch": len(self.launches)})
        if self.measurement is not None:
            self.measurement.copy(direction, int(nbytes), int(addr))

    def totals(self):
        """Timing statistics over every launch (requires a machine)."""
        if self.timing is None:
            raise RuntimeError("this device has no timing machine: create it with Device(machine=...)")
        return self.timing.totals()

    def __repr__(self) -> str:
        return f"<ndpgpu.Device {self.id} machine={self.machine_name!r}>"


def _stack() -> list[Device]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


_default_device: Device | None = None


def get_device() -> Device:
    """The current device (the innermost ``with Device(...)``), else the default functional device."""
    stack = _stack()
    if stack:
        return stack[-1]
    global _default_device
    if _default_device is None:
        _default_device = Device()
    return _default_device

