"""The TOM report's explanations of failing checks (``experiments/papers/_tom_why.py``), on a hand-built result
set whose numbers the sentences must quote."""

from __future__ import annotations

import pytest

from ndpgpu.experiments.papers._tom_why import TomExplainer
from ndpgpu.experiments.papers.tom import ABBREV, CONFIGS, TomReproduction
from ndpgpu.experiments.points import Point
from ndpgpu.experiments.results import PointResult, ResultSet

CYCLES = {  # baseline cycles / config cycles = speedup; KM speeds up, HW slows down
    "baseline": {"kmeans_nounroll": 1000.0, "heartwall": 1000.0},
    "ctrl+tmap": {"kmeans_nounroll": 800.0, "heartwall": 2000.0},
    "ctrl+bmap": {"kmeans_nounroll": 1000.0, "heartwall": 1600.0},
    "ctrl+oracle": {"kmeans_nounroll": 800.0, "heartwall": 1250.0},
    "ideal": {"kmeans_nounroll": 1250.0, "heartwall": 1000.0},
    "ideal-limited": {"kmeans_nounroll": 500.0, "heartwall": 1100.0},
}


def result_set() -> ResultSet:
    out = []
    for config, cycles in CYCLES.items():
        machine, policy, over = CONFIGS[config]
        for w, c in cycles.items():
            m = {"kernel.cycles": (c, "cycles"), "link.tx_bytes": (100.0, "B"), "link.rx_bytes": (300.0, "B"),
                 "cross_link.bytes": (0.0, "B")}
            if config == "ctrl+tmap":
                m.update({"offload.blocks.offloaded": (40.0, ""), "offload.blocks.instances": (100.0, ""),
                          "offload.blocks.instruction_share": (0.25, ""), "offload.blocks.round_trip": (5000.0, ""),
                          "tom.colocation.applied": (0.5, ""), "tom.mapping.learned_start_bit": (12.0, ""),
                          "tom.learning.instances": (1.0, ""), "tom.instances": (100.0, ""),
                          "tom.mapping.remapped_bytes": (4096.0, "")})
                if w == "heartwall":
                    m["cross_link.bytes"] = (800.0, "B")  # twice the baseline's 400 link bytes
            if config == "ideal":
                m["offload.blocks.instruction_share"] = (0.9, "")
            out.append(PointResult(Point(workload=w, scale="small", machine=machine, policy=policy, overrides=over),
                                   f"{config}-{w}", "ok", None, m))
    return ResultSet(out)


@pytest.fixture(scope="module")
def explain() -> TomExplainer:
    return TomExplainer(TomReproduction(), result_set(), ABBREV)


def test_slowed_workloads_are_named_with_their_offload_statistics(explain):
    worst = explain.why("TOM slows no workload (its smallest speedup)")
    assert worst.startswith("HW 0.5: 40 of 100 instances offloaded, 25% of the instructions, 5,000 cycles")
    assert "stack-to-stack bytes 2x the baseline's link bytes" in worst
    assert "oracle mapping: 0.8" in worst and "(ideal-limited): 0.909" in worst and "slower than the GPU" in worst
    mean = explain.why("TOM (ctrl+tmap) mean speedup")
    assert mean.startswith("1 of 2 workloads run slower than the baseline: HW 0.5 (25% of its instructions offloaded). "
                           "Without HW the mean is 1.25")
    assert mean.endswith("The NDP machine's GPU has 64 SMs against the baseline's 68 (ratio 0.941): a workload bound "
                         "by the GPU's SMs that offloads little runs at about that ratio.")


def test_mapping_ideal_and_traffic_explanations_quote_the_points(explain):
    gain = explain.why("ctrl+tmap above ctrl+bmap (mean speedups)")
    # tmap - bmap: KM 1.25 - 1.0 = +25 points, HW 0.5 - 0.625 = -12.5 points
    assert gain.startswith("Per workload, tmap minus bmap in points: HW -12.5 (learned start bit 12 from 1 of 100")
    assert "Without HW tmap leads by +25.0 points" in gain
    ideal = explain.why("ideal NDP above TOM (mean speedups)")
    assert ideal.startswith("The ideal (no control or pending limit, 48 warps per stack SM) is below TOM on KM 0.8 "
                            "against 1.25 "
                            "(90% of the instructions on the stack SMs)")
    traffic = explain.why("ctrl+tmap reduces off-chip traffic (mean, fraction of baseline)")
    assert traffic.startswith("1 of 2 workloads move more bytes than the baseline; the most: HW 3 (TX 0.25, RX 0.75, "
                              "stack-to-stack 2)")
    assert explain.why("a check nobody explains") == ""
    assert explain.why("baseline energy share of the links") == ""  # no power rows in this set: nothing to say
