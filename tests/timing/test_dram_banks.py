"""Per-bank DRAM counts (``LaunchStats.per_bank``, rows ``dram.banks.*``): they add up to the channel totals, and a
kernel built to load from one bank only shows that bank as the busiest, with every other bank idle."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import pointer_chase, streaming_read

from ndpgpu.timing import TimingSession
from ndpgpu.timing.engine import BKS_ACT, BKS_REQ, BKS_ROWHIT

BASE = 1 << 32


def test_bank_counts_add_up_to_the_dram_totals():
    session = TimingSession("gtx480")
    st = session.run_launch(streaming_read(num_ctas=60, threads=256, loads_per_thread=4))
    dram = {k: v[0] for k, v in st.metrics()["dram"].items()}
    pb = st.per_bank
    assert pb.shape[0] == session.machine.dram.scheduling_channels * session.machine.dram.banks
    assert pb[:, BKS_REQ].sum() == dram["reads"] + dram["writes"] > 0
    assert pb[:, BKS_ACT].sum() == dram["activates"]
    assert pb[:, BKS_ROWHIT].sum() == dram["row_hits"]
    banks = {k: v[0] for k, v in st.metrics()["dram.banks"].items()}
    assert banks["busiest_requests"] == pb[:, BKS_REQ].max()
    assert banks["request_imbalance"] == pytest.approx(pb[:, BKS_REQ].max() / pb[:, BKS_REQ].mean())
    assert (pb[:, BKS_REQ] > 0).sum() > session.machine.dram.scheduling_channels  # a stream spreads over banks


def test_loads_from_one_bank_make_it_the_busiest_and_leave_the_others_idle():
    session = TimingSession("gtx480")
    target = session.state.map_address(BASE)
    addrs, rows = [], set()
    a = BASE
    while len(addrs) < 8:  # distinct rows of the first line's bank and channel
        m = session.state.map_address(a)
        if (m["channel"], m["bank"]) == (target["channel"], target["bank"]) and m["row"] not in rows:
            addrs.append(a)
            rows.add(m["row"])
        a += 128
    st = session.run_launch(pointer_chase(addrs))
    pb = st.per_bank
    hot = target["channel"] * session.machine.dram.banks + target["bank"]
    assert pb[hot, BKS_REQ] == 8 and pb[hot, BKS_ACT] == 8 and pb[hot, BKS_ROWHIT] == 0
    assert np.delete(pb, hot, axis=0).sum() == 0
    banks = {k: v[0] for k, v in st.metrics()["dram.banks"].items()}
    assert (banks["busiest_channel"], banks["busiest_bank"]) == (target["channel"], target["bank"])
    assert banks["request_imbalance"] == len(pb)  # all of the requests against a mean of 8 / banks
    assert banks["busiest_row_buffer_hit_rate"] == 0.0
