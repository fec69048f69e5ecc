"""The papers' own names for their workloads (TOM's ``KM``, TELEPORT's ``JAC``...) as workload aliases.

An abbreviation alone names a workload when every paper that uses it means the same one (``KM``, ``KMN``);
otherwise it is ambiguous and must be qualified by its paper, ``PAPER:ABBR`` (``TOM:BFS`` is
``bfs_rodinia``, ``TELEPORT:BFS`` is ``tp_bfs``). Abbreviations match case-insensitively.
"""

from __future__ import annotations

import functools


class AmbiguousAlias(LookupError):
    """A paper abbreviation that names different workloads in different papers."""

    def __str__(self) -> str:  # LookupError quotes its message
        return str(self.args[0])


@functools.cache
def paper_aliases() -> dict[str, dict[str, str]]:
    """``paper -> {abbreviation: workload}`` for every paper whose suite maps its names."""
    from .ipndp import IPNDP_WORKLOADS
    from .llc import LLC_WORKLOADS
    from .mpu import MPU_WORKLOADS
    from .teleport import TELEPORT_WORKLOADS
    from .tom import TOM_WORKLOADS

    return {
        "TOM": dict(TOM_WORKLOADS),
        "LLC-Compute": dict(LLC_WORKLOADS),
        "TELEPORT": dict(TELEPORT_WORKLOADS),
        "MPU": dict(MPU_WORKLOADS),
        "IP-NDP": {abbr: pair[0] for abbr, pair in IPNDP_WORKLOADS.items()},  # the baseline code
    }


def aliases_of(workload: str) -> list[str]:
    """``PAPER:ABBR`` for every paper name of ``workload``."""
    return [f"{paper}:{abbr}" for paper, names in paper_aliases().items() for abbr, w in names.items()
            if w == workload]


def candidates(name: str) -> list[tuple[str, str, str]]:
    """``(paper, abbreviation, workload)`` that ``name`` (``ABBR`` or ``PAPER:ABBR``) may mean."""
    paper, _, abbr = name.rpartition(":")
    out = []
    for p, names in paper_aliases().items():
        if paper and p.lower() != paper.lower():
            continue
        out += [(p, a, w) for a, w in names.items() if a.lower() == abbr.lower()]
    return out


def resolve_alias(name: str) -> str | None:
    """The workload a paper name means; None when it is no paper's name. Raises :class:`AmbiguousAlias`
    listing the candidates when papers disagree."""
    found = candidates(name)
    workloads = sorted({w for _p, _a, w in found})
    if len(workloads) > 1:
        listed = ", ".join(f"{p}:{a} = {w}" for p, a, w in found)
        raise AmbiguousAlias(f"workload {name!r} is ambiguous: {listed}; qualify it by its paper (e.g. "
                             f"{found[0][0]}:{found[0][1]})")
    return workloads[0] if workloads else None
