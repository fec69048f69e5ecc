"""One summary line per (reference table, ndpgpu table) pair: the kernel sets' cycle MAPE and log-cycle r.

    python benchmarks/gpgpusim/summarize.py "label=REF.csv:OURS.csv" ...

Prints a markdown table (used for RESULTS.md and docs/timing.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from correlate import _read, join, summary  # noqa: E402


def line(label: str, ref: str, ours: str) -> list[str]:
    rows = join(_read(ref), _read(ours))
    out = []
    for name, sel in [("all", rows)] + [(s, [r for r in rows if r["set"] == s]) for s in ("fit", "held", "third")]:
        s = summary(sel)
        if s["n"]:
            out.append(f"| {label} | {name} | {s['n']} | {s['mape_pct']:.1f}% | {s['log_r']:.3f} | "
                       f"{s['geomean_ratio']:.2f} | {s['within_25pct']} |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", nargs="+", help="label=REF.csv:OURS.csv")
    args = ap.parse_args(argv)
    print("| comparison | kernels | n | cycles MAPE | log-cycle r | geomean ours/GS | within 25% |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for p in args.pairs:
        label, _, files = p.partition("=")
        ref, _, ours = files.partition(":")
        for row in line(label, ref, ours):
            print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
