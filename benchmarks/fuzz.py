"""A longer fuzzing campaign of the frontend than CI runs: mutated PTX from every seed (the large ones
included), parsed and decoded; counts outcomes and fails on any untyped exception.

Usage: ``python benchmarks/fuzz.py [INPUTS] [SEED]`` (default 100,000 inputs, seed 0).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "frontend"))

from fuzzkit import mutate  # noqa: E402
from test_fuzz_frontend import SEEDS, frontend  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    texts = list(SEEDS.values())
    outcomes: dict[str, int] = {}
    t0 = time.perf_counter()
    for i in range(n):
        source = mutate(rng.choice(texts), rng)
        try:
            outcome = frontend(source)
        except Exception:
            Path("fuzz-failure.ptx").write_text(source)
            print(f"input {i}: untyped exception; the input is in fuzz-failure.ptx", file=sys.stderr)
            raise
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    elapsed = time.perf_counter() - t0
    print(f"{n} inputs from {len(texts)} seeds in {elapsed:.0f} s: {outcomes}; no untyped exception")


if __name__ == "__main__":
    main()
