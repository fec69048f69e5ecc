"""The why, in one vocabulary: what bounds a baseline (a small roofline-style attribution) and what a mechanism
changed (offloaded share, bytes moved and where, hops, preloaded lines, prefetch accuracy, near-bank share),
read from the statistics every point already has."""

from __future__ import annotations

import dataclasses
from typing import Any

SATURATED = 0.5
"""A resource busy at least this share of the kernel window is taken as the bound."""

Metrics = dict[str, float]


@dataclasses.dataclass(frozen=True)
class Bound:
    """Each resource's utilisation over the kernel window, and the one that bounds it."""

    utilisation: dict[str, float]  # issue, L1, L2, DRAM, NoC: busy share; latency: exposed stall share
    bound: str
    intensity: float | None  # thread instructions per DRAM byte (None: no DRAM traffic)

    def sentence(self) -> str:
        u = self.utilisation.get(self.bound, 0.0)
        what = {"latency": f"memory latency ({u:.0%} of scheduler cycles stalled on memory, no resource above "
                           f"{SATURATED:.0%})",
                "issue": f"instruction issue ({u:.0%} of scheduler cycles issue)"}.get(
            self.bound, f"{self.bound} bandwidth ({u:.0%} busy)")
        return f"bound by {what}"

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _m(rows: Metrics, name: str, default: float = 0.0) -> float:
    return float(rows.get(name, default))


def machine_shape(machine: str, overrides: dict[str, Any]) -> dict[str, float]:
    """What the attribution needs of a machine: SMs and L2 slices (0 where the machine has none)."""
    from ...timing import load_machine

    m = load_machine(machine, overrides=dict(overrides))
    return {"sms": float(m.core.num_sms), "l2_slices": float(getattr(m, "num_slices", 0) or 0)}


def bound(rows: Metrics, shape: dict[str, float]) -> Bound:
    """Utilisation per resource: issue (issuing scheduler cycles), L1 (tag accesses per SM-cycle), L2 (accesses
    per slice-cycle), DRAM (bus busy), NoC (the busiest port, mesh link, stack link or TSV), and latency (the
    share of scheduler cycles stalled on memory or the scoreboard). The bound is the busiest of the first five
    when at least :data:`SATURATED` busy, else latency when stalls outweigh issue, else issue."""
    cycles = max(_m(rows, "kernel.cycles"), 1.0)
    noc = max([_m(rows, n) for n in ("icnt.request.max_port_utilisation", "icnt.reply.max_port_utilisation",
                                     "mesh.request.max_link_utilisation", "mesh.reply.max_link_utilisation",
                                     "link.tx_utilisation", "link.rx_utilisation", "mpu.tsv.utilisation")])
    util = {
        "issue": _m(rows, "core.issue.issue_rate"),
        "L1": _m(rows, "l1d.accesses") / (cycles * shape["sms"]) if shape.get("sms") else 0.0,
        "L2": _m(rows, "l2.accesses") / (cycles * shape["l2_slices"]) if shape.get("l2_slices") else 0.0,
        "DRAM": _m(rows, "dram.bus_utilisation"),
        "NoC": noc,
        "latency": _m(rows, "core.stalls.memory_fraction") + _m(rows, "core.stalls.scoreboard_fraction"),
    }
    util = {k: round(min(max(v, 0.0), 1.0), 4) for k, v in util.items()}
    busiest = max(("issue", "L1", "L2", "DRAM", "NoC"), key=lambda k: util[k])
    if util[busiest] >= SATURATED:
        b = busiest
    else:
        b = "latency" if util["latency"] > util["issue"] else "issue"
    dram = _m(rows, "dram.bytes")
    return Bound(util, b, _m(rows, "kernel.thread_instructions") / dram if dram > 0 else None)


@dataclasses.dataclass(frozen=True)
class Change:
    """One quantity a mechanism changed: its value without (``before``) and with (``after``) the mechanism."""

    name: str  # in the common vocabulary: offloaded share, link bytes, DRAM bytes, hops, ...
    before: float | None
    after: float
    unit: str

    def text(self) -> str:
        def show(v: float) -> str:
            return f"{v:.0%}" if self.unit == "fraction" else f"{v:,.0f}"

        if self.before is None:
            return f"{self.name} {show(self.after)}"
        return f"{self.name} {show(self.before)} -> {show(self.after)}"


