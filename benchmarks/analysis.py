"""Speed of the shared analyses (CFG, dominators, loops, trip counts, liveness, affine addresses) on a
generated kernel of about 5,000 PTX instructions and 162 loops, best of three runs.

Usage: ``python benchmarks/analysis.py``. The kernel is the one ``tests/analysis/test_analysis_speed.py``
checks for linear growth (by call counts, not by the clock).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "analysis"))

from test_analysis_speed import _program, run_analyses  # noqa: E402


def main() -> None:
    for parts in (40, 162, 640):
        fn = _program(parts)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            run_analyses(fn)
            best = min(best, time.perf_counter() - t0)
        print(f"| {parts} | {len(fn.body)} | {best:.3f} |")


if __name__ == "__main__":
    main()
