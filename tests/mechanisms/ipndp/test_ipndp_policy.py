"""The ``ipndp:`` policy on kernels outside the paper's suite, from the shell and the Python API."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ndpgpu.cli import main
from ndpgpu.mechanisms.policy import PolicyError, make_policy
from ndpgpu.timing import TimingSession
from ndpgpu.workloads.runner import run_workload


def _rows(out: str, prefix: str) -> dict[str, float]:
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(prefix):
            rows[parts[0]] = float(parts[1].replace(",", ""))
    return rows


def test_cli_run_with_the_prefetcher_on_a_corpus_kernel(capsys) -> None:
    """conv3x3 (corpus, 16x16 blocks, a 100-pixel row) on the IP-8 machine with the prefetcher told the row."""
    assert main(["run", "conv3x3", "--machine", "ipndp-ip8", "--policy", "ipndp:rr+pf,width=100"]) == 0
    out = capsys.readouterr().out
    assert "timed on ipndp-ip8 with policy ipndp:rr+pf,width=100" in out
    assert "ipndp.config.pf" in out


def test_without_a_geometry_the_policy_says_what_is_missing() -> None:
    run = run_workload("conv3x3", "tiny", trace=True)
    allocs = [{"addr": a.address, "bytes": a.size} for a in run.device.memory.allocations]
    with pytest.raises(PolicyError, match="width=<elements>"):
        make_policy("ipndp:paca+pf").prepare(TimingSession("ipndp-ip8"),
                                             SimpleNamespace(workload="conv3x3", allocations=allocs),
                                             run.device.traces)


def _time(workload: str, machine: str, policy: str | None) -> dict:
    run = run_workload(workload, "tiny", trace=True)
    allocs = [{"addr": a.address, "bytes": a.size} for a in run.device.memory.allocations]
    s = TimingSession(machine)
    pol = None
    if policy:
        pol = make_policy(policy)
        pol.prepare(s, SimpleNamespace(workload=workload, allocations=allocs, scale="tiny"), run.device.traces)
    for tr in run.device.traces:
        s.run_launch(tr)
    return {"stats": s.totals(), "rows": pol.rows() if pol else []}


def test_attached_without_a_prefetcher_changes_nothing() -> None:
    """``ipndp:rr`` attaches the hardware with no prefetcher: the timing equals the plain machine's."""
    a = _time("ipndp_conv2d", "ipndp-base8", None)["stats"]
    b = _time("ipndp_conv2d", "ipndp-base8", "ipndp:rr")["stats"]
    for m in ("kernel.cycles", "l1d.misses", "dram.reads", "icnt.request.packets"):
        assert a[m] == b[m], m


def test_paca_prefetcher_on_a_pattern_aware_kernel() -> None:
    """IP-8 on Conv2D: the table comes from the workload's image shapes; the prefetcher predicts, PACA balances."""
    got = _time("ipndp_conv2d_pa", "ipndp-ip8", "ipndp:paca+pf")
    st, rows = got["stats"], {f"{p}.{k}": v for p, k, v, _u in got["rows"]}
    assert st["ipndp.prefetcher.predicted"] > 0 and st["ipndp.prefetcher.wraps"] > 0
    assert rows["ipndp.balance.sms_used"] == 8
    assert rows["ipndp.balance.sm_busy_spread"] < 0.05


def test_paca_with_perfect_memory_keeps_every_sm_equally_busy() -> None:
    """PACA gives DownSample's 8 SMs equal work (one band each); with memory that serves every request in the same
    fixed time, nothing else can tell them apart, so their busy cycles are equal: the imbalance measured with
    real DRAM (docs/ipndp.md, "PACA's spread of DownSample") comes from the memory system, not the allocation."""
    got = _time("ipndp_downsample_pa", "ipndp-ip8-pm", "ipndp:paca+pf+pl")
    rows = {f"{p}.{k}": v for p, k, v, _u in got["rows"]}
    assert rows["ipndp.balance.sms_used"] == 8
    assert rows["ipndp.balance.sm_busy_spread"] == 0.0
