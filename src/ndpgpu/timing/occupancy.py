"""CUDA occupancy rules: how many CTAs of a launch fit on one SM, and what limits them.

Per CTA (following NVIDIA's occupancy calculator):

* warps = ceil(threads / 32);
* registers per warp = ceil(regs_per_thread x 32 / reg_alloc_unit) x reg_alloc_unit, and per CTA
  warps x registers per warp;
* shared memory = ceil(shared_bytes / shared_alloc_unit) x shared_alloc_unit;

and CTAs per SM = min(max_ctas, max_warps // warps, register-limited warps // warps,
shared // smem_per_cta), where the register file holds floor(floor(registers / registers per warp) /
warp_alloc_granularity) x warp_alloc_granularity warps: registers are allocated per sub-partition, as
``cuda_occupancy.h`` (cudaOccMaxBlocksPerSMRegsLimit) and the occupancy calculator compute it. The engine
admits a CTA while the sums of the per-CTA amounts stay within the SM's capacities and at most
``ctas_per_sm`` CTAs are resident, which gives the same count.
"""

from __future__ import annotations

import dataclasses
import math

from .spec import CoreSpec


class LaunchDoesNotFit(ValueError):
    """Not even one CTA of the launch fits on an SM of the machine."""


@dataclasses.dataclass(frozen=True)
class Occupancy:
    warps_per_cta: int
    threads_per_cta: int  # warps x 32 (what the thread limit counts)
    regs_per_cta: int
    smem_per_cta: int
    ctas_per_sm: int
    limit: str  # "ctas" | "threads" | "registers" | "shared_memory"
    limits: dict[str, int]
    max_warps: int

    @property
    def theoretical(self) -> float:
        """Resident warps over the SM's maximum, at ``ctas_per_sm`` CTAs."""
        return self.ctas_per_sm * self.warps_per_cta / self.max_warps


def occupancy(core: CoreSpec, threads: int, regs_per_thread: int, shared_bytes: int, *,
              cap_registers: bool = False) -> Occupancy:
    """CTAs per SM for a CTA of ``threads`` threads; raise :class:`LaunchDoesNotFit` when zero.

    ``cap_registers``: a register count above the machine's per-thread limit (ptxas ran for a newer
    target) is taken as the limit, as ptxas for the modelled target would allocate, spilling the rest
    to local memory; that spill traffic is not in the trace.
    """
    warps = max(1, math.ceil(threads / 32))
    gran = core.warp_alloc_granularity
    regs = regs_per_thread or core.default_regs_per_thread
    if cap_registers:
        regs = min(regs, core.max_regs_per_thread)
    if regs > core.max_regs_per_thread:
        raise LaunchDoesNotFit(f"{regs} registers per thread exceed the limit of {core.max_regs_per_thread}")
    unit = core.reg_alloc_unit
    regs_per_warp = math.ceil(regs * 32 / unit) * unit if regs else 0
    regs_per_cta = warps * regs_per_warp
    reg_warps = (core.registers // regs_per_warp) // gran * gran if regs_per_warp else 0
    sunit = core.shared_alloc_unit
    smem = math.ceil(shared_bytes / sunit) * sunit if shared_bytes else 0
    limits = {
        "ctas": core.max_ctas,
        "threads": core.max_warps // warps,
        "registers": reg_warps // warps if regs_per_cta else 1 << 30,
        "shared_memory": core.shared_mem_bytes // smem if smem else 1 << 30,
    }
    name, n = min(limits.items(), key=lambda kv: kv[1])
    if n < 1:
        raise LaunchDoesNotFit(
            f"a CTA of {threads} threads, {regs} registers/thread and {shared_bytes} B of shared memory does not "
            f"fit on one SM (limited by {name}: {limits})")
    return Occupancy(warps, warps * 32, regs_per_cta, smem, n, name, limits, core.max_warps)
