"""``report.html`` (one reproduction) and ``index.html`` (several), rendered with Jinja2 templates from the
same data as ``report.md``. Each page is self-contained: figures are embedded as PNG data URIs and the
style sheet is inline, so it opens from disk in any browser, without a server."""

from __future__ import annotations

import base64
import functools
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .results import format_value

if TYPE_CHECKING:
    import jinja2

    from .report import Check, Report

TEMPLATES = Path(__file__).with_name("templates")


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = format_value
    env.filters["code"] = _inline_code
    return env


def _inline_code(text: str) -> Any:
    """``text`` escaped, with markdown's `inline code` shown as code (report titles and notes use it)."""
    from markupsafe import Markup, escape

    return Markup(re.sub(r"`([^`\n]+)`", r"<code>\1</code>", str(escape(text))))


def _css() -> str:
    return (TEMPLATES / "report.css").read_text()


def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _check_row(c: Check) -> dict[str, Any]:
    unit = f" {c.unit}" if c.unit else ""

    def show(v: Any) -> str:
        return format_value(v) + (unit if isinstance(v, (int, float)) and not isinstance(v, bool) else "")

    return {"name": c.name, "paper": show(c.paper), "ours": show(c.ours), "passed": c.passed,
            "calibrated": c.calibrated, "verdict": c.verdict, "criterion": c.criterion, "why": c.why,
            "kind": c.kind, "averaging": c.averaging, "source": c.source, "band": c.band_source}


def render_report(data: dict[str, Any], checks: Sequence[Check], out_dir: Path, captions: dict[str, str],
                  index_href: str | None = None) -> str:
    """The HTML of one report; figures are read from ``out_dir`` (``data["figures"][i]["file"]``)."""
    figures = [{"title": f["title"], "caption": captions.get(f["name"], ""), "src": _data_uri(out_dir / f["file"])}
               for f in data["figures"]]
    failed = [{"label": p["label"], "error_line": ((p["error"] or "").strip().splitlines() or [""])[0]}
              for p in data["points"] if p["status"] == "failed"]
    not_run = [p["label"] for p in data["points"] if p["status"] == "missing"]
    return _environment().get_template("report.html.j2").render(
        data=data, s=data["summary"], checks=[_check_row(c) for c in checks], figures=figures,
        tables=data["tables"], failed=failed, not_run=not_run, css=_css(), index_href=index_href)


def write_report_html(report: Report, captions: dict[str, str], index_href: str | None = None) -> Path:
    """Write ``report.html`` beside the report's ``report.md``."""
    path = report.out_dir / "report.html"
    path.write_text(render_report(report.data, report.checks, report.out_dir, captions, index_href))
    return path


def write_index(reports: Sequence[Report], out_dir: str | Path, scale: str, store: str | Path,
                errors: Sequence[tuple[str, str]] = ()) -> Path:
    """Write ``index.html`` in ``out_dir``, linking each report's ``report.html`` (relative links); ``errors``:
    (name, error) of reproductions that could not run."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for r in reports:
        s = r.data["summary"]
        rel = Path(os.path.relpath(r.out_dir, out))
        rows.append({"name": r.name, "title": r.data["title"], "scale": r.data["scale"],
                     "href": (rel / "report.html").as_posix(), "markdown_href": (rel / "report.md").as_posix(),
                     **{k: s[k] for k in ("evidence", "evidence_passed", "calibrated", "points", "points_ok",
                                          "points_failed")}, "points_not_run": s.get("points_not_run", 0)})
    from .provenance import code_version

    html = _environment().get_template("index.html.j2").render(
        reports=rows, errors=list(errors), scale=scale, store=str(store), code_version=code_version(), css=_css())
    path = out / "index.html"
    path.write_text(html)
    return path
