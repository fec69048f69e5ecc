"""``ndpgpu run W --machine M`` prints a one-screen summary by default (one block per launch, then the totals);
``--all`` prints every row; ``--json`` carries every launch's rows under ``launch_stats`` (``launches`` stays
their number)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from ndpgpu import clisummary
from ndpgpu.cli import main


def test_llc_mesh_run_prints_a_summary_and_all_prints_every_row(capsys):
    """On llc-mesh the full table is thousands of lines (one row per mesh link); the default is a screen."""
    argv = ["run", "vecadd", "--machine", "llc-mesh", "--policy", "llc:omni"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) <= 40, out
    assert "launch 0: _Z7vec_addPKfS0_Pfi  grid 40x1x1  block 256x1x1" in out
    for text in ("cycles", "IPC", "L1D hit rate", "L2 hit rate", "DRAM", "totals over 1 launch", "kernel time",
                 "copies 3", "application time", "energy.kernel.total", "energy.application.total"):
        assert text in out, text
    # the mechanism's headline row: chains offloaded, out of those seen
    assert "offload.chains.offloaded" in out and " of " in out
    assert "[llc:omni] the policy's rows" in out
    assert main([*argv, "--all"]) == 0
    full = capsys.readouterr().out
    assert len(full.splitlines()) > 1000 and "mesh" in full and "energy.kernel.total" not in out.split("totals")[0]


def test_all_belongs_to_timing(capsys):
    assert main(["run", "vecadd", "--all"]) == 2
    assert "--all belongs to timing" in capsys.readouterr().err


def test_run_json_carries_each_launchs_rows(capsys):
    assert main(["run", "bfs", "--machine", "gtx480", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    launches = doc["launch_stats"]
    assert len(launches) == doc["launches"] == 16
    total = {(r["path"], r["metric"]): r["value"] for r in doc["timing"]}
    assert sum(la["cycles"] for la in launches) == total[("kernel", "cycles")]
    first = launches[0]
    assert first["kernel"] == "bfs_expand" and first["grid"] == [16, 1, 1] and first["block"] == [256, 1, 1]
    rows = {(r["path"], r["metric"]): r["value"] for r in first["rows"]}
    assert rows[("kernel", "cycles")] == first["cycles"] and ("l2", "hit_rate") in rows


class _Stats:
    """Just what the summary reads of a LaunchStats."""

    def __init__(self, kernel: str, cycles: int, rows: dict[str, float]) -> None:
        self.kernel, self.cycles, self.launches = kernel, cycles, 1
        self._rows = {"kernel.cycles": cycles, "kernel.ipc_thread": 100.0, "l2.hit_rate": 0.5, **rows}

    def get(self, path: str, metric: str, default=None):
        return self._rows.get(f"{path}.{metric}", default)

    def rows(self):
        return [(*k.rsplit(".", 1), v, "") for k, v in self._rows.items()]


def _measurement(stats, totals, policy_rows=()):
    return SimpleNamespace(launch_stats=stats, totals=lambda: totals, policy_rows=lambda: list(policy_rows))


def test_many_launches_fit_one_screen():
    stats = [_Stats("expand" if i % 2 else "update", 100 + i, {}) for i in range(40)]
    tot = _Stats("(total)", sum(s.cycles for s in stats), {"kernel.launches": 40, "kernel.time": 2.5e6,
                                                          "energy.kernel.total": 3.2e9,
                                                          "energy.application.total": 4.1e12})
    text = clisummary.summary(_measurement(stats, tot))
    assert len(text.splitlines()) < 40
    assert "... 33 more launches (7 to 39" in text and "expand: 17 launches" in text
    assert "totals over 40 launches" in text and "kernel time 2.5 ms" in text
    assert "energy.kernel.total 3.2 mJ" in text and "energy.application.total 4.1 J" in text
    assert "copies: none timed" in text


def test_headline_rows_of_each_mechanism():
    tom = _Stats("k", 1, {"offload.blocks.offloaded": 64, "offload.blocks.instances": 128,
                          "offload.blocks.instruction_share": 0.733})
    assert clisummary.headline_rows(tom) == [("offload.blocks.offloaded", "64 of 128"),
                                             ("offload.blocks.instruction_share", "73.3%")]
    tele = _Stats("k", 1, {"teleport.coverage": 0.25, "teleport.mthwp.coverage": 0.0, "teleport.mthwp.issued": 0})
    assert clisummary.headline_rows(tele) == [("teleport.coverage", "25.0%")]
    mthwp = _Stats("k", 1, {"teleport.coverage": 0.0, "teleport.mthwp.coverage": 0.4, "teleport.mthwp.issued": 9})
    assert [name for name, _ in clisummary.headline_rows(mthwp)] == ["teleport.coverage", "teleport.mthwp.coverage"]
    assert clisummary.headline_rows(_Stats("k", 1, {})) == []


def test_policy_rows_are_cut_to_a_few():
    st = _Stats("k", 10, {})
    rows = [("tom.mapping.scores", f"s{i}", float(i), "accesses") for i in range(30)]
    text = clisummary.summary(_measurement([st], st, rows), policy="tom:ctrl+tmap")
    assert "[tom:ctrl+tmap] the policy's rows" in text and "... 18 more (--all)" in text


def test_run_pcs_prints_the_busiest_instructions_with_their_cuda_lines(capsys):
    from pathlib import Path

    from ndpgpu.cli import main

    example = Path(__file__).resolve().parents[2] / "examples" / "saxpy.yaml"
    assert main(["run", str(example), "--machine", "gtx480", "--pcs", "3"]) == 0
    out = capsys.readouterr().out
    head = out.index("per-PC, launch 0")
    rows = out[head:].splitlines()[2:5]  # the three busiest after the title and the header
    assert len(rows) == 3 and all("saxpy.cu:" in r for r in rows)
    assert any("fma.rn.f32" in r or "ld.global.f32" in r for r in rows)  # the kernel's own work, not set-up
    assert "more (--pcs" in out


def test_run_pcs_needs_a_machine(capsys):
    from ndpgpu.cli import main

    assert main(["run", "saxpy", "--pcs", "3"]) == 2
    assert "--pcs belongs to timing" in capsys.readouterr().err
