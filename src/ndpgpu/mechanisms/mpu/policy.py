"""MPU as a session policy: ``mpu:<location policy>``, one of ``annotation`` (the compiler's hints),
``hardware`` (no hints: the register track table decides), ``all-near`` and ``all-far`` (every ALU operation
at the near-bank units, or on the base die).

``prepare`` checks that the session's machine is an MPU (``core.model: mpu``, e.g. ``--machine mpu``), runs
the location annotation on each kernel of the recording's module as its launches start, and attaches the
processor model: ``ndpgpu run mpu_axpy --machine mpu --policy mpu:annotation``.
"""

from __future__ import annotations

from typing import Any

from ...experiments.policies import PolicyError, SessionPolicy, register_policy
from .locations import POLICIES
from .processor import MpuHardware, MpuMachineError, check_machine


class MpuPolicyError(PolicyError):
    """An ``mpu:`` policy that cannot run: an unknown location policy, or a machine that is not an MPU."""


def parse(spec: str) -> str:
    """``mpu:<policy>`` -> the location policy (MpuPolicyError on a bad spec)."""
    policy = spec.strip()
    if policy not in POLICIES:
        raise MpuPolicyError(f"mpu:{spec}: expected mpu:<policy> with policy in {', '.join(POLICIES)}")
    return policy


class MpuPolicy(SessionPolicy):
    """MPU's processor under one location policy."""

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self.hardware: MpuHardware | None = None

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        try:
            check_machine(session.machine)
        except MpuMachineError as exc:
            raise MpuPolicyError(f"mpu:{self.policy}: {exc}") from exc
        from ..analyze import recording_module

        self.hardware = MpuHardware(recording_module(recording), self.policy)
        session.attach(self.hardware)

    def rows(self) -> list[tuple[str, str, float, str]]:
        return [("mpu.config", p.replace("-", "_"), float(p == self.policy), "flag") for p in POLICIES]


@register_policy("mpu")
def make_mpu_policy(spec: str) -> MpuPolicy:
    return MpuPolicy(parse(spec))
