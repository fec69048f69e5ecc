"""Declared baseline timings: each reproduction's machines timed as its paper's simulator version, by the rule in
``ndpgpu.experiments.baselines``; second columns as separate experiments; reports that name their timing and
count arithmetic checks apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndpgpu.experiments.baselines import FLAVOURS, BaselineTiming, TimingError, base_machine, with_timing
from ndpgpu.experiments.report import ReproductionError, get_reproduction, reevaluate, timed_spec
from ndpgpu.timing.presets import load_machine

DOCS = Path(__file__).parents[2] / "docs"

# the paper's own words decide (seeds: TOM "GPGPU-Sim 3.2.0", LLC-Compute "GPGPU-Sim v3.2.2", TELEPORT
# "GPGPU-sim 3.2.2"; IP-NDP names no version; MPU compares with a real V100)
DECLARED = {"tom": "gpgpusim3", "llc": "gpgpusim3", "teleport": "gpgpusim3", "ipndp": "gpgpusim", "mpu": "preset"}


@pytest.mark.parametrize(("machine", "flavour", "timed"), [
    ("gtx480", "gpgpusim3", "gtx480-gpgpusim3"),  # 3.2.2's own GTX480 sizes
    ("gtx480", "gpgpusim", "gtx480-gpgpusim"),
    ("gtx480-gpgpusim", "gpgpusim3", "gtx480-gpgpusim3"),
    ("gtx480-gpgpusim3", "preset", "gtx480"),
    ("llc-mesh", "gpgpusim3", "llc-mesh+gpgpusim3"),
    ("llc-mesh+gpgpusim", "gpgpusim3", "llc-mesh+gpgpusim3"),
    ("tom-ndp", "preset", "tom-ndp"),
    ("v100+gpgpusim", "preset", "v100"),
    ("v100", "gpgpusim", "v100-gpgpusim"),  # SM7_QV100's launch latency too
    ("v100", "gpgpusim3", "v100+gpgpusim3"),
])
def test_a_machine_takes_one_flavour(machine, flavour, timed):
    assert with_timing(machine, flavour) == timed
    assert base_machine(timed) == base_machine(machine)


def test_unknown_flavours_are_refused():
    with pytest.raises(TimingError, match="gpgpusim4"):
        with_timing("gtx480", "gpgpusim4")
    with pytest.raises(TimingError, match="known"):
        BaselineTiming("hardware", paper_says="x", why="y")
    with pytest.raises(ReproductionError, match="declares no baseline timing"):
        timed_spec(get_reproduction("gpgpusim")(), "small", "gpgpusim3")


@pytest.mark.parametrize("paper", sorted(DECLARED))
def test_each_paper_declares_its_simulators_timing(paper):
    repro = get_reproduction(paper)()
    bt = repro.baseline_timing
    assert bt is not None and bt.flavour == DECLARED[paper]
    assert bt.paper_says.strip() and bt.why.strip()
    assert bt.flavour not in bt.columns
    run, named, flavour = timed_spec(repro, "small", None)
    assert flavour == bt.flavour and run.name == f"{paper}-small"  # the declared run keeps the experiment's name
    assert len(run.expand()) == len(named)
    for timed, own in zip(run.expand(), named, strict=True):
        assert timed.machine == with_timing(own.machine, flavour)
        assert (timed.workload, timed.policy, timed.overrides) == (own.workload, own.policy, own.overrides)
    for machine in {p.machine for p in run.expand()}:  # every timed machine is a valid configuration
        load_machine(machine)
    for column in bt.columns:  # a second column is an experiment of its own: its points never mix in
        assert timed_spec(repro, "small", column)[0].name == f"{paper}-small-{column}"


def test_the_3x_flavour_changes_what_the_overlay_says():
    base, g3 = load_machine("llc-mesh"), load_machine(with_timing("llc-mesh", "gpgpusim3"))
    assert (g3.l1d.latency, g3.pcie.place_in_l2) == (1, False)
    assert base.l1d.latency > 1


def test_a_report_names_its_timing_and_counts_arithmetic_checks_apart(tmp_path):
    # TELEPORT's small run on gtx480-gpgpusim (GPGPU-Sim 4.0's model), from before the paper's 3.2.2 was declared,
    # is kept as a column: re-evaluated alone, it is found to be that labelled column
    report = reevaluate("teleport", "small", DOCS / "teleport" / "small" / "columns" / "gpgpusim.parquet", tmp_path)
    timing, s = report.data["timing"], report.data["summary"]
    assert (timing["flavour"], timing["declared"]) == ("gpgpusim", "gpgpusim3")
    assert {p["machine"] for p in report.data["points"]} == {"gtx480-gpgpusim"}
    kinds = [c.kind for c in report.checks]
    assert s["arithmetic"] == sum(k == "arithmetic" and not c.calibrated for k, c in zip(kinds, report.checks,
                                                                                         strict=True)) > 0
    assert s["evidence"] + s["arithmetic"] + s.get("unreproducible", 0) + s["calibrated"] == s["checks"]
    text = (tmp_path / "report.md").read_text()
    assert "labelled second column" in text and "GPGPU-Sim 3.2.2" in text
    assert f"{s['evidence_passed']} of {s['evidence']} measured checks pass" in text


def test_flavours_are_the_three_documented():
    doc = (DOCS / "timing.md").read_text()
    for f in FLAVOURS[1:]:
        assert f"+{f}" in doc
