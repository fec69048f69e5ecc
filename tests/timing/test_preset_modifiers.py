"""Presets are a base plus what they change: a preset that ``extends`` one of the GPUs (``gtx480``, ``v100``)
names only the fields whose value differs from it (the rest, with their sources, are the GPU's), and every
preset that extends another resolves to a whole machine. (A variant of a paper's preset may restate a value of
its own base to cite the paper for it, as ``tom-ndp`` does for the stack SM's 48 warps.)"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from ndpgpu.timing.presets import load_machine, preset_files

EXTENDING = sorted(name for name, path in preset_files().items()
                   if "extends" in (yaml.safe_load(path.read_text()) or {}))


def _leaves(tree: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(tree, dict):
        out: dict[str, Any] = {}
        for key, value in tree.items():
            out.update(_leaves(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: tree}


def test_the_papers_base_presets_extend_gtx480():
    for name in ("llc-mesh", "ipndp-base8", "tom-baseline"):
        assert yaml.safe_load(preset_files()[name].read_text())["extends"] == "gtx480", name


@pytest.mark.parametrize("name", EXTENDING)
def test_a_preset_names_only_what_it_changes(name):
    raw = yaml.safe_load(preset_files()[name].read_text())
    extends = raw.pop("extends")
    overlays = raw.pop("overlays", None) or []
    base = load_machine(extends).model_dump(mode="json")
    # what the preset inherits is its base with its overlays (v100-gpgpusim turns off what the gpgpusim overlay
    # turned on, SM7_QV100's perfect instruction cache among them: not a repeat of v100's value)
    inherited = _leaves(load_machine("+".join([extends, *overlays])).model_dump(mode="json"))
    same = [k for k, v in _leaves(raw).items()
            if k in inherited and inherited[k] == v and k not in ("name", "description")]
    if base["name"] in ("gtx480", "v100"):
        assert not same, f"{name} repeats its base's values: {same}"
    assert load_machine(name).name == name  # and resolves, validated, to a whole machine
