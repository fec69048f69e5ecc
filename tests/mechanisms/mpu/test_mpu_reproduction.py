"""The MPU reproduction's plan and its checks: the 12 workloads on the V100 proxy and on MPU's 8
configurations, the static checks (Table II, Table III, Fig. 7), and the dynamic checks from hand-made results."""

from __future__ import annotations

import math

import pytest

from ndpgpu.experiments.papers.mpu import BENCHMARKS, CONFIGS, ENERGY_PARTS, PAPER, TIME, MpuReproduction, mean
from ndpgpu.experiments.points import Point
from ndpgpu.experiments.results import PointResult, ResultSet
from ndpgpu.workloads.mpu import MPU_WORKLOADS

SMEM = ("BLUR", "CONV", "GEMV", "HIST", "NW", "PR", "TTRANS")


def test_every_point_names_a_registered_workload_machine_and_policy() -> None:
    from ndpgpu.mechanisms.policy import make_policy
    from ndpgpu.timing import load_machine
    from ndpgpu.workloads.base import get_workload

    spec = MpuReproduction().spec("tiny")
    assert len(spec.points) == len(CONFIGS) * 12 == 120
    assert len({p.identity() for p in spec.points}) == 120
    for p in spec.points:
        get_workload(p.workload)
        load_machine(p.machine, p.overrides)
        if p.policy != "baseline":  # (the baseline is no session policy)
            make_policy(p.policy)


def test_static_checks_pass_without_results() -> None:
    checks = {c.name.split(":")[0]: c for c in MpuReproduction().checks(ResultSet([]))}
    assert len(checks) >= 15
    for name in ("Table II arithmetic", "Table III", "Algorithm 1 on Fig. 7"):
        assert checks[name].passed, checks[name]
    assert not checks["every point ran (functional outputs checked against NumPy; timing never changes them)"].passed
    assert not checks["headline"].passed and checks["headline"].ours is None  # no result: no number, not a zero


def _results(time_of, extra=lambda config, bench: {}) -> ResultSet:
    """A result per point; ``time_of(config, bench)`` gives its kernel time, ``extra`` its other metrics (the
    application's time is three times the kernel's)."""
    rows = []
    for config, (machine, policy, ov) in CONFIGS.items():
        for b in BENCHMARKS:
            p = Point(workload=MPU_WORKLOADS[b], scale="small", machine=machine, policy=policy, overrides=ov)
            metrics = {TIME: time_of(config, b), "application.time": 3 * time_of(config, b), **extra(config, b)}
            rows.append(PointResult(p, p.label, "ok", "", {k: (v, "") for k, v in metrics.items()}, ""))
    return ResultSet(rows)


SPEEDUP = {"annotation": PAPER["speedup"], "hardware": PAPER["hardware"], "all-near": PAPER["all-near"],
           "all-far": PAPER["all-far"], "PonB": PAPER["speedup"] / PAPER["ponb"],
           "2 RB": PAPER["speedup"] / PAPER["rb4"] * PAPER["rb2"], "1 RB": PAPER["speedup"] / PAPER["rb4"],
           "Table II DRAM": 2 * PAPER["speedup"]}


def _paper_like(config: str, bench: str) -> float:
    """Kernel times that give the paper's mean ratios exactly (every workload the same)."""
    if config == "GPU":
        return 1000.0
    if config == "far-smem":
        return 1000.0 / PAPER["speedup"] * (PAPER["near_smem"] if bench in SMEM else 1.0)
    return 1000.0 / SPEEDUP[config]


def _paper_metrics(config: str, bench: str) -> dict[str, float]:
    m: dict[str, float] = {"mpu.lsu.smem_accesses": 10.0 if bench in SMEM else 0.0,
                           "mpu.tsv.bytes": 1000.0 * (PAPER["near_smem_tsv"] if config == "far-smem" and bench in SMEM
                                                      else 1.0),
                           "kernel.warps": 512.0, "mpu.registers.moves_down": 512.0, "mpu.registers.moves_up": 0.0,
                           "dram.bus_utilisation": PAPER["v100_util"],
                           "dram.bandwidth": 100.0 * (PAPER["bandwidth"] if config != "GPU" else 1.0),
                           "mpu.dram.row_buffer_miss_rate": {"1 RB": 0.156, "2 RB": 0.092}.get(config, 0.0545),
                           "energy.total": 100.0 if config != "GPU" else 100.0 * PAPER["energy"] + 1000.0,
                           # the GPU's static energy over an application three times its kernel: a third counts
                           "energy.dynamic": 100.0 if config != "GPU" else 100.0 * PAPER["energy"] - 1000.0,
                           "energy.static": 0.0 if config != "GPU" else 3000.0}
    for part, comps in ENERGY_PARTS.items():  # MPU prices no static power: each part's energy is dynamic
        m[f"energy.{comps[0]}.total"] = m[f"energy.{comps[0]}.dynamic"] = PAPER["shares"][part]
        m[f"energy.{comps[0]}.static"] = 0.0
    # memory intensity: speedups are equal, so the trend line is flat in speedup; KMEANS placed above it by its
    # own time below, TTRANS and UPSAMP below
    m["dram.bytes"] = 100.0 * (1 + BENCHMARKS.index(bench))
    m["kernel.warp_instructions"] = 100.0
    return m


