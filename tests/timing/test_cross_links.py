"""Cross-stack links of a logic-die machine (issue 4): SMs on stack 0's logic die reach the other stacks'
vaults over point-to-point links (fully connected, TOM), their own stack's vaults over none.

Expected values come from the spec through ``ndpgpu.timing.bounds`` (docs/timing.md, "Cross-stack links"),
never from the engine. The machine is tom-baseline's stacks with the SMs moved onto stack 0's logic die.
"""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder, streaming_read

from ndpgpu.timing import MachineConfigError, TimingSession, load_machine
from ndpgpu.timing.bounds import cross_link_bound, cross_link_packet_bytes
from ndpgpu.timing.policies import Pinned

BASE = 1 << 32
HOME = 0
XLINK = {"links": None, "logic_die": {"stack": HOME, "cross_stack": {"gbs": 20.0, "latency_ns": 8.0}},
         "energy.events.cross_link_bit": 2.0, "energy.events.cross_link_idle_bit": 1.5}


def machine(**extra):
    return load_machine("tom-baseline", {**XLINK, **extra})


def line_stream(lines: list[int], num_ctas: int, threads: int, store: bool = False):
    """Each warp loads (or stores) whole 128-B lines ``lines[k * nw + w]`` (a grid-stride loop)."""
    b = TraceBuilder("lines", num_ctas, threads)
    if store:
        ops = [b.op("st.global.f32", "store", src=(2, 10 + r), space="global", width=4) for r in range(8)]
    else:
        ops = [b.op("ld.global.f32", "load", dst=(10 + r,), src=(1,), space="global", width=4) for r in range(8)]
    ex = b.op("exit", "branch")
    nw = num_ctas * threads // 32
    per = len(lines) // nw
    for w in range(nw):
        for k in range(per):
            b.run(w, ops[k % 8], base=BASE + lines[k * nw + w] * 128, stride=4)
        b.run(w, ex)
    return b.build()


def stack_lines(m, stack: int, n: int) -> list[int]:
    """``n`` consecutive line indices of one stack (channel = line % channels, stack = channel // vaults)."""
    vps, nch = m.stacks.vaults_per_stack, m.dram.channels
    return [(i // vps) * nch + stack * vps + i % vps for i in range(n)]


def link_rows(st) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for p, k, v, _u in st.rows():
        if p.startswith("cross_link.stack"):
            out.setdefault(p[len("cross_link."):], {})[k] = v
    return out


def pinned_run(m, channel: int, store: bool = False):
    sess = TimingSession(m)
    sess.map_range(BASE, BASE + (1 << 30), Pinned(channel))
    return sess.run_launch(streaming_read(4, 128, 4, store=store))  # 4 x 4 warps x 4 lines = 64 lines


def test_cross_link_spec():
    m = machine()
    assert cross_link_packet_bytes(m) == {"read_request": 16, "read_response": 144, "write": 144, "write_ack": 16}
    with pytest.raises(MachineConfigError, match="need 'stacks'"):
        load_machine("ipndp-base8", {"stacks": None, "logic_die.cross_stack": {"gbs": 20.0}})
    # the GPU-side cross-stack links of tom-baseline stay metadata: no rows, no events
    st = TimingSession("tom-baseline").run_launch(streaming_read(4, 128, 2))
    assert not [p for p in st.metrics() if p.startswith(("cross_link", "energy.cross_link"))]


def test_own_stack_uses_no_cross_link():
    m = machine()
    vps = m.stacks.vaults_per_stack
    st = pinned_run(m, HOME * vps + 3)
    assert st["dram.reads"] == 64
    assert st["stacks.stack0.bytes"] == 64 * 128
    rows = link_rows(st)
    assert len(rows) == 2 * (m.stacks.count - 1)  # fully connected: home -> t and t -> home for each t
    assert all(r["packets"] == r["flits"] == r["bytes"] == r["busy_time"] == 0 for r in rows.values())
    assert st["cross_link.bytes"] == 0 and st["energy.cross_link_bit.count"] == 0


def test_other_stack_crosses_exactly_that_link():
    m = machine()
    vps = m.stacks.vaults_per_stack
    p = cross_link_packet_bytes(m)
    fb = m.logic_die.cross_stack.flit_bytes
    reads = 64
    st = pinned_run(m, 1 * vps + 5)
    assert st["dram.reads"] == reads and st["stacks.stack1.bytes"] == reads * 128
    rows = link_rows(st)
    out, back = rows.pop("stack0to1"), rows.pop("stack1to0")
    assert out["packets"] == reads and out["flits"] == reads * p["read_request"] // fb
    assert back["packets"] == reads and back["flits"] == reads * p["read_response"] // fb
    assert out["bytes"] == reads * 16 and back["bytes"] == reads * 144
    assert back["busy_time"] == pytest.approx(reads * 144 / 20.0)  # ns at 20 GB/s
    assert all(r["packets"] == r["bytes"] == 0 for r in rows.values())
    # energy priced like the GPU links: bits sent and idle bit-slots, count x price
    assert st["energy.cross_link_bit.count"] == 8 * reads * (16 + 144)
    assert st["energy.cross_link_bit.energy"] == pytest.approx(2.0 * 8 * reads * 160)
    idle = sum((st.time_ps - st[f"cross_link.{k}.busy_time"] * 1000) * 1e-12 * 20e9 * 8
               for k in ("stack0to1", "stack1to0", "stack0to2", "stack2to0", "stack0to3", "stack3to0"))
    assert st["energy.cross_link_idle_bit.count"] == pytest.approx(idle, abs=1)
    assert st["energy.cross_link_idle_bit.energy"] == pytest.approx(1.5 * st["energy.cross_link_idle_bit.count"])


def test_remote_writes_cross_with_data_and_come_back_acknowledged():
    m = machine()
    nl = 68 * 4 * 2
    sess = TimingSession(m)
    st = sess.run_launch(line_stream(stack_lines(m, 3, nl), 68, 128, store=True))
    rows = link_rows(st)
    # write-through L2: every store crosses 0 -> 3 as a 1 + 8 flit write; each completed write is acknowledged
    assert rows["stack0to3"]["packets"] == nl and rows["stack0to3"]["flits"] == nl * 9
    assert rows["stack3to0"]["packets"] == st["dram.writes"] <= nl
    assert sum(r["packets"] for k, r in rows.items() if "3" not in k) == 0


def test_streaming_read_from_other_stack_reaches_cross_link_bound():
    m = machine(**{"sim.time_series_interval": 2000})
    b = cross_link_bound(m, reads=1)
    assert b["binding"] == 1.0 and b["lowest"] == pytest.approx(20 * 128 / 144)
    nl = 68 * 4 * 32
    sess = TimingSession(m)
    st = sess.run_launch(line_stream(stack_lines(m, 2, nl), 68, 128))
    assert st["stacks.stack2.bytes"] == nl * 128 and st["stacks.stack0.bytes"] == 0
    bw = st["dram.bandwidth"]
    assert 0.85 * b["lowest"] <= bw <= b["lowest"] * 1.0001, (bw, b)
    assert 0.85 <= st["cross_link.stack2to0.utilisation"] <= 1.0
    u = sess.link_utilisation()
    assert set(u) == {"cycle", *(f"stack{a}to{c}" for t in (1, 2, 3) for a, c in ((0, t), (t, 0)))}
    assert u["stack2to0"].max() <= 1.0 + 1e-9 and u["stack2to0"].max() > 0.95
    assert u["stack1to0"].max() == 0
