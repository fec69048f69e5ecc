"""The DuckDB result store: atomic point writes, filters, Parquet and CSV export, schema version."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ndpgpu.experiments.interfaces import MetricRow
from ndpgpu.experiments.results import write_csv
from ndpgpu.experiments.store import Filters, PointRecord, ResultStore, StoreError


def _record(key: str, workload: str = "saxpy", machine: str = "gtx480", **kw: object) -> PointRecord:
    fields = dict(
        key=key, label=f"{workload}@tiny on {machine}", workload=workload, scale="tiny", machine=machine,
        policy="baseline", overrides="{}", executor="fake", config_hash="c", code_version="v", source_hash="s",
        input_hash="i", nvcc_version="n", arch="a",
    )
    fields.update(kw)
    return PointRecord(**fields)  # type: ignore[arg-type]


ROWS = [MetricRow("", "cycles", 100.0, "cycle"), MetricRow("l2", "miss_rate", 0.5, "ratio")]


def test_write_read_replace_and_filters(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.duckdb") as store:
        store.write_point(_record("k1"), ROWS)
        store.write_point(_record("k2", machine="v100"), ROWS)
        store.write_point(_record("k3", workload="bfs", status="failed", error="boom"))
        store.add_membership("exp", ["k1", "k3"])
        store.add_membership("exp", ["k1"])  # idempotent
        assert store.statuses(["k1", "k3", "k9"]) == {"k1": "ok", "k3": "failed"}
        assert len(store.results()) == 4
        assert {r["key"] for r in store.results(Filters(machines=["v100"]))} == {"k2"}
        assert {r["name"] for r in store.results(Filters(metrics=["miss_rate"]))} == {"l2.miss_rate"}
        assert {r["name"] for r in store.results(Filters(metrics=["l2.miss_rate"]))} == {"l2.miss_rate"}
        assert {r["key"] for r in store.results(Filters(experiment="exp"))} == {"k1"}
        assert [p["key"] for p in store.points(Filters(status="failed"))] == ["k3"]
        assert store.experiments() == [("exp", 2)]
        # a rerun of a key replaces its row and metrics
        store.write_point(_record("k1", elapsed_s=2.0), [MetricRow("", "cycles", 90.0, "cycle")])
        rows = store.results(Filters(keys=["k1"]))
        assert [(r["name"], r["value"]) for r in rows] == [("cycles", 90.0)]
        assert len(store.points(Filters(keys=["k1"]))) == 1


def test_a_point_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.duckdb") as store:
        with pytest.raises(StoreError, match="repeat"):
            store.write_point(_record("k1"), [*ROWS, ROWS[0]])
        store.write_point(_record("k2"), [MetricRow("", "cycles", 1.0, "cycle")])
        bad = [MetricRow("", "cycles", "not a number", "cycle")]  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            store.write_point(_record("k2"), bad)
        assert store.statuses(["k1", "k2"]) == {"k2": "ok"}
        assert [r["value"] for r in store.results(Filters(keys=["k2"]))] == [1.0]


def test_parquet_and_csv_export(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.duckdb") as store:
        store.write_point(_record("k1"), ROWS)
        store.write_point(_record("k2", machine="v100"), ROWS)
        out = store.export_parquet(tmp_path / "x" / "r.parquet", Filters(machines=["v100"]))
        pts = store.export_parquet(tmp_path / "p.parquet", table="points")
        rows = store.results()
    got = duckdb.sql(f"SELECT key, name, value, unit FROM '{out}' ORDER BY name").fetchall()
    assert got == [("k2", "cycles", 100.0, "cycle"), ("k2", "l2.miss_rate", 0.5, "ratio")]
    assert duckdb.sql(f"SELECT count(*) FROM '{pts}'").fetchall() == [(2,)]
    text = write_csv(tmp_path / "r.csv", rows).read_text().splitlines()
    assert text[0].startswith("key,label,workload") and len(text) == 5


def test_read_only_missing_store_and_schema_version(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no result store"):
        ResultStore(tmp_path / "none.duckdb", read_only=True)
    path = tmp_path / "r.duckdb"
    ResultStore(path).close()
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET v = '99' WHERE k = 'schema_version'")
    con.close()
    with pytest.raises(StoreError, match="schema 99"):
        ResultStore(path)


def test_bundle_carries_points_to_another_store(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "a.duckdb") as a:
        a.write_point(_record("k1"), ROWS)
        a.write_point(_record("k2", machine="v100"), ROWS)
        a.write_point(_record("k3", workload="bfs", status="failed", error="boom"))
        a.add_membership("exp", ["k1", "k2", "k3"])
        a.export_bundle(tmp_path / "all")
        a.export_bundle(tmp_path / "v100", Filters(machines=["v100"]))
    with ResultStore(tmp_path / "b.duckdb") as b:
        b.write_point(_record("k1", elapsed_s=7.0), [MetricRow("", "cycles", 1.0, "cycle")])  # kept: it is ok
        b.write_point(_record("k3", workload="bfs", status="failed", error="older"))
        assert b.import_bundle(tmp_path / "v100") == 1
        assert b.import_bundle(tmp_path / "all") == 0  # k1 kept (ok here), k2 already in, k3 failed on both sides
        assert b.statuses(["k1", "k2", "k3"]) == {"k1": "ok", "k2": "ok", "k3": "failed"}
        assert [(r["name"], r["value"]) for r in b.results(Filters(keys=["k1"]))] == [("cycles", 1.0)]
        assert sorted((r["name"], r["value"]) for r in b.results(Filters(keys=["k2"]))) == [
            ("cycles", 100.0), ("l2.miss_rate", 0.5)]
        assert b.points(Filters(keys=["k2"]))[0]["config"] == "{}"
        assert b.experiments() == [("exp", 3)]
    with ResultStore(tmp_path / "c.duckdb") as c:
        c.write_point(_record("k2", machine="v100", status="failed", error="disk full"))
        assert c.import_bundle(tmp_path / "all") == 3  # a stored failure gives way to the bundle's success
        assert c.statuses(["k2"]) == {"k2": "ok"}
        with pytest.raises(StoreError, match="not a result bundle"):
            c.import_bundle(tmp_path)
