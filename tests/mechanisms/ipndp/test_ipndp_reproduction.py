"""The reproduction's plan: the paper's 15 + 6 configurations over the 8 benchmarks, the warp sweep and the
barrier ablation over the 6 free-shaped kernels, and its checks."""

from __future__ import annotations

import pytest

from ndpgpu.experiments.papers._ipndp_configs import ABLATION, BENCHMARKS, CONFIGS, workload
from ndpgpu.experiments.papers.ipndp import IpndpReproduction
from ndpgpu.experiments.papers.ipndp_studies import (
    CYCLES,
    DRAM,
    SETUPS,
    SPREAD,
    STUDY_BENCHMARKS,
    WARPS,
    IpndpStudies,
    barrier_point,
    study_points,
    sweep_point,
)
from ndpgpu.experiments.results import PointResult, ResultSet
from ndpgpu.workloads.base import get_workload


def test_fifteen_ablation_configurations() -> None:
    assert len(ABLATION) == 15 and "IP-8" in ABLATION and "IP-8-Base-PF-PACA" not in ABLATION
    assert ABLATION["IP-8"] == ("ipndp-ip8", "pa", "ipndp:paca+pf")
    assert ABLATION["Base-8"] == ("ipndp-base8", "base", "ipndp:rr")


def test_every_point_names_a_registered_workload_and_machine() -> None:
    from ndpgpu.timing import load_machine

    spec = IpndpReproduction().spec("tiny")
    # the studies: 6 x 5 warp counts and 6 x 4 setups x 2; the 8-warp point is IP-8 and so is IP-8 8 KB with the
    # barrier, and IP-16 8 KB with it is IP-16: 30 + 48 - 6 - 6 - 6 new points
    assert len(study_points("tiny")) == 78
    assert len(spec.points) == len(CONFIGS) * len(BENCHMARKS) + 60 == 228
    for p in spec.points:
        get_workload(p.workload)
        load_machine(p.machine)
    assert workload("ConvSep", "base") == "ipndp_convsep_smem" and workload("ConvSep", "pa") == "ipndp_convsep_l1_pa"
    assert workload("Conv2D", "pa16") == "ipndp_conv2d_pa16"


def test_at_least_fifteen_checks_even_without_results() -> None:
    checks = IpndpReproduction().checks(ResultSet([]))
    assert len(checks) >= 15
    assert sum(c.calibrated for c in checks) == 3
    area = next(c for c in checks if c.name.startswith("area arithmetic"))
    assert area.passed and area.ours == "12/4/22"


def _result(point, metrics: dict[str, float]) -> PointResult:
    return PointResult(point, point.label, "ok", "", {k: (v, "") for k, v in metrics.items()}, "")


def test_study_checks_from_hand_made_results() -> None:
    """Runtime 1/w up to 8 warps and flat beyond; without the barrier warps spread 4x more and read 20% more
    from DRAM on IP-16/8 KB only; in perfect memory the barrier costs 7.5%: every study check passes."""
    points: dict = {}  # identity -> (point, metrics): IP-8 with 8 warps is also IP-8 8 KB with the barrier

    def put(point, metrics: dict[str, float]) -> None:
        points.setdefault(point.identity(), (point, {}))[1].update(metrics)

    for b in STUDY_BENCHMARKS:
        for s in SETUPS:
            diverge = s == "IP-16 8KB"
            put(barrier_point(b, s, True, "small"), {CYCLES: 107.5, SPREAD: 0.01, DRAM: 100.0})
            put(barrier_point(b, s, False, "small"),
                {CYCLES: 100.0, SPREAD: 0.4 if diverge else 0.1, DRAM: 120.0 if diverge else 101.0})
        for w in WARPS:
            put(sweep_point(b, w, "small"), {CYCLES: 860.0 / min(w, 8)})
    rows = [_result(p, m) for p, m in points.values()]
    checks = IpndpStudies(ResultSet(rows), "small").checks()
    assert len(checks) == 6 and all(c.passed for c in checks), [(c.name, c.ours) for c in checks if not c.passed]
    assert checks[0].ours == pytest.approx(1.0) and checks[1].ours == pytest.approx(2.0)
    assert checks[2].ours == "4.00 / 4.00" and checks[-1].ours == pytest.approx(1.075)
    none = IpndpStudies(ResultSet([]), "small").checks()
    assert not any(c.passed for c in none)
