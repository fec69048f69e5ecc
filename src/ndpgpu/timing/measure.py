"""The one measuring path: a configuration (machine, overrides, policy) timed over a program's launches and copies.

Every way of timing a program goes through :class:`Measurement`: ``ndpgpu run`` with and without
``--policy``, ``Device(machine=...)`` (launch by launch, as the program runs), sweep and reproduction points
(:class:`~ndpgpu.experiments.executors.SimulatorExecutor`) and ``ndpgpu workloads characterize``. So a mechanism
and its baseline are measured the same way: the same host copies replayed in program order before the same
launches, on a fresh session of the same machine.

    m = measure("gtx480", traces, copies, policy=make_policy(name), recording=rec)   # policy=None: baseline
    m.totals()["kernel.cycles"], m.rows()

Whether a host-to-device copy leaves its lines in the L2 is the machine's declared timing
(``pcie.place_in_l2``), not the path's; ``with_copies=False`` leaves every copy out, for every configuration
measured with it (the copies are then neither timed nor warm the L2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from ..trace.format import KernelTrace
from .session import TimingSession
from .spec import Machine
from .stats import LaunchStats

Row = tuple[str, str, Any, str]


class Preparer(Protocol):
    """What a session policy offers the measuring path (``ndpgpu.mechanisms.policy.SessionPolicy``)."""

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None: ...

    def rows(self) -> list[tuple[str, str, float, str]]: ...


class Measurement:
    """One configuration being measured: a fresh session, the policy prepared on it, copies and launches fed
    in program order (:meth:`copy`, :meth:`launch`) or all at once (:func:`measure`)."""

    def __init__(self, machine: Machine | str | TimingSession, overrides: dict | None = None, *,
                 with_copies: bool = True) -> None:
        self.session = machine if isinstance(machine, TimingSession) else TimingSession(machine, overrides)
        self.with_copies = with_copies
        self.policy: Preparer | None = None
        self.launch_stats: list[LaunchStats] = []

    def prepare(self, policy: Preparer | None, recording: Any, traces: list[KernelTrace]) -> None:
        """Let ``policy`` (None: the baseline) attach its hardware and plans for ``traces`` before any launch."""
        if self.launch_stats:
            raise RuntimeError("a policy is prepared before the first launch is timed")
        self.policy = policy
        if policy is not None:
            policy.prepare(self.session, recording, traces)

    def copy(self, direction: str, nbytes: int, addr: int | None) -> None:
        """A host<->device copy the program made (left out when the measurement is without copies)."""
        if self.with_copies:
            self.session.copy(int(nbytes), direction, addr=None if addr is None else int(addr))

    def launch(self, trace: KernelTrace) -> LaunchStats:
        """Time one launch; the machine's state carries over to the next."""
        st = self.session.run_launch(trace)
        self.launch_stats.append(st)
        return st

    def replay(self, traces: Sequence[KernelTrace], copies: Iterable[dict[str, Any]]) -> Measurement:
        """Feed ``traces`` and the program's ``copies`` (``Device.copies``: direction, bytes, addr,
        before_launch) in program order: each copy before the launch it preceded, the rest after the last."""
        pending = sorted(copies, key=lambda c: int(c["before_launch"]))  # stable: program order kept
        i_copy = 0
        for i, trace in enumerate(traces):
            while i_copy < len(pending) and int(pending[i_copy]["before_launch"]) <= i:
                c = pending[i_copy]
                self.copy(c["direction"], c["bytes"], c.get("addr"))
                i_copy += 1
            self.launch(trace)
        for c in pending[i_copy:]:
            self.copy(c["direction"], c["bytes"], c.get("addr"))
        return self

    def totals(self) -> LaunchStats:
        """Statistics over every launch so far (copies and application time beside them)."""
        return self.session.totals()

    def policy_rows(self) -> list[tuple[str, str, float, str]]:
        return list(self.policy.rows()) if self.policy is not None else []

    def launch_rows(self) -> list[Row]:
        """Per launch: ``launch<i>.cycles`` and ``launch<i>.warp_instructions``."""
        out: list[Row] = []
        for i, st in enumerate(self.launch_stats):
            out += [(f"launch{i}", "cycles", float(st.cycles), "cycles"),
                    (f"launch{i}", "warp_instructions", float(st.c("WARP_INSTS")), "warp-instr")]
        return out

    def rows(self) -> list[Row]:
        """Every row of the measurement: the totals, the policy's own rows, then the per-launch rows."""
        return [*self.totals().rows(), *self.policy_rows(), *self.launch_rows()]


def measure(machine: Machine | str, traces: Sequence[KernelTrace], copies: Iterable[dict[str, Any]] = (), *,
            overrides: dict | None = None, policy: Preparer | None = None, recording: Any = None,
            with_copies: bool = True) -> Measurement:
    """Measure ``traces`` (one program's launches) with its ``copies`` on ``machine``, with ``policy`` prepared
    from ``recording`` first (None: the baseline); see the module docstring."""
    m = Measurement(machine, overrides, with_copies=with_copies)
    m.prepare(policy, recording, list(traces))
    return m.replay(traces, copies)
