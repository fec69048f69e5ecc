"""Per-slice L2 rows: they add up to the L2's totals, and a slice's reply flits are what the reply network took
from it, over the kernel's interconnect cycles."""

from __future__ import annotations

import pytest

from ndpgpu.timing import load_machine
from ndpgpu.workloads.runner import run_workload


@pytest.mark.parametrize("machine", ["llc-mesh", "gtx480"])
def test_slice_rows_add_up_to_the_totals(machine):
    run = run_workload("saxpy", "tiny", machine=machine)
    st = run.device.timing.launches[0]
    rows = st.metrics()
    nsl = st.per_slice.shape[0]
    slices = [rows[f"l2.slice{j}"] for j in range(nsl)]
    assert sum(s["accesses"][0] for s in slices) == rows["l2"]["accesses"][0] > 0
    assert sum(s["misses"][0] for s in slices) == rows["l2"]["misses"][0]
    # with no mechanism only slices send on the reply network: their flits are all of its flits
    assert sum(s["reply_flits"][0] for s in slices) == rows["icnt.reply"]["flits"][0]
    icnt_cycles = st.time_ps * load_machine(machine).clocks.icnt_mhz / 1e6
    for s in slices:
        assert s["reply_port_utilisation"][0] == pytest.approx(s["reply_flits"][0] / icnt_cycles)
        assert 0.0 < s["reply_port_utilisation"][0] <= 1.0
