"""TOM's offload controller configuration: the parameters of section 3.3's hardware and the extraction's G3-G5."""

from __future__ import annotations

import dataclasses
import math

from .cost import DEFAULT_PARAMS, CostParams

CONTROLS = ("always", "ctrl", "ideal", "ideal-limited")
# ideal (TOM section 2: "no overhead for offloading code blocks and ... all offloaded code and data are
# co-located"): free packets, every stack-SM access local, no busy control and no pending limit;
# ideal-limited: the same with the pending limit kept (this tool's earlier "ideal")


@dataclasses.dataclass(frozen=True)
class TomConfig:
    """The offload controller's parameters (defaults: the extraction's recommendations G3-G5)."""

    control: str = "ctrl"  # always (no-ctrl), ctrl (dynamic control), ideal or ideal-limited (see CONTROLS)
    busy_threshold: float = 0.8  # G4: a channel is busy at this utilisation ...
    busy_window_cycles: int = 1000  # ... over this window (core cycles)
    pending_factor: float = 1.0  # G5: pending offloads per stack <= factor x the stack SMs' warp capacity
    pipeline_cycles: int = 10  # section 5: offload pipeline latency
    flit_bytes: int = 16  # G3
    header_flits: int = 1
    address_bytes: int = 4  # section 3.1: 4-B addresses and registers
    coherence: bool = True  # section 4.4.2's three steps (False: none of them, to measure their cost)
    cost: CostParams = DEFAULT_PARAMS

    def __post_init__(self) -> None:
        if self.control not in CONTROLS:
            raise ValueError(f"control {self.control!r}; valid: {', '.join(CONTROLS)}")
        if not 0 <= self.busy_threshold <= 10:
            raise ValueError(f"busy_threshold {self.busy_threshold} outside [0, 10]")
        if self.pending_factor <= 0:
            raise ValueError(f"pending_factor must be > 0, not {self.pending_factor}")

    def register_flits(self, units: int, uniform_units: int = 0) -> int:
        """Flits of ``units`` 32-bit registers for a whole warp (32 lanes), of which ``uniform_units`` are sent
        once (one lane's copy) when ``cost.uniform_live_ins`` and 32 times otherwise."""
        once = uniform_units if self.cost.uniform_live_ins else 0
        return math.ceil(((units - once) * 32 + once) * 4 / self.flit_bytes)
