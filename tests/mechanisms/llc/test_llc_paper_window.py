"""The LLC reproduction at `paper` scale: the paper's 1 B-instruction window on every point, and runs the window
cut short compared on equal work (the split-FMA offload sources execute more instructions than the baseline)."""

from __future__ import annotations

from ndpgpu.experiments.papers.llc import CYCLES, HOPS, PAPER_WINDOW, LlcReproduction, source
from ndpgpu.experiments.points import Point
from ndpgpu.experiments.results import PointResult, ResultSet


def test_only_paper_scale_points_carry_the_instruction_window():
    repro = LlcReproduction()
    paper, small = repro.spec("paper").points, repro.spec("small").points
    assert PAPER_WINDOW == {"sim.max_warp_instructions": 31_250_000}  # 1 B thread instructions / 32
    assert all(p.overrides.get("sim.max_warp_instructions") == 31_250_000 for p in paper)
    assert not any("sim.max_warp_instructions" in p.overrides for p in small)


def _result(workload: str, policy: str, scale: str, cycles: float, hops: float, timed: float,
            whole: float) -> PointResult:
    over = dict(PAPER_WINDOW) if scale == "paper" else {}
    point = Point(workload=workload, scale=scale, machine="llc-mesh", policy=policy, overrides=over)
    metrics = {CYCLES: (cycles, "cycles"), HOPS: (hops, "hops"), "kernel.warp_instructions": (timed, "warp-instr"),
               "functional.warp_instructions": (whole, "warp-instr"), "latency.average": (400.0, "cycles")}
    return PointResult(point=point, key=f"{workload}/{policy}", status="ok", error=None, metrics=metrics)


def test_a_cut_run_is_scaled_to_its_whole_program():
    """FDTD's baseline (fused) runs 40 M warp instructions in all, the split source 44 M; both stop at the
    window. Per unit of work the split run takes 1.1 x its cycles to the window: the same speed here."""
    w = PAPER_WINDOW["sim.max_warp_instructions"]
    base = _result(source("FDTD", False), "baseline", "paper", 1_000_000, 5_000, w, 40_000_000)
    split = _result(source("FDTD", True), "llc:llc", "paper", 1_000_000 / 1.1, 5_000 / 1.1, w, 44_000_000)
    repro, results = LlcReproduction(), ResultSet([base, split])
    assert repro._value(results, "baseline", "FDTD", CYCLES) == 1_000_000 * 40_000_000 / w
    assert abs(repro._speedup(results, "llc", ["FDTD"])["FDTD"] - 1.0) < 1e-12
    assert abs(repro._ratio(results, "llc", ["FDTD"], HOPS)["FDTD"] - 1.0) < 1e-12
    assert repro._value(results, "baseline", "FDTD", "latency.average") == 400.0  # an average: not scaled


def test_a_complete_run_is_not_scaled():
    base = _result(source("MVT", False), "baseline", "small", 2_000, 10, 500, 500)
    results = ResultSet([base])
    assert LlcReproduction()._value(results, "baseline", "MVT", CYCLES) == 2_000

