"""Trace identity: a sweep reuses a finished recording found on disk only when it is the recording of the
point's key (workload, scale, provenance) with the very trace files it wrote (sha256); a trace file swapped
for another workload's (intact, same format) is noticed, warned about and recorded again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ndpgpu.experiments import RecordingManifest, RecordingMismatchWarning, spec_from_dict
from ndpgpu.experiments.runner import run_sweep
from ndpgpu.experiments.store import ResultStore
from ndpgpu.workloads.runner import toolchain_available

needs_toolchain = pytest.mark.skipif(not toolchain_available(), reason="nvcc is needed to compile the kernels")


def _spec(workload: str):
    return spec_from_dict({"name": "t", "executor": "simulator",
                           "grid": {"workloads": [workload], "scales": ["tiny"], "machines": ["gtx480"]}})


def _rows(store: Path) -> dict[str, float]:
    db = ResultStore(store)
    try:
        return {r["name"]: r["value"] for r in db.results()}
    finally:
        db.close()


@needs_toolchain
def test_a_trace_swapped_for_another_workloads_is_recorded_again(tmp_path: Path, capsys) -> None:
    traces = tmp_path / "traces"
    clean = run_sweep(_spec("vecadd"), jobs=0, store=tmp_path / "clean.duckdb", traces=traces, progress=False)
    assert clean.ok and clean.recordings == 1
    [manifest_file] = list((traces / "vecadd").rglob(RecordingManifest.FILE))
    manifest = json.loads(manifest_file.read_text())
    assert manifest["key"]["workload"] == "vecadd" and manifest["key"]["scale"] == "tiny"
    assert {"source_hash", "input_hash", "nvcc_version", "arch"} <= set(manifest["key"])
    assert len(manifest["trace_digests"]) == len(manifest["trace_paths"])

    other = run_sweep(_spec("saxpy"), jobs=0, store=tmp_path / "other.duckdb", traces=traces, progress=False)
    assert other.ok
    [saxpy_trace] = sorted((traces / "saxpy").rglob("launch0000.npz"))
    victim = manifest_file.parent / manifest["trace_paths"][0]
    shutil.copyfile(saxpy_trace, victim)  # intact (its CRC checks out), but the trace of another workload

    with pytest.warns(RecordingMismatchWarning, match="launch0000.npz.*sha256"):
        again = run_sweep(_spec("vecadd"), jobs=0, store=tmp_path / "again.duckdb", traces=traces,
                          progress=False)
    err = capsys.readouterr().err
    assert "launch0000.npz" in err and "recorded again" in err
    assert (again.recordings, again.recordings_reused, again.failures) == (1, 0, [])
    assert len(list((traces / "vecadd").rglob(".*.mismatch.*"))) == 1  # kept aside for inspection
    assert _rows(tmp_path / "again.duckdb") == _rows(tmp_path / "clean.duckdb")

    third = run_sweep(_spec("vecadd"), jobs=0, store=tmp_path / "third.duckdb", traces=traces, progress=False)
    assert (third.recordings, third.recordings_reused) == (0, 1)  # the re-recording is reused as it is


def _fake_spec():
    return spec_from_dict({"name": "t", "executor": "fake",
                           "grid": {"workloads": ["saxpy"], "scales": ["tiny"], "machines": ["gtx480"]}})


@pytest.mark.parametrize("edit", ["another key", "no identity"])
def test_a_manifest_of_another_key_or_without_one_is_not_reused(tmp_path: Path, capsys, edit: str) -> None:
    """The key check alone (the trace files untouched): a manifest recorded for another input, or one
    written before manifests carried their key, is recorded again with a warning saying what differed."""
    traces = tmp_path / "traces"
    run_sweep(_fake_spec(), jobs=0, store=tmp_path / "a.duckdb", traces=traces, progress=False)
    [manifest_file] = list(traces.rglob(RecordingManifest.FILE))
    data = json.loads(manifest_file.read_text())
    if edit == "another key":
        data["key"]["input_hash"] = "0123456789ab"
        expected = "input_hash is '0123456789ab' in the manifest"
    else:
        del data["key"], data["trace_digests"]
        expected = "no recorded identity"
    manifest_file.write_text(json.dumps(data))
    with pytest.warns(RecordingMismatchWarning, match=expected):
        again = run_sweep(_fake_spec(), jobs=0, store=tmp_path / "b.duckdb", traces=traces, progress=False)
    assert expected in capsys.readouterr().err
    assert (again.recordings, again.recordings_reused, again.failures) == (1, 0, [])
