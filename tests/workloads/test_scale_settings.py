"""Scales that set some of a named scale's parameters (``paper:m=384,n=384,k=384``): parsing, one spelling,
typed errors, sweep specs, and a run whose outputs have the set size."""

from __future__ import annotations

import numpy as np
import pytest

from ndpgpu.experiments.points import SpecError, spec_from_dict
from ndpgpu.workloads.base import WorkloadError, get_workload, parse_scale


def test_settings_replace_the_named_scales_values_with_their_types() -> None:
    cls = get_workload("ipndp_matmul")
    assert cls.params("paper:m=384,k=128") == {"m": 384, "n": 512, "k": 128}
    assert cls.params("paper") == {"m": 512, "n": 512, "k": 512}
    assert parse_scale("small: m = 64 ,k=32") == ("small", [("m", "64"), ("k", "32")])


def test_one_spelling_per_scale() -> None:
    cls = get_workload("ipndp_matmul")
    assert cls.canonical_scale("paper:k=0128,m=384") == "paper:m=384,k=128"
    assert cls.canonical_scale("paper:m=384,k=128") == "paper:m=384,k=128"
    assert cls.canonical_scale("paper:k=128,m=384,n=512") == "paper:m=384,k=128"  # n is the named scale's
    assert cls.canonical_scale("paper:m=512,n=512,k=512") == "paper"
    assert cls.canonical_scale("small") == "small"


@pytest.mark.parametrize(("scale", "fragment"), [
    ("huge", "has no scale 'huge'"),
    ("huge:m=1", "has no scale 'huge'"),
    ("paper:", "nothing after ':'"),
    ("paper:m", "'m' is not key=value"),
    ("paper:m=", "'m=' is not key=value"),
    ("paper:m=1,m=2", "'m' is set twice"),
    ("paper:q=1", "has no parameter 'q' at scale 'paper'; its parameters are ['k', 'm', 'n']"),
    ("paper:m=1.5", "parameter 'm' is an int; got '1.5'"),
])
def test_bad_scales_say_what_and_where(scale: str, fragment: str) -> None:
    with pytest.raises(WorkloadError) as err:
        get_workload("ipndp_matmul").params(scale)
    assert fragment in str(err.value)


def test_sweep_points_take_one_spelling_and_name_the_bad_field() -> None:
    spec = spec_from_dict({"name": "x", "grid": {"workloads": ["ipndp_matmul"], "machines": ["gtx480"],
                                                 "scales": ["paper:n=256,m=256", "paper:m=256,n=256"]}})
    points = spec.expand()
    assert [p.scale for p in points] == ["paper:m=256,n=256"]  # two spellings, one point
    with pytest.raises(SpecError, match=r"points.0: scale 'paper:m=x': workload 'ipndp_matmul''s parameter 'm'"):
        spec_from_dict({"name": "x", "points": [{"workload": "ipndp_matmul", "scale": "paper:m=x",
                                                  "machine": "gtx480"}]}).expand()


def test_a_run_at_a_set_size_computes_that_size() -> None:
    from ndpgpu.workloads.runner import run_workload

    result = run_workload("vecadd", "tiny:n=3000")
    assert result.passed and result.checks  # against NumPy at that size
    sizes = {v.size for v in result.outputs.values() if isinstance(v, np.ndarray)}
    assert sizes == {3000}


def test_the_committed_ipndp_size_sweep_holds_its_specs_points() -> None:
    """docs/ipndp/sizes: the spec's 16 points are the points the committed file holds, and the size of each
    recording is the one its scale sets (the MatMul traces' dimensions from their warp-instruction counts)."""
    from pathlib import Path

    import duckdb

    from ndpgpu.experiments.points import load_spec

    here = Path(__file__).resolve().parents[2] / "docs" / "ipndp" / "sizes"
    points = load_spec(here / "sizes.yaml").expand()
    assert len(points) == 16
    stored = set(duckdb.sql(f"select distinct workload, scale, machine, policy from '{here / 'points.parquet'}'")
                 .fetchall())
    assert stored == {(p.workload, p.scale, p.machine, p.policy) for p in points}
    # MatMul's base kernel: T = n / 16 tiles a side, each CTA a k-loop of T steps, so warp-instructions are
    # a T^3 + b T^2 (per step, per tile). Solved from the two smallest sizes, it must hold at the other two: each
    # recording ran at the size its scale sets.
    instr = dict(duckdb.sql(f"select scale, value from '{here / 'points.parquet'}' where workload = 'ipndp_matmul' "
                            "and name = 'kernel.warp_instructions'").fetchall())
    tiles = {"paper:m=128,n=128,k=128": 8, "paper:m=256,n=256,k=256": 16, "paper:m=384,n=384,k=384": 24,
             "paper": 32}
    (s1, t1), (s2, t2) = list(tiles.items())[:2]
    a = (instr[s2] / t2**2 - instr[s1] / t1**2) / (t2 - t1)
    b = instr[s1] / t1**2 - a * t1
    assert a > 0 and b > 0
    for scale, t in tiles.items():
        assert instr[scale] == a * t**3 + b * t**2, scale
