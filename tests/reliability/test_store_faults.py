"""Store faults: a result store cut short, one with corrupt blocks, and a full disk under a sweep each end in
an ndpgpu error with the recovery step (move the damaged store aside and rerun; free space and rerun, with
what was kept), never DuckDB's IOException, its checksum text alone, or the TransactionException of a
rollback after a failed commit."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ndpgpu.experiments import spec_from_dict
from ndpgpu.experiments.runner import run_sweep
from ndpgpu.experiments.store import ResultStore, StoreDamagedError, StoreError, StoreFullError


def _spec(machines=("gtx480",)):
    return spec_from_dict({"name": "t", "executor": "fake",
                           "grid": {"workloads": ["saxpy"], "scales": ["tiny"], "machines": list(machines)}})


@pytest.fixture(scope="module")
def store_bytes(tmp_path_factory) -> bytes:
    d = tmp_path_factory.mktemp("store")
    run_sweep(_spec(), jobs=0, store=d / "good.duckdb", traces=d / "traces", progress=False)
    return (d / "good.duckdb").read_bytes()


def _recovery(path: Path) -> str:
    return rf"is damaged .*Move it aside \(mv {path} {path}\.broken\) and run the sweep again"


def test_a_truncated_store_says_how_to_recover(tmp_path: Path, store_bytes: bytes) -> None:
    path = tmp_path / "cut.duckdb"
    path.write_bytes(store_bytes[: len(store_bytes) // 2])
    for read_only in (True, False):
        with pytest.raises(StoreDamagedError, match=_recovery(path)) as e:
            ResultStore(path, read_only=read_only).results()
        assert "Could not read enough bytes" in str(e.value)
    with pytest.raises(StoreDamagedError, match=_recovery(path)):  # a sweep on it: the same, not IOException
        run_sweep(_spec(), jobs=0, store=path, traces=tmp_path / "traces", progress=False)
    assert issubclass(StoreDamagedError, StoreError)


def test_a_corrupt_store_is_damaged_not_locked(tmp_path: Path, store_bytes: bytes) -> None:
    path = tmp_path / "bad.duckdb"
    data = bytearray(store_bytes)
    for off in range(12288, len(data) - 4096, 4096):  # every block after the headers
        data[off + 100: off + 200] = b"\xff" * 100
    path.write_bytes(bytes(data))
    with pytest.raises(StoreDamagedError, match=_recovery(path)) as e:
        ResultStore(path).results()
    assert "checksum" in str(e.value)
    assert "writing to it right now" not in str(e.value)  # DuckDB's "block" is no lock


def test_a_full_disk_says_what_was_kept(tmp_path: Path, monkeypatch) -> None:
    """The disk fills while the second point is committed: DuckDB's IOException, then its TransactionException
    for the rollback (as reported), become StoreFullError naming the point, what is kept and what to do."""
    path = tmp_path / "s.duckdb"
    real_init = ResultStore.__init__

    class FullDisk:
        def __init__(self, raw) -> None:
            self.raw, self.commits, self.failed = raw, 0, False

        def execute(self, sql, *args):
            if sql == "COMMIT":
                self.commits += 1
                if self.commits == 2:
                    self.failed = True
                    self.raw.execute("ROLLBACK")
                    raise duckdb.IOException('IO Error: Could not write file "s.duckdb.wal": No space left on device')
            if sql == "ROLLBACK" and self.failed:
                raise duckdb.TransactionException("TransactionContext Error: cannot rollback - no transaction is "
                                                  "active")
            return self.raw.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.raw, name)

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        if not self.read_only:
            self.con.raw = FullDisk(self.con.raw)

    monkeypatch.setattr(ResultStore, "__init__", init)
    with pytest.raises(StoreFullError) as e:
        run_sweep(_spec(("gtx480", "llc-mesh")), jobs=0, store=path, traces=tmp_path / "traces", progress=False)
    message = str(e.value)
    assert f"the disk under the result store {path} is full" in message and "No space left on device" in message
    assert "the point saxpy" in message and "was not stored" in message
    assert f"Every point committed before it is kept in {path} (1 written by this process" in message
    assert "Free space on that disk" in message and "run the sweep again" in message
    monkeypatch.setattr(ResultStore, "__init__", real_init)
    with ResultStore(path, read_only=True) as db:  # the first point is there, whole
        assert len(db.points()) == 1 and db.points()[0]["status"] == "ok"
    again = run_sweep(_spec(("gtx480", "llc-mesh")), jobs=0, store=path, traces=tmp_path / "traces",
                      progress=False)
    assert (again.reused, again.computed) == (1, 1)
