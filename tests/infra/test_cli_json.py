"""``--json`` on ``ndpgpu run`` and ``ndpgpu machines``: one parseable document on stdout, nothing else."""

from __future__ import annotations

import json

from ndpgpu.cli import main
from ndpgpu.timing import list_machines, load_machine


def _doc(capsys, argv: list[str], code: int = 0) -> dict:
    assert main(argv) == code
    return json.loads(capsys.readouterr().out)


def test_machines_json_lists_every_preset(capsys):
    doc = _doc(capsys, ["machines", "--json"])
    names = [m["name"] for m in doc["machines"]]
    assert names == list_machines()
    tom = next(m for m in doc["machines"] if m["name"] == "tom-ndp")
    assert tom["config_hash"] == load_machine("tom-ndp").config_hash()


def test_machines_show_json_is_the_resolved_machine(capsys):
    doc = _doc(capsys, ["machines", "show", "gtx480", "--json"])
    m = load_machine("gtx480")
    assert doc["config_hash"] == m.config_hash()
    assert doc["machine"]["name"] == "gtx480" and doc["machine"]["core"]["num_sms"] == m.core.num_sms


def test_run_json_without_and_with_a_machine(capsys):
    doc = _doc(capsys, ["run", "vecadd", "--json"])
    assert doc["passed"] and doc["timing"] is None and all(c["passed"] for c in doc["checks"])
    doc = _doc(capsys, ["run", "vecadd", "--machine", "gtx480", "--json"])
    rows = {(r["path"], r["metric"]): r["value"] for r in doc["timing"]}
    assert rows[("kernel", "cycles")] > 0 and doc["machine"] == "gtx480"


def test_run_json_with_a_policy_carries_the_policy_rows(capsys):
    doc = _doc(capsys, ["run", "kmeans", "--machine", "tom-ndp", "--policy", "tom:always+bmap", "--json"])
    rows = {(r["path"], r["metric"]): r["value"] for r in doc["timing"]}
    assert rows[("offload.blocks", "offloaded")] > 0
    assert any(r[0] == "tom" and r[1] == "candidates" for r in doc["policy_rows"])
