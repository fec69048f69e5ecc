"""Extension points of the timing engine (STYLE.md habit 1: one small ABC each).

Per-cycle behaviour is compiled, so an extension point either *plans* in Python before a launch (CTA
dispatch order and placement, preload lists, execution placement, address mappings) and hands the
engine arrays, or selects an integer-coded compiled variant (schedulers, DRAM scheduling, prefetchers).
None of these may touch engine state directly; what each may return is stated on its method.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..trace.format import KernelTrace, LaunchInfo
    from .spec import Machine


class CompiledVariant(abc.ABC):
    """A policy implemented inside the compiled loop, selected by its integer ``code``."""

    code: int = -1

    @abc.abstractmethod
    def describe(self) -> str:
        """One line for ``ndpgpu machines show``."""


@dataclasses.dataclass
class DispatchPlan:
    """CTA dispatch order and, per CTA, the SM it must run on (-1: any SM, chosen by the mode)."""

    order: np.ndarray  # int64 permutation of CTA ids
    target_sm: np.ndarray  # int64 per CTA id
    mode: int  # 0 round-robin over SMs, 1 static (use target_sm), 2 greedy (lowest SM with room)


class CtaDispatch(abc.ABC):
    """Decides which CTA goes next and where. May not mutate the trace or the machine."""

    @abc.abstractmethod
    def plan(self, launch: LaunchInfo, machine: Machine) -> DispatchPlan:
        """The dispatch plan of one launch."""


class AddressMapping(abc.ABC):
    """Physical address -> channel / slice / bank / row, as one integer descriptor row for the engine.

    Descriptors are built from the machine (``dram.mapping``) and may be attached to address ranges of
    a session (``TimingSession.map_range``), e.g. to home an allocation in one memory channel.
    """

    @abc.abstractmethod
    def descriptor(self, machine: Machine) -> np.ndarray:
        """An int64 row of the engine's mapping-descriptor layout (see ``policies.BitFields``)."""


class ExecutionPlacement(abc.ABC):
    """Where each static instruction executes: on its SM, or on another unit of the machine.

    An instruction placed on a memory-side unit (an L2 slice's node) is sent there as an ``offload``
    packet carrying its source operands; the unit replies with the results after its service latency.
    ``packet`` names the packet type they travel as: ``offload``, or a type registered with
    ``TimingSession.register_packet_type`` (registered on first use; its service latency applies).
    """

    packet: str = "offload"

    @abc.abstractmethod
    def place(self, trace: KernelTrace, machine: Machine) -> np.ndarray:
        """int64 per PC: -1 to run on the SM, or the global slice id that executes it."""


class Preloader(abc.ABC):
    """Lines fetched into an SM's L1 when a CTA is dispatched (TELEPORT-style), at a priority class."""

    priority: int = 1

    @abc.abstractmethod
    def lines(self, trace: KernelTrace, machine: Machine) -> tuple[np.ndarray, np.ndarray]:
        """``(start, lines)``: CTA ``c`` preloads ``lines[start[c]:start[c+1]]`` (line addresses, int64)."""


# columns of ``OffloadPlan.instances``, in order (the engine's ``OI_*`` columns up to ``OI_WL1``)
OFFLOAD_INSTANCE_FIELDS = (
    "warp",       # global warp id
    "seg0", "off0",  # where the block's stretch of the warp's stream starts: (segment index, offset in it)
    "dseg", "doff",  # decision point: the block's first memory instruction (the GPU runs the part before it)
    "seg1", "off1",  # where the warp continues after the block
    "rec0", "rec1",  # the block's memory records [rec0, rec1)
    "line",       # line address of the first memory access (its stack is the destination), -1 if none
    "allowed",    # 1 when the block's condition holds for this instance (e.g. its trip count), else 0
    "adds_tx", "adds_rx",  # 1 when offloading this instance adds traffic on TX / RX (the 2-bit tag, negated)
    "req_flits", "ack_flits",  # offload request (live-ins) and acknowledgement (live-outs, written lines) sizes
    "wl0", "wl1",  # the lines it writes: ``written_lines[wl0:wl1]`` (invalidated in the GPU at the ack)
)


@dataclasses.dataclass
class OffloadPlan:
    """Candidate-block instances of one launch, and how the offload controller treats them.

    ``mode``: ``always`` (offload every allowed instance; each stack SM queues what it cannot start),
    ``ctrl`` (dynamic control: skip when a channel the block adds traffic to is busy, or when the destination
    stack already has ``pending_limit`` blocks in flight) or ``ideal`` (free requests and acknowledgements,
    every stack-SM access local, the pending limit kept: an upper bound). ``pending_limit`` applies to every
    mode (0: unlimited)."""

    instances: np.ndarray  # int64 (n, len(OFFLOAD_INSTANCE_FIELDS)), sorted by warp then stream position
    written_lines: np.ndarray  # int64 line addresses
    mode: str = "ctrl"
    busy_threshold: float = 0.8  # a channel is busy at this utilisation over the monitor's window
    busy_window_cycles: int = 1000  # core cycles
    pending_limit: int = 0  # blocks in flight per stack (0: unlimited)
    pipeline_cycles: int = 10  # offload pipeline latency before the request leaves (core cycles)
    invalidate_stack_l1: bool = True  # the stack SM invalidates its private cache before each block


class BlockOffload(abc.ABC):
    """Which code-block instances of a launch may run on an SM inside a memory stack (TOM).

    May not mutate the trace or the machine; the machine must have stack SMs (``stacks.sms_per_stack``)."""

    @abc.abstractmethod
    def plan(self, trace: KernelTrace, machine: Machine) -> OffloadPlan | None:
        """The launch's offload plan, or None to run it all on the GPU."""
