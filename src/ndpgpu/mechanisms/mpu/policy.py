"""MPU as a session policy: ``mpu:<location policy>[+far-smem][+no-remote-cache]``. The location policy is one of
``annotation`` (the compiler's hints), ``hardware`` (no hints: the register track table decides), ``all-near``
and ``all-far`` (every ALU operation at the near-bank units, or on the base die); ``+far-smem`` puts shared
memory on the base die instead of beside the near-bank units (the paper's Fig. 11 comparator). ``mpu:ponb`` is
PonB, processing on the base die (the paper's Fig. 13 comparator): every instruction on the base die, no
near-bank register file, ALUs or LSU extension, every global access per transaction, shared memory on the base
die. ``+no-remote-cache`` removes each core's read-only cache of remote data (32 KB at its network interface,
as in the authors' simulator; the paper does not mention it), with any policy.

``prepare`` checks that the session's machine is an MPU (``core.model: mpu``, e.g. ``--machine mpu``), runs
the location annotation on each kernel of the recording's module as its launches start, and attaches the
processor model: ``ndpgpu run mpu_axpy --machine mpu --policy mpu:annotation+far-smem``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..policy import PolicyError, PolicyGrammar, SessionPolicy, register_policy
from .locations import POLICIES
from .unit import PONB, MpuHardware, MpuMachineError, check_machine

FAR_SMEM = "far-smem"
NO_REMOTE_CACHE = "no-remote-cache"


class MpuPolicyError(PolicyError):
    """An ``mpu:`` policy that cannot run: an unknown location policy or option, or a machine that is not an
    MPU."""


@dataclasses.dataclass(frozen=True)
class MpuSpec:
    """A parsed ``mpu:`` policy: the location policy (or ``ponb``) and where shared memory is."""

    policy: str
    far_bank_smem: bool = False
    remote_cache: bool = True

    @property
    def ponb(self) -> bool:
        return self.policy == PONB

    def __str__(self) -> str:
        return (self.policy + (f"+{FAR_SMEM}" if self.far_bank_smem and not self.ponb else "")
                + ("" if self.remote_cache else f"+{NO_REMOTE_CACHE}"))


GRAMMAR = PolicyGrammar("mpu", heads=(*POLICIES, PONB), switches=(FAR_SMEM, NO_REMOTE_CACHE), error=MpuPolicyError,
                        form=f"mpu:<policy>[+{FAR_SMEM}][+{NO_REMOTE_CACHE}] with policy in {', '.join(POLICIES)}, "
                             f"or mpu:{PONB}[+{NO_REMOTE_CACHE}]")


def parse(spec: str) -> MpuSpec:
    """``mpu:<policy>[+far-smem][+no-remote-cache]`` -> :class:`MpuSpec` (:class:`MpuPolicyError` on anything
    else)."""
    parsed = GRAMMAR.parse(spec.strip())
    if parsed.head == PONB and parsed.has(FAR_SMEM):
        raise MpuPolicyError(f"mpu:{spec}: {PONB} takes no {FAR_SMEM} option (its shared memory is on the base "
                             f"die already); {GRAMMAR.usage()}")
    return MpuSpec(parsed.head, far_bank_smem=parsed.head == PONB or parsed.has(FAR_SMEM),
                   remote_cache=not parsed.has(NO_REMOTE_CACHE))


class MpuPolicy(SessionPolicy):
    """MPU's processor under one location policy, with near- or far-bank shared memory."""

    def __init__(self, spec: MpuSpec) -> None:
        self.spec = spec
        self.policy = spec.policy
        self.hardware: MpuHardware | None = None

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        try:
            check_machine(session.machine)
        except MpuMachineError as exc:
            raise MpuPolicyError(f"mpu:{self.spec}: {exc}") from exc
        from ..analyze import recording_module

        self.hardware = MpuHardware(recording_module(recording), self.policy,
                                    near_bank_smem=not self.spec.far_bank_smem, remote_cache=self.spec.remote_cache)
        session.attach(self.hardware)

    def rows(self) -> list[tuple[str, str, float, str]]:
        rows = [("mpu.config", p.replace("-", "_"), float(p == self.policy), "flag") for p in (*POLICIES, PONB)]
        return [*rows, ("mpu.config", "far_bank_smem", float(self.spec.far_bank_smem), "flag"),
                ("mpu.config", "remote_cache", float(self.spec.remote_cache), "flag")]


@register_policy(GRAMMAR)
def make_mpu_policy(spec: str) -> MpuPolicy:
    return MpuPolicy(parse(spec))
