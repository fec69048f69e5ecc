"""Recovery from damaged files: a corrupt recording is re-recorded (and kept aside), a truncated trace is
a TraceError naming its file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from expkit import fake_spec, log_calls

import ndpgpu
from ndpgpu.experiments.runner import run_sweep
from ndpgpu.trace.format import KernelTrace, TraceError

VEC_PTX = """.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
"""


def test_a_corrupt_recording_is_moved_aside_and_recorded_again(tmp_path: Path, capsys) -> None:
    log = tmp_path / "log.jsonl"
    spec = fake_spec(workloads=["saxpy"], log=str(log))
    traces = tmp_path / "traces"
    run_sweep(spec, jobs=0, store=tmp_path / "a.duckdb", traces=traces)
    [trace] = list(traces.rglob("launch0.json"))
    trace.write_text(trace.read_text()[:5])  # truncated, as by a crash or a full disk
    again = run_sweep(spec, jobs=0, store=tmp_path / "b.duckdb", traces=traces)
    assert (again.recordings, again.recordings_reused, again.failures) == (1, 0, [])
    assert log_calls(log, "record") == ["saxpy@tiny", "saxpy@tiny"]
    assert "is unreadable" in capsys.readouterr().err
    assert len(list(traces.rglob(".*.corrupt.*"))) == 1  # the damaged one is kept for inspection
    third = run_sweep(spec, jobs=0, store=tmp_path / "c.duckdb", traces=traces)
    assert (third.recordings, third.recordings_reused) == (0, 1)


def test_a_truncated_trace_file_is_a_trace_error_naming_it(tmp_path: Path) -> None:
    fn = ndpgpu.RawModule(ptx=VEC_PTX).get_function("k")
    with ndpgpu.Device(trace=True) as dev:
        fn((1,), (32,), (ndpgpu.zeros(32, np.uint32),))
    path = dev.traces[0].save(tmp_path / "t.npz")
    KernelTrace.verify(path)
    assert KernelTrace.load(path).warp_instructions() == dev.traces[0].warp_instructions()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    for call in (KernelTrace.verify, KernelTrace.load):
        with pytest.raises(TraceError, match=f"{path}: the trace file is truncated or corrupt"):
            call(path)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF  # one byte inside an array: the CRC check sees it
    path.write_bytes(bytes(flipped))
    with pytest.raises(TraceError, match="truncated or corrupt"):
        KernelTrace.verify(path)


def test_a_damaged_result_store_says_how_to_recover(tmp_path: Path) -> None:
    from ndpgpu.experiments.store import ResultStore, StoreError

    db = tmp_path / "r.duckdb"
    db.write_bytes(b"DUCK" + bytes(range(256)) * 64)
    with pytest.raises(StoreError, match=r"is damaged .*Move it aside \(mv .*r\.duckdb .*\.broken\)"):
        ResultStore(db)


def test_ctrl_c_inside_a_duckdb_query_is_an_interruption(monkeypatch, capsys, tmp_path: Path) -> None:
    """DuckDB turns Ctrl-C during a query into its own exception; the CLI must report an interruption
    (exit 130, "run the same command again to resume"), not a RuntimeError."""
    import duckdb

    from ndpgpu.experiments import runner

    def interrupted(*args, **kwargs):
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")

    spec = tmp_path / "s.yaml"
    spec.write_text("name: t\nexecutor: fake\ngrid: {workloads: [saxpy], scales: [tiny], machines: [gtx480]}\n")
    monkeypatch.setattr(runner, "run_sweep", interrupted)
    from ndpgpu.cli import main as cli_main

    assert cli_main(["sweep", str(spec), "--store", str(tmp_path / "r.duckdb")]) == 130
    assert "run the same command again to resume" in capsys.readouterr().err
