"""The command line for machines and scripts: ``results --json`` and ``--csv -``, quiet exports, ``cycles`` as the
kernel's in pivots, TSV when stdout is not a terminal, "did you mean", the papers' abbreviations as workload
names, ``machines diff`` and ``machines show --set``, and one exit status for every usage error."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from ndpgpu import cli
from ndpgpu.cliargs import EXIT_USAGE
from ndpgpu.experiments.points import spec_from_dict
from ndpgpu.experiments.results import pivot
from ndpgpu.experiments.runner import run_sweep
from ndpgpu.timing import load_machine
from ndpgpu.workloads.aliases import aliases_of
from ndpgpu.workloads.base import WorkloadError, get_workload


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    d = tmp_path_factory.mktemp("cli")
    spec = spec_from_dict({"name": "cli", "executor": "fake",
                           "grid": {"workloads": ["saxpy", "vecadd"], "scales": ["tiny"], "machines": ["gtx480"]}})
    run_sweep(spec, jobs=0, store=d / "r.duckdb", traces=d / "traces", progress=False)
    return str(d / "r.duckdb")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_results_json_and_csv_to_stdout(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "results", "--store", store, "--json")
    rows = json.loads(out)
    assert rc == 0 and {r["workload"] for r in rows} == {"saxpy", "vecadd"}
    assert all(isinstance(r["overrides"], dict) and isinstance(r["value"], float) for r in rows)
    rc, out, _ = _run(capsys, "results", "--store", store, "--csv", "-")
    parsed = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0 and len(parsed) == len(rows) and not Path("-").exists()
    rc, out, _ = _run(capsys, "results", "--store", store, "--pivot", "cycles", "--json")
    table = json.loads(out)
    assert rc == 0 and table["columns"] == ["workload", "gtx480"] and len(table["rows"]) == 2


def test_exports_are_quiet(store: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(capsys, "results", "--store", store, "--parquet", str(tmp_path / "r.parquet"))
    assert rc == 0 and out == "" and "wrote" in err and (tmp_path / "r.parquet").exists()
    rc, out, err = _run(capsys, "results", "--store", store, "--csv", str(tmp_path / "r.csv"))
    assert rc == 0 and out == "" and "wrote" in err


def test_tables_are_tsv_when_stdout_is_not_a_terminal(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "results", "--store", store)
    lines = out.splitlines()
    assert rc == 0 and lines[0].split("\t") == ["point", "metric", "value", "unit"]
    assert all(len(line.split("\t")) == 4 for line in lines[1:])
    rc, out, _ = _run(capsys, "workloads")
    head = out.splitlines()[0].split("\t")
    assert head[:4] == ["name", "suite", "papers", "aliases"]
    kmeans = next(line.split("\t") for line in out.splitlines() if line.startswith("kmeans\t"))
    tom_kmeans = next(line.split("\t") for line in out.splitlines() if line.startswith("kmeans_nounroll\t"))
    assert "LLC-Compute:KMN" in kmeans[3] and "TOM:KM" in tom_kmeans[3]  # TOM runs its no-unroll copy


def test_a_bare_cycles_means_the_kernels() -> None:
    base = {"workload": "w", "scale": "tiny", "machine": "m", "policy": "baseline", "overrides": "{}", "unit": "cycles"}
    rows = [{**base, "name": "kernel.cycles", "metric": "cycles", "value": 10.0},
            {**base, "name": "tom.learning.cycles", "metric": "cycles", "value": 3.0}]
    assert pivot(rows, "cycles").rows == [["w@tiny", 10.0]]
    rows2 = [{**r, "name": r["name"].replace("kernel.", "core.")} for r in rows]
    with pytest.raises(ValueError, match="ambiguous"):
        pivot(rows2, "cycles")


def test_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _run(capsys, "run", "vecad")
    assert rc == EXIT_USAGE and "did you mean 'vecadd'?" in err and "saxpy" not in err  # not all 113 names
    rc, _, err = _run(capsys, "machines", "show", "v10")
    assert rc == EXIT_USAGE and "did you mean 'v100'?" in err
    with pytest.raises(Exception, match="did you mean 'size_kb'"):
        load_machine("gtx480", {"l2.sizekb": 1})


def test_paper_abbreviations_name_workloads() -> None:
    assert get_workload("KM").name == "kmeans_nounroll" and get_workload("kmn").name == "kmeans"  # TOM's copy; LLC's
    assert get_workload("JAC").name == "tp_jacobi" and get_workload("MMA").name == "tp_matadd"
    assert get_workload("HW").name == "heartwall" and get_workload("RD").name == "reduction"
    assert get_workload("TELEPORT:BFS").name == "tp_bfs" and get_workload("TOM:BFS").name == "bfs_rodinia_nounroll"
    with pytest.raises(WorkloadError,
                       match=r"'BFS' is ambiguous: TOM:BFS = bfs_rodinia_nounroll.*TELEPORT:BFS = tp_bfs"):
        get_workload("BFS")
    assert aliases_of("heartwall") == ["TOM:HW"]


def test_machines_diff_and_show_set(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "machines", "diff", "gtx480", "v100", "--json")
    doc = json.loads(out)
    fields = {f["field"]: (f["a"], f["b"]) for f in doc["fields"]}
    assert rc == 0 and fields["clocks.core_mhz"] == (load_machine("gtx480").clocks.core_mhz,
                                                      load_machine("v100").clocks.core_mhz)
    assert "name" in fields and all(a != b for a, b in fields.values())
    rc, out, _ = _run(capsys, "machines", "diff", "v100", "v100", "--set", "l2.size_kb=192", "--json")
    assert rc == 0 and [f["field"] for f in json.loads(out)["fields"]] == ["l2.size_kb"]
    rc, out, _ = _run(capsys, "machines", "show", "v100", "--set", "l2.size_kb=192", "--json")
    assert rc == 0 and json.loads(out)["machine"]["l2"]["size_kb"] == 192


@pytest.mark.parametrize("argv", [
    ["run", "vecadd", "--set", "l2.size_kb=1"],  # --set without --machine
    ["run", "vecadd", "--no-such-option"],  # argparse
    ["machines", "diff", "gtx480"],
    ["machines", "--set", "x=1"],
    ["run", "BFS"],  # an ambiguous paper name
    ["sweep", "--executor-option", "novalue", "spec.yaml"],
])
def test_every_usage_error_has_one_exit_status(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        rc = cli.main(argv)
    except SystemExit as exc:  # argparse exits by itself
        rc = exc.code
    assert rc == EXIT_USAGE
    assert "error" in capsys.readouterr().err
