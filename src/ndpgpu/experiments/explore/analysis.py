"""Turn an exploration's stored points into rows: per mechanism its speedup, energy and perf/W over its own
baseline, each machine's baseline against the reference GPU, the bound, the changes, and one sentence."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from .defaults import Option
from .run import Measured, Plan
from .verdicts import Verdict
from .why import Bound, Change, bound, changes, machine_shape

NEUTRAL = 0.02
"""A speedup within 2% of 1 counts as no effect (helped: above 1.02; hurt: below 0.98)."""

COMPUTE_BOUND = 0.02
"""Below this share of memory warp instructions the kernel is called compute-bound in a row's reason."""
CYCLES, TIME, ENERGY = "kernel.cycles", "kernel.time", "energy.kernel.total"
CHARGE = "tom.learning.charged_cycles"  # TOM's learning phase (PCI-E latency), added to its cycles


@dataclasses.dataclass
class Row:
    """One mechanism (or scheme) against its baseline on its machine."""

    option: Option
    verdict: Verdict
    base: dict[str, float] | None
    mech: dict[str, float] | None
    bound: Bound | None
    changes: list[Change]
    machine_vs_reference: float | None  # reference kernel time / this machine's baseline kernel time
    error: str = ""
    parts_alone: dict[str, float | None] = dataclasses.field(default_factory=dict)  # a composition's parts' speedups

    def cycles(self, rows: dict[str, float] | None) -> float | None:
        if not rows or CYCLES not in rows:
            return None
        return rows[CYCLES] + rows.get(CHARGE, 0.0)

    def memory_share(self) -> float | None:
        """The share of the baseline's warp instructions that are global loads, stores or atomics."""
        b = self.base or {}
        n = b.get("kernel.warp_instructions", 0.0)
        mem = b.get("core.loads", 0.0) + b.get("core.stores", 0.0) + b.get("core.atomics", 0.0)
        return mem / n if n else None

    @property
    def speedup(self) -> float | None:
        b, m = self.cycles(self.base), self.cycles(self.mech)
        return b / m if b and m else None

    @property
    def energy(self) -> float | None:
        """The mechanism's kernel-window energy over its baseline's."""
        if not self.base or not self.mech or not self.base.get(ENERGY):
            return None
        return self.mech.get(ENERGY, 0.0) / self.base[ENERGY]

    @property
    def perf_per_watt(self) -> float | None:
        """Performance per watt over the kernel window relative to the baseline: the same work in less energy
        (work / time over energy / time = work / energy), so the baseline's energy over the mechanism's."""
        e = self.energy
        return 1.0 / e if e else None

    @property
    def effect(self) -> str:
        s = self.speedup
        if s is None:
            return "failed"
        return "helps" if s > 1 + NEUTRAL else "hurts" if s < 1 - NEUTRAL else "no effect"

    def sentence(self) -> str:
        """One sentence: the result, what the mechanism changed and why, or which rule rejected the kernel."""
        o, v = self.option, self.verdict
        if self.speedup is None:
            return f"{o.label} did not run: {self.error or 'no result'}."
        head = f"{o.label}{' (beyond the papers)' if o.beyond else ''} on {o.machine}: x{self.speedup:.2f}"
        what = "; ".join(c.text() for c in self.changes[:3])
        b = f"; the baseline is {self.bound.sentence()}" if self.bound else ""
        if self.effect != "helps" and (share := self.memory_share()) is not None and share < COMPUTE_BOUND:
            b += (f"; compute-bound: {share:.1%} of its warp instructions touch global memory, so moving computation "
                  "to the data has little to save")
        if self.effect == "no effect" and not v.applies:
            rule = f" (rejected by: {v.rules[0]})" if v.rules else ""
            return f"{head}, no effect: {v.summary}{rule}."
        if self.parts_alone:
            b += "; alone: " + ", ".join(f"{k} x{v:.2f}" for k, v in self.parts_alone.items() if v is not None)
        if self.effect == "helps":
            return f"{head} faster: {what}{b}."
        if self.effect == "hurts":
            return f"{head} (slower): {what}{b}; {v.summary}."
        return f"{head}, no effect: {what}{b}."

    def to_json(self) -> dict[str, Any]:
        o = self.option
        return {"key": o.key, "label": o.label, "mechanism": o.mechanism, "machine": o.machine, "policy": o.policy,
                "baseline_policy": o.baseline, "beyond_the_papers": o.beyond, "speedup": self.speedup,
                "energy": self.energy,
                "perf_per_watt": self.perf_per_watt, "effect": self.effect, "reason": self.sentence(),
                "cycles": self.cycles(self.mech), "baseline_cycles": self.cycles(self.base),
                "energy_pj": (self.mech or {}).get(ENERGY), "baseline_energy_pj": (self.base or {}).get(ENERGY),
                "machine_vs_reference": self.machine_vs_reference,
                "bound": self.bound.to_json() if self.bound else None,
                "changes": [dataclasses.asdict(c) for c in self.changes], "verdict": self.verdict.to_json(),
                "error": self.error}


@dataclasses.dataclass
class Exploration:
    """The result of :func:`ndpgpu.explore`: rows ranked by speedup, the reference, where it is stored."""

    plan: Plan
    rows: list[Row]
    reference: dict[str, float] | None
    reference_bound: Bound | None
    elapsed_s: float
    store: Path

    @property
    def target(self) -> str:
        return self.plan.target.label

    @property
    def helped_by(self) -> list[Row]:
        return [r for r in self.rows if r.effect == "helps" and not r.option.beyond]

    def verdict_line(self) -> str:
        helped = self.helped_by
        if not helped:
            return "helped by none of the mechanisms (no speedup above 2% over its own baseline)"
        return "helped by " + ", ".join(f"{r.option.label} (x{r.speedup:.2f})" for r in helped)

    # the report writers live in .report; these delegate so the result is one object
    def to_json(self) -> dict[str, Any]:
        from .report import to_json

        return to_json(self)

    def markdown(self) -> str:
        from .report import markdown

        return markdown(self)

    def summary(self) -> str:
        from .report import terminal_summary

        return terminal_summary(self)

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        from .report import write

        return write(self, Path(out_dir))


def build(plan: Plan, measured: Measured, verdicts: dict[str, Verdict], *, elapsed_s: float, store: Path
          ) -> Exploration:
    """Rows from the measured points, ranked by speedup (failed rows last)."""
    ov = plan.overrides
    ref = measured.get(plan.reference, "baseline")
    shapes: dict[str, dict[str, float]] = {}
    rows = []
    for o in plan.options:
        base, mech = measured.get(o.machine, o.baseline), measured.get(o.machine, o.policy)
        shape = shapes.setdefault(o.machine, machine_shape(o.machine, ov))
        err = measured.errors.get((o.machine, o.policy)) or measured.errors.get((o.machine, o.baseline)) or ""
        vs_ref = ref[TIME] / base[TIME] if ref and base and base.get(TIME) else None
        verdict = verdicts.get(o.mechanism) or Verdict(o.key, True, f"beyond the papers: {o.note}")
        rows.append(Row(o, verdict, base, mech, bound(base, shape) if base else None,
                        changes(o.key, base, mech) if base and mech else [], vs_ref, err))
    alone = {r.option.key: r for r in rows}
    for r in rows:
        r.parts_alone = {alone[k].option.label: alone[k].speedup for k in r.option.parts if k in alone}
    rows.sort(key=lambda r: (r.speedup is None, -(r.speedup or 0.0)))
    ref_bound = bound(ref, machine_shape(plan.reference, ov)) if ref else None
    return Exploration(plan, rows, ref, ref_bound, elapsed_s, store)
