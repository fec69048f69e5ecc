"""What a call between two compiled functions costs in numba when it passes many arrays (issue 48's profile).

Each timing-engine tick is a call of a numba function with up to forty array arguments, and the profile
(benchmarks/README.md) puts every tick at 1,000-2,800 CPU cycles. This measures the call alone: a callee whose
body is too large to inline but whose hot path touches two arrays, called in a compiled loop with 4 to 40
arrays passed, the way the engine compiles (``_nrt=False``: no reference counting), and the same with
reference counting on (numba's default, which the engine does not use).

    python benchmarks/call_overhead.py
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit


def _build(n_arrays: int, refcount: bool):
    """A compiled loop calling a compiled callee that takes ``n_arrays`` arrays."""
    names = [f"a{i}" for i in range(n_arrays)]
    params = ", ".join(names)
    cold = "\n".join(  # never runs (k >= 0), but keeps the callee too large to inline
        f"        for j in range({names[i]}.size):\n"
        f"            {names[i]}[j] = {names[(i + 1) % n_arrays]}[j] * 3 + "
        f"{names[(i + 2) % n_arrays]}[(j * 7) % {names[i]}.size]"
        for i in range(n_arrays))
    callee_src = f"def callee({params}, k):\n    a0[k & 7] += 1\n    if k < 0:\n{cold}\n    return a1[0]\n"
    space: dict = {}
    exec(callee_src, space)  # noqa: S102 - generated source, for the benchmark only
    space["CALLEE"] = njit(_nrt=refcount)(space["callee"])
    loop_src = (f"def loop({params}, n):\n    s = 0\n    for k in range(n):\n"
                f"        s += CALLEE({params}, k)\n    return s\n")
    exec(loop_src, space)  # noqa: S102
    return njit(_nrt=refcount)(space["loop"])


def main() -> None:
    calls = 1_000_000
    for refcount in (False, True):
        for n_arrays in (4, 10, 20, 40):
            arrays = [np.zeros(16, np.int64) for _ in range(n_arrays)]
            loop = _build(n_arrays, refcount)
            loop(*arrays, 10)  # compile
            t0 = time.perf_counter()
            loop(*arrays, calls)
            ns = (time.perf_counter() - t0) / calls * 1e9
            print(f"reference counting {'on ' if refcount else 'off'}, {n_arrays:2d} arrays: {ns:.1f} ns per call")


if __name__ == "__main__":
    main()
