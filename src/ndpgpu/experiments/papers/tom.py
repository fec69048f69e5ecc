"""TOM (seed 000): transparent offloading and mapping, reproduced on TOM's ten workloads.

``ndpgpu reproduce tom [--scale small]``: the baseline GPU (68 SMs, ``tom-baseline``) against the NDP system
(64 + 4 stack SMs, ``tom-ndp``) under no-ctrl / ctrl x bmap / tmap, the ctrl + oracle-mapping and ideal
configurations, and the sensitivity studies (stack-SM warp capacity, internal bandwidth, cross-stack link
bandwidth). Every configuration is a session policy ``tom:<control>+<mapping>`` (``mechanisms/tom/policy``);
every machine maps addresses with the G14 baseline mapping unless the policy remaps.
"""

from __future__ import annotations

import math
from typing import Any

from ...mechanisms.tom.cost import bw_per_warp
from ...workloads.tom import TOM_WORKLOADS
from ..plots import BarChart
from ..points import Point, SweepSpec
from ..report import Check, Reproduction, register_reproduction
from ..results import ResultSet, Table, geomean
from ._tom_why import TomExplainer

WORKLOADS = tuple(TOM_WORKLOADS.values())
ABBREV = {v: k for k, v in TOM_WORKLOADS.items()}
BASE = ("tom-baseline", "tom:gpu+bmap", {})
CONFIGS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "baseline": BASE,
    "no-ctrl+bmap": ("tom-ndp", "tom:always+bmap", {}),
    "no-ctrl+tmap": ("tom-ndp", "tom:always+tmap", {}),
    "ctrl+bmap": ("tom-ndp", "tom:ctrl+bmap", {}),
    "ctrl+tmap": ("tom-ndp", "tom:ctrl+tmap", {}),
    "ctrl+oracle": ("tom-ndp", "tom:ctrl+oracle", {}),
    # the paper's ideal: no offload overhead, every offloaded access local, no control or capacity limit (the
    # stack SMs take the engine's most warps); the GPU's data keeps the baseline mapping
    "ideal": ("tom-ndp", "tom:ideal+bmap", {"stacks.sm_max_warps": 256}),
    # the same free, local offloading within the hardware's limits (48 warps per stack SM, the pending limit):
    # the paper's words for its ideal ("no overhead for offloading ... offloaded code and data are co-located")
    # name no limit that is lifted; shown beside the limit-free ideal, which the check uses
    "ideal-limited": ("tom-ndp", "tom:ideal-limited+bmap", {}),
    "ctrl+tmap 2x-warp": ("tom-ndp", "tom:ctrl+tmap", {"stacks.sm_max_warps": 96}),
    "ctrl+tmap 4x-warp": ("tom-ndp", "tom:ctrl+tmap", {"stacks.sm_max_warps": 192}),
    "ctrl+tmap 1x-internal-BW": ("tom-ndp", "tom:ctrl+tmap", {"stacks.tsvs_per_vault": 32, "dram.bus_bits": 32}),
    "ctrl+tmap cross 0.125": ("tom-ndp", "tom:ctrl+tmap", {"links.cross_stack.gbs": 5.0}),
    "ctrl+tmap cross 0.25": ("tom-ndp", "tom:ctrl+tmap", {"links.cross_stack.gbs": 10.0}),
    "ctrl+tmap cross 1": ("tom-ndp", "tom:ctrl+tmap", {"links.cross_stack.gbs": 40.0}),
    # section 4.4.2's coherence steps all left out: what they cost ("only 1.2%" on average in the paper)
    "ctrl+tmap no-coherence": ("tom-ndp", "tom:ctrl+tmap,coherence=0", {}),
}
# TOM runs each application "to completion or for 2 billion instructions, whichever comes first", every
# configuration compared at the same point (Sec. 5): at `paper` scale every point stops timing there (thread
# instructions in the paper; the cap counts warp instructions, 2 B / 32 at full warps)
PAPER_WINDOW = {"sim.max_warp_instructions": 2_000_000_000 // 32}
MAIN = ("no-ctrl+bmap", "no-ctrl+tmap", "ctrl+bmap", "ctrl+tmap", "ideal")
STACK_SMS = 4  # tom-ndp: one SM in each of the 4 stacks

CYCLES = "kernel.cycles"
TRAFFIC = {"TX": "link.tx_bytes", "RX": "link.rx_bytes", "mem-mem": "cross_link.bytes"}
SHARE = "offload.blocks.instruction_share"
LINK_UTIL = {"TX": "link.tx_utilisation", "RX": "link.rx_utilisation"}  # busy time / kernel time, 4 links
OCCUPANCY = "core.occupancy"  # resident warps / (SMs x 48), averaged over the kernel's cycles
SELECTION = 0.5  # TOM's workloads use more than half of the off-chip link bandwidth on the baseline
ENERGY_PARTS = {  # the power model's components (docs/power.md) in TOM's groups, dynamic + static energy
    "SMs": ("core", "stack_sms", "regfile", "l1d", "smem", "offload"),
    "links": ("links", "cross_links"),
    "DRAM": ("dram", "tsv"),
    "NoC+L2": ("noc", "l2"),
}

def kernel_energy(metrics: dict[str, tuple[Any, str]], component: str | None = None) -> float:
    """Energy over the kernels' time alone, in pJ: all of the dynamic energy (every event happens in a kernel)
    plus the static energy's kernel share, ``kernel.time / application.time``. TOM measures energy with
    GPUWattch over the simulated kernels (section 5.1), while the power model's static energy also runs
    through the host copies (docs/power.md); at `paper` scale the copies are the whole program's and the
    kernels stop after the instruction window, so the application's time would mostly be copy time.
    ``component`` None: the total."""
    def get(name: str) -> float:
        return float(metrics.get(name, (0.0, ""))[0] or 0.0)

    kernel, application = get("kernel.time"), get("application.time")
    share = kernel / application if application > 0 else 1.0
    key = f"energy.{component}" if component else "energy"
    return get(f"{key}.dynamic") + share * get(f"{key}.static")


# The paper's numbers (TOM section 6; "[derived]" values are the extraction's, shown for context)
PAPER = {
    "speedup_ctrl_tmap_mean": 1.30, "speedup_ctrl_tmap_max": 1.76, "speedup_no_ctrl_tmap_mean": 0.97,
    "speedup_no_ctrl_bmap_mean": 0.93, "speedup_ideal_mean": 1.58, "colocation_baseline": 0.38,
    "colocation_learned": 0.72, "colocation_oracle": 0.75, "traffic_no_ctrl_tmap": 0.62, "traffic_ctrl_tmap": 0.87,
    "energy_ctrl_tmap": 0.89, "energy_share_sms": 0.77, "energy_share_links": 0.07, "share_no_ctrl": 0.464,
    "share_ctrl": 0.157,
    "cross_ratio_speedups": {0.125: 1.17, 0.25: 1.29, 0.5: 1.30, 1.0: 1.31}, "internal_1x_speedup": 1.28,
    "warp_4x_speedup": 1.29,
    "coherence_overhead": 0.012,  # section 4.4.2: "the average performance overhead ... is only 1.2%"
}
COHERENCE_TOLERANCE = 0.02  # the overhead check: within 2 percentage points of the paper's 1.2%
PAPER_PER_WORKLOAD = {  # section 6's per-workload statements (speedup over the baseline)
    "ctrl+tmap": {"kmeans": 1.39, "reduction": 1.76, "bfs_rodinia": 1.21, "libor": 1.52},
    "ctrl+bmap": {"kmeans": 1.03, "reduction": 1.51, "bfs_rodinia": 1.29},
    "no-ctrl+tmap": {"libor": 0.36},
    "ctrl+oracle": {"bfs_rodinia": 1.64},
}


@register_reproduction
class TomReproduction(Reproduction):
    name = "tom"
    title = "TOM: transparent offloading and mapping (GPU + 4 memory stacks with logic-layer SMs)"
    paper = ("K. Hsieh et al., Transparent Offloading and Mapping (TOM): Enabling Programmer-Transparent "
             "Near-Data Processing in GPU Systems, ISCA 2016 (seed 000)")
    default_scale = "small"
    paper_numbers = {k: v for k, v in PAPER.items() if not isinstance(v, dict)}
    key_metrics = (CYCLES, "kernel.ipc_thread", *TRAFFIC.values(), *LINK_UTIL.values(), OCCUPANCY, SHARE,
                   "energy.total", "offload.blocks.offloaded", "offload.blocks.instances", "tom.colocation.baseline",
                   "tom.colocation.learned", "tom.colocation.oracle", "tom.learning.penalty_cycles")
    differences = (
        "Inputs are the workloads' `small` scale by default (the paper runs up to 2 B instructions on inputs it does "
        "not give); at `paper` scale every point stops timing after the paper's 2 B instructions (62.5 M warp "
        "instructions), every configuration at the same point as in the paper; `small` inputs are "
        "sized so that the baseline's links are busy more than half of the kernel time, TOM's selection (the link "
        "table). The candidates nvcc 13's PTX yields (docs/tom.md) are mostly loops, and an offloaded instance runs "
        "its whole loop on a stack SM, where each load pays a vault's latency in turn: the round trips in the last "
        "table run to tens of thousands of cycles. A stack SM holds 48 warps (192 offloaded blocks in flight over "
        "the four stacks, against the GPU's 3,072 warps), so the stack SMs stay latency-bound (their issue rate in "
        "the last table is far below 2) and a workload waits for its slowest offloaded blocks. TOM's control "
        "keeps ctrl near the baseline; no-ctrl and the ideal bound (every allowed instance offloaded, free and "
        "local, no pending limit, 256 warps per stack SM) put more of the work behind the four stack SMs. Traffic: "
        "the offload packets (live-in registers of 32 lanes, acknowledgements) and the stack SMs' accesses to "
        "other stacks (mem-mem) outweigh the link traffic they save, and stack SMs have no L2. LIB's Fig. 4 loops "
        "have a static trip count of 40 in this PTX (unconditional candidates). The learning phase's PCIe cost is "
        "an estimate (`tom.learning.penalty_cycles`), kept out of the speedups and shown in the 'incl. learning' "
        "column. Energy comes from the power model (docs/power.md): TOM's cited link and DRAM prices, "
        "GPUWattch-style SM, cache and NoC prices derived from published 40-nm energies or assumed, and static power "
        "per component (SMs, L2 slices, vaults, NoC), counted over the kernels' time as GPUWattch counts it (the "
        "host copies' share of the static energy left out). No parameter was fitted to a paper "
        "number. See docs/tom.md, 'Results at small scale'."
    )

    paper_window = PAPER_WINDOW

    def spec(self, scale: str) -> SweepSpec:
        """Every configuration, sensitivity studies included, at every scale (at ``paper`` about 1.5 hours of
        2 workers; the store resumes an interrupted run)."""
        names = list(CONFIGS)
        window = self.window(scale)
        points = [Point(workload=w, scale=scale, machine=CONFIGS[c][0], policy=CONFIGS[c][1],
                        overrides={**CONFIGS[c][2], **window}) for w in WORKLOADS for c in names]
        return SweepSpec(name=f"tom-{scale}", description="TOM (seed 000) configurations on its ten workloads",
                         points=points)

    # ---------------------------------------------------------------------------------------------- helpers
    def _config(self, results: ResultSet, config: str) -> tuple[str, str, dict[str, Any]]:
        """A configuration's machine, policy and overrides as its points ran (with the paper's instruction
        window at `paper` scale)."""
        machine, policy, over = CONFIGS[config]
        return machine, policy, {**over, **self.window_of(results)}

    def _ran(self, results: ResultSet) -> list[str]:
        """The configurations with at least one point in ``results``."""
        return [c for c in CONFIGS if any((r.point.machine, r.point.policy, r.point.overrides)
                                          == self._config(results, c) for r in results.results)]

    def _values(self, results: ResultSet, config: str, metric: str) -> dict[str, float | None]:
        machine, policy, over = self._config(results, config)
        return {w: results.value(w, machine, metric, policy=policy, overrides=over) for w in results.workloads}

    def _speedup(self, results: ResultSet, config: str) -> dict[str, float | None]:
        base, ours = self._values(results, "baseline", CYCLES), self._values(results, config, CYCLES)
        return {w: (base[w] / ours[w] if base[w] and ours[w] else None) for w in base}

    def _traffic(self, results: ResultSet, config: str) -> dict[str, dict[str, float | None]]:
        """Per channel and workload, this configuration's link bytes over the baseline's total link bytes."""
        base = {w: sum(v or 0.0 for v in (self._values(results, "baseline", m)[w] for m in TRAFFIC.values()))
                for w in results.workloads}
        out: dict[str, dict[str, float | None]] = {}
        for ch, metric in TRAFFIC.items():
            vals = self._values(results, config, metric)
            out[ch] = {w: ((vals[w] or 0.0) / base[w] if base[w] else None) for w in results.workloads}
        return out

    def _total_traffic(self, results: ResultSet, config: str) -> dict[str, float | None]:
        parts = self._traffic(results, config)
        return {w: (sum(parts[c][w] or 0.0 for c in parts) if parts["TX"][w] is not None else None)
                for w in results.workloads}

    def _kernel_energies(self, results: ResultSet, config: str) -> dict[str, float | None]:
        """Per workload, the energy over the kernels' time (`kernel_energy`)."""
        machine, policy, over = self._config(results, config)
        out: dict[str, float | None] = {}
        for w in results.workloads:
            r = results.find(w, machine, policy=policy, overrides=over)
            out[w] = kernel_energy(r.metrics) if r is not None and r.status == "ok" else None
        return out

    def _energy(self, results: ResultSet, config: str) -> dict[str, float | None]:
        base, ours = self._kernel_energies(results, "baseline"), self._kernel_energies(results, config)
        return {w: (ours[w] / base[w] if base[w] and ours[w] else None) for w in base}

    def _energy_parts(self, results: ResultSet, config: str, w: str) -> dict[str, float]:
        machine, policy, over = self._config(results, config)
        r = results.find(w, machine, policy=policy, overrides=over)
        parts = {k: 0.0 for k in (*ENERGY_PARTS, "other")}
        if r is None or r.status != "ok":
            return parts
        for part, components in ENERGY_PARTS.items():
            parts[part] = sum(kernel_energy(r.metrics, c) for c in components)
        parts["other"] = kernel_energy(r.metrics) - sum(parts.values())
        return parts

    def _energy_parts_normalised(self, results: ResultSet, config: str) -> dict[str, dict[str, float | None]]:
        """Per workload, this configuration's energy by component over the baseline's total energy."""
        base = self._kernel_energies(results, "baseline")
        machine, policy, over = self._config(results, config)
        out: dict[str, dict[str, float | None]] = {}
        for w in results.workloads:
            r = results.find(w, machine, policy=policy, overrides=over)
            parts = self._energy_parts(results, config, w)
            ok = base[w] and r is not None and r.status == "ok"
            out[w] = {k: (v / base[w] if ok else None) for k, v in parts.items()}
        return out

    def _energy_split(self, results: ResultSet, config: str) -> dict[str, float | None]:
        """Energy by component summed over the workloads, over the baseline's total energy."""
        totals = {k: 0.0 for k in (*ENERGY_PARTS, "other")}
        base = self._kernel_energies(results, "baseline")
        base_total = 0.0
        for w in results.workloads:
            p = self._energy_parts(results, config, w)
            base_total += base[w] or 0.0
            for k in totals:
                totals[k] += p[k]
        return {k: (v / base_total if base_total else None) for k, v in totals.items()}

    @staticmethod
    def _mean(values: dict[str, float | None]) -> float | None:
        return geomean(values.values())

    @staticmethod
    def _amean(values: dict[str, float | None]) -> float | None:
        vals = [v for v in values.values() if v is not None and math.isfinite(v)]
        return sum(vals) / len(vals) if vals else None

    # ---------------------------------------------------------------------------------------------- report
    def figures(self, results: ResultSet) -> list[BarChart]:
        cats = results.workloads
        names = [ABBREV.get(w, w) for w in cats]
        sp = {c: self._speedup(results, c) for c in MAIN}
        figs = [BarChart(
            name="speedup", title="Speedup over the 68-SM baseline (cycle ratio)", ylabel="speedup (x)",
            categories=names, series={c: [sp[c][w] for w in cats] for c in MAIN},
            paper={c: [PAPER_PER_WORKLOAD.get(c, {}).get(w) for w in cats] for c in MAIN},
            paper_mean={"no-ctrl+bmap": PAPER["speedup_no_ctrl_bmap_mean"],
                        "no-ctrl+tmap": PAPER["speedup_no_ctrl_tmap_mean"],
                        "ctrl+tmap": PAPER["speedup_ctrl_tmap_mean"], "ideal": PAPER["speedup_ideal_mean"]},
            reference_line=1.0, caption="TOM Fig. 8: markers are the paper's per-workload values where its text "
                                        "gives them, and its averages. TOM = ctrl+tmap.")]
        traffic = {cfg: self._traffic(results, cfg) for cfg in ("baseline", "no-ctrl+tmap", "ctrl+tmap")}
        figs.append(BarChart(
            name="traffic", title="Off-chip traffic by channel, normalised to the baseline's total",
            ylabel="fraction of the baseline's traffic", categories=names, series={}, mean=None,
            reference_line=1.0,
            stacks={cfg: {ch: [parts[ch][w] for w in cats] for ch in parts} for cfg, parts in traffic.items()},
            caption="TOM Fig. 9: per workload, the baseline, no-ctrl+tmap and ctrl+tmap (TOM), each split into "
                    "GPU->stack (TX), stack->GPU (RX) and stack<->stack bytes, over the baseline's total link bytes."))
        figs.append(BarChart(
            name="energy", title="Energy normalised to the baseline", ylabel="energy (x)", categories=names,
            series={c: [self._energy(results, c)[w] for w in cats] for c in ("no-ctrl+bmap", "ctrl+bmap", "ctrl+tmap")},
            reference_line=1.0, caption="TOM Fig. 10's totals: each configuration's energy over the baseline's."))
        energy_cfgs = ("baseline", "no-ctrl+bmap", "ctrl+bmap", "ctrl+tmap")
        per_workload = {c: self._energy_parts_normalised(results, c) for c in energy_cfgs}
        figs.append(BarChart(
            name="energy_stacked", title="Energy by component, normalised to the baseline's total",
            ylabel="energy (x)", categories=names, series={}, mean=None, reference_line=1.0,
            stacks={c: {k: [per_workload[c][w][k] for w in cats] for k in (*ENERGY_PARTS, "other")}
                    for c in energy_cfgs},
            caption="TOM Fig. 10: per workload and configuration, each component's dynamic and static energy "
                    "(docs/power.md) over the baseline's total."))
        parts = {c: self._energy_split(results, c) for c in energy_cfgs}
        figs.append(BarChart(
            name="energy_components", title="Energy by component (summed over workloads, / baseline total)",
            ylabel="fraction of the baseline's energy", categories=list(parts), series={}, mean=None,
            reference_line=1.0,
            stacks={"all workloads": {k: [parts[c][k] for c in parts] for k in (*ENERGY_PARTS, "other")}},
            caption="TOM Fig. 10 over all workloads: each component's dynamic and static energy (docs/power.md)."))
        figs.append(BarChart(
            name="offloaded_share", title="Offloaded share of thread-instructions", ylabel="fraction",
            categories=names, series={c: [self._values(results, c, SHARE)[w] for w in cats]
                                      for c in ("no-ctrl+tmap", "ctrl+tmap")},
            mean=None, caption="Paper: 46.4% (no-ctrl) and 15.7% (ctrl) on average."))
        figs.append(BarChart(
            name="colocation", title="Probability that a candidate instance touches one stack", ylabel="probability",
            categories=names, series={k: [self._values(results, "ctrl+tmap", f"tom.colocation.{k}")[w] for w in cats]
                                      for k in ("baseline", "learned", "learned_0.005", "learned_0.01", "oracle")},
            mean=None, caption="TOM Fig. 6: 38% (baseline mapping), 72% (learned from the first 0.1% of the "
                               "instances; also 0.5% and 1%), 75% (best 2 bits)."))
        return figs

    def _link_table(self, results: ResultSet) -> Table:
        """Each workload's baseline link utilisation (TX, RX, the busier) and warp occupancy, flagging the
        workloads below TOM's selection criterion."""
        util = {ch: self._values(results, "baseline", m) for ch, m in LINK_UTIL.items()}
        occ = self._values(results, "baseline", OCCUPANCY)
        rows = []
        for w in results.workloads:
            tx, rx = util["TX"][w], util["RX"][w]
            busier = max(tx, rx) if tx is not None and rx is not None else None
            flag = "" if busier is None else (f"below {SELECTION:.0%}" if busier < SELECTION else "ok")
            rows.append([ABBREV.get(w, w), tx, rx, busier, occ[w], flag])
        return Table("baseline_links", "Baseline link utilisation and GPU warp occupancy per workload",
                     ["workload", "TX utilisation", "RX utilisation", "busier direction", "warp occupancy",
                      f"selection (>= {SELECTION:.0%})"], rows,
                     note="On tom-baseline: each direction's busy time over the kernel time, over the four GPU-stack "
                          "links (link.tx_utilisation, link.rx_utilisation); warp occupancy is the resident warps "
                          "over the 68 SMs' 48 warp slots, averaged over the kernel's cycles (core.occupancy). TOM "
                          "selects workloads that use more than half of the off-chip link bandwidth; a workload "
                          "whose busier direction is below that is flagged.")

    def tables(self, results: ResultSet) -> list[Table]:
        cats = results.workloads
        sp = {c: self._speedup(results, c) for c in self._ran(results) if c != "baseline"}
        # TOM with the learning phase's PCIe estimate added to its cycles (kept out of the other columns)
        base, tom = self._values(results, "baseline", CYCLES), self._values(results, "ctrl+tmap", CYCLES)
        pen = self._values(results, "ctrl+tmap", "tom.learning.penalty_cycles")
        sp["ctrl+tmap incl. learning"] = {w: (base[w] / (tom[w] + (pen[w] or 0.0)) if base[w] and tom[w] else None)
                                          for w in cats}
        rows = [[ABBREV.get(w, w), *[sp[c][w] for c in sp]] for w in cats]
        rows.append(["GMEAN", *[self._mean(sp[c]) for c in sp]])
        out = [Table("speedups", "Speedup over the baseline per configuration", ["workload", *sp], rows),
               self._link_table(results)]
        trows = []
        for c in ("no-ctrl+bmap", "no-ctrl+tmap", "ctrl+bmap", "ctrl+tmap"):
            parts = self._traffic(results, c)
            tot = self._total_traffic(results, c)
            trows.append([c, *[self._amean(parts[ch]) for ch in parts], self._amean(tot)])
        out.append(Table("traffic", "Off-chip traffic by channel, normalised to the baseline's total (mean)",
                         ["config", *TRAFFIC, "total"], trows))
        erows = []
        for c in ("baseline", "no-ctrl+bmap", "ctrl+bmap", "ctrl+tmap"):
            split = self._energy_split(results, c)
            erows.append([c, *[split[k] for k in (*ENERGY_PARTS, "other")]])
        out.append(Table("energy", "Energy by component over the baseline's total (summed over workloads)",
                         ["config", *ENERGY_PARTS, "other"], erows,
                         note="Over the kernels' time, as GPUWattch counts it (the static energy's share of the "
                              "host copies left out). The power model's components (docs/power.md), each with its "
                              "static energy as in GPUWattch: SMs are the cores (GPU and stack SMs: issue, "
                              "lanes, clock, leakage), register files, L1, shared memory and TOM's offload units; "
                              "other is the static "
                              "power of the rest of the chip (host interface). The paper's baseline split is SMs "
                              "77%, links 7%, DRAM+NoC 16%."))
        cols = ("tom.candidates", "tom.instances", "tom.max_live_regs", "offload.blocks.offloaded",
                "offload.blocks.round_trip", "tom.mapping.learned_start_bit", "tom.mapping.oracle_start_bit",
                "tom.mapping.remapped_bytes", "tom.colocation.applied", "tom.learning.penalty_cycles")
        vals = {m: self._values(results, "ctrl+tmap", m) for m in (*cols, "offload.blocks.warp_instructions", CYCLES)}
        crow = []
        for w in cats:
            winst, cyc = vals["offload.blocks.warp_instructions"][w], vals[CYCLES][w]
            load = winst / (STACK_SMS * cyc) if winst is not None and cyc else None
            crow.append([ABBREV.get(w, w), *[vals[m][w] for m in cols[:5]], load, *[vals[m][w] for m in cols[5:]]])
        out.append(Table("candidates", "Candidates, instances, offloads and mappings (ctrl+tmap)",
                         ["workload", "candidates", "instances", "max live regs", "offloaded", "round trip (cycles)",
                          "stack-SM IPC (warp-instr/cycle per stack SM)", "learned bit", "oracle bit",
                          "remapped bytes", "co-location as applied", "learning penalty (cycles)"], crow,
                         note="A stack SM issues at most 2 warp-instructions per cycle (2 sub-cores, tom-ndp). "
                              "The learned mapping applies only to the allocations the learning instances touched "
                              "(section 4.3, steps 3 and 5; their bytes are 'remapped bytes'); 'co-location as "
                              "applied' is the share of all instances that touch one stack with the other "
                              "allocations on the baseline mapping."))
        return out

    def checks(self, results: ResultSet) -> list[Check]:
        P = PAPER
        configs_ran = self._ran(results)
        sp = {c: self._speedup(results, c) for c in CONFIGS if c != "baseline"}
        mean = {c: self._mean(v) for c, v in sp.items()}
        tom = [v for v in sp["ctrl+tmap"].values() if v is not None]
        col = {k: self._amean(self._values(results, "ctrl+tmap", f"tom.colocation.{k}"))
               for k in ("baseline", "learned", "oracle")}
        one, four = bw_per_warp(5, 0, 1, 1), bw_per_warp(5, 0, 4, 4)
        ran = len(results.results) - len(results.failed)
        checks = [
            Check("every point ran (functional outputs checked against NumPy)", "all",
                  f"{ran} of {len(results.results)}", not results.failed, criterion="no failed point"),
            Check.close("cost model, LIBOR portfolio_b, 1 iteration: BW_TX + BW_RX", 110.25, sum(one), 0.0),
            Check.close("cost model, LIBOR portfolio_b, 4 iterations: BW_TX + BW_RX", -39.0, sum(four), 0.0),
            Check.below("at most ~20 candidates per kernel",
                        max((v or 0.0) for v in self._values(results, "ctrl+tmap", "tom.max_candidates_per_kernel")
                            .values()) if results.workloads else None, 21, paper="<= 20"),
            Check.below("at most ~26 live registers per candidate",
                        max((v or 0.0) for v in self._values(results, "ctrl+tmap", "tom.max_live_regs").values())
                        if results.workloads else None, 33, paper="26 (cap 32, G8)"),
            Check.above("co-location: learned mapping above the baseline mapping (mean)",
                        (col["learned"] - col["baseline"]) if None not in col.values() else None, 0.0,
                        paper=f"{P['colocation_learned']} vs {P['colocation_baseline']}"),
            Check("co-location: learned <= oracle (mean)", P["colocation_oracle"], col["oracle"],
                  col["learned"] is not None and col["oracle"] is not None and col["learned"] <= col["oracle"] + 1e-12,
                  criterion="learned <= oracle"),
            Check.close("co-location of the baseline mapping (mean)", P["colocation_baseline"], col["baseline"], 0.5),
            Check.close("co-location of the learned mapping (mean)", P["colocation_learned"], col["learned"], 0.3),
            Check.close("TOM (ctrl+tmap) mean speedup", P["speedup_ctrl_tmap_mean"], mean["ctrl+tmap"], 0.15),
            Check.close("TOM (ctrl+tmap) best speedup", P["speedup_ctrl_tmap_max"], max(tom) if tom else None, 0.3),
            Check.above("TOM slows no workload (its smallest speedup)", min(tom) if tom else None, 0.99,
                        paper="every workload speeds up"),
            Check.above("ctrl+tmap above ctrl+bmap (mean speedups)",
                        (mean["ctrl+tmap"] - mean["ctrl+bmap"]) if mean["ctrl+tmap"] and mean["ctrl+bmap"] else None,
                        0.0, paper="+10 points"),
            Check.below("no-ctrl (tmap) averages below the baseline", mean["no-ctrl+tmap"], 1.0,
                        paper=P["speedup_no_ctrl_tmap_mean"]),
            Check.below("no-ctrl (bmap) averages below the baseline", mean["no-ctrl+bmap"], 1.0,
                        paper=P["speedup_no_ctrl_bmap_mean"]),
            Check.above("ideal NDP above TOM (mean speedups)",
                        (mean["ideal"] - mean["ctrl+tmap"]) if mean["ideal"] and mean["ctrl+tmap"] else None, 0.0,
                        paper=f"{P['speedup_ideal_mean']} vs {P['speedup_ctrl_tmap_mean']}"),
        ]
        share_nc = self._amean(self._values(results, "no-ctrl+tmap", SHARE))
        share_c = self._amean(self._values(results, "ctrl+tmap", SHARE))
        checks.append(Check("control offloads less than no-ctrl (mean instruction share)",
                            f"{P['share_ctrl']} < {P['share_no_ctrl']}",
                            f"{share_c:.3f} < {share_nc:.3f}" if share_c is not None and share_nc is not None else None,
                            share_c is not None and share_nc is not None and share_c < share_nc,
                            criterion="ctrl < no-ctrl"))
        t_nc, t_c = (self._amean(self._total_traffic(results, c)) for c in ("no-ctrl+tmap", "ctrl+tmap"))
        checks += [
            Check.below("no-ctrl+tmap reduces off-chip traffic (mean, fraction of baseline)", t_nc, 1.0,
                        paper=P["traffic_no_ctrl_tmap"]),
            Check.below("ctrl+tmap reduces off-chip traffic (mean, fraction of baseline)", t_c, 1.0,
                        paper=P["traffic_ctrl_tmap"]),
            Check.below("ctrl+tmap reduces energy (mean, fraction of baseline)",
                        self._amean(self._energy(results, "ctrl+tmap")), 1.0, paper=P["energy_ctrl_tmap"]),
        ]
        base_split = self._energy_split(results, "baseline")
        checks += [  # the published per-component split: the power model's validation point (docs/power.md)
            Check.close("baseline energy share of the SMs", P["energy_share_sms"], base_split["SMs"], 0.15),
            Check.close("baseline energy share of the links", P["energy_share_links"], base_split["links"], 0.5),
        ]
        if "ctrl+tmap cross 1" in configs_ran:  # the sensitivity studies
            cross = [mean.get(f"ctrl+tmap cross {r}") for r in ("0.125", "0.25")] + [mean["ctrl+tmap"],
                                                                                     mean.get("ctrl+tmap cross 1")]
            mono = None not in cross and all(a <= b + 1e-9 for a, b in zip(cross, cross[1:], strict=False))
            checks.append(Check("speedup grows with cross-stack bandwidth (0.125, 0.25, 0.5, 1)",
                                "1.17 / 1.29 / 1.30 / 1.31",
                                " / ".join(f"{v:.3f}" for v in cross) if None not in cross else None, bool(mono),
                                criterion="monotone"))
        if "ctrl+tmap no-coherence" in configs_ran:
            free, kept = mean.get("ctrl+tmap no-coherence"), mean["ctrl+tmap"]
            cost = free / kept - 1 if free and kept else None
            checks.append(Check("coherence overhead (ratio of mean speedups without and with it, - 1)",
                                P["coherence_overhead"], cost,
                                cost is not None and abs(cost - P["coherence_overhead"]) <= COHERENCE_TOLERANCE,
                                criterion=f"within {COHERENCE_TOLERANCE * 100:g} points of the paper"))
        if "ctrl+tmap 1x-internal-BW" in configs_ran:
            i1, i2 = mean.get("ctrl+tmap 1x-internal-BW"), mean["ctrl+tmap"]
            checks.append(Check.close("1x internal bandwidth within a few % of 2x (ratio of mean speedups)",
                                      P["internal_1x_speedup"] / P["speedup_ctrl_tmap_mean"],
                                      i1 / i2 if i1 and i2 else None, 0.05))
        explain = TomExplainer(self, results, ABBREV)
        for c in checks:
            if not c.passed:
                c.why = explain.why(c.name)
        return checks
