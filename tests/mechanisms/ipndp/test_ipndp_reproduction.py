"""The reproduction's plan: the paper's 15 + 6 configurations over the 8 benchmarks, and its checks."""

from __future__ import annotations

from ndpgpu.experiments.papers.ipndp import IpndpReproduction
from ndpgpu.experiments.results import ResultSet
from ndpgpu.mechanisms.ipndp.configs import ABLATION, BENCHMARKS, CONFIGS, workload
from ndpgpu.workloads.base import get_workload


def test_fifteen_ablation_configurations() -> None:
    assert len(ABLATION) == 15 and "IP-8" in ABLATION and "IP-8-Base-PF-PACA" not in ABLATION
    assert ABLATION["IP-8"] == ("ipndp-ip8", "pa", "ipndp:paca+pf")
    assert ABLATION["Base-8"] == ("ipndp-base8", "base", "ipndp:rr")


def test_every_point_names_a_registered_workload_and_machine() -> None:
    from ndpgpu.timing import load_machine

    spec = IpndpReproduction().spec("tiny")
    assert len(spec.points) == len(CONFIGS) * len(BENCHMARKS) == 168
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
