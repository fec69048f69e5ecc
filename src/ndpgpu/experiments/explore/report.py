"""An exploration's report: JSON, markdown, one HTML page with a chart, and a one-screen terminal summary."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..results import format_value as fmt

if TYPE_CHECKING:
    from .analysis import Exploration

RESOURCES = ("issue", "L1", "L2", "DRAM", "NoC", "latency")
COUNTING = ("Five mechanisms (one per paper), six rows: LLC-Compute and Omni-Compute are the two schemes of the "
            "LLC mechanism, each its own row against the one mesh baseline.")


def command(e: Exploration) -> str:
    t = e.plan.target
    words = ["ndpgpu", "explore", (t.file or {}).get("yaml") or (t.file or {}).get("source") or t.workload]
    if not t.file:
        words += ["--scale", t.scale]
    for k, v in sorted(e.plan.overrides.items()):
        words += ["--set", f"{k}={v}"]
    return shlex.join(words)


def to_json(e: Exploration) -> dict[str, Any]:
    from ..provenance import code_version

    bounds = {r.option.machine: r.bound.to_json() for r in e.rows if r.bound}
    if e.reference_bound:
        bounds = {e.plan.reference: e.reference_bound.to_json(), **bounds}
    verdicts = {r.option.mechanism: r.verdict.to_json() for r in e.rows if not r.option.beyond}
    return {"target": e.target, "workload": e.plan.target.workload, "scale": e.plan.target.scale,
            "kernels": e.plan.kernels, "overrides": e.plan.overrides, "command": command(e),
            "reference": {"machine": e.plan.reference, "kernel_time_ns": (e.reference or {}).get("kernel.time"),
                          "energy_pj": (e.reference or {}).get("energy.kernel.total")},
            "verdict": e.verdict_line(), "counting": COUNTING, "rows": [r.to_json() for r in e.rows],
            "verdicts": verdicts, "bounds": bounds, "resources": list(RESOURCES), "elapsed_s": e.elapsed_s,
            "store": str(e.store), "code_version": code_version()}


def _x(v: float | None) -> str:
    return "—" if v is None else f"x{v:.3f}"


def markdown(e: Exploration) -> str:
    d = to_json(e)
    out = [f"# Near-data mechanisms on {d['target']}", "",
           f"`{d['command']}` (scale `{d['scale']}`, kernels {', '.join(f'`{k}`' for k in d['kernels'])}; reference "
           f"GPU `{d['reference']['machine']}`)", "", f"**{d['verdict']}.** {COUNTING}", "",
           "Each mechanism is timed against its own baseline on its own machine (the same preset, the mechanism off). "
           "Speedup: the baseline's kernel cycles over the mechanism's (TOM's include its learning phase's charge); "
           "energy: the mechanism's kernel-window energy (`energy.kernel.total`) over the baseline's; perf/W: the "
           "baseline's energy over the mechanism's; machine: the reference GPU's kernel time over this machine's "
           "baseline.", "", "![speedup and energy](figures/explore.png)", "",
           "| # | mechanism | machine | policy (baseline) | speedup | energy | perf/W | machine vs ref | bound "
           "| reason |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for i, r in enumerate(d["rows"], 1):
        beyond = " (beyond the papers)" if r["beyond_the_papers"] else ""
        out.append(f"| {i} | {r['label']}{beyond} | `{r['machine']}` | `{r['policy']}` (`{r['baseline_policy']}`) | "
                   f"{_x(r['speedup'])} | {_x(r['energy'])} | {_x(r['perf_per_watt'])} | "
                   f"{_x(r['machine_vs_reference'])} | {(r['bound'] or {}).get('bound', '—')} | {r['reason']} |")
    out += ["", "## Static verdicts", "", "| mechanism | applies | analysis | rejecting rules (where) |",
            "|---|---|---|---|"]
    for m, v in d["verdicts"].items():
        out.append(f"| {m} | {'yes' if v['applies'] else 'no'} | {v['summary']} | {'<br>'.join(v['rules']) or '—'} |")
    out += ["", "## What bounds each baseline", "",
            "Utilisation over the kernel window: issue (issuing scheduler cycles), L1 (accesses per SM-cycle), L2 "
            "(accesses per slice-cycle), DRAM (bus busy), NoC (busiest port, mesh link, stack link or TSV), latency "
            "(scheduler cycles stalled on memory). The bound is the busiest resource at or above 50%, else latency "
            "or issue.", "", "| machine | " + " | ".join(RESOURCES) + " | bound |",
            "|---" * (len(RESOURCES) + 2) + "|"]
    for m, b in d["bounds"].items():
        out.append(f"| `{m}` | " + " | ".join(fmt(b["utilisation"].get(k)) for k in RESOURCES) + f" | {b['bound']} |")
    out += ["", "## What each mechanism changed", ""]
    for r in d["rows"]:
        ch = "; ".join(_change(c) for c in r["changes"]) or "—"
        out.append(f"- **{r['label']}**: {ch}")
    out += ["", f"{len(d['rows'])} rows in {d['elapsed_s']:.1f} s; points in `{d['store']}`.", ""]
    return "\n".join(out)


def _change(c: dict[str, Any]) -> str:
    def show(v: float | None) -> str:
        return "—" if v is None else (f"{v:.0%}" if c["unit"] == "fraction" else f"{v:,.0f}")

    return f"{c['name']} {show(c['after'])}" if c["before"] is None else \
        f"{c['name']} {show(c['before'])} -> {show(c['after'])}"


def terminal_summary(e: Exploration, width: int = 110) -> str:
    """One screen: the verdict, then the mechanisms ranked, each with its numbers and one sentence."""
    import textwrap

    lines = [f"{e.target}: {e.verdict_line()}"]
    if e.reference_bound and e.reference:
        lines.append(f"  reference {e.plan.reference}: {fmt(e.reference.get('kernel.time'))} ns, "
                     f"{e.reference_bound.sentence()}")
    for i, r in enumerate(e.rows, 1):
        nums = (f"{_x(r.speedup)} speed, {_x(r.energy)} energy, {_x(r.perf_per_watt)} perf/W"
                if r.speedup is not None else "failed")
        lines.append(f"{i}. {r.option.label:<13} {nums}")
        text = textwrap.shorten(r.sentence(), 2 * (width - 4), placeholder=" ... (report.md has it all)")
        lines += textwrap.wrap(text, width, initial_indent="   ", subsequent_indent="   ")
    mechs = len({r.option.mechanism for r in e.rows if not r.option.beyond})
    lines.append(f"({len(e.rows)} rows for {mechs} mechanisms: LLC-Compute and Omni-Compute are the LLC mechanism's "
                 f"two schemes; {e.elapsed_s:.1f} s)")
    return "\n".join(lines)


def chart(e: Exploration, path: Path) -> Path:
    """The speedups and energies as grouped bars (PNG, SVG and PDF)."""
    from ..plots import BarChart, draw_bar_chart

    rows = e.rows
    c = BarChart("explore", f"Near-data mechanisms on {e.plan.target.workload}", "x its own baseline",
                 [r.option.label for r in rows],
                 {"speedup": [r.speedup for r in rows], "energy": [r.energy for r in rows]},
                 reference_line=1.0, mean=None)
    return draw_bar_chart(c, path)


def write(e: Exploration, out: Path) -> dict[str, Path]:
    """``report.md``, ``report.html``, ``report.json`` and ``figures/explore.{png,svg,pdf}`` in ``out``."""
    from ..htmlreport import _css, _data_uri, _environment

    out.mkdir(parents=True, exist_ok=True)
    png = chart(e, out / "figures" / "explore.png")
    data = to_json(e)
    paths = {"json": out / "report.json", "markdown": out / "report.md", "html": out / "report.html", "chart": png}
    paths["json"].write_text(json.dumps(data, indent=1, default=str) + "\n")
    paths["markdown"].write_text(markdown(e))
    paths["html"].write_text(_environment().get_template("explore.html.j2").render(
        d=data, chart=_data_uri(png), css=_css()))
    return paths
