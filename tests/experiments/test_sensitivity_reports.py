"""``ndpgpu reproduce NAME --set KEY=VALUE``: a sensitivity run changes a machine field on every point, is stored
as its own experiment, and its report names the change on every check, table and figure; fields the reproduction
sweeps itself, or that a machine lacks, are refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from ndpgpu.cliargs import EXIT_USAGE
from ndpgpu.experiments.cli import reproduce_main
from ndpgpu.experiments.report import (
    ReproductionError,
    get_reproduction,
    reevaluate,
    sets_slug,
    timed_spec,
    with_sets,
)

DOCS = Path(__file__).parents[2] / "docs"
POINTS = DOCS / "ipndp" / "small" / "points.parquet"
XOR = {"l1d.set_index": "xor"}


def _as_sensitivity(src: Path, dst: Path, sets: dict) -> None:
    """The committed points as if every one had run with ``sets`` added to its overrides."""
    con = duckdb.connect()
    q = str(src).replace("'", "''")
    patch = json.dumps(sets).replace("'", "''")
    con.execute(f"CREATE TABLE p AS SELECT * REPLACE (CAST(json_merge_patch(overrides, '{patch}') AS VARCHAR) "
                f"AS overrides) FROM read_parquet('{q}')")
    con.execute(f"COPY p TO '{str(dst)}' (FORMAT parquet)")


def test_every_point_takes_the_fields_and_the_experiment_is_named_for_them():
    spec = timed_spec(get_reproduction("ipndp")(), "small", None)[0]
    assert with_sets(spec, None) is spec and with_sets(spec, {}) is spec
    changed = with_sets(spec, XOR)
    assert changed.name == f"{spec.name}-set-l1d.set_index=xor"
    before, after = spec.expand(), changed.expand()
    assert len(after) == len(before) > 0
    for b, a in zip(before, after, strict=True):
        assert (a.workload, a.machine, a.policy) == (b.workload, b.machine, b.policy)
        assert a.overrides == {**b.overrides, **XOR}
    assert sets_slug({"b": 1, "a/x": "y z"}) == "set-a_x=y_z,b=1"


def test_a_field_the_reproduction_sweeps_is_refused():
    spec = timed_spec(get_reproduction("mpu")(), "small", None)[0]  # 1 and 2 row buffers are its own points
    with pytest.raises(ReproductionError, match=r"dram.max_open_subarrays: point .* already sets it to 1"):
        with_sets(spec, {"dram.max_open_subarrays": 4})


def test_a_field_a_machine_lacks_or_a_bad_value_is_refused_before_anything_runs():
    spec = timed_spec(get_reproduction("teleport")(), "small", None)[0]
    with pytest.raises(ReproductionError, match="has no field 'nope'"):
        with_sets(spec, {"nope.x": 1})
    with pytest.raises(ReproductionError, match="l1d.set_index"):
        with_sets(spec, {"l1d.set_index": "bogus"})


def test_a_sensitivity_report_marks_everything_and_reads_its_own_points(tmp_path):
    changed = tmp_path / "xor.parquet"
    _as_sensitivity(POINTS, changed, XOR)
    full = reevaluate("ipndp", "small", POINTS, tmp_path / "full")
    rep = reevaluate("ipndp", "small", changed, tmp_path / "x", sets=XOR)
    data = json.loads((tmp_path / "x" / "report.json").read_text())
    assert data["sensitivity"]["overrides"] == XOR
    assert data["summary"]["points_ok"] == data["summary"]["points"] > 0  # matched by their changed identity
    assert all(c["name"].endswith(" [with l1d.set_index=xor]") for c in data["checks"])
    assert all("(with l1d.set_index=xor)" in f["title"] for f in data["figures"])
    assert all("Sensitivity run" in t.note for t in rep.tables)
    assert "Sensitivity run (`--set`)" in (tmp_path / "x" / "report.md").read_text()
    assert "Sensitivity run" in (tmp_path / "x" / "report.html").read_text()
    # the same rows give the same values: only the names say what changed
    ours = {c.name: c.ours for c in full.checks}
    assert {c.name.removesuffix(" [with l1d.set_index=xor]"): c.ours for c in rep.checks} == ours
    assert "sensitivity" not in json.loads((tmp_path / "full" / "report.json").read_text())
    # the declared points do not stand in for a sensitivity run's
    reevaluate("ipndp", "small", POINTS, tmp_path / "none", sets=XOR)
    assert json.loads((tmp_path / "none" / "report.json").read_text())["summary"]["points_ok"] == 0


def test_the_command_line_refuses_bad_fields_and_all(capsys):
    import argparse

    def args(**kw):
        base = dict(list=False, paper="teleport", scale="small", out=None, doc=None, stored_only=False,
                    from_points=None, timing=None, sample=False, column=[], set=[], jobs=0, store=None, traces=None,
                    executor=None, executor_option=[], scheduler=None, no_progress=True)
        return argparse.Namespace(**{**base, **kw})

    assert reproduce_main(args(set=["l1d.set_index"])) == EXIT_USAGE
    assert "--set expects KEY=VALUE" in capsys.readouterr().err
    assert reproduce_main(args(paper="all", set=["l1d.set_index=xor"])) == EXIT_USAGE
    assert "name it" in capsys.readouterr().err
    assert reproduce_main(args(set=["nope.x=1"])) == EXIT_USAGE
    assert "has no field 'nope'" in capsys.readouterr().err
