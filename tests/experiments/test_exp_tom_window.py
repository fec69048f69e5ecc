"""TOM at `paper` scale: every point stops at the paper's 2 B instructions, all configurations at the same point."""

from __future__ import annotations

from ndpgpu.experiments.papers.tom import PAPER_WINDOW, TomReproduction


def test_tom_at_paper_scale_stops_every_point_at_the_papers_2b_instructions():
    repro = TomReproduction()
    assert PAPER_WINDOW == {"sim.max_warp_instructions": 62_500_000}
    assert all(p.overrides.get("sim.max_warp_instructions") == 62_500_000 for p in repro.spec("paper").points)
    assert not any("sim.max_warp_instructions" in p.overrides for p in repro.spec("small").points)
    ideal = [p for p in repro.spec("paper").points if p.policy == "tom:ideal+bmap"]
    assert ideal and all(p.overrides["stacks.sm_max_warps"] == 256 for p in ideal)


def test_tom_at_paper_scale_runs_the_sensitivity_studies_too():
    """Section 6.5's studies (warp capacity, internal and cross-stack bandwidth) run at every scale."""
    repro = TomReproduction()
    paper, small = repro.spec("paper").points, repro.spec("small").points
    assert len(paper) == len(small) == 10 * 15  # fifteen configurations, the coherence overhead's included
    assert sum(p.policy == "tom:ctrl+tmap,coherence=0" for p in paper) == 10
    strip = [{k: v for k, v in p.overrides.items() if k != "sim.max_warp_instructions"} for p in paper]
    assert strip == [dict(p.overrides) for p in small]  # the same configurations, only the window added
    assert {"links.cross_stack.gbs": 5.0} in strip and {"stacks.sm_max_warps": 192} in strip
