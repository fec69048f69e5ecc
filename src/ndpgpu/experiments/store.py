"""The result store: an embedded DuckDB database, exportable to Parquet and CSV.

Tables (see ``docs/experiments.md``):

``points``
    one row per computed point key: the point, every key component, status (``ok``/``failed``), error and
    traceback, the full machine config and the recording's provenance (JSON), run time.
``metrics``
    one row per (point key, metric): ``path``, ``metric``, ``name`` (``path.metric``), ``value``, ``unit``.
``membership``
    which experiments (sweep names) include which keys.

The view ``results`` joins ``metrics`` with ``points``. One process writes at a time (the sweep's main
loop); every point is written in one transaction, so an interrupted sweep leaves no partial point. DuckDB lets
no other process open the file while it is written, so the writer publishes a snapshot beside it for readers
(:meth:`ResultStore.publish_snapshot`, :meth:`ResultStore.open_for_reading`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from .interfaces import MetricRow

SCHEMA_VERSION = 1

POINT_COLUMNS = (
    "key",
    "label",
    "workload",
    "scale",
    "machine",
    "policy",
    "overrides",
    "executor",
    "config_hash",
    "code_version",
    "source_hash",
    "input_hash",
    "nvcc_version",
    "arch",
    "status",
    "error",
    "traceback",
    "elapsed_s",
    "finished_at",
    "config",
    "provenance",
)

_DDL = (
    "CREATE TABLE IF NOT EXISTS meta (k VARCHAR, v VARCHAR)",
    """CREATE TABLE IF NOT EXISTS points (
        key VARCHAR, label VARCHAR, workload VARCHAR, scale VARCHAR, machine VARCHAR, policy VARCHAR,
        overrides VARCHAR, executor VARCHAR, config_hash VARCHAR, code_version VARCHAR, source_hash VARCHAR,
        input_hash VARCHAR, nvcc_version VARCHAR, arch VARCHAR, status VARCHAR, error VARCHAR,
        traceback VARCHAR, elapsed_s DOUBLE, finished_at TIMESTAMP, config VARCHAR, provenance VARCHAR)""",
    """CREATE TABLE IF NOT EXISTS metrics (
        key VARCHAR, path VARCHAR, metric VARCHAR, name VARCHAR, value DOUBLE, unit VARCHAR)""",
    "CREATE TABLE IF NOT EXISTS membership (experiment VARCHAR, key VARCHAR)",
    """CREATE OR REPLACE VIEW results AS
        SELECT p.key, p.label, p.workload, p.scale, p.machine, p.policy, p.overrides, p.executor,
               p.config_hash, p.code_version, p.source_hash, p.input_hash, p.nvcc_version, p.arch,
               m.path, m.metric, m.name, m.value, m.unit
        FROM metrics m JOIN points p USING (key)""",
)


class StoreError(RuntimeError):
    """The store cannot be opened (locked by a running sweep, another schema version) or queried."""


class StoreDamagedError(StoreError):
    """The store's file is truncated or corrupt (DuckDB cannot read a block, or a checksum differs)."""


class StoreFullError(StoreError):
    """A write to the store failed because its disk is full; the points committed before it are kept."""


_DAMAGE = ("not a valid duckdb", "corrupt", "checksum", "could not read enough bytes", "unexpected end of file",
           "truncated", "invalid block", "failed to read")
_FULL = ("no space left", "disk is full", "disk full", "errno 28", "enospc", "out of disk")
_LOCKED = re.compile(r"conflicting lock|could not set lock|\block\b", re.I)


def _is_damage(text: str) -> bool:
    low = text.lower()
    return any(m in low for m in _DAMAGE)


def _is_full(text: str) -> bool:
    low = text.lower()
    return any(m in low for m in _FULL)


def _damaged(path: Path, text: str) -> str:
    return (f"the result store {path} is damaged ({text}). Move it aside (mv {path} {path}.broken) and "
            "run the sweep again: its points are recomputed, and the recordings kept beside the store are "
            "reused, so nothing is recorded twice")


def _full(path: Path, text: str, written: int, what: str) -> str:
    return (f"the disk under the result store {path} is full ({text}): {what} was not stored. Every point "
            f"committed before it is kept in {path} ({written} written by this process; each point is one "
            "transaction, so none is half-written). Free space on that disk (or pass --store on another) and "
            "run the sweep again: it resumes, computing only the points the store lacks")


