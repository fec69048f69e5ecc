"""Result-store rows as DataFrames: one row per point, one column per swept override (the machine's default
where a point did not override it) and one per metric. The generic frame helpers (optional pandas/polars,
HTML tables) are :mod:`ndpgpu.frames`."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from ..frames import require

POINT_COLUMNS = ("key", "workload", "scale", "machine", "policy")


def _dotted(tree: Any, key: str) -> Any:
    node = tree
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _machine_tree(machine: str, cache: dict[str, Any]) -> dict[str, Any]:
    if machine not in cache:
        try:
            from ..timing import load_machine

            cache[machine] = load_machine(machine).model_dump(mode="json")
        except Exception:  # noqa: BLE001 - a machine the timing layer does not know (the fake executor's)
            cache[machine] = {}
    return cache[machine]


def with_override_columns(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Result-store rows (long: one per metric) with one column per swept override, named after it, holding
    the point's value or the machine's default where the point did not override it (the ``overrides``
    JSON column stays, for round trips)."""
    parsed = [json.loads(r.get("overrides") or "{}") for r in rows]
    names = sorted({k for ov in parsed for k in ov})
    clash = [n for n in names if rows and n in rows[0]]
    if clash:
        raise ValueError(f"override(s) {', '.join(clash)} collide with result columns")
    trees: dict[str, Any] = {}
    out = []
    for r, ov in zip(rows, parsed, strict=True):
        extra = {n: ov[n] if n in ov else _dotted(_machine_tree(r["machine"], trees), n) for n in names}
        out.append({**r, **extra})
    return out


def results_columns(rows: Sequence[dict[str, Any]]) -> tuple[dict[str, list[Any]], dict[str, str], list[str]]:
    """Wide columns of result-store rows (``ResultStore.results()``): one row per point, its identity, one
    column per swept override (the machine's default where a point did not override it), one float column
    per metric. Returns (columns, units by metric, override names)."""
    points: dict[str, dict[str, Any]] = {}
    units: dict[str, str] = {}
    for r in rows:
        p = points.setdefault(r["key"], {**{c: r[c] for c in POINT_COLUMNS},
                                         "overrides": json.loads(r.get("overrides") or "{}"), "metrics": {}})
        p["metrics"][r["name"]] = r["value"]
        units[r["name"]] = r["unit"]
    override_names = sorted({k for p in points.values() for k in p["overrides"]})
    metric_names = list(units)
    trees: dict[str, Any] = {}
    cols: dict[str, list[Any]] = {c: [] for c in POINT_COLUMNS}
    for name in override_names:
        cols[name] = []
    for name in metric_names:
        cols[name] = []
    for p in points.values():
        for c in POINT_COLUMNS:
            cols[c].append(p[c])
        for name in override_names:
            ov = p["overrides"]
            cols[name].append(ov[name] if name in ov else _dotted(_machine_tree(p["machine"], trees), name))
        for name in metric_names:
            v = p["metrics"].get(name)
            cols[name].append(math.nan if v is None else float(v))
    return cols, units, override_names


def results_to_pandas(rows: Sequence[dict[str, Any]]) -> Any:
    pd = require("pandas")
    cols, units, overrides = results_columns(rows)
    data: dict[str, Any] = {}
    for name, values in cols.items():
        if name in units:
            data[name] = pd.Series(values, dtype="float64")
        elif name in overrides:
            data[name] = pd.Series(values)  # typed by its values (int, float, bool, str)
            if data[name].dtype == object and all(isinstance(v, str) for v in values if v is not None):
                data[name] = data[name].astype("string")
        else:
            data[name] = pd.Series(values, dtype="string")
    df = pd.DataFrame(data)
    df.attrs["units"] = units
    df.attrs["overrides"] = overrides
    return df


def results_to_polars(rows: Sequence[dict[str, Any]]) -> Any:
    pl = require("polars")
    cols, units, overrides = results_columns(rows)
    schema = {name: (pl.Float64 if name in units else (None if name in overrides else pl.Utf8)) for name in cols}
    series = [pl.Series(name, values, dtype=schema[name], strict=False) for name, values in cols.items()]
    return pl.DataFrame(series)
