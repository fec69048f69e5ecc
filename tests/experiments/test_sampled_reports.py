"""A report made from sampled points says so on every check, table and figure (docs/sampling.md), and the same
rows give the same values as the full report."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from ndpgpu.experiments.report import (
    ReproductionError,
    get_reproduction,
    paired_overlay,
    reevaluate,
    sample_overlay,
    sampled_spec,
    timed_spec,
)

DOCS = Path(__file__).parents[2] / "docs"
POINTS = DOCS / "ipndp" / "small" / "points.parquet"  # no IP-NDP policy declines either kind of sampling


def _as_sampled(src: Path, dst: Path, overlay: str = "sampled", extra: tuple = ()) -> None:
    """The committed IP-NDP points renamed to machines with a sampling overlay, each with sampling rows
    claiming half its CTAs were timed (and ``extra`` rows)."""
    con = duckdb.connect()
    q = str(src).replace("'", "''")
    con.execute(f"CREATE TABLE p AS SELECT * REPLACE (machine || '+{overlay}' AS machine) FROM read_parquet('{q}')")
    for metric, value in (("launches_sampled", 1.0), ("ctas", 200.0), ("ctas_timed", 100.0),
                          ("cycles_timed", 1000.0), *extra):
        con.execute("INSERT INTO p SELECT * REPLACE ('sampling' AS path, ? AS metric, 'sampling.' || ? AS name, "
                    "? AS value, '' AS unit) FROM p WHERE name = 'kernel.cycles'", [metric, metric, value])
    con.execute(f"COPY p TO '{str(dst)}' (FORMAT parquet)")


def test_sampled_spec_adds_the_overlay_once_and_names_the_experiment():
    spec = timed_spec(get_reproduction("ipndp")(), "small", None)[0]
    once = sampled_spec(spec)
    assert once.name == f"{spec.name}-sampled"
    assert all(p.machine.endswith("+sampled") for p in once.expand())
    assert [p.machine for p in sampled_spec(once).expand()] == [p.machine for p in once.expand()]


def test_a_sampled_report_marks_everything_and_keeps_the_values(tmp_path):
    sampled = tmp_path / "sampled.parquet"
    _as_sampled(POINTS, sampled)
    full = reevaluate("ipndp", "small", POINTS, tmp_path / "full")
    rep = reevaluate("ipndp", "small", sampled, tmp_path / "s", sample=True)
    data = json.loads((tmp_path / "s" / "report.json").read_text())
    assert data["sampling"]["points_sampled"] == data["sampling"]["points"] > 0
    assert data["sampling"]["ctas_timed_fraction"] == 0.5
    assert all(c["name"].endswith(" [sampled]") for c in data["checks"])
    assert all("sampled timing" in f["title"] for f in data["figures"])
    assert all("Sampled timing" in t.note for t in rep.tables)
    assert "**Sampled timing**" in (tmp_path / "s" / "report.md").read_text()
    assert f"{data['sampling']['points_sampled']} of {data['sampling']['points']} points had launches sampled" in (
        tmp_path / "s" / "report.html").read_text()
    ours = {c.name: c.ours for c in full.checks}
    assert {c.name.removesuffix(" [sampled]"): c.ours for c in rep.checks} == ours
    assert "sampling" not in json.loads((tmp_path / "full" / "report.json").read_text())


def test_sample_all_names_its_overlay_and_experiment():
    assert [sample_overlay(s) for s in (False, True, "waves", "all")] == [None, "sampled", "sampled", "sampled-all"]
    with pytest.raises(ReproductionError, match="expected one of waves, all"):
        sample_overlay("some")
    spec = timed_spec(get_reproduction("ipndp")(), "small", None)[0]
    every = sampled_spec(spec, sample_overlay("all"))
    assert every.name == f"{spec.name}-sampled-all"
    assert all(p.machine.endswith("+sampled-all") for p in every.expand())


def test_a_report_on_stable_sampling_says_how_many_points_used_it(tmp_path):
    sampled = tmp_path / "sampled-all.parquet"
    _as_sampled(POINTS, sampled, "sampled-all", (("launches_stable", 1.0),))
    reevaluate("ipndp", "small", sampled, tmp_path / "s", sample="all")
    data = json.loads((tmp_path / "s" / "report.json").read_text())
    n = data["sampling"]["points_sampled"]
    assert n > 0 and data["sampling"]["points_stable"] == n
    text = (tmp_path / "s" / "report.md").read_text()
    assert f"{n} of the points had a short launch stopped once its rate was stable" in text


def test_a_report_says_on_how_many_points_serial_work_bounded_a_projection(tmp_path):
    sampled = tmp_path / "sampled.parquet"
    _as_sampled(POINTS, sampled, "sampled", (("launches_serial_bound", 1.0),))
    reevaluate("ipndp", "small", sampled, tmp_path / "s", sample=True)
    data = json.loads((tmp_path / "s" / "report.json").read_text())
    n = data["sampling"]["points_serial"]
    assert n == data["sampling"]["points_sampled"] > 0
    text = (tmp_path / "s" / "report.md").read_text()
    assert f"on {n} a mechanism's serial work bounded a launch's projected cycles" in text
    html = (tmp_path / "s" / "report.html").read_text()
    assert f"on {n} a mechanism&#39;s serial work bounded" in html or f"on {n} a mechanism's serial work" in html


def test_every_point_of_a_reproduction_is_sampled_the_way_all_its_policies_accept():
    """A mechanism's point and the baseline it is compared with are timed by one kind of sampling: LLC-Compute
    and TOM decline stopping short launches (a warp waits for what it offloaded), TELEPORT too (a block's
    preloads cover its whole tile), so their reproductions take waves for every point, baselines included."""
    def taken(paper: str, sample: str) -> tuple[list[str], set[str], str]:
        spec = timed_spec(get_reproduction(paper)(), "small", None)[0]
        overlay = sample_overlay(sample)
        sampled = sampled_spec(spec, overlay)
        return ([p.machine for p in spec.expand()], {p.machine for p in sampled.expand()},
                paired_overlay(spec, overlay)[1])

    plain, machines, why = taken("mpu", "all")
    assert machines == {m + "+sampled-all" for m in plain} and why == ""
    for paper in ("llc", "tom", "teleport"):
        plain, machines, why = taken(paper, "all")
        assert machines == {m + "+sampled" for m in plain}, paper
        assert "declines stopping short launches" in why and f"{paper}:" in why
        assert taken(paper, "waves")[1:] == (machines, "")


def test_a_policy_that_declines_waves_has_every_point_timed_in_full(monkeypatch):
    """No shipped policy declines waves (TELEPORT's S-machine did before its controller's backlog was projected);
    one that does has every point of its experiment timed in full, and says why."""
    from ndpgpu.mechanisms.teleport.policy import TeleportPolicy

    monkeypatch.setattr(TeleportPolicy, "may_decline_sampling",
                        lambda self, kind: "a backlog" if self.config.machine == "S" else None)
    spec = timed_spec(get_reproduction("teleport")(), "small", None)[0]
    taken, why = paired_overlay(spec, sample_overlay("waves"))
    assert taken is None and "teleport:S (a backlog) declines wave sampling" in why
    assert {p.machine for p in sampled_spec(spec, sample_overlay("waves")).expand()} == \
        {p.machine for p in spec.expand()}


def test_a_report_says_when_sampling_was_weakened_for_every_point(tmp_path, monkeypatch):
    from ndpgpu.mechanisms.teleport.policy import TeleportPolicy

    monkeypatch.setattr(TeleportPolicy, "may_decline_sampling",  # as above: a policy that declines waves
                        lambda self, kind: "a backlog" if self.config.machine == "S" else None)
    rep = reevaluate("teleport", "small", DOCS / "teleport" / "small" / "points.parquet", tmp_path / "t",
                     sample=True)
    data = json.loads((tmp_path / "t" / "report.json").read_text())
    assert data["sampling"]["points_sampled"] == 0 and "teleport:S" in data["sampling"]["paired"]
    assert not any(c.name.endswith("[sampled]") for c in rep.checks)  # a full run, and said to be one
    text = (tmp_path / "t" / "report.md").read_text()
    assert "Sampled timing was asked for" in text and "A full run." in text
    html = (tmp_path / "t" / "report.html").read_text()
    assert "asked for; a full run." in html and "teleport:S" in html
