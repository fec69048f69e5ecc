"""One measuring instrument: every path that times a program gives the same statistics.

``ndpgpu run`` (no policy, ``--policy baseline``, a mechanism's policy), ``Device(machine=...)``, a sweep
point and ``ndpgpu workloads characterize`` all go through :mod:`ndpgpu.timing.measure`; a mechanism's run
counts the same host copies as its baseline.
"""

from __future__ import annotations

import json
import numbers
from pathlib import Path

import pytest

from ndpgpu.cli import main
from ndpgpu.experiments.points import SweepSpec
from ndpgpu.experiments.runner import run_sweep
from ndpgpu.experiments.store import Filters, ResultStore

WORKLOAD, SCALE, MACHINE = "vecadd", "tiny", "llc-mesh"
POLICY = "llc:omni"


def _numeric(rows) -> dict[str, float]:
    """``path.metric -> value`` of a measurement's numeric rows (wall-clock rows left out)."""
    out = {}
    for path, metric, value, _unit in rows:
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and "wall" not in metric:
            out[f"{path}.{metric}"] = float(value)
    return out


def _cli(capsys, *extra: str) -> dict:
    assert main(["run", WORKLOAD, "--scale", SCALE, "--machine", MACHINE, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _cli_rows(doc: dict) -> dict[str, float]:
    rows = [(r["path"], r["metric"], r["value"], r["unit"]) for r in doc["timing"]]
    return _numeric([*rows, *doc["policy_rows"], *doc["launch_rows"]])


def _sweep_rows(tmp_path: Path, policy: str) -> dict[str, float]:
    spec = SweepSpec.model_validate({"name": f"path-{policy.replace(':', '-')}", "points": [
        {"workload": WORKLOAD, "scale": SCALE, "machine": MACHINE, "policy": policy}]})
    with ResultStore(tmp_path / "store.duckdb") as store:
        result = run_sweep(spec, jobs=0, store=store, traces=tmp_path / "traces", progress=False)
        assert result.ok
        rows = store.results(Filters(keys=result.keys))
    return {r["name"]: float(r["value"]) for r in rows if not r["name"].startswith("functional.")}


def test_run_with_and_without_the_baseline_policy_are_identical(capsys):
    plain = _cli_rows(_cli(capsys))
    baseline = _cli_rows(_cli(capsys, "--policy", "baseline"))
    assert plain == baseline
    assert plain["copies.count"] == 3  # vecadd copies a and b in, c out


def test_every_path_measures_the_baseline_alike(capsys, tmp_path):
    cli = _cli_rows(_cli(capsys))
    sweep = _sweep_rows(tmp_path, "baseline")
    assert {k: v for k, v in sweep.items() if k in cli} == cli  # the store drops only string rows
    assert set(cli) <= set(sweep)

    import ndpgpu
    from ndpgpu.workloads.runner import run_workload

    dev = ndpgpu.Device(machine=MACHINE)
    run_workload(WORKLOAD, SCALE, device=dev)
    device_rows = _numeric(dev.totals().rows())
    assert device_rows == {k: v for k, v in cli.items() if not k.startswith("launch0.")}

    from ndpgpu.workloads.characterize import characterize_workload

    row = characterize_workload(WORKLOAD, SCALE, MACHINE)
    assert row["timing"]["copies"] is True
    assert row["timing"]["cycles"] == cli["kernel.cycles"]
    assert row["timing"]["l2_hit_rate"] == pytest.approx(cli["l2.hit_rate"])


def test_a_mechanism_is_measured_as_its_baseline_is(capsys, tmp_path):
    base = _cli_rows(_cli(capsys))
    mech_doc = _cli(capsys, "--policy", POLICY)
    mech = _cli_rows(mech_doc)
    assert mech_doc["policy"] == POLICY and mech_doc["policy_rows"]
    for copy_row in ("copies.count", "copies.bytes", "copies.time", "copies.h2d_bytes", "copies.d2h_bytes"):
        assert mech[copy_row] == base[copy_row]
    assert mech["kernel.thread_instructions"] == base["kernel.thread_instructions"]
    sweep = _sweep_rows(tmp_path, POLICY)
    assert {k: v for k, v in sweep.items() if k in mech} == mech


def test_no_copies_applies_to_both_sides(capsys):
    base = _cli_rows(_cli(capsys, "--no-copies"))
    mech = _cli_rows(_cli(capsys, "--no-copies", "--policy", POLICY))
    assert "copies.count" not in base or base["copies.count"] == 0
    assert base.get("copies.count", 0) == mech.get("copies.count", 0) == 0
    assert base["l2.hits"] <= _cli_rows(_cli(capsys))["l2.hits"]  # cold L2 without the copies


def test_json_reports_the_whole_commands_time(capsys):
    doc = _cli(capsys)
    assert doc["wall_seconds"] >= doc["functional_seconds"] + doc["timing_seconds"] - 1e-6
    assert doc["timing_seconds"] > 0


def test_offloaded_blocks_count_each_instruction_once(capsys):
    """TOM's GPU runs a block up to its decision point and the stack SM the rest: the timing engine's
    instruction counts equal the functional run's, offloads or not."""
    assert main(["run", "kmeans", "--machine", "tom-ndp", "--policy", "tom:always+bmap", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = _cli_rows(doc)
    assert rows["offload.blocks.offloaded"] > 0
    assert rows["kernel.thread_instructions"] == doc["stats"]["thread_instructions"]
    assert rows["kernel.warp_instructions"] == doc["stats"]["warp_instructions"]
