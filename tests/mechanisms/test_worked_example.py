"""docs/extending.md's worked example: a mechanism outside the package, added without editing the engine.

The example's packages are copied to a folder outside ndpgpu's sources and tests (pytest's cache directory);
its hardware is found through ``NDPGPU_MECHANISMS`` and its session policy beside it, by name, so it runs in a
child process whose engine is compiled with it (into a numba cache of its own, also in pytest's cache).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _outside_copy(request) -> Path:
    """The example's packages copied to a folder outside ndpgpu's sources and tests (pytest's cache
    directory, so numba's cache of the engine compiled with them survives between runs): a mechanism added
    as a researcher would, touching no file but its own. Files are rewritten only when they differ."""
    dest = Path(request.config.cache.mkdir("ndpgpu-example-packages"))
    for package in ("fixed_latency", "hook_probe"):
        stale = {p.name for p in (dest / package).glob("*.py")}
        (dest / package).mkdir(exist_ok=True)
        for src in sorted((HERE / "example" / package).glob("*.py")):
            stale.discard(src.name)
            target = dest / package / src.name
            if not target.exists() or target.read_bytes() != src.read_bytes():
                shutil.copyfile(src, target)
        for name in stale:
            (dest / package / name).unlink()
    script = dest / "run_example.py"  # a script beside them: Python puts its own folder first on the path
    if not script.exists() or script.read_bytes() != (HERE / "example" / "run_example.py").read_bytes():
        shutil.copyfile(HERE / "example" / "run_example.py", script)
    return dest


@pytest.mark.slow
def test_fixed_latency_accelerator_skips_its_stretch_and_every_hook_is_called(request):
    outside = _outside_copy(request)
    env = dict(os.environ, NDPGPU_MECHANISMS="fixed_latency.hardware,hook_probe.hardware",
               NUMBA_CACHE_DIR=str(request.config.cache.mkdir("ndpgpu-example-numba")),
               PYTHONPATH=os.pathsep.join([str(outside), str(HERE.parent / "timing"),
                                           os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, str(outside / "run_example.py")], env=env, capture_output=True,
                       text=True, timeout=1800, cwd=outside)
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
    assert acc["accelerator.config.latency"] == 500  # the policy, found by name beside the hardware, attached it
    ml = out["machine_latency"]  # mechanisms.fixed_latency.latency=300 (params.py, found beside the hardware)
    assert ml["accelerator.config.latency"] == 300 and ml["accelerator.stretches"] == n
    assert ml["kernel.cycles"] < acc["kernel.cycles"]  # 200 cycles less per stretch, on the critical path
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
