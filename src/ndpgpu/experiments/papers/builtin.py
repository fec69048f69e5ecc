"""The built-in study: the built-in workloads on GTX480 and V100 (the README's main job until the first
paper reproduction lands)."""

from __future__ import annotations

from ..plots import BarChart
from ..points import Grid, SweepSpec
from ..report import Check, Reproduction, register_reproduction
from ..results import ResultSet, Table, geomean
from ._metrics import CYCLES, DRAM_BYTES, IPC, L1D_MISS_RATE, L2_MISS_RATE, THREAD_INSTRUCTIONS, pick_metric

MACHINES = ("gtx480", "v100")


@register_reproduction
class BuiltinStudy(Reproduction):
    name = "builtin"
    title = "Built-in workloads on GTX480 and V100"
    paper = ""
    default_scale = "small"
    key_metrics = (*CYCLES, *IPC, *THREAD_INSTRUCTIONS, *DRAM_BYTES, *L2_MISS_RATE, *L1D_MISS_RATE)
    differences = (
        "This is a study, not a paper reproduction: there are no published numbers to match. The checks are "
        "sanity expectations. Speedups are cycle ratios (each machine at its own clock); at `tiny` scale "
        "most kernels fill only a few SMs, so the larger machine gains little."
    )

    def spec(self, scale: str) -> SweepSpec:
        return SweepSpec(
            name=f"builtin-{scale}",
            description="the built-in workloads on gtx480 and v100",
            grid=[Grid(workloads=["suite:builtin"], scales=[scale], machines=list(MACHINES))],
        )

    def figures(self, results: ResultSet) -> list[BarChart]:
        out = []
        cycles = pick_metric(results, CYCLES)
        if cycles:
            speedup = results.ratio(cycles, MACHINES[0], MACHINES[1])
            out.append(
                BarChart(
                    name="v100_speedup",
                    title="V100 speedup over GTX480 (cycle ratio)",
                    ylabel="speedup (x)",
                    categories=results.workloads,
                    series={"v100 / gtx480": [speedup[w] for w in results.workloads]},
                    reference_line=1.0,
                    caption="GTX480 cycles divided by V100 cycles per workload; GMEAN is the geometric mean.",
                )
            )
        ipc = pick_metric(results, IPC)
        if ipc:
            table = results.by_config(ipc)
            out.append(
                BarChart(
                    name="ipc",
                    title="IPC (thread-instructions per cycle)",
                    ylabel="IPC",
                    categories=results.workloads,
                    series={m: [table.get(m, {}).get(w) for w in results.workloads] for m in MACHINES},
                )
            )
        return out

    def tables(self, results: ResultSet) -> list[Table]:
        out = []
        for candidates, title in (
            (CYCLES, "Cycles"),
            (IPC, "IPC"),
            (THREAD_INSTRUCTIONS, "Thread-instructions"),
            (L1D_MISS_RATE, "L1D miss rate"),
            (L2_MISS_RATE, "L2 miss rate"),
            (DRAM_BYTES, "DRAM traffic (bytes)"),
        ):
            metric = pick_metric(results, candidates)
            if metric:
                out.append(results.table(metric, f"{title} (`{metric}`)"))
        return out

    def checks(self, results: ResultSet) -> list[Check]:
        ran = len(results.results) - len(results.failed)
        checks = [
            Check(
                "every point ran and matched its NumPy reference",
                "all",
                f"{ran} of {len(results.results)}",
                not results.failed,
                criterion="no failed point",
            )
        ]
        ipc = pick_metric(results, IPC)
        if ipc:
            table = results.by_config(ipc)
            g = {m: geomean(table.get(m, {}).values()) for m in MACHINES}
            ratio = g["v100"] / g["gtx480"] if g["v100"] and g["gtx480"] else None
            checks.append(
                Check.above(
                    "V100 sustains a higher IPC than GTX480 (geomean ratio)",
                    ratio,
                    1.0,
                    paper="> 1 (80 SMs x 4 schedulers against 15 x 2)",
                )
            )
        return checks
