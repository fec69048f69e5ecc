"""CTA allocation for IP-NDP: pattern-aware allocation (PACA) and block CTA scheduling (BCS), as
:class:`~ndpgpu.timing.interfaces.CtaDispatch` policies.

* ``PatternAwareDispatch``: CTA ``i`` on SM ``i`` for the whole kernel (a PACA kernel launches one CTA per SM
  and each walks its region; more CTAs than SMs wrap around, CTA ``i`` on SM ``i mod N``). Static: the mapping
  never depends on timing.
* ``BlockCtaDispatch``: Lee et al.'s block CTA scheduling, consecutive CTAs ``2k`` and ``2k+1`` on one SM. Modelled
  statically (pair ``k`` on SM ``k mod N``), which keeps each pair together but, unlike the hardware scheme, does
  not send the next pair to whichever SM frees up first. Where an SM cannot hold two of the launch's CTAs at once
  (Base-8-LT: one 256-thread CTA per SM) a pair cannot share an SM's L1 and BCS falls back to round robin.
"""

from __future__ import annotations

import numpy as np

from ...timing import engine as E
from ...timing.interfaces import CtaDispatch, DispatchPlan


class PatternAwareDispatch(CtaDispatch):
    """PACA: CTA i on SM i mod num_sms, in id order."""

    def plan(self, launch, machine) -> DispatchPlan:
        n = launch.num_ctas
        ids = np.arange(n, dtype=np.int64)
        return DispatchPlan(ids, ids % machine.core.num_sms, E.DISP_STATIC)


class BlockCtaDispatch(CtaDispatch):
    """BCS: CTA pairs (2k, 2k+1) on SM k mod num_sms."""

    def __init__(self, block: int = 2) -> None:
        if block < 1:
            raise ValueError(f"BCS block must be positive, got {block}")
        self.block = block

    def plan(self, launch, machine) -> DispatchPlan:
        from ...timing.occupancy import occupancy

        n = launch.num_ctas
        ids = np.arange(n, dtype=np.int64)
        occ = occupancy(machine.core, launch.threads_per_cta, launch.regs_per_thread, launch.shared_bytes,
                        cap_registers=True)
        if min(occ.ctas_per_sm, machine.core.max_ctas) < self.block:
            return DispatchPlan(ids, np.full(n, -1, np.int64), E.DISP_RR)
        return DispatchPlan(ids, (ids // self.block) % machine.core.num_sms, E.DISP_STATIC)
