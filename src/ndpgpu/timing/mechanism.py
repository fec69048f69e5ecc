"""The Python side of a near-data mechanism's hardware, attached to a timing session.

A mechanism's compiled hardware (its ``hardware.py``, found by :mod:`.engine.hooks`) acts through the
engine's hook points on one int64 state vector per launch. Its Python side, a :class:`MechanismHardware`,
builds that vector when a launch starts, adjusts the machine around the launch if it must, and declares
the counters and statistics the vector carries back::

    session.attach(MyHardware(...))       # the following launches run with it
    session.attach(None)                  # and without it

See ``docs/extending.md`` for a worked example.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    from ..trace.format import KernelTrace
    from .sampling import SerialWork
    from .session import TimingSession
    from .stats import LaunchStats

Put = Callable[[str, str, Any, str], None]
Ratio = Callable[[float, float], float]


class MechanismHardware(abc.ABC):
    """A mechanism's hardware as the session sees it; one instance serves the launches it is attached to."""

    mechanism: ClassVar[str]  # the name its hardware module declares (``MECHANISM``)
    counter_names: ClassVar[tuple[str, ...]] = ()  # counters at ``counter_offset(mx)`` in the state vector

    @abc.abstractmethod
    def launch_state(self, session: TimingSession, trace: KernelTrace) -> np.ndarray | None:
        """The state vector ``mx`` for this launch, or None when the mechanism sits this launch out."""

    def launch_begin(self, session: TimingSession, mx: np.ndarray, start_ps: int) -> None:
        """Called when the launch starts at ``start_ps`` (after the engine's own per-launch reset)."""
        return None

    def launch_end(self, session: TimingSession, mx: np.ndarray) -> None:
        """Called when the launch ends, also when it stalls: undo what :meth:`launch_begin` changed."""
        return None

    def declines_sampling(self, mx: np.ndarray) -> str | None:
        """Why this launch must be timed in full under sampling within a launch (``sim.sample_waves``,
        docs/sampling.md), or ``None`` (the default) when it may be sampled.

        Sampling times a launch's first waves of CTAs and extends every count by the work of the CTAs not
        timed, so it assumes the mechanism's work grows with the CTAs. Decline when it does not and cannot be
        projected; where it is one unit's backlog, worked through in sequence for the whole grid, say so with
        :meth:`serial_work` instead, and the launch stays sampled."""
        return None

    def serial_work(self, session: TimingSession, mx: np.ndarray, ctas: int,
                    timed: np.ndarray) -> SerialWork | None:
        """Work one unit of the mechanism does in sequence for the whole grid, whatever CTAs run (a launch
        sampled by waves, after it ran; ``ctas``: the launch's, ``timed``: the ids of those timed), or ``None``
        (the default). The projection's cycles are then at least the time that unit needs for the whole grid's
        work at the rates it had in the sample (docs/sampling.md, "Serial work")."""
        return None

    def declines_stable_sampling(self, mx: np.ndarray) -> str | None:
        """Why this short launch must be timed in full under sampling until its rate is stable
        (``sim.sample_stable_window``, docs/sampling.md), or ``None`` when it may be.

        That sampling stops issue mid-launch (every warp's stream ends where it stands) and extends every count
        by the instructions not issued, so it assumes the mechanism's work grows with the instructions issued
        and that a warp may stop at any instruction. Decline when either fails (work sized by a whole CTA at its
        start; a warp waiting on work the mechanism runs for it). The default is :meth:`declines_sampling`'s
        answer."""
        return self.declines_sampling(mx)

    def counters_now(self, session: TimingSession, mx: np.ndarray) -> dict[str, int]:
        """The launch's counters by name mid-launch (a sampled launch's look at its window): :meth:`counters`,
        unless the mechanism completes some of them in :meth:`launch_end`, when it must give them here as
        :meth:`launch_end` would, without changing ``mx``."""
        return self.counters(mx)

    def counter_offset(self, mx: np.ndarray) -> int:
        """Where the counters start in ``mx``."""
        return 0

    def counters(self, mx: np.ndarray) -> dict[str, int]:
        """This launch's counters by name."""
        o = self.counter_offset(mx)
        return {name: int(mx[o + i]) for i, name in enumerate(self.counter_names)}

    @staticmethod
    def metrics(stats: LaunchStats, put: Put, ratio: Ratio) -> None:
        """Add the mechanism's ``(path, metric, value, unit)`` rows, from ``stats.c(name)`` of its counters.

        A static method, so that statistics summed over launches (and unpickled ones) can call it."""
        return None


def mechanism_code(hw: MechanismHardware) -> int:
    """The engine's code for ``hw``'s mechanism (its compiled hardware must have been found)."""
    from .engine import hooks

    return hooks.code_of(hw.mechanism)
