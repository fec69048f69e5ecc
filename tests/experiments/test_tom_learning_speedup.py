"""The TOM report's charged speedups (experiments/papers/tom.py): kernel cycles + tom.learning.charged_cycles for
the configurations that learn their mapping, the uncharged ones beside them, and points stored before the charge
existed reported as not computed (never charged 0), on a hand-built result set."""

from __future__ import annotations

import pytest

from ndpgpu.experiments.papers.tom import CHARGE, CONFIGS, TomReproduction
from ndpgpu.experiments.points import Point
from ndpgpu.experiments.results import PointResult, ResultSet

BASE = {"kmeans_nounroll": 1000.0, "reduction": 2000.0, "backprop_nounroll": 500.0}
CYCLES = {"ctrl+tmap": {"kmeans_nounroll": 800.0, "reduction": 1000.0, "backprop_nounroll": 500.0},
          "ctrl+bmap": {"kmeans_nounroll": 900.0, "reduction": 1100.0, "backprop_nounroll": 500.0},
          "no-ctrl+tmap": {"kmeans_nounroll": 1250.0, "reduction": 1600.0, "backprop_nounroll": 500.0}}
# the learning phase's charge per workload; backprop has no candidate instance (tom.instances 0) and no row
CHARGES = {"kmeans_nounroll": 200.0, "reduction": 600.0}


def result_set(stored: set[str] | None = None) -> ResultSet:
    """``stored``: the workloads whose tmap points carry the charge row (default all with instances)."""
    stored = set(CHARGES) if stored is None else stored
    out = []
    for config, cycles in {"baseline": BASE, **CYCLES}.items():
        machine, policy, over = CONFIGS[config]
        for w, c in cycles.items():
            m = {"kernel.cycles": (c, "cycles")}
            if config != "baseline":
                m["tom.instances"] = (0.0 if w == "backprop_nounroll" else 100.0, "instances")
            if "+tmap" in policy and w in stored:
                m[CHARGE] = (CHARGES[w], "cycles")
            out.append(PointResult(Point(workload=w, scale="small", machine=machine, policy=policy, overrides=over),
                                   f"{config}-{w}", "ok", None, m))
    return ResultSet(out)


def charged(w: str, config: str = "ctrl+tmap") -> float:
    return BASE[w] / (CYCLES[config][w] + CHARGES.get(w, 0.0))


def test_the_charged_speedup_adds_the_learning_charge_to_the_kernel_cycles():
    rs = result_set()
    repro = TomReproduction()
    sp, missing = repro._charged_speedup(rs, "ctrl+tmap")
    assert missing == []
    assert sp == {"kmeans_nounroll": pytest.approx(1000 / 1000), "reduction": pytest.approx(2000 / 1600),
                  "backprop_nounroll": pytest.approx(1.0)}  # no instance, no learning phase: charged 0 from its rows
    assert repro._speedup(rs, "ctrl+tmap")["reduction"] == 2.0  # uncharged: kernel cycles alone
    assert repro._charged_speedup(rs, "ctrl+bmap") == (repro._speedup(rs, "ctrl+bmap"), [])  # nothing learned
    checks = {c.name: c for c in repro.checks(rs)}
    mean = checks["TOM (ctrl+tmap) mean speedup"]
    want = sum(charged(w) for w in BASE) / 3  # the arithmetic mean ("on average")
    assert mean.ours == pytest.approx(want) and mean.rule is not None and "charged" in mean.rule.averaging
    assert checks["TOM (ctrl+tmap) best speedup"].ours == pytest.approx(charged("reduction"))
    nc = checks["no-ctrl (tmap) averages below the baseline"]
    assert nc.ours == pytest.approx(sum(charged(w, "no-ctrl+tmap") for w in BASE) / 3)
    gain = checks["ctrl+tmap above ctrl+bmap (mean speedups)"]
    assert gain.ours == pytest.approx(want - sum(BASE[w] / CYCLES["ctrl+bmap"][w] for w in BASE) / 3)


def test_the_tables_show_the_uncharged_speedup_beside_the_charged_one():
    rs = result_set()
    tables = {t.name: t for t in TomReproduction().tables(rs)}
    sp = tables["speedups"]
    row = {r[0]: dict(zip(sp.columns[1:], r[1:], strict=True)) for r in sp.rows}
    assert row["RD"]["ctrl+tmap"] == pytest.approx(2.0) and row["RD"]["ctrl+tmap charged"] == pytest.approx(1.25)
    assert row["KM"]["no-ctrl+tmap charged"] == pytest.approx(1000 / 1450)
    assert [r[0] for r in sp.rows][-1] == "GMEAN"
    avg = {r[0]: r for r in tables["speedup_averages"].rows}
    assert avg["ctrl+tmap"][1] == pytest.approx((1.25 + 2.0 + 1.0) / 3)  # AVG uncharged
    assert avg["ctrl+tmap"][2] == pytest.approx(sum(charged(w) for w in BASE) / 3)  # AVG charged
    assert avg["ctrl+bmap"][1] == avg["ctrl+bmap"][2] and avg["ctrl+bmap"][5] == "no learning"


def test_points_stored_before_the_charge_are_reported_not_computed():
    rs = result_set(stored={"kmeans_nounroll"})  # reduction's tmap points predate tom.learning.charged_cycles
    repro = TomReproduction()
    sp, missing = repro._charged_speedup(rs, "ctrl+tmap")
    assert missing == ["reduction"] and sp["reduction"] is None and sp["kmeans_nounroll"] == pytest.approx(1.0)
    checks = {c.name: c for c in repro.checks(rs)}
    for name in ("TOM (ctrl+tmap) mean speedup", "TOM (ctrl+tmap) best speedup",
                 "no-ctrl (tmap) averages below the baseline"):
        c = checks[name]
        assert c.ours is None and not c.passed
        assert c.why.startswith("Not computed: the learning phase's charge (tom.learning.charged_cycles) is not "
                                "stored for RD")
    assert checks["no-ctrl (bmap) averages below the baseline"].why == ""  # bmap learns nothing
    note = next(t for t in repro.tables(rs) if t.name == "speedups").note
    assert "No charge stored for RD" in note
