"""Reading results back: filtered rows, a workload x config pivot table, CSV export, and the
:class:`ResultSet` a reproduction computes its figures and checks from."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .points import DEFAULT_POLICY, Point, config_label
from .provenance import canonical_json, code_version, workload_source_hash
from .store import Filters, ResultStore


@dataclasses.dataclass
class Table:
    """A titled table: the unit of ``ndpgpu results --pivot``, of reports and of generated documents."""

    name: str
    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""

    def to_markdown(self, digits: int = 4) -> str:
        """A GitHub-flavoured markdown table (numbers to ``digits`` significant digits)."""
        head = "| " + " | ".join(self.columns) + " |"
        rule = "| " + " | ".join("---" for _ in self.columns) + " |"
        body = ["| " + " | ".join(format_value(v, digits) for v in row) + " |" for row in self.rows]
        return "\n".join([head, rule, *body])

    def to_csv(self) -> str:
        """CSV text (full precision)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for row in self.rows:
            w.writerow(["" if v is None else v for v in row])
        return buf.getvalue()

    def _repr_html_(self) -> str:
        from ..frames import html_table

        return html_table(self.columns, self.rows, self.title) + (f"<p>{self.note}</p>" if self.note else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "columns": self.columns,
            "rows": self.rows,
            "note": self.note,
        }


def format_value(value: Any, digits: int = 4) -> str:
    """Numbers for people: integers and values from 1000 up rounded with thousands separators, others to ``digits``
    significant digits;
    None (or NaN) as an em dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e15):
        return f"{int(value):,}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def stale_keys(store: ResultStore, rows: Iterable[dict[str, Any]]) -> set[str]:
    """Keys among ``rows`` whose code version or workload source differs from the current tree's."""
    from ndpgpu.workloads.base import WorkloadError, get_workload

    current = code_version()
    sources: dict[str, str | None] = {}
    stale = set()
    for row in rows:
        w = row["workload"]
        if w not in sources:
            try:
                sources[w] = workload_source_hash(get_workload(w))
            except WorkloadError:
                sources[w] = None
        if row["code_version"] != current or row["source_hash"] != sources[w]:
            stale.add(row["key"])
    return stale


def query(store: ResultStore, filters: Filters | None = None, include_stale: bool = False) -> list[dict[str, Any]]:
    """Rows of the ``results`` view; results of another code version or workload source are left out
    unless ``include_stale``."""
    rows = store.results(filters or Filters())
    if include_stale:
        return rows
    stale = stale_keys(store, rows)
    return [r for r in rows if r["key"] not in stale]


def _row_config(row: dict[str, Any]) -> str:
    return config_label(row["machine"], row["policy"], json.loads(row["overrides"] or "{}"))


def pivot(rows: Sequence[dict[str, Any]], metric: str, title: str = "") -> Table:
    """A workload x config table of one metric (``workload@scale`` rows, config-label columns).

    ``metric`` is a full name (``path.metric``) or a bare metric name; a cell holding two values (the
    same point computed by two code versions) shows the most recent one.
    """
    matching = [r for r in rows if r["name"] == metric or r["metric"] == metric]
    names = sorted({r["name"] for r in matching})
    if len(names) > 1 and f"kernel.{metric}" in names:  # a bare name the kernel has: the kernel's (cycles)
        matching = [r for r in matching if r["name"] == f"kernel.{metric}"]
        names = [f"kernel.{metric}"]
    if len(names) > 1:
        raise ValueError(f"metric {metric!r} is ambiguous: {', '.join(names)}; give the full name")
    units = sorted({r["unit"] for r in matching if r["unit"]})
    configs: list[str] = []
    cells: dict[tuple[str, str], float] = {}
    row_names: list[str] = []
    for r in matching:
        cfg = _row_config(r)
        wl = f"{r['workload']}@{r['scale']}"
        if cfg not in configs:
            configs.append(cfg)
        if wl not in row_names:
            row_names.append(wl)
        cells[(wl, cfg)] = r["value"]
    configs.sort()
    table_rows = [[wl, *[cells.get((wl, c)) for c in configs]] for wl in row_names]
    unit = f" [{units[0]}]" if len(units) == 1 else ""
    return Table("pivot", title or f"{names[0] if names else metric}{unit}", ["workload", *configs], table_rows)


