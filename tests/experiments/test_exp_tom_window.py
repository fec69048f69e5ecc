"""TOM at `paper` scale: every point stops at the paper's 2 B instructions, all configurations at the same point."""

from __future__ import annotations

from ndpgpu.experiments.papers.tom import PAPER_WINDOW, TomReproduction


def test_tom_at_paper_scale_stops_every_point_at_the_papers_2b_instructions():
    repro = TomReproduction()
    assert PAPER_WINDOW == {"sim.max_warp_instructions": 62_500_000}
    assert all(p.overrides.get("sim.max_warp_instructions") == 62_500_000 for p in repro.spec("paper").points)
    assert not any("sim.max_warp_instructions" in p.overrides for p in repro.spec("small").points)
    # the paper's ideal on Sec. 5's machine (48 warps per stack SM); the 256-warp reading is a labelled extra
    ideal = [p for p in repro.spec("paper").points if p.policy == "tom:ideal+bmap"]
    assert sorted(p.overrides.get("stacks.sm_max_warps", 48) for p in ideal) == [48] * 10 + [256] * 10


def test_tom_at_paper_scale_runs_the_sensitivity_studies_too():
    """Section 6.5's studies (warp capacity, internal and cross-stack bandwidth) run at every scale."""
    repro = TomReproduction()
    paper, small = repro.spec("paper").points, repro.spec("small").points
    # fifteen configurations, the coherence overhead's included, the 256-warp ideal and the two of the uniform
    # live-ins' column
    assert len(paper) == len(small) == 10 * 18
    assert sum(p.policy == "tom:ctrl+tmap,coherence=0" for p in paper) == 10
    assert sum(p.policy == "tom:ctrl+tmap,uniform=1" for p in paper) == 10
    assert sum(p.policy == "tom:always+tmap,uniform=1" for p in paper) == 10
    strip = [{k: v for k, v in p.overrides.items() if k != "sim.max_warp_instructions"} for p in paper]
    assert strip == [dict(p.overrides) for p in small]  # the same configurations, only the window added
    assert {"links.cross_stack.gbs": 5.0} in strip and {"stacks.sm_max_warps": 192} in strip


def test_uniform_live_ins_table_sits_beside_the_papers_model():
    """The 'uniform_live_ins' table (issue 43): charged speedups and TX of both cost models, per workload."""
    from ndpgpu.experiments.papers.tom import CONFIGS
    from ndpgpu.experiments.points import Point
    from ndpgpu.experiments.results import PointResult, ResultSet

    cycles = {"baseline": 1000.0, "ctrl+tmap": 800.0, "ctrl+tmap uniform": 500.0}
    out = []
    for config, c in cycles.items():
        machine, policy, over = CONFIGS[config]
        m = {"kernel.cycles": (c, "cycles"), "link.tx_bytes": (100.0 if config != "ctrl+tmap uniform" else 50.0, "B"),
             "link.rx_bytes": (300.0, "B"), "cross_link.bytes": (0.0, "B"), "tom.learning.charged_cycles": (0.0, "")}
        out.append(PointResult(Point(workload="fastwalsh_nounroll", scale="small", machine=machine, policy=policy,
                                     overrides=over), config, "ok", None, m))
    tables = {t.name: t for t in TomReproduction().tables(ResultSet(out))}
    t = tables["uniform_live_ins"]
    assert t.columns == ["workload", "ctrl+tmap speedup (paper's cost model)",
                         "ctrl+tmap speedup (with uniform live-ins)", "ctrl+tmap TX (paper's cost model)",
                         "ctrl+tmap TX (with uniform live-ins)"]
    assert t.rows[0] == ["FWT", 1000 / 800, 1000 / 500, 100 / 400, 50 / 400]
