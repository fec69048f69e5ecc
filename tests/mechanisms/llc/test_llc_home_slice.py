"""StreamCluster under Omni-Compute against the candidate centre's home slice: the premise (all of a point's
coordinates in one slice) from the engine's own address decoder, and the bound's arithmetic by hand."""

from __future__ import annotations

import pytest

from ndpgpu.experiments.papers.llc import (
    CYCLES,
    LlcReproduction,
    _centre_slices,
    _stream_home_slice_check,
    source,
)
from ndpgpu.experiments.points import Point
from ndpgpu.experiments.results import PointResult, ResultSet
from ndpgpu.timing.build import EngineState
from ndpgpu.timing.presets import load_machine
from ndpgpu.workloads.llc.streamcluster import StreamCluster


@pytest.mark.parametrize("scale", ["tiny", "small", "paper"])
def test_a_points_coordinates_share_one_slice_under_linear_decoding(scale):
    """coord[i * num + x] for every dimension i: the engine's decoder puts them in one slice (num * 4 bytes is
    a multiple of 8 MCs x 128 B), as the formula the check uses says."""
    p = StreamCluster.scales[scale]
    m = load_machine("llc-mesh+gpgpusim3")
    st = EngineState(m)
    base, x = 1 << 30, 12_345
    homes = {st.map_address(base + 4 * (i * p["num"] + x))["slice"] for i in range(p["dim"])}
    assert len(homes) == 1
    assert _centre_slices(p["num"], p["dim"], m) == 1


def test_hashed_channels_give_no_bound():
    assert _centre_slices(16384, 64, load_machine("llc-mesh", {"dram.mapping.channel_xor": True})) is None


def _result(policy: str, metrics: dict[str, float]) -> PointResult:
    point = Point(workload=source("STREAM", policy != "baseline"), scale="small", machine="llc-mesh", policy=policy)
    return PointResult(point=point, key=policy, status="ok", error=None,
                       metrics={k: (v, "") for k, v in metrics.items()})


def test_the_bound_by_hand():
    """400,000 baseline cycles; Omni-Compute offloads 20,000 chains: one 5-flit line each leaves the home slice
    ((128 B + 8 B header) / 32 B flits, rounded up), at one flit a cycle (NoC clocked as the cores): at least
    100,000 cycles, so a speedup of at most 4.0. The claim needs 1.10 x LLC-Compute's 2.0 = 2.2: within it."""
    base = _result("baseline", {CYCLES: 400_000})
    omni = _result("llc:omni", {CYCLES: 160_000, "offload.chains.offloaded": 20_000,
                                "offload.chains.offload_rate": 0.5})
    (check,) = _stream_home_slice_check(LlcReproduction(), ResultSet([base, omni]), 2.0)
    assert check.passed
    assert check.ours.startswith("ceiling 4 at 20,000 offloaded chains x 5 flits")
    assert "measured 2.5" in check.ours
    # four times the chains: a ceiling of 1.0, below the 2.2 the claim needs
    omni4 = _result("llc:omni", {CYCLES: 160_000, "offload.chains.offloaded": 80_000,
                                 "offload.chains.offload_rate": 0.5})
    (check4,) = _stream_home_slice_check(LlcReproduction(), ResultSet([base, omni4]), 2.0)
    assert not check4.passed and check4.ours.startswith("ceiling 1 at 80,000")
    assert "needs at most 0.23" in check4.ours  # 0.5 x 1.0 / 2.2