class _Guarded:
    """The DuckDB connection of a :class:`ResultStore`: a damaged file or a full disk met by any statement
    becomes :class:`StoreDamagedError` / :class:`StoreFullError` with the recovery step, not DuckDB's own
    exception. ``raw`` is the DuckDB connection."""

    def __init__(self, raw: Any, store: ResultStore) -> None:
        self.raw = raw
        self.store = store

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.raw, method)(*args)
        except duckdb.Error as exc:
            fault = self.store._fault(exc, "this statement's write")
            if fault is not None:
                raise fault from None
            raise

    def execute(self, *args: Any) -> Any:
        return self._call("execute", *args)

    def executemany(self, *args: Any) -> Any:
        return self._call("executemany", *args)

    def close(self) -> None:
        self.raw.close()


@dataclasses.dataclass
class PointRecord:
    """One row of ``points``."""

    key: str
    label: str
    workload: str
    scale: str
    machine: str
    policy: str
    overrides: str
    executor: str
    config_hash: str
    code_version: str
    source_hash: str
    input_hash: str
    nvcc_version: str
    arch: str
    status: str = "ok"
    error: str | None = None
    traceback: str | None = None
    elapsed_s: float = 0.0
    finished_at: dt.datetime | None = None
    config: str = "{}"
    provenance: str = "{}"


@dataclasses.dataclass(frozen=True)
class Filters:
    """Row filters: each a list of accepted values (empty: any)."""

    experiment: str | None = None
    workloads: Sequence[str] = ()
    scales: Sequence[str] = ()
    machines: Sequence[str] = ()
    policies: Sequence[str] = ()
    metrics: Sequence[str] = ()  # full names (path.metric) or bare metric names
    keys: Sequence[str] = ()
    status: str | None = None  # points only

    def where(self, alias: str = "") -> tuple[str, list[Any]]:
        """A SQL ``WHERE`` clause (possibly empty) and its parameters."""
        a = f"{alias}." if alias else ""
        clauses: list[str] = []
        params: list[Any] = []

        def any_of(column: str, values: Sequence[str]) -> None:
            if values:
                clauses.append(f"{a}{column} IN ({', '.join('?' for _ in values)})")
                params.extend(values)

        if self.experiment is not None:
            clauses.append(f"{a}key IN (SELECT key FROM membership WHERE experiment = ?)")
            params.append(self.experiment)
        any_of("workload", self.workloads)
        any_of("scale", self.scales)
        any_of("machine", self.machines)
        any_of("policy", self.policies)
        any_of("key", self.keys)
        if self.metrics:
            marks = ", ".join("?" for _ in self.metrics)
            clauses.append(f"({a}name IN ({marks}) OR {a}metric IN ({marks}))")
            params.extend(self.metrics)
            params.extend(self.metrics)
        if self.status is not None:
            clauses.append(f"{a}status = ?")
            params.append(self.status)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


NO_FILTERS = Filters()


def _open_failure(path: Path, exc: Exception) -> StoreError:
    """What went wrong opening a store, and what to do about it."""
    text = str(exc)
    if _is_damage(text):  # before the lock test: a checksum error names a "block"
        return StoreDamagedError(_damaged(path, text))
    if _is_full(text):
        return StoreFullError(_full(path, text, 0, "the store's tables"))
    if _LOCKED.search(text):
        return StoreError(f"cannot open the result store {path}: {text}\n(is a sweep writing to it right now? "
                          "DuckDB allows one writing process at a time)")
    return StoreError(f"cannot open the result store {path}: {text}")


def snapshot_path(path: str | Path) -> Path:
    """Where the writer of the store at ``path`` publishes its snapshot for readers: ``<store>.snapshot``."""
    p = Path(path)
    return p.with_name(p.name + ".snapshot")


def _lock_holder(text: str) -> str:
    """`` (PID 1234)`` from DuckDB's lock error, or ""."""
    found = re.search(r"\(PID (\d+)\)", text)
    return f" (PID {found.group(1)})" if found else ""


