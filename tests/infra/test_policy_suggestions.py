"""A misspelt policy comes with "did you mean ...?", as misspelt workloads and machines do: over the prefixes, and
over the words each mechanism's specs are made of (``register_policy(prefix, words=...)``)."""

from __future__ import annotations

import pytest

from ndpgpu.cli import main
from ndpgpu.mechanisms.policy import POLICY_WORDS, PolicyError, make_policy, suggest_policy


@pytest.mark.parametrize(("given", "meant"), [
    ("tom:ctrl+tmpa", "tom:ctrl+tmap"),  # a mapping
    ("tom:crtl+tmap,threshhold=0.6", "tom:ctrl+tmap,threshold=0.6"),  # a control and a setting; the value kept
    ("tom:ctrl+tmap,score=first_stak", "tom:ctrl+tmap,score=first_stack"),  # a named value
    ("tmo:ctrl+tmap", "tom:ctrl+tmap"),  # the prefix
    ("llc:omin", "llc:omni"),
    ("llc:omni,oqq=4", "llc:omni,oq=4"),
    ("ipndp:paca+fp,widht=100", "ipndp:paca+pf,width=100"),  # a transposed switch: the same letters
    ("teleport:rael,mthwp", "teleport:real,mthwp"),
    ("mpu:anotation+far-smme", "mpu:annotation+far-smem"),
    ("baselin", "baseline"),
])
def test_a_misspelt_policy_gets_the_one_meant(given: str, meant: str) -> None:
    if meant != "baseline":  # (which attaches nothing: no policy object is made for it)
        make_policy(meant)  # the suggestion is a policy that parses
    assert suggest_policy(given) == (meant, "")
    with pytest.raises(PolicyError, match=f"did you mean '{meant.replace('+', '[+]')}'[?]"):
        make_policy(given)


def test_a_misspelt_prefix_with_an_incomplete_spec_names_the_prefix() -> None:
    """``tmo:ctrl``: the prefix is 'tom', whose spec also needs a mapping: both are said."""
    with pytest.raises(PolicyError) as info:
        make_policy("tmo:ctrl")
    text = str(info.value)
    assert "unknown policy 'tmo:ctrl'" in text and "did you mean the prefix 'tom'?" in text
    assert "expected tom:<control>+<mapping>" in text


def test_nothing_close_suggests_nothing() -> None:
    with pytest.raises(PolicyError) as info:
        make_policy("xyz:abc")
    assert "did you mean" not in str(info.value)
    with pytest.raises(PolicyError) as info:
        make_policy("tom:qqqqq")
    assert "did you mean" not in str(info.value)


def test_every_mechanism_declares_its_words() -> None:
    make_policy("tom:ctrl+tmap")  # loads every mechanism's policy module
    assert set(POLICY_WORDS) == {"tom", "llc", "ipndp", "teleport", "mpu"}
    assert {"ctrl", "tmap", "threshold"} <= set(POLICY_WORDS["tom"])


def test_the_command_line_suggests_before_running_anything(capsys) -> None:
    assert main(["run", "vecadd", "--machine", "tom-ndp", "--policy", "tom:ctrl+tmpa"]) == 2
    assert "did you mean 'tom:ctrl+tmap'?" in capsys.readouterr().err


def test_a_sweep_spec_with_a_misspelt_policy_is_refused_with_the_suggestion(tmp_path, capsys) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("name: s\ngrid:\n  workloads: [vecadd]\n  scales: [tiny]\n  machines: [tom-ndp]\n"
                    "  policies: ['tom:ctrl+tmpa']\n")
    assert main(["sweep", str(spec), "--store", str(tmp_path / "r.duckdb"), "--dry-run"]) == 2
    assert "did you mean 'tom:ctrl+tmap'?" in capsys.readouterr().err
