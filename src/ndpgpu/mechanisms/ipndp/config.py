"""IP-NDP's configuration as a policy names it: the CTA allocation, the prefetcher and the prefetch table's
image geometry."""

from __future__ import annotations

import dataclasses

ALLOCATIONS = ("rr", "paca", "bcs")
FLAGS = ("pf", "pws", "literal", "pl")


@dataclasses.dataclass(frozen=True)
class IpndpConfig:
    """One IP-NDP configuration: ``allocation`` (rr, paca, bcs), ``prefetcher`` (none, pf, pws), the prefetch
    table's image geometry (``width``, ``elem``, ``scan``, ``tiles``: 0 = from the launch) and the switches."""

    allocation: str = "rr"
    prefetcher: str = "none"  # none | pf | pws
    literal: bool = False
    perfect_l2: bool = False
    width: int = 0
    elem: int = 4
    scan: str = "row"
    tiles: tuple[int, int] = (0, 0)