def test_paper_like_results_pass_every_dynamic_check() -> None:
    skew = {"KMEANS": 1.1, "TTRANS": 0.9, "UPSAMP": 0.9}

    def time_of(config: str, bench: str) -> float:
        t = _paper_like(config, bench)
        return t if config == "GPU" else t / skew.get(bench, 1.0)  # every MPU configuration alike

    checks = MpuReproduction().checks(_results(time_of, _paper_metrics))
    failed = [(c.name, c.ours) for c in checks if not c.passed and not c.name.startswith("register split")]
    assert not failed, failed
    by = {c.name.split(":")[0]: c for c in checks}
    # three workloads skewed: the mean over 12 is the paper's x (9 + 1.1 + 0.9 + 0.9) / 12
    expected = PAPER["speedup"] * (9 + 1.1 + 0.9 + 0.9) / 12
    assert by["headline"].ours == pytest.approx(expected)
    assert by["policy order annotation > hardware default > all-far > all-near (mean speedups)"].passed


def test_trend_residuals_by_hand() -> None:
    """Speedup = intensity for all but KMEANS (x e) and UPSAMP (/ e): the line through the others moves by
    their mean, so the residuals are +1 - 0 and -1 - 0 around it, up to the fit's shift (computed here)."""
    rep = MpuReproduction()

    def time_of(config: str, bench: str) -> float:
        i = 1 + BENCHMARKS.index(bench)
        s = i * {"KMEANS": math.e, "UPSAMP": 1 / math.e}.get(bench, 1.0)
        return 1000.0 if config == "GPU" else 1000.0 / s

    res = rep.trend_residuals(_results(time_of, _paper_metrics))
    xs = [math.log(1 + i) for i in range(12)]
    ys = [x + {"KMEANS": 1.0, "UPSAMP": -1.0}.get(b, 0.0) for x, b in zip(xs, BENCHMARKS, strict=True)]
    mx, my = sum(xs) / 12, sum(ys) / 12
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    for b, x, y in zip(BENCHMARKS, xs, ys, strict=True):
        assert res[b] == pytest.approx(y - (my + slope * (x - mx)))
    assert res["KMEANS"] > 0 > res["UPSAMP"]


def test_mean_is_arithmetic_and_refuses_missing_values() -> None:
    assert mean([1.0, 2.0, 6.0]) == 3.0
    assert mean([1.0, None]) is None and mean([]) is None


def test_headline_spread_and_second_columns_by_hand() -> None:
    """The headline table's arithmetic and geometric means and extremes, and the README second column: the
    ALU's energy repriced by the README factor, every other part unchanged (hand arithmetic on the paper-like
    metrics: MPU's kernel energy 100 pJ of which the ALU 39.82, the V100 proxy's 100 x 2.57)."""
    from ndpgpu.mechanisms.mpu.energy import readme_alu_factor

    skew = {"KMEANS": 2.0, "UPSAMP": 0.5}

    def time_of(config: str, bench: str) -> float:
        return _paper_like(config, bench) / (1.0 if config == "GPU" else skew.get(bench, 1.0))

    rep = MpuReproduction()
    res = _results(time_of, _paper_metrics)
    h = rep.headline_spread(res)
    s = PAPER["speedup"]
    assert h["mean"] == pytest.approx(s * (10 + 2.0 + 0.5) / 12)
    assert h["geomean"] == pytest.approx(s)  # 2.0 x 0.5 = 1
    assert h["min"] == ("UPSAMP", pytest.approx(s / 2)) and h["max"] == ("KMEANS", pytest.approx(2 * s))
    assert rep.headline_spread(res, "Table II DRAM")["mean"] == pytest.approx(2 * s * (10 + 2.0 + 0.5) / 12)
    f = readme_alu_factor()
    mpu = 100.0 - (1 - f) * PAPER["shares"]["ALU"]
    for v in rep.energy_reduction(res, "annotation", f).values():
        assert v == pytest.approx(100.0 * PAPER["energy"] / mpu)
    shares = rep.energy_shares(res, f)
    assert shares["ALU"] == pytest.approx(100.0 * f * PAPER["shares"]["ALU"] / mpu)
    assert shares["TSV"] == pytest.approx(100.0 * PAPER["shares"]["TSV"] / mpu)
    assert rep.energy_shares(res) == pytest.approx(PAPER["shares"])
    table = rep.second_columns(res)
    assert table.rows[0][2] == pytest.approx(h["mean"])