# mechanism row -> (vocabulary name, metric, unit, compare with the baseline?)
CHANGES: dict[str, tuple[tuple[str, str, str, bool], ...]] = {
    "tom": (("offloaded share", "offload.blocks.offload_rate", "fraction", False),
            ("offloaded instructions", "offload.blocks.instruction_share", "fraction", False),
            ("off-chip link bytes", "link.bytes", "bytes", True),
            ("DRAM bytes", "dram.bytes", "bytes", True)),
    "llc": (("offloaded share", "offload.chains.offload_rate", "fraction", False),
            ("chains computed at the LLC", "offload.chains.at_llc", "chains", False),
            ("mesh hops", "mesh.weighted_hops", "hops", True),
            ("interconnect bytes", "icnt.bytes", "bytes", True)),
    "omni": (("offloaded share", "offload.chains.offload_rate", "fraction", False),
             ("chains computed at idle cores", "offload.chains.at_core", "chains", False),
             ("mesh hops", "mesh.weighted_hops", "hops", True),
             ("interconnect bytes", "icnt.bytes", "bytes", True)),
    "teleport": (("preloaded lines", "teleport.preload_lines", "lines", False),
                 ("loads served by preloads", "teleport.coverage", "fraction", False),
                 ("cycles each CTA waits for its preloads", "teleport.gate_cycles_per_cta", "cycles", False),
                 ("DRAM bytes", "dram.bytes", "bytes", True),
                 ("interconnect bytes", "icnt.bytes", "bytes", True)),
    "mpu": (("near-bank share", "mpu.instructions.near_share_of_alu", "fraction", True),
            ("TSV bytes", "mpu.tsv.bytes", "bytes", True),
            ("DRAM bytes", "dram.bytes", "bytes", True)),
    "ipndp": (("prefetch accuracy", "ipndp.prefetcher.accuracy", "fraction", False),
              ("prefetches used", "ipndp.prefetcher.used", "prefetches", False),
              ("DRAM bytes", "dram.bytes", "bytes", True),
              ("interconnect bytes", "icnt.bytes", "bytes", True)),
}
_L1_PRELOADS = ("preloaded lines", "preload.lines", "lines", False)  # TELEPORT's l1 variant: the engine's preloader
CHANGES["teleport+llc"] = (_L1_PRELOADS, CHANGES["llc"][0], CHANGES["llc"][2], CHANGES["teleport"][4])
CHANGES["teleport+ipndp"] = (_L1_PRELOADS, CHANGES["ipndp"][0], CHANGES["ipndp"][2])


def derived(rows: Metrics) -> Metrics:
    """Totals the vocabulary names that no single statistic holds (link and interconnect bytes)."""
    out = dict(rows)
    out.setdefault("link.bytes", _m(rows, "link.tx_bytes") + _m(rows, "link.rx_bytes"))
    out.setdefault("icnt.bytes", _m(rows, "icnt.request.bytes") + _m(rows, "icnt.reply.bytes"))
    return out


def changes(key: str, base: Metrics, mech: Metrics) -> list[Change]:
    """What the mechanism of row ``key`` changed, in the common vocabulary (quantities its run lacks are left
    out)."""
    b, m = derived(base), derived(mech)
    out = []
    for name, metric, unit, compare in CHANGES.get(key, ()):
        if metric in m:
            out.append(Change(name, b.get(metric) if compare else None, m[metric], unit))
    declined = {k: v for k, v in m.items() if k.startswith(DECLINED) and v > 0}
    if declined:  # why the hardware kept instances at the cores: the most frequent reason
        k = max(declined, key=lambda n: declined[n])
        out.insert(1, Change(f"declined ({DECLINE_REASONS.get(k[len(DECLINED):], k[len(DECLINED):])})", None,
                             declined[k], "instances"))
    return out


DECLINED = "offload.chains.declined_"
DECLINE_REASONS = {"not_one_llc": "its operands live at different LLC slices", "l1_hit": "its loads hit in L1",
                   "oq_full": "the offload queue was full",
                   "no_emn": "its operands' paths share no meet node but the issuing core",
                   "trace": "the recorded instance does not fit the chain"}
