"""docs/metrics.md's table of GPGPU-Sim's statistics and ours: it covers the names a GPGPU-Sim user looks for, and
every name of ours it gives is a row a run produces (``ndpgpu run vecadd --machine gtx480 --json``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ndpgpu.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"
HEADING = "## GPGPU-Sim's statistics and ours"


def _rows() -> list[list[str]]:
    text = DOC.read_text()
    assert text.index(HEADING) > text.index("<!-- metrics:end -->"), "the table sits outside the generated block"
    section = text[text.index(HEADING):]
    lines = [line for line in section.splitlines() if line.startswith("| ")][2:]  # past the header and rule
    return [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in lines]


def test_it_covers_what_a_gpgpusim_user_looks_for() -> None:
    theirs = " ".join(r[0] for r in _rows())
    for name in ("gpu_sim_cycle", "gpu_sim_insn", "gpu_ipc", "gpu_tot_ipc", "L1D_total_cache_accesses",
                 "L1D_total_cache_misses", "L2_total_cache_accesses", "L2_total_cache_misses", "L2_BW",
                 "total dram reads", "total dram writes", "gpu_occupancy", "gpu_stall_dramfull", "W0_Scoreboard"):
        assert name in theirs, name


def test_every_name_of_ours_is_a_row_a_run_produces(capsys) -> None:
    assert main(["run", "vecadd", "--machine", "gtx480", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    names = {f"{r['path']}.{r['metric']}" for r in doc["timing"]}
    for launch in doc["launch_stats"]:
        names |= {f"{r['path']}.{r['metric']}" for r in launch["rows"]}
    stalls = {n.rsplit(".", 1)[1] for n in names if n.startswith("core.stalls.")}
    checked, missing = 0, []
    for theirs, ours, how in _rows():
        for token in re.findall(r"`([A-Za-z_0-9.{}]+)`", f"{ours} {how}"):
            token = token.replace("{ch}", "0")
            if "." in token and re.search(r"[a-z]", token):
                checked += 1
                if token not in names:
                    missing.append((theirs, token))
            elif token.startswith("_"):  # a suffix (`_fraction`s)
                continue
            elif theirs.startswith("`Stall:`") and token.islower() and token in stalls:
                checked += 1
            elif theirs.startswith("`Stall:`") and token.islower():
                missing.append((theirs, f"core.stalls.{token}"))
    assert checked > 30 and not missing, missing
