"""Querying results (pivot, stale filtering, CSV) and the three CLI subcommands."""

from __future__ import annotations

import argparse
from pathlib import Path

import duckdb
import pytest
import yaml
from expkit import fake_spec

from ndpgpu.experiments import cli
from ndpgpu.experiments.interfaces import Executor
from ndpgpu.experiments.results import Table, format_value, pivot, query
from ndpgpu.experiments.runner import run_sweep
from ndpgpu.experiments.store import Filters, ResultStore


@pytest.fixture
def filled_store(tmp_path: Path) -> Path:
    spec = fake_spec(name="exp", workloads=["saxpy", "vecadd"])
    spec.grid[0].overrides = [{}, {"l1d.size_kb": 48, "l1d.assoc": 6}]
    run_sweep(spec, jobs=0, store=tmp_path / "r.duckdb")
    return tmp_path / "r.duckdb"


def test_pivot_is_a_workload_by_config_table(filled_store: Path) -> None:
    with ResultStore(filled_store, read_only=True) as store:
        rows = query(store, Filters(experiment="exp"))
    table = pivot(rows, "cycles")
    assert table.columns == ["workload", "gtx480", "gtx480{l1d.assoc=6,l1d.size_kb=48}", "v100",
                             "v100{l1d.assoc=6,l1d.size_kb=48}"]
    assert [r[0] for r in table.rows] == ["saxpy@tiny", "vecadd@tiny"]
    assert all(isinstance(v, float) for r in table.rows for v in r[1:])
    assert table.title == "cycles [cycle]"
    assert pivot(rows, "l2.miss_rate").rows == pivot(rows, "miss_rate").rows
    assert "saxpy@tiny," in table.to_csv()


def test_results_of_another_code_version_are_hidden_unless_asked(filled_store: Path) -> None:
    con = duckdb.connect(str(filled_store))
    con.execute("UPDATE points SET code_version = 'old' WHERE workload = 'saxpy'")
    con.close()
    with ResultStore(filled_store, read_only=True) as store:
        assert {r["workload"] for r in query(store)} == {"vecadd"}
        assert {r["workload"] for r in query(store, include_stale=True)} == {"saxpy", "vecadd"}


def test_a_parquet_export_leaves_stale_points_out_unless_asked(filled_store: Path, tmp_path: Path) -> None:
    con = duckdb.connect(str(filled_store))
    con.execute("UPDATE points SET code_version = 'old' WHERE workload = 'saxpy'")
    con.close()
    fresh, every = tmp_path / "fresh.parquet", tmp_path / "every.parquet"
    assert cli.main(["results", "--store", str(filled_store), "--parquet", str(fresh)]) == 0
    assert cli.main(["results", "--store", str(filled_store), "--parquet", str(every), "--include-stale"]) == 0
    with ResultStore(filled_store, read_only=True) as store:
        listed = query(store)
    out = duckdb.connect()
    got = out.execute(f"SELECT DISTINCT workload FROM '{fresh}'").fetchall()
    assert got == [("vecadd",)]
    assert out.execute(f"SELECT count(*) FROM '{fresh}'").fetchone()[0] == len(listed)
    assert {w for (w,) in out.execute(f"SELECT DISTINCT workload FROM '{every}'").fetchall()} == {"saxpy", "vecadd"}


