"""Every check of the five reproductions carries its definition (``CheckRule``: kind, averaging, the paper's
source, why the band), fixed from the paper's text; evaluated on each reproduction's committed ``small``
points (docs/<paper>/small/points.parquet), so nothing is simulated here."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from ndpgpu.experiments.report import CHECK_KINDS, CheckRule, get_reproduction, results_from_points

DOCS = Path(__file__).parents[2] / "docs"
PAPERS = {"tom": "tom", "llc": "llc", "teleport": "teleport", "mpu": "mpu", "ipndp": "ipndp_studies"}


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_every_check_states_its_rule_and_each_rule_is_used_once(paper):
    repro = get_reproduction(paper)()
    results, _ = results_from_points(repro, "small", DOCS / paper / "small" / "points.parquet")
    assert not [r for r in results.results if r.status != "ok"]  # the committed file holds every point
    checks = repro.checks(results)
    assert checks
    for c in checks:
        assert isinstance(c.rule, CheckRule), c.name
        assert c.kind in CHECK_KINDS
        assert c.averaging.strip() and c.source.strip() and c.band_source.strip(), c.name
    rules = importlib.import_module(f"ndpgpu.experiments.papers.{PAPERS[paper]}").RULES
    used = [id(c.rule) for c in checks]
    assert len(set(used)) == len(used), "a rule serves one check"
    assert set(used) == {id(r) for r in rules.values()}, "every rule is used"


def test_a_rule_must_say_where_it_comes_from():
    with pytest.raises(ValueError, match="source"):
        CheckRule("measured", "arithmetic mean", " ", "15%")
    with pytest.raises(ValueError, match="kind"):
        CheckRule("guessed", "arithmetic mean", "Fig. 7", "15%")
