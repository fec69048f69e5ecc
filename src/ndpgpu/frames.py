"""Statistics and results as DataFrames (pandas or polars, optional) and as HTML for notebooks.

pandas and polars are optional (``pip install 'ndpgpu[frames]'``); asking for a frame without the library
raises an ImportError that says so. Frames have typed columns: identities are strings, values float64, units
a column (long form) or ``attrs["units"]`` (wide form).
"""

from __future__ import annotations

import html
import importlib
import math
from collections.abc import Iterable, Sequence
from typing import Any

FRAME_LIBRARIES = {"pandas": "pandas", "polars": "polars"}


def require(library: str) -> Any:
    """Import ``library`` (pandas or polars) or say how to install it."""
    try:
        return importlib.import_module(library)
    except ImportError as exc:
        raise ImportError(f"this needs {library}, which is not installed: pip install {library} "
                          f"(or pip install 'ndpgpu[frames]' for pandas and polars)") from exc


# ----------------------------------------------------------------------------------------- one launch
def stats_columns(rows: Iterable[tuple[str, str, Any, str]]) -> dict[str, list[Any]]:
    """Long-form columns of ``LaunchStats.rows()``: identity columns, then path, metric, value (float;
    NaN for text), text (the value of a text row such as a PC's opcode), unit."""
    ident: dict[str, Any] = {}
    cols: dict[str, list[Any]] = {"path": [], "metric": [], "value": [], "text": [], "unit": []}
    for path, metric, value, unit in rows:
        if path == "launch":
            ident[metric] = value
            continue
        numeric = isinstance(value, (int, float, bool)) or hasattr(value, "dtype")
        cols["path"].append(path)
        cols["metric"].append(metric)
        cols["value"].append(float(value) if numeric else math.nan)
        cols["text"].append(None if numeric else str(value))
        cols["unit"].append(unit)
    n = len(cols["path"])
    out: dict[str, list[Any]] = {k: [v] * n for k, v in (("kernel", str(ident.get("kernel", ""))),
                                                      ("launch_id", int(ident.get("launch_id", -1))),
                                                      ("machine", str(ident.get("machine", ""))))}
    return {**out, **cols}


def stats_to_pandas(rows: Iterable[tuple[str, str, Any, str]]) -> Any:
    pd = require("pandas")
    cols = stats_columns(rows)
    df = pd.DataFrame({
        "kernel": pd.Series(cols["kernel"], dtype="string"), "launch_id": pd.Series(cols["launch_id"], dtype="int64"),
        "machine": pd.Series(cols["machine"], dtype="string"), "path": pd.Series(cols["path"], dtype="string"),
        "metric": pd.Series(cols["metric"], dtype="string"), "value": pd.Series(cols["value"], dtype="float64"),
        "text": pd.Series(cols["text"], dtype="string"), "unit": pd.Series(cols["unit"], dtype="category"),
    })
    df.attrs["units"] = {f"{p}.{m}": u for p, m, u in zip(cols["path"], cols["metric"], cols["unit"], strict=True)}
    return df


def stats_to_polars(rows: Iterable[tuple[str, str, Any, str]]) -> Any:
    pl = require("polars")
    cols = stats_columns(rows)
    return pl.DataFrame(cols, schema={"kernel": pl.Utf8, "launch_id": pl.Int64, "machine": pl.Utf8,
                                      "path": pl.Utf8, "metric": pl.Utf8, "value": pl.Float64, "text": pl.Utf8,
                                      "unit": pl.Categorical})


# ----------------------------------------------------------------------------------------- HTML
def _cell(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "&mdash;"
        text = f"{value:,.4g}" if abs(value) < 1e3 else f"{value:,.1f}" if abs(value) < 1e6 else f"{value:,.0f}"
    elif isinstance(value, int) and not isinstance(value, bool):
        text = f"{value:,}"
    elif value is None:
        return "&mdash;"
    else:
        text = str(value)
    return html.escape(text)


def html_table(columns: Sequence[str], rows: Iterable[Sequence[Any]], caption: str = "",
               numeric: Sequence[bool] | None = None) -> str:
    """An HTML table (values escaped; numbers right-aligned)."""
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in columns) + "</tr></thead><tbody>")
    for row in rows:
        cells = []
        for i, v in enumerate(row):
            right = isinstance(v, (int, float)) and not isinstance(v, bool) if numeric is None else numeric[i]
            cells.append(f"<td style=\"text-align:{'right' if right else 'left'}\">{_cell(v)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)
