"""``ndpgpu run W --machine M --policy P``: a mechanism's session policy from the shell, on any workload."""

from __future__ import annotations

from ndpgpu.cli import main


def test_policy_needs_a_machine(capsys):
    assert main(["run", "vecadd", "--policy", "tom:ctrl+bmap"]) == 2  # a usage error's exit status
    assert "--policy belongs to timing; name the machine with --machine" in capsys.readouterr().err


def test_an_unknown_policy_is_refused_before_running(capsys):
    assert main(["run", "vecadd", "--machine", "tom-ndp", "--policy", "nope:x"]) == 2
    assert "unknown policy 'nope:x'" in capsys.readouterr().err


def test_tom_policy_offloads_blocks_of_a_workload(capsys):
    """kmeans's distance loop is a TOM candidate: with tom:always+bmap its instances run in the stacks."""
    assert main(["run", "kmeans", "--machine", "tom-ndp", "--policy", "tom:always+bmap"]) == 0
    out = capsys.readouterr().out
    assert "timed on tom-ndp with policy tom:always+bmap" in out
    # the summary's headline row over the whole run: "offload.blocks.offloaded N of M"
    totals = out[out.index("totals over"):]
    offloaded = totals.split("offload.blocks.offloaded ", 1)[1].split()[0]
    assert int(offloaded.replace(",", "")) > 0
    assert "[tom:always+bmap]" in out and "tom.candidates" in out


def test_all_prints_the_full_table_with_the_policy_rows(capsys):
    assert main(["run", "kmeans", "--machine", "tom-ndp", "--policy", "tom:always+bmap", "--all"]) == 0
    out = capsys.readouterr().out
    block = out[out.index("  offload.blocks"):]
    offloaded = next(line.split()[1] for line in block.splitlines() if line.strip().startswith("offloaded"))
    assert int(offloaded.replace(",", "")) > 0
    assert "[tom:always+bmap]" in out and "tom.mapping.scores" in out
