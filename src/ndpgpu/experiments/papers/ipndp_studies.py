"""Two studies of the IP-NDP reproduction on the paper's kernels, over the six pattern-aware kernels whose CTA
shape is free (``workloads/ipndp/variants.py``: Conv2D, Jacobi2D, ConvSep, DownSample, Concat, Denoising;
Dct8x8's and MatMul's steps are fixed 8x8 and 16x16 shared-memory blocks):

* the warp sweep (Fig. 10): IP-8 (PF + PACA) with 1, 2, 4, 8 and 16 warps per SM (CTAs of 32 x n threads);
  16 warps do not fit IP-8's 256 threads and 8,192 registers, so those points double both (32 registers per
  thread, as at 8 warps; the L1 stays 8 KB);
* the barrier ablation (Fig. 8): the kernels with and without the barrier per block step on IP-16 with 8 KB
  and with 32 KB L1s, on IP-8 (8 KB), and on IP-8 with perfect memory (``ipndp-ip8-pm``: every allocation in
  an L2 that always hits, the prefetcher on), where the barrier's cost is the cycle ratio.

Warp progress is the ``ipndp.progress`` measurement of the mechanism: the mean spread, among an SM's warps,
of the demand load transactions issued so far, as a fraction of one warp's transactions.
"""

from __future__ import annotations

from ...workloads.ipndp.pa16 import PA16
from ...workloads.ipndp.variants import FREE_SHAPE, NOBAR_FORMS, warp_form
from ..plots import BarChart
from ..points import Point
from ..report import Check
from ..results import ResultSet, Table, geomean

CYCLES = "kernel.cycles"
SPREAD = "ipndp.progress.spread_mean_fraction"
DRAM = "dram.reads"
STUDY_BENCHMARKS = tuple(FREE_SHAPE)
WARPS = (1, 2, 4, 8, 16)
POLICY = "ipndp:paca+pf"
#: as every point of the reproduction: host copies leave nothing in an L2
BASE_OVERRIDES: dict[str, bool | int] = {"pcie.place_in_l2": False}
#: 16 warps per SM: IP-8's thread and register limits doubled (still 32 registers per thread)
WIDE: dict[str, bool | int] = {"core.max_threads": 512, "core.registers": 16384}
#: label -> (machine, 16-SM kernels, overrides, policy)
SETUPS: dict[str, tuple[str, bool, dict[str, bool | int], str]] = {
    "IP-16 8KB": ("ipndp-ip16", True, {}, POLICY),
    "IP-16 32KB": ("ipndp-ip16", True, {"l1d.size_kb": 32}, POLICY),
    "IP-8 8KB": ("ipndp-ip8", False, {}, POLICY),
    "IP-8 perfect memory": ("ipndp-ip8-pm", False, {}, "ipndp:paca+pf+pl"),
}
PM = "IP-8 perfect memory"
#: the paper's numbers the checks hold ours against
PAPER_STUDIES = {"barrier_cost_pm": 1.075}


def sweep_point(bench: str, warps: int, scale: str) -> Point:
    """IP-8 running benchmark ``bench``'s PACA kernel with ``warps`` warps per SM."""
    over = {**BASE_OVERRIDES, **(WIDE if warps > 8 else {})}
    return Point(workload=warp_form(bench, warps), scale=scale, machine="ipndp-ip8", policy=POLICY, overrides=over)


def barrier_point(bench: str, setup: str, barrier: bool, scale: str) -> Point:
    """Benchmark ``bench`` on barrier setup ``setup``, with or without the barrier per block step."""
    machine, sixteen, extra, policy = SETUPS[setup]
    name = FREE_SHAPE[bench].name
    name = PA16[name].name if sixteen else name
    if not barrier:
        name = NOBAR_FORMS[name].name
    return Point(workload=name, scale=scale, machine=machine, policy=policy, overrides={**BASE_OVERRIDES, **extra})


def study_points(scale: str) -> list[Point]:
    """Every point of both studies (some are also points of Fig. 11/12: the caller deduplicates)."""
    pts = [sweep_point(b, w, scale) for b in STUDY_BENCHMARKS for w in WARPS]
    pts += [barrier_point(b, s, bar, scale) for b in STUDY_BENCHMARKS for s in SETUPS for bar in (True, False)]
    return pts


def _get(results: ResultSet, p: Point, metric: str) -> float | None:
    return results.value(p.workload, p.machine, metric, scale=p.scale, policy=p.policy, overrides=p.overrides)


