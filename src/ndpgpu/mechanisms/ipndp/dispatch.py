"""CTA allocation for IP-NDP: pattern-aware allocation (PACA) and block CTA scheduling (BCS), as
:class:`~ndpgpu.timing.interfaces.CtaDispatch` policies.

* ``PatternAwareDispatch``: CTA ``i`` on SM ``i`` for the whole kernel (a PACA kernel launches one CTA per SM
  and each walks its region; more CTAs than SMs wrap around, CTA ``i`` on SM ``i mod N``). Static: the mapping
  never depends on timing.
* ``BlockCtaDispatch``: Lee et al.'s block CTA scheduling (the paper's BCS [17], used for the locality between
  consecutive CTAs), dynamic as the hardware scheme: each pair of consecutive CTAs (2k, 2k+1) goes, when it is
  next, to the first SM in round-robin order with room for both, and the second follows the first; a pair never
  waits for a fixed SM. Where no SM can hold two of the launch's CTAs at once (Base-8-LT: one 256-thread CTA per
  SM) a pair cannot share an SM's L1, and BCS is round robin.
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
    """BCS: CTA pairs (2k, 2k+1), each on the first SM (round robin) with room for both, chosen at run time."""

    def __init__(self, block: int = 2) -> None:
        if block != 2:
            raise ValueError(f"BCS places CTAs in pairs (block 2), got {block}")
        self.block = block

    def plan(self, launch, machine) -> DispatchPlan:
        from ...timing.occupancy import occupancy

        n = launch.num_ctas
        ids = np.arange(n, dtype=np.int64)
        occ = occupancy(machine.core, launch.threads_per_cta, launch.regs_per_thread, launch.shared_bytes,
                        cap_registers=True)
        mode = E.DISP_RR if min(occ.ctas_per_sm, machine.core.max_ctas) < self.block else E.DISP_BLOCK
        return DispatchPlan(ids, np.full(n, -1, np.int64), mode)
