"""docs/extending.md's worked example: a mechanism outside the package, added without editing the engine.

The example's hardware is found through ``NDPGPU_MECHANISMS``, so it runs in a child process whose
engine is compiled with it (into a numba cache of its own, kept in pytest's cache directory).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_fixed_latency_accelerator_skips_its_stretch_and_every_hook_is_called(request):
    env = dict(os.environ, NDPGPU_MECHANISMS="fixed_latency.hardware,hook_probe.hardware",
               NUMBA_CACHE_DIR=str(request.config.cache.mkdir("ndpgpu-example-numba")),
               PYTHONPATH=os.pathsep.join([str(HERE / "example"), str(HERE.parent / "timing"),
                                           os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, str(HERE / "example" / "run_example.py")], env=env, capture_output=True,
                       text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    n, base, acc = out["warps"], out["base"], out["accelerated"]
    assert base["kernel.warp_instructions"] == 19 * n  # mov, 16 mad, st, exit
    assert "accelerator.stretches" not in base  # a mechanism's rows appear only where it is attached
    assert acc["accelerator.stretches"] == n
    assert acc["accelerator.skipped_instructions"] == 16 * n
    assert acc["kernel.warp_instructions"] == 3 * n  # mov, st, exit stay on the SM
    assert acc["dram.writes"] == base["dram.writes"]  # the store after the stretch still happens
    # every warp waits the accelerator's 500 cycles once; the chain it replaces is 16 dependent ops
    assert acc["kernel.cycles"] >= 500
    assert acc["accelerator.share"] == pytest.approx(16 / 19)
    # the hook probe (a second external mechanism in the same engine) saw every event the engine counted
    p = out["probe"]
    c, r = p["counters"], p["rows"]
    assert c["P_CTAS"] == 16 and c["P_SM_TICKS"] > 0
    assert c["P_L2_REQUESTS"] == r["l2.accesses"] > 0
    for cmd, name in enumerate(("P_ACT", "P_PRE", "P_RD", "P_WR", "P_REF"), 1):
        assert c[name] == p["dram_log"][str(cmd)], name
    assert c["P_ACT"] == r["dram.activates"] > 0
    # its prefetch hook is a next-line prefetcher: the engine's own next_line gives the same run
    b = p["builtin_prefetcher"]
    assert 0 < c["P_MISSES"] <= r["l1d.misses"]
    assert r["prefetch.issued"] == b["prefetch.issued"] > 0
    assert r["kernel.cycles"] == b["kernel.cycles"] and r["dram.reads"] == b["dram.reads"]