def write_csv(path: str | Path | Any, table_or_rows: Table | Sequence[dict[str, Any]]) -> Path | None:
    """Write a :class:`Table`, or result rows (every column), as CSV to a path or an open text file."""
    if hasattr(path, "write"):
        if isinstance(table_or_rows, Table):
            path.write(table_or_rows.to_csv())
            return None
        rows = list(table_or_rows)
        if rows:
            w = csv.DictWriter(path, fieldnames=list(rows[0]), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        return None
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(table_or_rows, Table):
        path.write_text(table_or_rows.to_csv())
        return path
    rows = list(table_or_rows)
    with path.open("w", newline="") as fh:
        if rows:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
    return path


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean of the positive values given; None when there are none."""
    vals = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


@dataclasses.dataclass
class PointResult:
    """One point of a reproduction: its status and, when ok, its metrics by full name."""

    point: Point
    key: str
    status: str  # "ok" | "failed" | "missing"
    error: str | None
    metrics: dict[str, tuple[float, str]]  # name -> (value, unit)
    config_hash: str = ""
    # the point as it ran, where that differs from ``point`` (a reproduction's declared timing renames its
    # machines: ``point`` is as the reproduction names it, ``ran`` as the store has it)
    ran: Point | None = None

    def get(self, metric: str) -> float | None:
        """A metric by full name, or by bare name when that is unambiguous; None when absent."""
        if metric in self.metrics:
            return self.metrics[metric][0]
        found = [v for name, v in self.metrics.items() if name.rsplit(".", 1)[-1] == metric]
        if len(found) > 1:
            names = sorted(n for n in self.metrics if n.rsplit(".", 1)[-1] == metric)
            raise KeyError(f"metric {metric!r} is ambiguous for {self.point.label}: {names}")
        return found[0][0] if found else None


class ResultSet:
    """The results of a list of points (by key), as a reproduction sees them."""

    def __init__(self, results: list[PointResult]) -> None:
        self.results = results

    @classmethod
    def load(cls, store: ResultStore, points: Sequence[Point], keys: Sequence[str]) -> ResultSet:
        """Read the given points' rows (exactly these keys: never a stale result)."""
        by_key = {p["key"]: p for p in store.points(Filters(keys=list(keys)))}
        metrics: dict[str, dict[str, tuple[float, str]]] = {k: {} for k in keys}
        for r in store.results(Filters(keys=list(keys))):
            metrics[r["key"]][r["name"]] = (r["value"], r["unit"])
        out = []
        for point, key in zip(points, keys, strict=True):
            row = by_key.get(key)
            status = row["status"] if row else "missing"
            out.append(
                PointResult(
                    point,
                    key,
                    status,
                    row["error"] if row else "not computed",
                    metrics[key],
                    row["config_hash"] if row else "",
                )
            )
        return cls(out)

    @classmethod
    def from_points_file(cls, path: str | Path, points: Sequence[Point]) -> ResultSet:
        """The given points' results read from a points file (a report's ``points.parquet``: every metric row
        of every point, as ``ndpgpu results --parquet`` exports them), matched by identity (workload, scale,
        machine, policy, overrides) rather than by key, so a report can be re-evaluated from rows stored by an
        earlier code version. A point the file lacks is ``missing``."""
        import duckdb

        con = duckdb.connect()
        try:
            quoted = str(path).replace("'", "''")
            rows = con.execute(
                "SELECT key, workload, scale, machine, policy, overrides, config_hash, name, value, unit "
                f"FROM read_parquet('{quoted}')").fetchall()
        finally:
            con.close()
        by_identity: dict[tuple[str, ...], tuple[str, str, dict[str, tuple[float, str]]]] = {}
        for key, wl, sc, mach, pol, ovr, chash, name, value, unit in rows:
            ident = (wl, sc, mach, pol, canonical_json(json.loads(ovr) if ovr else {}))
            entry = by_identity.setdefault(ident, (key, chash or "", {}))
            if entry[0] == key:  # one stored point per identity: the first key seen
                entry[2][name] = (value, unit)
        out = []
        for point in points:
            found = by_identity.get(point.identity())
            if found is None:
                out.append(PointResult(point, "", "missing", f"not in {path}", {}))
            else:
                key, chash, metrics = found
                out.append(PointResult(point, key, "ok", None, metrics, chash))
        return cls(out)

    def as_named(self, named: Sequence[Point]) -> ResultSet:
        """These results under the names a reproduction gives their points (``named``, in the same order): each
        result keeps the point it ran as ``ran``."""
        return ResultSet([dataclasses.replace(r, point=n, ran=r.point) for r, n in zip(self.results, named,
                                                                                     strict=True)])

    # -- frames ------------------------------------------------------------------------------------
    def _store_rows(self) -> list[dict[str, Any]]:
        """The finished points' metrics as result-store rows (what :mod:`ndpgpu.experiments.frames` reads)."""
        rows = []
        for r in self.results:
            if r.status != "ok":
                continue
            p = r.point
            base = {"key": r.key, "workload": p.workload, "scale": p.scale, "machine": p.machine, "policy": p.policy,
                    "overrides": json.dumps(p.overrides)}
            rows += [{**base, "name": name, "value": v, "unit": u} for name, (v, u) in r.metrics.items()]
        return rows

    def to_pandas(self) -> Any:
        """One row per finished point: identity, a column per swept override (defaults filled in), a float64
        column per metric (units in ``attrs["units"]``). Needs pandas."""
        from .frames import results_to_pandas

        return results_to_pandas(self._store_rows())

    def to_polars(self) -> Any:
        """As :meth:`to_pandas`, in polars. Needs polars."""
        from .frames import results_to_polars

        return results_to_polars(self._store_rows())

    def _repr_html_(self) -> str:
        from ..frames import html_table

        rows = [(r.point.label, r.status, len(r.metrics), r.error or "") for r in self.results]
        return html_table(("point", "status", "metrics", "error"), rows, f"{len(self.results)} points",
                          numeric=(False, False, True, False))

    # -- selection ---------------------------------------------------------------------------------
    def find(
        self,
        workload: str,
        machine: str,
        policy: str = DEFAULT_POLICY,
        overrides: dict[str, Any] | None = None,
        scale: str | None = None,
    ) -> PointResult | None:
        """The result of one point (the first when several scales match and ``scale`` is None)."""
        ov = overrides or {}
        for r in self.results:
            p = r.point
            if (p.workload, p.machine, p.policy, p.overrides) == (workload, machine, policy, ov) and (
                scale is None or p.scale == scale
            ):
                return r
        return None

    def value(self, workload: str, machine: str, metric: str, **kw: Any) -> float | None:
        """One metric of one point; None when the point failed, is missing or lacks the metric."""
        r = self.find(workload, machine, **kw)
        return r.get(metric) if r is not None and r.status == "ok" else None

    @property
    def workloads(self) -> list[str]:
        return list(dict.fromkeys(r.point.workload for r in self.results))

    @property
    def configs(self) -> list[str]:
        return list(dict.fromkeys(r.point.config_label for r in self.results))

    @property
    def failed(self) -> list[PointResult]:
        return [r for r in self.results if r.status != "ok"]

    def by_config(self, metric: str) -> dict[str, dict[str, float | None]]:
        """``config label -> workload -> value`` of one metric (None where missing)."""
        out: dict[str, dict[str, float | None]] = {c: {} for c in self.configs}
        for r in self.results:
            out[r.point.config_label][r.point.workload] = r.get(metric) if r.status == "ok" else None
        return out

    def ratio(self, metric: str, numerator: str, denominator: str) -> dict[str, float | None]:
        """Per workload, ``metric`` on config ``numerator`` divided by config ``denominator``
        (e.g. ``ratio("cycles", "gtx480", "v100")`` is V100's speedup)."""
        table = self.by_config(metric)
        out: dict[str, float | None] = {}
        for w in self.workloads:
            a, b = table.get(numerator, {}).get(w), table.get(denominator, {}).get(w)
            out[w] = a / b if a is not None and b not in (None, 0) else None
        return out

    def table(self, metric: str, title: str, name: str = "", digits_note: str = "") -> Table:
        """A workload x config table of ``metric``."""
        table = self.by_config(metric)
        configs = self.configs
        rows = [[w, *[table[c].get(w) for c in configs]] for w in self.workloads]
        return Table(name or metric.replace(".", "_"), title, ["workload", *configs], rows, digits_note)
