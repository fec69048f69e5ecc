"""Malformed files: a machine YAML with a syntax error is a MachineConfigError at its line and column (not
yaml's ParserError); a PTX cache entry of the wrong shape is a cache miss, compiled again and replaced (not
``KeyError: 'ptx'``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ndpgpu
from ndpgpu.frontend import nvcc
from ndpgpu.timing import load_machine
from ndpgpu.timing.spec import MachineConfigError


@pytest.mark.parametrize("text, at, what", [
    ("extends: gtx480\ncore: {num_sms: 4\n", ":3:1:", "expected ',' or '}'"),
    ("extends: gtx480\ncore:\n  num_sms: 4\n num_sms: 5\n", ":4:2:", "expected <block end>"),
    ("extends: gtx480\nname: 'unclosed\n", ":3:1:", "found unexpected end of stream"),
])
def test_a_machine_yaml_syntax_error_names_its_line(tmp_path: Path, text: str, at: str, what: str) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(text)
    with pytest.raises(MachineConfigError, match="not valid YAML") as e:
        load_machine(str(path))
    message = str(e.value)
    assert message.startswith(f"{path}{at} not valid YAML: {what}") and "fix the syntax at that line" in message


@pytest.mark.parametrize("entry", [{"oops": 1}, {"ptx": 3, "nvcc_version": "12", "arch": "sm_75", "registers": {}},
                                   [1, 2], "just text"])
def test_a_ptx_cache_entry_of_another_shape_is_a_miss(tmp_path: Path, monkeypatch, entry) -> None:
    monkeypatch.setattr(nvcc, "cache_dir", lambda: tmp_path)
    (tmp_path / "ptx").mkdir()
    (tmp_path / "ptx" / "k.json").write_text(json.dumps(entry))
    assert nvcc._cache_get("k") is None
    good = {"ptx": ".version 9.0\n", "nvcc_version": "12.4", "arch": "sm_75", "registers": {"k": 8}}
    (tmp_path / "ptx" / "k.json").write_text(json.dumps(good))
    assert nvcc._cache_get("k").registers == {"k": 8}


@pytest.mark.skipif(not nvcc.nvcc_available(), reason="nvcc is needed to compile")
def test_a_compile_over_a_broken_cache_entry_recompiles(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(nvcc, "cache_dir", lambda: tmp_path)
    code = 'extern "C" __global__ void k(int* o) { o[threadIdx.x] = 7; }'
    first = ndpgpu.RawModule(code=code)
    [entry] = list((tmp_path / "ptx").glob("*.json"))
    entry.write_text(json.dumps({"ptx_text": "moved"}))
    again = ndpgpu.RawModule(code=code)  # compiled again: the same PTX, and the entry is whole again
    assert again.ptx == first.ptx and "ptx" in json.loads(entry.read_text())
