"""The one grammar of policy specs (``head[+switch...][,switch|,key=value...]``, mechanisms.policy), checked by
hand on a small grammar, and each mechanism's parser checked to accept what its docs name and refuse the rest."""

from __future__ import annotations

import pytest

from ndpgpu.mechanisms.policy import PolicyError, PolicyGrammar, Setting, make_policy

G = PolicyGrammar("toy", heads=("a", "b"), switches=("fast", "wide"), settings=(
    Setting("n"), Setting("rate", float), Setting("on", bool), Setting("mode", ("x", "y"), field="the_mode"),
    Setting("depth", needs="wide")))


def test_a_spec_splits_into_head_switches_and_typed_settings():
    p = G.parse("b+fast,wide,n=3,rate=0.5,on=1,mode=y,depth=2")
    assert (p.head, p.switches) == ("b", ("fast", "wide"))
    assert p.settings == {"n": 3, "rate": 0.5, "on": True, "the_mode": "y", "depth": 2}
    assert p.has("wide") and not G.parse("a").has("wide")
    assert G.parse("a").settings == {}


@pytest.mark.parametrize(("spec", "why"), [
    ("c", r"expected toy:<a\|b>.*unknown 'c'"),
    ("a+slow", "unknown switch.*'slow'.*switches: fast, wide"),
    ("a,m=1", "unknown setting 'm=1'; settings: n, rate, on, mode, depth"),
    ("a,n=x", "n='x' is not an integer"),
    ("a,on=2", "on='2' is not 0 or 1"),
    ("a,mode=z", "mode='z' is not x|y"),
    ("a+fast+fast", "given twice"),
    ("a,depth=1", "depth without wide"),
])
def test_a_bad_spec_names_the_part_and_what_is_allowed(spec, why):
    with pytest.raises(PolicyError, match=why):
        G.parse(spec)


def test_the_grammar_lists_its_words_for_corrections():
    assert set(G.words) == {"a", "b", "fast", "wide", "n", "rate", "on", "mode", "depth", "x", "y"}


@pytest.mark.parametrize("name", ["llc:omni,oq=12,sq=24", "teleport:real,mthwp,mthwp_period=64",
                                  "teleport:mthwp,mthwp_period=64", "teleport:l1,arb=cpref,priority=2",
                                  "ipndp:paca+pf+literal,width=512,tiles=4x2,scan=column",
                                  "mpu:annotation+far-smem", "mpu:ponb+no-remote-cache"])
def test_each_mechanism_accepts_its_documented_specs(name):
    make_policy(name)


@pytest.mark.parametrize(("name", "why"), [
    ("llc:omni,oq=x", "not an integer"), ("teleport:l1+mthwp", "not l1"),
    ("teleport:real,mthwp_period=4", "without mthwp"), ("ipndp:rr+pf+pws", "two prefetchers"),
    ("ipndp:rr,tiles=4", "tiles"), ("mpu:ponb+far-smem", "takes no far-smem"),
])
def test_each_mechanism_refuses_what_its_rules_forbid(name, why):
    with pytest.raises(PolicyError, match=why):
        make_policy(name)


def test_tom_takes_one_mapping_after_its_control():
    from ndpgpu.mechanisms.tom.policy import TomPolicySpec

    spec = TomPolicySpec.parse("ideal-limited+oracle,uniform=1,score=one_stack,window=500")
    assert (spec.control, spec.mapping, spec.uniform, spec.score, spec.window) == (
        "ideal-limited", "oracle", 1, "one_stack", 500)
    for bad in ("ctrl", "ctrl+tmap+bmap", "ctrl+tmap,uniform=yes"):
        with pytest.raises(PolicyError):
            TomPolicySpec.parse(bad)
