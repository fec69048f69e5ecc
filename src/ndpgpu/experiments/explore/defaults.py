"""Which machine and which policies ``ndpgpu explore`` times each mechanism with (overridable).

Each mechanism is measured against its own baseline on its own machine (the same preset, the mechanism off),
and every machine's baseline against one reference GPU, so machines of different sizes and clocks compare.
LLC-Compute and Omni-Compute are two schemes of one mechanism (one paper): two rows, one baseline.
"""

from __future__ import annotations

import dataclasses

REFERENCE = "gtx480"
"""The reference GPU every machine's baseline is compared with (kernel time: clocks differ)."""


@dataclasses.dataclass(frozen=True)
class Option:
    """One row of the comparison: a mechanism's policy against its baseline policy on one machine."""

    key: str  # short name: tom, llc, omni, teleport, mpu, ipndp
    label: str  # as the papers name it
    mechanism: str  # the mechanism (paper) it belongs to: llc and omni share "llc"
    machine: str
    policy: str
    baseline: str  # the policy of the same machine without the mechanism
    note: str = ""  # why this baseline (documented in docs/explore.md)
    beyond: bool = False  # a composition of two papers' mechanisms: beyond the papers
    parts: tuple[str, ...] = ()  # a composition's rows (keys) run alone

    def with_machine(self, machine: str) -> Option:
        return dataclasses.replace(self, machine=machine)


OPTIONS: tuple[Option, ...] = (
    Option("tom", "TOM", "tom", "tom-ndp", "tom:ctrl+tmap", "tom:gpu+bmap",
           "the NDP machine with offloading off and the baseline mapping"),
    Option("llc", "LLC-Compute", "llc", "llc-mesh", "llc:llc", "baseline", "the mesh GPU without chain offload"),
    Option("omni", "Omni-Compute", "llc", "llc-mesh", "llc:omni", "baseline", "the mesh GPU without chain offload"),
    Option("teleport", "TELEPORT", "teleport", "gtx480", "teleport:real", "baseline", "the GTX480 without preloads"),
    Option("mpu", "MPU", "mpu", "mpu", "mpu:annotation", "mpu:ponb",
           "PonB: the same stacks with every instruction on the base die (the paper's comparator)"),
    Option("ipndp", "IP-NDP", "ipndp", "ipndp-ip8", "ipndp:paca+pf", "baseline",
           "the same logic-die SMs with round-robin CTAs and no prefetcher"),
)
MECHANISMS = tuple(dict.fromkeys(o.mechanism for o in OPTIONS))

COMPOSITIONS: tuple[tuple[Option, tuple[str, str]], ...] = (
    (Option("teleport+llc", "TELEPORT + LLC-Compute", "beyond", "llc-mesh", "compose:teleport:l1;llc:llc", "baseline",
            "TELEPORT's tiles preloaded into L1 (the engine's preloader) while LLC-Compute's chains run at the "
            "slices", beyond=True, parts=("teleport", "llc")), ("teleport", "llc")),
    (Option("teleport+ipndp", "TELEPORT + IP-NDP", "beyond", "ipndp-ip8", "compose:teleport:l1;ipndp:rr+pf",
            "baseline", "TELEPORT's tiles preloaded into L1 beside IP-NDP's boundary-aware prefetcher",
            beyond=True, parts=("teleport", "ipndp")), ("teleport", "ipndp")),
)
"""One composition per compatible pair (``--compose``): at most one of the two attaches compiled hardware."""


class ExploreError(ValueError):
    """A bad ``--mechanisms`` or ``--machine`` choice."""


def select(names: list[str] | None = None, machines: dict[str, str] | None = None, compose: bool = False
           ) -> list[Option]:
    """The options for ``names`` (mechanisms or rows: ``llc`` gives both LLC rows, ``omni`` one; default all),
    each on its default machine unless ``machines`` (mechanism or row -> preset) says otherwise; with ``compose``,
    the compositions of :data:`COMPOSITIONS` whose two mechanisms are both chosen."""
    known = {o.key for o in OPTIONS} | set(MECHANISMS)
    wanted = names or list(MECHANISMS)
    bad = [n for n in wanted if n not in known]
    if bad:
        raise ExploreError(f"unknown mechanism(s) {', '.join(bad)}; choose from {', '.join(sorted(known))}")
    machines = dict(machines or {})
    bad = [n for n in machines if n not in known]
    if bad:
        raise ExploreError(f"--machine {bad[0]}=...: unknown mechanism; choose from {', '.join(sorted(known))}")
    out = []
    for o in OPTIONS:
        if o.key in wanted or o.mechanism in wanted:
            m = machines.get(o.key) or machines.get(o.mechanism)
            out.append(o.with_machine(m) if m else o)
    chosen = {o.mechanism for o in out}
    if compose:
        out += [c for c, pair in COMPOSITIONS if set(pair) <= chosen]
    return out
