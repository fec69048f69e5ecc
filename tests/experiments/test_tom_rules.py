"""Every check of the TOM reproduction carries its definition (report.CheckRule, ``RULES`` in
experiments/papers/tom.py), fixed from the paper's text: one rule per check, each used once, quoting the paper."""

from __future__ import annotations

from ndpgpu.experiments.papers.tom import CHARGE, CONFIGS, RULES, TomReproduction
from ndpgpu.experiments.points import Point
from ndpgpu.experiments.report import CheckRule
from ndpgpu.experiments.results import PointResult, ResultSet

WORKLOADS = ("kmeans_nounroll", "reduction")
ARITHMETIC = {"ran", "cost_1", "cost_4", "candidates", "live_regs", "coloc_oracle"}


def every_configuration() -> ResultSet:
    out = []
    for config, (machine, policy, over) in CONFIGS.items():
        for i, w in enumerate(WORKLOADS):
            m = {"kernel.cycles": (1000.0 if config == "baseline" else 900.0 + 10 * i, "cycles"),
                 "tom.instances": (10.0, "instances")}
            if "+tmap" in policy:
                m[CHARGE] = (50.0, "cycles")
            out.append(PointResult(Point(workload=w, scale="small", machine=machine, policy=policy, overrides=over),
                                   f"{config}-{w}", "ok", None, m))
    return ResultSet(out)


def test_every_check_has_its_rule_and_every_rule_is_used_once():
    checks = TomReproduction().checks(every_configuration())
    assert len(checks) == 25  # the sensitivity and coherence checks included
    rules = [c.rule for c in checks]
    assert all(isinstance(r, CheckRule) for r in rules)
    by_id = {id(r): k for k, r in RULES.items()}
    used = [by_id[id(r)] for r in rules]
    assert sorted(used) == sorted(RULES)  # one rule per check, none left over
    for c, key in zip(checks, used, strict=True):
        assert c.kind == ("arithmetic" if key in ARITHMETIC else "measured"), (c.name, key)
        assert '"' in c.source, (key, "the rule quotes the paper")
        assert c.averaging and c.band_source


def test_the_speedup_rules_name_the_arithmetic_mean_and_the_charge():
    for key in ("speedup_mean", "no_ctrl_tmap", "cross_monotone", "internal_bw"):
        assert "arithmetic mean" in RULES[key].averaging and "charged_cycles" in RULES[key].averaging
    for key in ("energy", "share_sms", "share_links"):
        assert "kernels' window" in RULES[key].averaging
    assert "average performance improves by 30%" in RULES["speedup_mean"].source
