"""Sampled timing against full runs: per-metric errors of the same points, and how a report's checks move.

    python benchmarks/sampling_error.py --name teleport --full docs/teleport/small/points.parquet \\
        --sampled SAMPLED.parquet [--full-report docs/teleport/small/report.json --sampled-report R.json] \\
        [--out FILE.md] [--json FILE.json]

Points are matched by workload, scale, policy, overrides and machine (the ``+sampled`` overlay dropped). For
each matched point every numeric metric's relative error (sampled / full - 1) is taken; the headline metrics are
listed on their own. A point none of whose launches was sampled (all launches shorter than
``sim.sample_min_waves``) is timed in full, and its errors are zero by construction: they are counted apart.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import duckdb
import numpy as np

HEADLINE = ("kernel.cycles", "energy.total", "dram.read_bytes", "dram.write_bytes", "l2.accesses", "l2.hit_rate",
            "l1d.hit_rate", "core.occupancy")
SKIP_PREFIXES = ("launch.", "sampling.", "provenance.")
TOLERANCE = 0.05  # item 5 of the issue: 95% of all metric errors within 5%
HEADLINE_TOLERANCE = 0.03


def load(path: str) -> dict[tuple, dict[str, float]]:
    """``{(workload, scale, base machine, policy, overrides): {metric: value}}`` from a points file."""
    con = duckdb.connect()
    rows = con.execute("SELECT workload, scale, machine, policy, overrides, name, value FROM read_parquet(?) "
                       "WHERE value IS NOT NULL", [path]).fetchall()
    out: dict[tuple, dict[str, float]] = {}
    for w, sc, m, pol, ov, name, v in rows:
        base = "+".join(x for x in m.split("+") if x not in ("sampled", "sampled-all"))
        out.setdefault((w, sc, base, pol, ov), {})[name] = float(v)
    return out


def rel(a: float, b: float) -> float | None:
    """b / a - 1, or None when the full value is 0 (a zero both ways is no error)."""
    if a == 0:
        return 0.0 if b == 0 else None
    return b / a - 1.0


def compare(full: dict, sampled: dict) -> dict:
    """Error distributions over the matched points."""
    keys = sorted(set(full) & set(sampled))
    per_metric: dict[str, list[float]] = {}
    every: list[float] = []
    n_sampled = 0
    worst: list[tuple[float, str, str]] = []
    for k in keys:
        f, s = full[k], sampled[k]
        if not s.get("sampling.launches_sampled"):
            continue
        n_sampled += 1
        for name, v in f.items():
            if name.startswith(SKIP_PREFIXES) or name not in s:
                continue
            e = rel(v, s[name])
            if e is None:
                continue
            every.append(abs(e))
            if name in HEADLINE:
                per_metric.setdefault(name, []).append(e)
                worst.append((abs(e), name, f"{k[0]} on {k[2]} {k[3]}"))
    worst.sort(reverse=True)
    return {"points_matched": len(keys), "points_sampled": n_sampled, "per_metric": per_metric, "every": every,
            "worst": worst[:8]}


def stats_row(errs: list[float]) -> tuple[str, ...]:
    a = np.abs(np.asarray(errs))
    return (f"{len(a)}", f"{np.mean(np.asarray(errs)) * 100:+.2f}%", f"{np.median(a) * 100:.2f}%",
            f"{np.percentile(a, 95) * 100:.2f}%", f"{a.max() * 100:.2f}%")


def checks_moved(full_report: str, sampled_report: str) -> list[tuple[str, str, str, str, str]]:
    """(check, full value, sampled value, relative change, verdict full -> sampled) for each check of both."""
    def by_name(path: str) -> dict[str, dict]:
        data = json.loads(Path(path).read_text())
        return {c["name"].removesuffix(" [sampled]"): c for c in data["checks"]}

    f, s = by_name(full_report), by_name(sampled_report)
    out = []
    for name, cf in f.items():
        cs = s.get(name)
        if cs is None:
            continue
        a, b = cf.get("ours"), cs.get("ours")
        change = ""
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a:
            change = f"{(b / a - 1) * 100:+.2f}%"
        verdict = ("pass" if cf["passed"] else "fail") + " -> " + ("pass" if cs["passed"] else "fail")
        out.append((name, _fmt(a), _fmt(b), change, verdict))
    return out


def _fmt(x: object) -> str:
    return f"{x:.4g}" if isinstance(x, (int, float)) else str(x)


def markdown(name: str, r: dict, moved: list | None) -> str:
    lines = [f"### {name}", "",
             f"{r['points_matched']} points matched; {r['points_sampled']} had a launch sampled (the others were "
             "timed in full: no error by construction).", ""]
    if r["points_sampled"]:
        lines += ["| metric | points | mean error | median abs | 95th pct abs | max abs |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for m in HEADLINE:
            if m in r["per_metric"]:
                lines.append("| " + " | ".join((f"`{m}`", *stats_row(r["per_metric"][m]))) + " |")
        every = np.asarray(r["every"])
        within = float((every <= TOLERANCE).mean()) if len(every) else 1.0
        lines.append("| every numeric metric | " + " | ".join(stats_row(r["every"])[0:1] + stats_row(r["every"])[1:])
                     + " |")
        lines += ["", f"Share of every metric's errors within {TOLERANCE:.0%}: **{within:.1%}**. Largest headline "
                  "errors: " + "; ".join(f"{n} {e * 100:.1f}% ({w})" for e, n, w in r["worst"][:5]) + ".", ""]
    if moved:
        lines += ["| check | full | sampled | change | verdict |", "| --- | --- | --- | --- | --- |"]
        lines += ["| " + " | ".join(row) + " |" for row in moved]
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", required=True)
    ap.add_argument("--full", required=True)
    ap.add_argument("--sampled", required=True)
    ap.add_argument("--full-report")
    ap.add_argument("--sampled-report")
    ap.add_argument("--out")
    ap.add_argument("--json")
    a = ap.parse_args()
    r = compare(load(a.full), load(a.sampled))
    moved = checks_moved(a.full_report, a.sampled_report) if a.full_report and a.sampled_report else None
    text = markdown(a.name, r, moved)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n")
    if a.json:
        Path(a.json).write_text(json.dumps({"name": a.name, **{k: v for k, v in r.items() if k != "worst"},
                                            "worst": r["worst"], "checks": moved}, indent=1) + "\n")


if __name__ == "__main__":
    main()
