"""What a TOM run's statistics say about each check that fails: a sentence or two per check, computed from the
points (speedups, offload counters, co-location, traffic by channel, power), for report.md and report.json.

Every number quoted is read from the results, so a report on another machine, input or configuration explains
its own failures; nothing here is written for one particular run. Speedups are the checks' (the tmap
configurations' with the learning phase's PCI-E latency charged) and means are arithmetic, as the checks'.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..results import ResultSet, format_value

if TYPE_CHECKING:
    from .tom import TomReproduction

Values = dict[str, float | None]


def _known(values: Values) -> dict[str, float]:
    return {w: v for w, v in values.items() if v is not None and math.isfinite(v)}


def _f(value: float | None, digits: int = 3) -> str:
    return format_value(value, digits)


def mean(values) -> float | None:
    """The checks' average (TOM's "on average"): the arithmetic mean; None when there is no value."""
    vals = [v for v in values if v is not None and math.isfinite(v)]
    return sum(vals) / len(vals) if vals else None


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.2g}%" if abs(value) < 0.1 else f"{100 * value:.0f}%"


class TomExplainer:
    """The explanations of one run's failing checks (``why(check_name)``; empty when nothing is known)."""

    def __init__(self, repro: TomReproduction, results: ResultSet, abbrev: dict[str, str]) -> None:
        self.repro, self.results, self.abbrev = repro, results, abbrev
        self.ran = set(repro._ran(results))
        self._rules: dict[str, Callable[[], str]] = {
            "TOM (ctrl+tmap) mean speedup": lambda: self.slowed(every=True),
            "TOM slows no workload (its smallest speedup)": lambda: self.slowed(every=False),
            "ctrl+tmap above ctrl+bmap (mean speedups)": self.mapping_gain,
            "co-location of the learned mapping (mean)": self.colocation,
            "ideal NDP above TOM (mean speedups)": self.ideal,
            "ctrl+tmap reduces off-chip traffic (mean, fraction of baseline)": lambda: self.traffic("ctrl+tmap"),
            "no-ctrl+tmap reduces off-chip traffic (mean, fraction of baseline)": lambda: self.traffic("no-ctrl+tmap"),
            "ctrl+tmap reduces energy (mean, fraction of baseline)": self.energy,
            "baseline energy share of the links": self.link_share,
        }

    def why(self, check: str) -> str:
        rule = self._rules.get(check)
        if rule is None:
            return ""
        try:
            return rule()
        except (KeyError, TypeError, ValueError, ZeroDivisionError):  # a partial run: some points missing
            return ""

    # -------------------------------------------------------------------------------------------- helpers
    def name(self, w: str) -> str:
        return self.abbrev.get(w, w)

    def value(self, config: str, metric: str) -> Values:
        return self.repro._values(self.results, config, metric) if config in self.ran else {}

    def speedup(self, config: str) -> dict[str, float]:
        """The checks' speedups (tmap: the learning phase charged). Where no charge is stored the check itself
        says so and is not explained here; called directly, these are then the kernel-cycle speedups."""
        if config not in self.ran:
            return {}
        charged, missing = self.repro._charged_speedup(self.results, config)
        return _known(self.repro._speedup(self.results, config) if missing else charged)

    def offload_line(self, config: str, w: str) -> str:
        """A workload's offload statistics under ``config``."""
        get = {m: self.value(config, m).get(w) for m in (
            "offload.blocks.offloaded", "offload.blocks.instances", "offload.blocks.round_trip",
            "offload.blocks.instruction_share", "tom.colocation.applied", "cross_link.bytes")}
        parts = [f"{_f(get['offload.blocks.offloaded'])} of {_f(get['offload.blocks.instances'])} instances "
                 f"offloaded, {_pct(get['offload.blocks.instruction_share'])} of the instructions"]
        if get["offload.blocks.round_trip"]:
            parts.append(f"{_f(get['offload.blocks.round_trip'])} cycles per offloaded block")
        if get["tom.colocation.applied"] is not None:
            parts.append(f"co-location as applied {_f(get['tom.colocation.applied'], 2)}")
        base_link = sum((self.value("baseline", m).get(w) or 0.0) for m in ("link.tx_bytes", "link.rx_bytes"))
        cross = (get["cross_link.bytes"] or 0.0) / base_link if base_link else 0.0
        if cross >= 0.01:
            parts.append(f"stack-to-stack bytes {_f(cross, 2)}x the baseline's link bytes")
        return ", ".join(parts)

    def gpu_sms(self) -> tuple[int | None, int | None]:
        """The GPU SMs of ctrl+tmap's machine and of the baseline's (from the machine presets and overrides)."""
        from ...timing import load_machine

        counts = []
        for config in ("ctrl+tmap", "baseline"):
            machine, _, over = self.repro._config(self.results, config)
            counts.append(load_machine(machine, over or None).num_sms)
        return counts[0], counts[1]

    # ----------------------------------------------------------------------------------------------- rules
    def slowed(self, every: bool) -> str:
        """The workloads TOM slows (``every``: all of them and the mean without the worst; else the worst)."""
        sp = self.speedup("ctrl+tmap")
        slow = sorted((v, w) for w, v in sp.items() if v < 1.0)
        if not slow:
            return ""
        worst = slow[0][1]
        if every:
            rest = mean([v for w, v in sp.items() if w != worst])
            share = self.value("ctrl+tmap", "offload.blocks.instruction_share")
            out = (f"{len(slow)} of {len(sp)} workloads run slower than the baseline: "
                   + ", ".join(f"{self.name(w)} {_f(v)} ({_pct(share.get(w))} of its instructions offloaded)"
                               for v, w in slow)
                   + f". Without {self.name(worst)} the mean is {_f(rest)}; the best are "
                   + ", ".join(f"{self.name(w)} {_f(v)}" for w, v in sorted(sp.items(), key=lambda x: -x[1])[:3])
                   + ".")
            gpu, base = self.gpu_sms()
            if gpu and base and gpu < base:
                out += (f" The NDP machine's GPU has {gpu} SMs against the baseline's {base} (ratio {_f(gpu / base)}): "
                        "a workload bound by the GPU's SMs that offloads little runs at about that ratio.")
            return out
        out = f"{self.name(worst)} {_f(slow[0][0])}: {self.offload_line('ctrl+tmap', worst)}."
        oracle = self.speedup("ctrl+oracle").get(worst)
        limited = self.speedup("ideal-limited").get(worst)
        if oracle is not None and limited is not None:
            out += (f" {self.name(worst)} with the oracle mapping: {_f(oracle)}; with offloading free and every "
                    f"access local (ideal-limited): {_f(limited)}"
                    + (", so the stack SMs themselves run its blocks slower than the GPU." if limited < 1 else "."))
        return out

    def mapping_gain(self) -> str:
        tmap, bmap = self.speedup("ctrl+tmap"), self.speedup("ctrl+bmap")
        delta = {w: tmap[w] - bmap[w] for w in tmap if w in bmap}
        if not delta:
            return ""
        order = sorted(delta, key=lambda w: delta[w])
        loser = order[0]
        bit = self.value("ctrl+tmap", "tom.mapping.learned_start_bit").get(loser)
        n_learn = self.value("ctrl+tmap", "tom.learning.instances").get(loser)
        n_all = self.value("ctrl+tmap", "tom.instances").get(loser)
        remapped = self.value("ctrl+tmap", "tom.mapping.remapped_bytes").get(loser)
        rest = [w for w in delta if w != loser]
        without = (mean([tmap[w] for w in rest]) or 0.0) - (mean([bmap[w] for w in rest]) or 0.0)
        gains = ", ".join(f"{self.name(w)} {100 * delta[w]:+.1f}" for w in reversed(order[-3:]))
        return (f"Per workload, tmap minus bmap in points: {self.name(loser)} {100 * delta[loser]:+.1f} (learned start "
                f"bit {_f(bit)} from {_f(n_learn)} of {_f(n_all)} instances, {_f(remapped)} bytes remapped); "
                f"largest gains {gains}. Without {self.name(loser)} tmap leads by {100 * without:+.1f} points.")

    def colocation(self) -> str:
        learned, oracle = self.value("ctrl+tmap", "tom.colocation.learned"), self.value("ctrl+tmap",
                                                                                        "tom.colocation.oracle")
        longer = {f: _known(self.value("ctrl+tmap", f"tom.colocation.learned_{f}")) for f in ("0.005", "0.01")}
        rows = [(w, v, oracle.get(w)) for w, v in _known(learned).items()]
        if not rows:
            return ""
        rows.sort(key=lambda r: (r[2] or 0) - r[1], reverse=True)
        lines = ", ".join(f"{self.name(w)} {_f(v, 2)} (oracle {_f(o, 2)})" for w, v, o in rows[:4])
        o_mean = sum((o or 0.0) for _, _, o in rows) / len(rows)
        out = (f"Even the oracle mapping (every instance seen) co-locates {_f(o_mean, 2)} on average; the learned "
               f"mapping falls furthest short on {lines}.")
        for f, vals in longer.items():
            if vals:
                out += f" Learning from {float(f):.1%} of the instances: {_f(sum(vals.values()) / len(vals), 2)}."
        return out

    def ideal(self) -> str:
        ideal, tom = self.speedup("ideal"), self.speedup("ctrl+tmap")
        below = sorted((ideal[w] - tom[w], w) for w in ideal if w in tom and ideal[w] < tom[w])
        if not below:
            return ""
        share = self.value("ideal", "offload.blocks.instruction_share")
        lines = "; ".join(f"{self.name(w)} {_f(ideal[w])} against {_f(tom[w])} ({_pct(share.get(w))} of the "
                          "instructions on the stack SMs)" for _, w in below[:3])
        worst = below[0][1]
        rest = [w for w in ideal if w in tom and w != worst]
        out = (f"The ideal (no control or pending limit, 48 warps per stack SM) is below TOM on {lines}. Without "
               f"{self.name(worst)}: ideal {_f(mean([ideal[w] for w in rest]))} against TOM "
               f"{_f(mean([tom[w] for w in rest]))}.")
        limited = self.speedup("ideal-limited")
        if limited:
            out += (f" Free and local within the hardware's limits (ideal-limited): "
                    f"{_f(mean(limited.values()))}.")
        return out

    def traffic(self, config: str) -> str:
        parts = self.repro._traffic(self.results, config) if config in self.ran else {}
        total = _known(self.repro._total_traffic(self.results, config)) if parts else {}
        up = sorted(((v, w) for w, v in total.items() if v > 1.0), reverse=True)
        if not up:
            return ""
        lines = "; ".join(f"{self.name(w)} {_f(v)} (TX {_f(parts['TX'][w], 2)}, RX {_f(parts['RX'][w], 2)}, "
                          f"stack-to-stack {_f(parts['mem-mem'][w], 2)})" for v, w in up[:3])
        rest = [v for w, v in total.items() if w not in {w for _, w in up}]
        out = f"{len(up)} of {len(total)} workloads move more bytes than the baseline; the most: {lines}."
        if rest:
            out += f" The other {len(rest)} average {_f(sum(rest) / len(rest))}."
        return out + " Requests carry each live-in register for 32 lanes, and stack SMs have no L2."

    def energy(self) -> str:
        e = _known(self.repro._energy(self.results, "ctrl+tmap"))
        sp = self.speedup("ctrl+tmap")
        up = sorted(((v, w) for w, v in e.items() if v > 1.0), reverse=True)
        if not up:
            return ""
        return ("Energy follows time, static power being most of it: " + "; ".join(
            f"{self.name(w)} {_f(v)} of the baseline's energy at {_f(sp.get(w))}x speed" for v, w in up[:3]) + ".")

    def link_share(self) -> str:
        static = self.value("baseline", "power.static")
        links = self.value("baseline", "energy.links.total")
        time = self.value("baseline", "kernel.time")
        watts = [links[w] / time[w] * 1e-3 for w in links if links.get(w) and time.get(w)]  # pJ / ns = mW
        s = _known(static)
        if not watts or not s:
            return ""
        return (f"The links draw {_f(sum(watts) / len(watts), 2)} W on average over the baseline's kernels "
                f"(TOM's 2 pJ/bit sent, 1.5 pJ/bit idle), while the chip's static power is "
                f"{_f(sum(s.values()) / len(s), 3)} W.")
