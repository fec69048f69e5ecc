"""Join GPGPU-Sim's reference table with ndpgpu's and write the side-by-side correlation (CSV and markdown).

Per kernel: cycles (ours / GPGPU-Sim and the signed error), thread-instructions, L1D accesses and miss rate,
L2 accesses and miss rate, DRAM read and write bytes, achieved occupancy, and the schedulers' issue fraction.
Summary per kernel set: MAPE of cycles and the Pearson r of log cycles.

Units differ between the two simulators and are converted where the conversion is exact:
* L1D: GPGPU-Sim counts loads and stores (a store is a miss under write-no-allocate); ours counts loads in
  ``l1d.accesses`` and stores in ``l1d.stores``, so ours is accesses + stores, misses + stores - store hits.
  GPGPU-Sim's misses leave out the accesses merged into a pending miss (``pending_hits``), which ours counts
  as misses (``l1d.mshr_merges`` among them): the GPGPU-Sim miss rate shown is (misses + pending hits) /
  accesses.
* L2: GPGPU-Sim counts 32-B sector accesses; ours counts requests (a warp's access to one line). The
  accesses are shown as they are, the miss rates compare.
* DRAM: GPGPU-Sim counts 32-B requests (``total dram reads/writes``); ours moves bytes, shown / 32.

    python benchmarks/gpgpusim/correlate.py --ref reference_gtx480.csv --ours ndpgpu_gtx480.csv \
        --out correlation_gtx480 --title "gtx480+gpgpusim vs GPGPU-Sim 4.0 SM2_GTX480"
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path


def _f(row: dict, key: str) -> float | None:
    v = row.get(key, "")
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _div(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def join(ref: dict[str, dict], ours: dict[str, dict]) -> list[dict]:
    out: list[dict] = []
    for key, r in ref.items():
        o = ours.get(key)
        if o is None or _f(r, "cycles") is None or _f(o, "cycles") is None:
            continue
        gc, oc = _f(r, "cycles"), _f(o, "cycles")
        o_l1_acc = (_f(o, "l1d_accesses") or 0) + (_f(o, "l1d_stores") or 0)
        o_l1_miss = (_f(o, "l1d_misses") or 0) + (_f(o, "l1d_stores") or 0) - (_f(o, "l1d_store_hits") or 0)
        sched = _f(r, "sched_stall"), _f(r, "sched_idle"), _f(r, "sched_scoreboard"), _f(r, "sched_issue_cycles")
        g_issue = _div(sched[3], sum(x or 0 for x in sched)) if sched[3] is not None else None
        row = {
            "key": key, "category": r.get("category", ""), "set": r.get("set", ""),
            "launches": r.get("launches", ""),
            "gs_cycles": gc, "ours_cycles": oc, "cycle_ratio": _div(oc, gc), "cycle_err_pct": 100 * (oc - gc) / gc,
            "gs_insn": _f(r, "thread_insn"), "ours_insn": _f(o, "thread_insn"),
            "insn_ratio": _div(_f(o, "thread_insn"), _f(r, "thread_insn")),
            "gs_l1d_acc": _f(r, "l1d_accesses"), "ours_l1d_acc": o_l1_acc,
            "gs_l1d_missrate": _div((_f(r, "l1d_misses") or 0) + (_f(r, "l1d_pending_hits") or 0),
                                    _f(r, "l1d_accesses")),
            "ours_l1d_missrate": _div(o_l1_miss, o_l1_acc),
            "gs_l2_acc_sectors": _f(r, "l2_accesses"), "ours_l2_acc_requests": _f(o, "l2_accesses"),
            "gs_l2_missrate": _div(_f(r, "l2_misses"), _f(r, "l2_accesses")),
            "ours_l2_missrate": _div(_f(o, "l2_misses"), _f(o, "l2_accesses")),
            "gs_dram_rd32": _f(r, "dram_reads"), "ours_dram_rd32": _div(_f(o, "dram_read_bytes"), 32.0),
            "gs_dram_wr32": _f(r, "dram_writes"), "ours_dram_wr32": _div(_f(o, "dram_write_bytes"), 32.0),
            "gs_occupancy": _div(_f(r, "occupancy_pct"), 100.0), "ours_occupancy": _f(o, "occupancy"),
            "gs_issue_frac": g_issue, "ours_issue_frac": _div(_f(o, "issue_cycles"), _f(o, "scheduler_cycles")),
            "gs_avg_mem_latency": _f(r, "avg_mem_latency"), "ours_avg_mem_latency": _f(o, "avg_mem_latency"),
        }
        out.append(row)
    return out


def summary(rows: list[dict]) -> dict[str, float]:
    if not rows:
        return {"n": 0}
    errs = [abs(r["cycle_err_pct"]) for r in rows]
    xs = [math.log(r["gs_cycles"]) for r in rows]
    ys = [math.log(r["ours_cycles"]) for r in rows]
    n = len(rows)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    r = sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")
    geo = math.exp(sum(y - x for x, y in zip(xs, ys, strict=True)) / n)
    return {"n": n, "mape_pct": sum(errs) / n, "log_r": r, "geomean_ratio": geo,
            "within_25pct": sum(e <= 25 for e in errs), "max_err_pct": max(errs)}


def _fmt(x: object, digits: int = 2) -> str:
    if x is None or x == "":
        return "-"
    if isinstance(x, float):
        if abs(x) >= 1000:
            return f"{x:,.0f}"
        return f"{x:.{digits}f}"
    return str(x)


def markdown(rows: list[dict], title: str) -> str:
    lines = [f"## {title}", ""]
    sets = sorted({r["set"] for r in rows})
    lines += ["| kernels | n | cycles MAPE | log-cycle r | geomean ours/GS | within 25% | max error |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, sel in [("all", rows)] + [(s, [r for r in rows if r["set"] == s]) for s in sets]:
        s = summary(sel)
        if s["n"]:
            lines.append(f"| {name} | {s['n']} | {s['mape_pct']:.1f}% | {s['log_r']:.3f} | {s['geomean_ratio']:.3f} "
                         f"| {s['within_25pct']} | {s['max_err_pct']:.0f}% |")
    lines += ["", "| kernel | set | GS cycles | ours | err % | insn ours/GS | L1D acc GS / ours | L1D miss GS / ours "
              "| L2 miss GS / ours | DRAM rd GS (column commands: 64 B on SM2_GTX480) / ours (32 B) "
              "| DRAM wr GS / ours (same units) | occupancy GS / ours "
              "| issue frac GS / ours |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(rows, key=lambda r: r["key"]):
        lines.append(
            f"| {r['key']} | {r['set']} | {_fmt(r['gs_cycles'])} | {_fmt(r['ours_cycles'])} | "
            f"{r['cycle_err_pct']:+.0f} | {_fmt(r['insn_ratio'], 3)} | {_fmt(r['gs_l1d_acc'])} / "
            f"{_fmt(r['ours_l1d_acc'])} | {_fmt(r['gs_l1d_missrate'])} / {_fmt(r['ours_l1d_missrate'])} | "
            f"{_fmt(r['gs_l2_missrate'])} / {_fmt(r['ours_l2_missrate'])} | {_fmt(r['gs_dram_rd32'])} / "
            f"{_fmt(r['ours_dram_rd32'])} | {_fmt(r['gs_dram_wr32'])} / {_fmt(r['ours_dram_wr32'])} | "
            f"{_fmt(r['gs_occupancy'])} / {_fmt(r['ours_occupancy'])} | {_fmt(r['gs_issue_frac'])} / "
            f"{_fmt(r['ours_issue_frac'])} |")
    return "\n".join(lines) + "\n"


def _read(path: str) -> dict[str, dict]:
    with open(path) as f:
        return {r["key"]: r for r in csv.DictReader(f) if not r.get("error")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--out", required=True, help="path stem: writes STEM.csv and STEM.md")
    ap.add_argument("--title", default="ndpgpu vs GPGPU-Sim 4.0")
    args = ap.parse_args(argv)
    rows = join(_read(args.ref), _read(args.ours))
    stem = Path(args.out)
    with stem.with_suffix(".csv").open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            for r in rows:
                w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    text = markdown(rows, args.title)
    stem.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
