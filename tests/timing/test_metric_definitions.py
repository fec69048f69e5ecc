"""Metrics with one meaning: ``kernel.time`` and every rate over the launches alone; host<->device copies under
``copies`` with ``application.time`` beside ``kernel.time``; ``characterize --copies`` agrees with ``run``.

Expected values are computed here from the machine's parameters and the launches' raw counters, not from the
metrics under test.
"""

from __future__ import annotations

import pytest

from ndpgpu.timing import load_machine
from ndpgpu.workloads.runner import run_workload


@pytest.fixture(scope="module")
def saxpy_tiny():
    """saxpy at ``tiny`` on gtx480: two h2d copies, one launch, one d2h copy."""
    return run_workload("saxpy", "tiny", machine="gtx480")


def test_saxpy_bandwidth_is_over_kernel_time_and_copies_are_reported_apart(saxpy_tiny) -> None:
    run = saxpy_tiny
    machine = load_machine("gtx480")
    launches = run.device.timing.launches
    tot = run.device.totals()

    kernel_ps = sum(s.time_ps for s in launches)
    # the crossbar's bytes: the flits of every packet kind (columns 1 and 3: request and reply networks)
    xbar_bytes = sum(int(s.packet_kinds[:, 1].sum() + s.packet_kinds[:, 3].sum()) for s in launches) \
        * machine.icnt.flit_bytes
    pcie = machine.pcie
    copy_ps = sum(round(pcie.latency_us * 1e6 + c["bytes"] * 1000.0 / pcie.bandwidth_gbs) for c in run.device.copies)
    copy_bytes = sum(c["bytes"] for c in run.device.copies)

    assert [c["direction"] for c in run.device.copies] == ["h2d", "h2d", "d2h"]
    assert tot["kernel.time"] == pytest.approx(kernel_ps / 1000.0)
    assert tot["l2.bandwidth"] == pytest.approx(xbar_bytes / (kernel_ps * 1e-12) / 1e9)
    assert 150 < tot["l2.bandwidth"] < 250  # ~195 GB/s over the kernel; 6 GB/s if the copies' 30 us counted
    assert tot["copies.time"] == pytest.approx(copy_ps / 1000.0)
    assert tot["copies.count"] == 3
    assert tot["copies.bytes"] == copy_bytes
    assert tot["copies.h2d_bytes"] == 2 * copy_bytes // 3
    assert tot["application.time"] == pytest.approx((kernel_ps + copy_ps) / 1000.0)
    assert tot["application.kernel_fraction"] == pytest.approx(kernel_ps / (kernel_ps + copy_ps))
    assert tot["copies.time"] > 10 * tot["kernel.time"]  # why the old definition misled
    # DRAM bandwidth and utilisation are over the kernel too
    dram_bytes = sum(s.c("DR_RD_BYTES") + s.c("DR_WR_BYTES") for s in launches)
    assert tot["dram.bandwidth"] == pytest.approx(dram_bytes / (kernel_ps * 1e-12) / 1e9)


def test_a_launch_has_no_copy_rows(saxpy_tiny) -> None:
    st = saxpy_tiny.device.timing.launches[0]
    paths = {p for p, _m, _v, _u in st.rows()}
    assert "copies" not in paths and "application" not in paths
    assert "pcie" not in {p for p, _m, _v, _u in saxpy_tiny.device.totals().rows()}


def test_characterize_with_copies_agrees_with_run() -> None:
    from ndpgpu.workloads.characterize import characterize_workload

    run = run_workload("vecadd", "small", machine="gtx480")
    tot = run.device.totals()
    warm = characterize_workload("vecadd", "small", "gtx480")["timing"]  # copies replayed: the default
    cold = characterize_workload("vecadd", "small", "gtx480", copies=False)["timing"]
    assert warm["copies"] and not cold["copies"]
    assert warm["cycles"] == tot.cycles
    assert warm["l2_hit_rate"] == pytest.approx(tot["l2.hit_rate"])
    assert tot["l2.hit_rate"] > 0.5  # the copied inputs are in L2 (pcie.place_in_l2)
    assert cold["l2_hit_rate"] == 0.0  # cold: every load misses


def test_the_metrics_table_is_current_and_covers_every_row(saxpy_tiny) -> None:
    from pathlib import Path

    from ndpgpu.timing import metric_table

    doc = Path(__file__).parents[2] / "docs" / "metrics.md"
    assert metric_table.render(doc.read_text()) == doc.read_text(), \
        "docs/metrics.md is out of date: python -m ndpgpu.timing.metric_table --write docs/metrics.md"
    decls = metric_table.declarations()
    rows = [r for st in (saxpy_tiny.device.totals(), saxpy_tiny.device.timing.launches[0]) for r in st.rows()
            if r[0] != "launch"]
    assert len(rows) > 100
    for path, metric, _value, unit in rows:
        name = f"{path}.{metric}"
        found = [d for d in decls if d.pattern().match(name) and ("{" in d.unit or d.unit == unit)]
        assert found, f"{name} ({unit}) is produced but not in docs/metrics.md"
    literal = {(d.path, d.metric) for d in decls}
    for key in (("kernel", "time"), ("copies", "time"), ("application", "time"), ("l2", "bandwidth")):
        assert key in literal
