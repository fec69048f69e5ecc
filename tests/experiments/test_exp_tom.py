"""``ndpgpu reproduce tom`` on two of its workloads at tiny scale, through the real simulator executor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ndpgpu.experiments.papers.tom import CONFIGS, TomReproduction, kernel_energy
from ndpgpu.experiments.points import SweepSpec
from ndpgpu.experiments.report import build_report
from ndpgpu.experiments.results import ResultSet
from ndpgpu.experiments.runner import run_sweep
from ndpgpu.experiments.store import ResultStore

WORKLOADS = ("reduction", "backprop_nounroll")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[ResultSet, SweepSpec, Path]:
    tmp = tmp_path_factory.mktemp("tom")
    full = TomReproduction().spec("tiny")
    spec = SweepSpec(name="tom-test", points=[p for p in full.points if p.workload in WORKLOADS])
    with ResultStore(tmp / "r.duckdb") as db:
        sweep = run_sweep(spec, jobs=0, store=db, traces=tmp / "traces", progress=False)
        rs = ResultSet.load(db, [p.point for p in sweep.points], sweep.keys)
    return rs, spec, tmp


def test_every_configuration_ran(results):
    rs, spec, _ = results
    assert len(spec.points) == len(WORKLOADS) * len(CONFIGS)
    assert not rs.failed, [(r.point.label, r.error) for r in rs.failed]


def test_offload_statistics_are_consistent(results):
    rs, _, _ = results
    repro = TomReproduction()
    for name, (machine, policy, over) in CONFIGS.items():
        for w in WORKLOADS:
            r = rs.find(w, machine, policy=policy, overrides=over)
            inst = r.get("tom.instances")
            if name == "baseline":
                assert r.get("offload.blocks.offloaded") is None  # the 68-SM GPU has no stack SMs
                continue
            assert r.get("offload.blocks.instances") == inst
            assert 0 <= r.get("offload.blocks.offloaded") <= inst
            if name in ("ideal", "ideal-limited"):  # free packets: no more TX than a real offload
                assert r.get("link.tx_bytes") <= rs.find(w, *CONFIGS["ctrl+oracle"][:1],
                                                          policy=CONFIGS["ctrl+oracle"][1]).get("link.tx_bytes")
    # backprop has no candidate (shared memory and barriers everywhere): nothing is offloaded
    assert repro._values(rs, "ctrl+tmap", "tom.candidates")["backprop_nounroll"] == 0
    assert repro._values(rs, "ctrl+tmap", "tom.instances")["reduction"] > 0
    col = {k: repro._values(rs, "ctrl+tmap", f"tom.colocation.{k}")["reduction"] for k in ("learned", "oracle")}
    assert col["learned"] <= col["oracle"]


def test_report_has_figures_tables_and_checks(results):
    rs, spec, tmp = results
    report = build_report(TomReproduction(), "tiny", spec, rs, tmp / "report")
    data = json.loads((tmp / "report" / "report.json").read_text())
    names = {c["name"] for c in data["checks"]}
    assert "TOM (ctrl+tmap) mean speedup" in names and "co-location: learned <= oracle (mean)" in names
    for fig in ("speedup", "energy", "energy_stacked", "energy_components", "colocation", "offloaded_share",
                "traffic"):
        assert (tmp / "report" / "figures" / f"{fig}.png").stat().st_size > 0
    cost = {c.name: c for c in report.checks}
    assert cost["cost model, LIBOR portfolio_b, 4 iterations: BW_TX + BW_RX"].passed
    speedups = next(t for t in report.tables if t.name == "speedups")
    assert [row[0] for row in speedups.rows] == ["BP", "RD", "GMEAN"]  # in the paper's order


def test_report_lists_the_baseline_link_utilisation(results):
    rs, spec, tmp = results
    repro = TomReproduction()
    report = build_report(repro, "tiny", spec, rs, tmp / "report-links")
    table = next(t for t in report.tables if t.name == "baseline_links")
    assert table.columns[:5] == ["workload", "TX utilisation", "RX utilisation", "busier direction", "warp occupancy"]
    assert [row[0] for row in table.rows] == ["BP", "RD"]
    for abbr, tx, rx, busier, occ, flag in table.rows:
        w = {"BP": "backprop_nounroll", "RD": "reduction"}[abbr]
        base = rs.find(w, *CONFIGS["baseline"][:1], policy=CONFIGS["baseline"][1])
        assert (tx, rx, occ) == (base.get("link.tx_utilisation"), base.get("link.rx_utilisation"),
                                 base.get("core.occupancy"))
        assert 0.0 < busier == max(tx, rx) <= 1.0 and 0.0 < occ <= 1.0
        assert flag == ("below 50%" if busier < 0.5 else "ok")
    data = json.loads((tmp / "report-links" / "report.json").read_text())
    assert any(t["name"] == "baseline_links" for t in data["tables"])
    assert "## Baseline link utilisation and GPU warp occupancy per workload" in (
        tmp / "report-links" / "report.md").read_text()


def test_energy_is_counted_over_the_kernels_time(results):
    """Fig. 10's energy is GPUWattch's, over the kernels: every event plus the static energy's kernel share."""
    rs, _, _ = results
    repro = TomReproduction()
    for w in WORKLOADS:
        r = rs.find(w, *CONFIGS["baseline"][:1], policy=CONFIGS["baseline"][1])
        kernel, app = r.get("kernel.time"), r.get("application.time")
        assert 0 < kernel < app  # the host copies take time of their own
        want = r.get("energy.dynamic") + r.get("energy.static") * kernel / app
        assert kernel_energy(r.metrics) == pytest.approx(want, rel=1e-12)
        assert kernel_energy(r.metrics) < r.get("energy.total")
        links = r.get("energy.links.dynamic") + r.get("energy.links.static") * kernel / app
        assert kernel_energy(r.metrics, "links") == pytest.approx(links, rel=1e-12)
        parts = repro._energy_parts(rs, "baseline", w)
        assert sum(parts.values()) == pytest.approx(want, rel=1e-9)  # the groups and 'other' add up
    split = repro._energy_split(rs, "baseline")
    assert sum(split.values()) == pytest.approx(1.0, rel=1e-9)
    assert repro._energy(rs, "baseline") == {w: pytest.approx(1.0) for w in WORKLOADS}


def test_coherence_overhead_is_the_ratio_of_mean_speedups(results):
    """Section 4.4.2's claim ("only 1.2%"): ctrl+tmap with and without the three coherence steps."""
    rs, _, _ = results
    repro = TomReproduction()
    check = next(c for c in repro.checks(rs) if c.name.startswith("coherence overhead"))
    free = repro._mean(repro._speedup(rs, "ctrl+tmap no-coherence"))
    kept = repro._mean(repro._speedup(rs, "ctrl+tmap"))
    assert check.paper == 0.012 and check.ours == pytest.approx(free / kept - 1)
    assert check.passed == (abs(check.ours - 0.012) <= 0.02)
    assert CONFIGS["ctrl+tmap no-coherence"] == ("tom-ndp", "tom:ctrl+tmap,coherence=0", {})
