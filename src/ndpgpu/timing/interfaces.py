"""Extension points of the timing engine (one small ABC each, as Ramulator 2's interfaces are).

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
    mode: int  # 0 round-robin over SMs, 1 static (use target_sm), 2 greedy (lowest SM with room), 3 block (pairs)


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
    """Lines fetched into an SM's L1 when a CTA is dispatched (a thread-block preloader), at a priority class."""

    priority: int = 1

    @abc.abstractmethod
    def lines(self, trace: KernelTrace, machine: Machine) -> tuple[np.ndarray, np.ndarray]:
        """``(start, lines)``: CTA ``c`` preloads ``lines[start[c]:start[c+1]]`` (line addresses, int64)."""