class ResultStore:
    """The DuckDB result database at ``path`` (created when missing unless ``read_only``).

    DuckDB lets one process write a database file and no other process open it meanwhile, not even to read. So
    the writer (a sweep's main loop) publishes a *snapshot* beside the store (:func:`snapshot_path`): a copy of
    the database that DuckDB writes (``COPY FROM DATABASE``), replaced atomically, at the sweep's start, at most
    every 30 s while points are written, and at its end; it is removed when the writer closes the store.
    :meth:`open_for_reading` reads the store, or its snapshot while a writer holds the store (``ndpgpu results``
    during a sweep).
    """

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.snapshot_of: Path | None = None  # set when this is a snapshot opened in the store's stead
        self._published = False
        if read_only and not self.path.exists():
            raise StoreError(f"no result store at {self.path} (run a sweep first, or pass --store)")
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.written = 0  # points this process committed (said when a full disk stops a write)
        raw = None
        try:
            raw = duckdb.connect(str(self.path), read_only=read_only)
            self.con = _Guarded(raw, self)
            if not read_only:
                for stmt in _DDL:
                    self.con.execute(stmt)
            row = self.con.execute("SELECT v FROM meta WHERE k = 'schema_version'").fetchone()
        except (duckdb.Error, StoreError) as exc:
            if raw is not None:
                raw.close()  # else this process keeps the file open, and the next open differs in mode
            if isinstance(exc, StoreError):
                raise
            raise _open_failure(self.path, exc) from None
        if not read_only:
            if row is None:
                self.con.execute("INSERT INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
            elif int(row[0]) != SCHEMA_VERSION:
                self.con.close()
                raise StoreError(
                    f"{self.path} has store schema {row[0]}, this ndpgpu writes schema {SCHEMA_VERSION}; "
                    "use another --store or delete it"
                )

    @classmethod
    def open_for_reading(cls, path: str | Path) -> tuple[ResultStore, str | None]:
        """The store at ``path`` opened read-only, and None; or, while another process writes it (DuckDB's lock),
        the snapshot its writer published, and a note saying so (how old it is, who writes the store). A store
        locked with no snapshot yet raises :class:`StoreError` saying when one appears."""
        path = Path(path)
        for _attempt in range(3):  # the writer may finish (and remove its snapshot) between the two opens
            try:
                return cls(path, read_only=True), None
            except StoreError as exc:
                if "lock" not in str(exc).lower():
                    raise
                locked = str(exc)
            snap = snapshot_path(path)
            try:
                mtime = snap.stat().st_mtime
                store = cls(snap, read_only=True)
            except (OSError, StoreError):
                time.sleep(0.2)
                continue
            store.snapshot_of = path
            age = max(0.0, time.time() - mtime)
            note = (f"note: {path} is being written by a running sweep{_lock_holder(locked)} (DuckDB lets no other "
                    f"process open it meanwhile); showing the snapshot it published at "
                    f"{time.strftime('%H:%M:%S', time.localtime(mtime))} ({age:.0f} s ago; refreshed while points are "
                    "written, at most every 30 s or $NDPGPU_PROGRESS_INTERVAL)")
            return store, note
        raise StoreError(f"{locked.splitlines()[0]}\nA sweep is writing it and has published no snapshot to read "
                         f"yet ({snapshot_path(path).name}, beside the store: made when the sweep starts and at "
                         "most every 30 s): try again in a moment")

    @property
    def snapshots(self) -> bool:
        """Whether this store publishes snapshots for readers (a writer of a file)."""
        return not self.read_only and self.snapshot_of is None and str(self.path) != ":memory:"

    def publish_snapshot(self) -> Path | None:
        """(The writer.) Copy the database (its committed state, by DuckDB) to :func:`snapshot_path`, atomically
        replacing the last snapshot; None when there is nothing to publish or the copy fails (readers then see an
        older one)."""
        if not self.snapshots or not self.path.is_file():
            return None
        snap = snapshot_path(self.path)
        tmp = snap.with_name(f".{snap.name}.{os.getpid()}.tmp")
        # DuckDB copies its own committed state: the file itself must not be opened outside DuckDB in this process
        # (closing any descriptor of it would drop the process's POSIX lock on it, letting a second writer in)
        try:
            for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
                leftover.unlink(missing_ok=True)
            quoted = str(tmp).replace("'", "''")
            con = self.con.raw  # a failed copy (a full disk) only skips this snapshot
            (db,) = con.execute("SELECT current_database()").fetchone()  # type: ignore[misc]
            con.execute(f"ATTACH '{quoted}' AS ndpgpu_snapshot")
            try:
                con.execute(f'COPY FROM DATABASE "{db}" TO ndpgpu_snapshot')
            finally:
                con.execute("DETACH ndpgpu_snapshot")
            os.replace(tmp, snap)
        except (duckdb.Error, OSError):
            tmp.unlink(missing_ok=True)
            return None
        self._published = True
        return snap

    # -- lifecycle ---------------------------------------------------------------------------------
    def close(self) -> None:
        self.con.close()
        if self._published:  # the store itself is readable again
            snapshot_path(self.path).unlink(missing_ok=True)
            self._published = False

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing (the single writer) ---------------------------------------------------------------
    def add_membership(self, experiment: str, keys: Iterable[str]) -> None:
        """Record that ``experiment`` includes ``keys`` (idempotent)."""
        wanted = sorted(set(keys))
        have = {
            k for (k,) in self.con.execute("SELECT key FROM membership WHERE experiment = ?", [experiment]).fetchall()
        }
        new = [(experiment, k) for k in wanted if k not in have]
        if new:
            self.con.executemany("INSERT INTO membership VALUES (?, ?)", new)

    def write_point(self, record: PointRecord, rows: Sequence[MetricRow] = ()) -> None:
        """Store one point (replacing an earlier row of the same key) and its metrics atomically."""
        if record.finished_at is None:
            record.finished_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        names = [r.name for r in rows]
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise StoreError(f"{record.label}: metric names repeat: {dup}")
        values = [getattr(record, c) for c in POINT_COLUMNS]
        con = self.con.raw  # DuckDB's own errors here: a failed write is reported for this point below
        try:
            con.execute("BEGIN TRANSACTION")
            con.execute("DELETE FROM metrics WHERE key = ?", [record.key])
            con.execute("DELETE FROM points WHERE key = ?", [record.key])
            con.execute(f"INSERT INTO points VALUES ({', '.join('?' for _ in POINT_COLUMNS)})", values)
            if rows:
                con.executemany(
                    "INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?)",
                    [(record.key, r.path, r.metric, r.name, float(r.value), r.unit) for r in rows],
                )
            con.execute("COMMIT")
        except BaseException as exc:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass  # a failed COMMIT has ended the transaction already: the first error is the one to report
            fault = self._fault(exc, f"the point {record.label}") if isinstance(exc, duckdb.Error) else None
            if fault is not None:
                raise fault from None
            raise
        self.written += 1

    def _fault(self, exc: Exception, what: str) -> StoreError | None:
        """The ndpgpu error for DuckDB's ``exc`` when it is a damaged file or a full disk, else None."""
        text = str(exc)
        if _is_full(text):
            return StoreFullError(_full(self.path, text, self.written, what))
        if _is_damage(text):
            return StoreDamagedError(_damaged(self.path, text))
        return None

    # -- reading -----------------------------------------------------------------------------------
    def statuses(self, keys: Iterable[str]) -> dict[str, str]:
        """``key -> status`` for the keys already stored."""
        keys = list(keys)
        if not keys:
            return {}
        self.con.execute("CREATE OR REPLACE TEMP TABLE _wanted (key VARCHAR)")
        self.con.executemany("INSERT INTO _wanted VALUES (?)", [(k,) for k in keys])
        found = self.con.execute("SELECT key, status FROM points JOIN _wanted USING (key)").fetchall()
        return dict(found)

    def points(self, filters: Filters = NO_FILTERS) -> list[dict[str, Any]]:
        """Rows of ``points`` matching ``filters`` (metric filters ignored), ordered by label."""
        f = dataclasses.replace(filters, metrics=())
        where, params = f.where()
        cur = self.con.execute(f"SELECT * FROM points{where} ORDER BY workload, scale, label", params)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]

    def results(self, filters: Filters = NO_FILTERS) -> list[dict[str, Any]]:
        """Rows of the ``results`` view matching ``filters``, ordered by point then metric name."""
        where, params = dataclasses.replace(filters, status=None).where()
        cur = self.con.execute(f"SELECT * FROM results{where} ORDER BY workload, scale, label, name", params)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]

    def to_pandas(self, filters: Filters = NO_FILTERS) -> Any:
        """The matching results, one row per point, swept overrides as columns (defaults filled in), a float64
        column per metric (units in ``attrs["units"]``). Needs pandas."""
        from .frames import results_to_pandas

        return results_to_pandas(self.results(filters))

    def to_polars(self, filters: Filters = NO_FILTERS) -> Any:
        """As :meth:`to_pandas`, in polars. Needs polars."""
        from .frames import results_to_polars

        return results_to_polars(self.results(filters))

    def experiments(self) -> list[tuple[str, int]]:
        """``(experiment, number of points)`` for every experiment in the store."""
        return self.con.execute(
            "SELECT experiment, count(*) FROM membership GROUP BY experiment ORDER BY experiment"
        ).fetchall()

    def experiment_counts(self) -> list[tuple[str, int, int, int, int]]:
        """``(experiment, points, ok, failed, not run)`` for every experiment: a sweep records its points'
        membership before it runs them, so a point of an interrupted sweep that never ran is *not run*, apart from
        the failed ones."""
        return [tuple(int(v) if i else v for i, v in enumerate(r)) for r in self.con.execute(  # type: ignore[misc]
            """SELECT m.experiment, count(*), count(*) FILTER (WHERE p.status = 'ok'),
                      count(*) FILTER (WHERE p.status = 'failed'), count(*) FILTER (WHERE p.key IS NULL)
               FROM membership m LEFT JOIN points p USING (key) GROUP BY m.experiment ORDER BY m.experiment"""
        ).fetchall()]

    def export_parquet(self, path: str | Path, filters: Filters = NO_FILTERS, table: str = "results",
                       exclude: Iterable[str] = ()) -> Path:
        """Write the matching rows of ``results`` (or ``points``) to a Parquet file, less the points whose
        keys are in ``exclude`` (the stale ones, say)."""
        if table not in ("results", "points"):
            raise StoreError(f"export_parquet: table must be 'results' or 'points', not {table!r}")
        f = filters if table == "points" else dataclasses.replace(filters, status=None)
        if table == "points":
            f = dataclasses.replace(f, metrics=())
        where, params = f.where()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        quoted = str(path).replace("'", "''")
        rows = f"SELECT * FROM {table}{where}"
        skip = sorted(set(exclude))
        if skip:
            self.con.execute("CREATE OR REPLACE TEMP TABLE _export_excluded (key VARCHAR)")
            self.con.executemany("INSERT INTO _export_excluded VALUES (?)", [(k,) for k in skip])
            rows = f"SELECT * FROM ({rows}) WHERE key NOT IN (SELECT key FROM _export_excluded)"
        self.con.execute(f"COPY ({rows} ORDER BY key) TO '{quoted}' (FORMAT parquet)", params)
        return path

    # -- moving stores between machines --------------------------------------------------------------
    def export_bundle(self, directory: str | Path, filters: Filters = NO_FILTERS) -> Path:
        """Write the matching points, their metrics and memberships as Parquet files under ``directory`` (a
        *bundle*: everything :meth:`import_bundle` needs to resume a run on another machine)."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        f = dataclasses.replace(filters, metrics=())
        where, params = f.where()
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE _bundle AS SELECT key FROM points{where}", params)
        for table in _BUNDLE_TABLES:
            target = str(out / f"{table}.parquet").replace("'", "''")
            self.con.execute(f"COPY (SELECT t.* FROM {table} t JOIN _bundle USING (key) ORDER BY ALL) "
                             f"TO '{target}' (FORMAT parquet)")
        (out / "bundle.json").write_text(f'{{"schema_version": {SCHEMA_VERSION}}}\n')
        return out

    def import_bundle(self, directory: str | Path) -> int:
        """Add a bundle's points (with their metrics and memberships) to this store; a stored point of the same
        key is kept unless it failed. Returns how many points were added."""
        src = Path(directory)
        meta = src / "bundle.json"
        if not meta.is_file():
            raise StoreError(f"{src} is not a result bundle (no bundle.json; write one with --export-bundle)")
        version = json.loads(meta.read_text()).get("schema_version")
        if version != SCHEMA_VERSION:
            raise StoreError(f"{src} holds store schema {version}, this ndpgpu reads schema {SCHEMA_VERSION}")
        paths = {t: str(src / f"{t}.parquet").replace("'", "''") for t in _BUNDLE_TABLES}
        for t, p in paths.items():
            if not Path(p).is_file():
                raise StoreError(f"{src}: {t}.parquet is missing")
        self.con.execute("BEGIN TRANSACTION")
        try:
            self.con.execute(f"""CREATE OR REPLACE TEMP TABLE _incoming AS
                SELECT b.key FROM read_parquet('{paths["points"]}') b
                LEFT JOIN points p USING (key) WHERE p.key IS NULL OR (p.status = 'failed' AND b.status = 'ok')""")
            for t in ("points", "metrics"):
                self.con.execute(f"DELETE FROM {t} WHERE key IN (SELECT key FROM _incoming)")
                self.con.execute(f"INSERT INTO {t} SELECT b.* FROM read_parquet('{paths[t]}') b "
                                 "JOIN _incoming USING (key)")
            self.con.execute(f"""INSERT INTO membership SELECT b.* FROM read_parquet('{paths["membership"]}') b
                WHERE NOT EXISTS (SELECT 1 FROM membership m WHERE m.experiment = b.experiment AND m.key = b.key)""")
            added = self.con.execute("SELECT count(*) FROM _incoming").fetchone()[0]
            self.con.execute("COMMIT")
        except (duckdb.Error, StoreError) as exc:
            try:
                self.con.raw.execute("ROLLBACK")
            except duckdb.Error:
                pass
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"cannot import the bundle {src}: {exc}") from None
        return int(added)


_BUNDLE_TABLES = ("points", "metrics", "membership")
