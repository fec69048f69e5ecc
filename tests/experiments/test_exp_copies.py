"""The simulator executor replays a workload's host copies: copied inputs can start in L2 (GPGPU-Sim's
``perf_sim_memcpy``), and the copy log itself follows the program order of the run."""

from __future__ import annotations

from pathlib import Path

from ndpgpu.experiments.executors import SimulatorExecutor
from ndpgpu.experiments.points import Point


def _l2_hits(executor: SimulatorExecutor, recording, place_in_l2: bool) -> tuple[float, float]:
    point = Point(workload="vecadd", scale="tiny", machine="gtx480", overrides={"pcie.place_in_l2": place_in_l2})
    rows = {(r.path, r.metric): r.value for r in executor.time(point, recording)}
    return rows[("l2", "hits")], rows[("l2", "accesses")]


def test_replayed_copies_leave_the_inputs_in_l2(tmp_path: Path) -> None:
    ex = SimulatorExecutor()
    rec = ex.record("vecadd", "tiny", tmp_path)
    # vecadd copies a and b in (h2d) before its launch and c out (d2h) after it
    assert [(c["direction"], c["before_launch"]) for c in rec.copies] == [("h2d", 0), ("h2d", 0), ("d2h", 1)]
    assert [c["bytes"] for c in rec.copies] == [10_000 * 4] * 3
    hits_in_l2, accesses = _l2_hits(ex, rec, True)
    hits_cold, accesses_cold = _l2_hits(ex, rec, False)
    assert hits_cold == 0  # every load misses a cold L2; stores allocate without hitting
    # a and b (80 KB) fit in the 768-KB L2: every load request now hits; only the stores miss
    loads = 2 * 313  # 10,000 floats = 313 warps of 128-B line loads, per array
    assert hits_in_l2 == loads
    assert accesses == accesses_cold
