"""The accelerator's machine parameter: ``mechanisms.fixed_latency.latency`` of any machine (YAML or
``--set``), found beside the hardware module as the policy is; the policy string's ``latency``, when given,
wins."""

from __future__ import annotations

from ndpgpu.timing.registry import register_machine_params
from ndpgpu.timing.spec import F, Spec


@register_machine_params("fixed_latency")
class FixedLatencyMachine(Spec):
    """The accelerator on this machine."""

    latency: int = F(500, "cycles", "from a stretch's start to the warp's release", ge=1, le=10**6)