def test_format_value_and_markdown() -> None:
    assert [format_value(v) for v in (None, 3, 86605.0, 4258.67, 0.12345, "x", True)] == [
        "—", "3", "86,605", "4,259", "0.1235", "x", "True"
    ]
    t = Table("t", "T", ["a", "b"], [["x", 1.5], ["y", None]])
    assert t.to_markdown().splitlines() == ["| a | b |", "| --- | --- |", "| x | 1.5 |", "| y | — |"]


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ndpgpu")
    cli.add_subcommands(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def test_cli_sweep_results_and_reproduce(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec_path = tmp_path / "s.yaml"
    spec = fake_spec(name="cli", workloads=["saxpy"], fail=["saxpy@tiny on v100"])
    spec_path.write_text(yaml.safe_dump(spec.model_dump(mode="json")))
    db = str(tmp_path / "r.duckdb")

    args = _parse(["sweep", str(spec_path), "--jobs", "0", "--store", db, "--dry-run"])
    assert args.func is cli.sweep_main and cli.sweep_main(args) == 0
    assert "2 points, 2 to run" in capsys.readouterr().out
    assert cli.main(["sweep", str(spec_path), "-j", "0", "--store", db, "--no-progress"]) == cli.EXIT_FAILED_POINTS
    out = capsys.readouterr().out
    assert "1 computed, 1 failed" in out and "FAILED saxpy@tiny on v100: RuntimeError" in out
    assert cli.main(["sweep", str(spec_path), "-j", "0", "--store", db, "--no-retry-failed"]) == 0

    assert cli.main(["results", "--store", db, "--failed", "--traceback"]) == 0
    out = capsys.readouterr().out
    assert "FAILED saxpy@tiny on v100" in out and "Traceback" in out
    assert cli.main(["results", "--store", db, "--pivot", "ipc", "--csv", str(tmp_path / "p.csv")]) == 0
    assert (tmp_path / "p.csv").read_text().startswith("workload,gtx480")
    assert cli.main(["results", "--store", db, "--experiment", "cli", "--metric", "cycles"]) == 0
    assert "saxpy@tiny on gtx480" in capsys.readouterr().out
    assert cli.main(["results", "--store", db, "--parquet", str(tmp_path / "r.parquet")]) == 0
    assert (tmp_path / "r.parquet").exists()
    assert cli.main(["results", "--store", str(tmp_path / "none.duckdb")]) == cli.EXIT_USAGE

    assert cli.main(["sweep", str(tmp_path / "missing.yaml"), "--store", db]) == cli.EXIT_USAGE
    assert "cannot read sweep spec" in capsys.readouterr().err

    assert cli.main(["reproduce", "--list"]) == 0
    assert "builtin" in capsys.readouterr().out
    out_dir = tmp_path / "rep"
    code = cli.main(["reproduce", "builtin", "--scale", "tiny", "--executor", "fake", "--executor-option",
                     "sleep_s=0", "-j", "0", "--store", db, "--out", str(out_dir), "--doc", str(tmp_path / "d.md")])
    assert code == 0 and (out_dir / "report.md").exists() and (out_dir / "report.json").exists()
    assert "builtin: checks 2/2 pass" in capsys.readouterr().out
    assert (tmp_path / "d.md").read_text().startswith("# Built-in workloads on GTX480 and V100")


def test_the_executor_base_refuses_to_instantiate() -> None:
    with pytest.raises(TypeError):
        Executor()  # type: ignore[abstract]


def test_main_job_runs_the_builtin_study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(study="builtin", scale="tiny", out=str(tmp_path / "main"), jobs=0,
                              store=str(tmp_path / "r.duckdb"), executor="fake", no_progress=True)
    assert cli.main_job(args) == 0
    out = tmp_path / "main" / "builtin"  # `ndpgpu main --study X` writes under out/main/X/, as `all` writes each
    assert (out / "report.md").exists() and (out / "figures" / "ipc.png").exists()
    assert not (tmp_path / "main" / "report.md").exists()
    assert "builtin: checks 2/2 pass; points 20/20 ran" in capsys.readouterr().out


def test_main_job_defaults_to_every_reproduction() -> None:
    """`ndpgpu main` (the README's main job) runs `reproduce all` at small scale unless told one study."""
    from ndpgpu.cli import build_parser

    args = build_parser().parse_args(["main"])
    assert (args.study, args.scale, args.out) == ("all", "small", "out/main")
    assert build_parser().parse_args(["main", "--study", "tom"]).study == "tom"


def test_results_csv_has_a_column_per_swept_override(filled_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The override swept by the spec is a column; points that did not override it show the machine's value."""
    import csv
    import io

    from ndpgpu.timing import load_machine

    assert cli.main(["results", "--store", str(filled_store), "--metric", "cycles", "--csv", "-"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 8 and "l1d.size_kb" in rows[0]
    default = {m: str(load_machine(m).l1d.size_kb) for m in ("gtx480", "v100")}
    for r in rows:
        expect = "48" if "48" in r["overrides"] else default[r["machine"]]
        assert r["l1d.size_kb"] in (expect, f"{expect}.0"), r


def test_a_bundle_resumes_a_sweep_in_another_store(filled_store: Path, tmp_path: Path) -> None:
    bundle, other = tmp_path / "bundle", tmp_path / "elsewhere" / "r.duckdb"
    assert cli.main(["results", "--store", str(filled_store), "--export-bundle", str(bundle),
                     "--workload", "saxpy"]) == 0
    assert cli.main(["results", "--store", str(other), "--import-bundle", str(bundle)]) == 0
    spec = fake_spec(name="exp", workloads=["saxpy", "vecadd"])
    spec.grid[0].overrides = [{}, {"l1d.size_kb": 48, "l1d.assoc": 6}]
    result = run_sweep(spec, jobs=0, store=other)
    assert result.reused == 4 and result.computed == 4  # saxpy's four points came with the bundle
    assert cli.main(["results", "--store", str(other), "--import-bundle", str(tmp_path / "none")]) == cli.EXIT_USAGE
