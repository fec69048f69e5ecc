"""The workload characterization table (generated, never written by hand): every registered workload's
functional statistics at a scale, and its cycles and IPC on GTX480."""

from __future__ import annotations

from ..points import Grid, SweepSpec
from ..report import Check, Reproduction, register_reproduction
from ..results import ResultSet, Table
from ._metrics import CYCLES, IPC, pick_metric

MACHINE = "gtx480"


@register_reproduction
class Characterization(Reproduction):
    name = "characterization"
    title = "Workload characterization"
    default_scale = "small"
    differences = (
        "Not a paper reproduction. Functional statistics do not depend on the machine; cycles and IPC are on "
        f"`{MACHINE}`."
    )

    def spec(self, scale: str) -> SweepSpec:
        return SweepSpec(
            name=f"characterization-{scale}",
            description="every workload, functional statistics plus timing on gtx480",
            grid=[Grid(workloads=["*"], scales=[scale], machines=[MACHINE])],
        )

    def tables(self, results: ResultSet) -> list[Table]:
        from ndpgpu.workloads.base import all_workloads

        known = all_workloads()
        functional = sorted({n for r in results.results for n in r.metrics if n.startswith("functional.")})
        timing = [m for m in (pick_metric(results, CYCLES), pick_metric(results, IPC)) if m]
        columns = [
            "workload",
            "suite",
            "description",
            *[n.removeprefix("functional.") for n in functional],
            *timing,
        ]
        rows = []
        for r in results.results:
            cls = known.get(r.point.workload)
            row = [r.point.workload, cls.suite if cls else "", cls.description if cls else ""]
            row += [r.get(n) if r.status == "ok" else None for n in [*functional, *timing]]
            rows.append(row)
        note = f"Scale `{results.results[0].point.scale}`." if results.results else ""
        return [Table("characterization", "Workload characterization", columns, rows, note)]

    def checks(self, results: ResultSet) -> list[Check]:
        ran = len(results.results) - len(results.failed)
        return [
            Check(
                "every workload ran and matched its NumPy reference",
                "all",
                f"{ran} of {len(results.results)}",
                not results.failed,
                criterion="no failed point",
            )
        ]