class IpndpStudies:
    """Figures, tables and checks of the two studies from a result set at one scale."""

    def __init__(self, results: ResultSet, scale: str) -> None:
        self.results, self.scale = results, scale

    def sweep(self, warps: int) -> dict[str, float | None]:
        """Per benchmark: IP-8's cycles with ``warps`` warps per SM over its cycles with 8."""
        out: dict[str, float | None] = {}
        for b in STUDY_BENCHMARKS:
            c = _get(self.results, sweep_point(b, warps, self.scale), CYCLES)
            c8 = _get(self.results, sweep_point(b, 8, self.scale), CYCLES)
            out[b] = c / c8 if c and c8 else None
        return out

    def value(self, bench: str, setup: str, barrier: bool, metric: str) -> float | None:
        return _get(self.results, barrier_point(bench, setup, barrier, self.scale), metric)

    def without_over_with(self, setup: str, metric: str) -> dict[str, float | None]:
        """Per benchmark: ``metric`` without the barrier over ``metric`` with it."""
        out: dict[str, float | None] = {}
        for b in STUDY_BENCHMARKS:
            v0, v1 = self.value(b, setup, True, metric), self.value(b, setup, False, metric)
            out[b] = v1 / v0 if v0 and v1 is not None else None
        return out

    def spread(self, setup: str, barrier: bool) -> dict[str, float | None]:
        return {b: self.value(b, setup, barrier, SPREAD) for b in STUDY_BENCHMARKS}

    def miss(self, bench: str, setup: str, barrier: bool) -> float | None:
        h = self.value(bench, setup, barrier, "l1d.hit_rate")
        return None if h is None else 1.0 - h

    def barrier_cost(self) -> dict[str, float | None]:
        """Per benchmark, in perfect memory: cycles with the barrier over cycles without."""
        return {b: (1.0 / r if r else None) for b, r in self.without_over_with(PM, CYCLES).items()}

    # ------------------------------------------------------------------------------------------------ report
    def figures(self) -> list[BarChart]:
        cats = list(STUDY_BENCHMARKS)
        sweep = {f"{w} warp{'s' if w > 1 else ''}": list(self.sweep(w).values()) for w in WARPS}
        spread = {f"{s}, {'barrier' if bar else 'no barrier'}": list(self.spread(s, bar).values())
                  for s in SETUPS if s != PM for bar in (True, False)}
        dram = {s: list(self.without_over_with(s, DRAM).values()) for s in SETUPS if s != PM}
        return [
            BarChart(name="warp_sweep", title="Fig. 10: IP-8 runtime against warps per SM (over 8 warps)",
                     ylabel="runtime over 8 warps", categories=cats, series=sweep, reference_line=1.0,
                     caption="Paper: average runtime saturates from 8 warps. 16 warps: threads and registers "
                             "doubled."),
            BarChart(name="barrier_progress", title="Fig. 8: spread of warp progress within an SM",
                     ylabel="mean spread / one warp's loads", categories=cats, series=spread, mean=None,
                     caption="Paper: without the barrier warps diverge on 16 SMs with 8 KB L1s, not with 32 KB or "
                             "on 8 SMs."),
            BarChart(name="barrier_dram", title="Fig. 8: DRAM reads without the barrier over with it",
                     ylabel="ratio", categories=cats, series=dram, reference_line=1.0,
                     caption="Paper: locality collapses without the barrier on 16 SMs with 8 KB L1s."),
        ]

    def tables(self) -> list[Table]:
        cats = list(STUDY_BENCHMARKS)
        srows = [[f"{w}", *self.sweep(w).values(), geomean(self.sweep(w).values())] for w in WARPS]
        out = [Table("warp_sweep", "Fig. 10: IP-8 (PF + PACA) cycles with n warps per SM over 8 warps, GMEAN over "
                     "the 6 free-shaped kernels", ["warps", *cats, "GMEAN"], srows,
                     note="16 warps: 512 threads and 16,384 registers per SM (IP-8 holds 256 and 8,192).")]
        brows = []
        for s in SETUPS:
            for b in cats:
                brows.append([s, b, self.value(b, s, True, CYCLES), self.without_over_with(s, CYCLES)[b],
                              self.value(b, s, True, SPREAD), self.value(b, s, False, SPREAD),
                              self.miss(b, s, True), self.miss(b, s, False), self.without_over_with(s, DRAM)[b]])
        out.append(Table("barrier", "Fig. 8: with and without the barrier per block step. Cycles (with), cycles "
                         "without / with, warp-progress spread (fraction of one warp's loads) with and without, "
                         "L1D miss rate with and without, DRAM reads without / with",
                         ["setup", "benchmark", "cycles", "cycles w/o / w", "spread w", "spread w/o", "miss w",
                          "miss w/o", "DRAM w/o / w"], brows))
        return out

    def checks(self) -> list[Check]:
        g16, g4 = geomean(self.sweep(16).values()), geomean(self.sweep(4).values())
        sp = {s: self.spread(s, False) for s in SETUPS}
        ratios = []
        for other in ("IP-16 32KB", "IP-8 8KB"):
            r = [a / b for a, b in zip(sp["IP-16 8KB"].values(), sp[other].values(), strict=True) if a and b]
            ratios.append(geomean(r) if len(r) == len(STUDY_BENCHMARKS) else None)
        dram = {s: geomean(self.without_over_with(s, DRAM).values()) for s in SETUPS if s != PM}
        calm = [dram["IP-16 32KB"], dram["IP-8 8KB"]]
        return [
            Check.above("Fig. 10: runtime with 16 warps over 8 (GMEAN over 6; flat from 8)", g16, 0.9,
                        paper="~1 (saturated from 8)"),
            Check.above("Fig. 10: runtime with 4 warps over 8 (GMEAN over 6; slower below 8)", g4, 1.1,
                        paper="> 1"),
            Check("Fig. 8: without the barrier, warp progress spreads more on IP-16/8 KB than on IP-16/32 KB and "
                  "on IP-8/8 KB (GMEAN of the spread ratios)", "diverges on 16 SMs/8 KB only",
                  " / ".join(f"{v:.2f}" if v else "-" for v in ratios),
                  None not in ratios and min(r for r in ratios if r is not None) > 1.5, criterion="both > 1.5"),
            Check.above("Fig. 8: DRAM reads without the barrier over with it, IP-16/8 KB (GMEAN; locality lost)",
                        dram["IP-16 8KB"], 1.1, paper="locality collapses"),
            Check.below("Fig. 8: the same on IP-16/32 KB and IP-8/8 KB (larger GMEAN; locality kept)",
                        max(calm) if None not in calm else None, 1.05, paper="no divergence"),
            Check.close("Fig. 8: the barrier's cost in perfect memory (cycles with over without, GMEAN)",
                        PAPER_STUDIES["barrier_cost_pm"], geomean(self.barrier_cost().values()), 0.05),
        ]
