"""Block offload to SMs inside the memory stacks (``mechanisms.tom.unit``, TOM's hardware in the engine).

A synthetic kernel: every warp runs an ALU instruction, then the block ``ld A; ld B; add; st C``, then exits.
Arrays are pinned to vaults so that the expected packets, flits and instruction counts follow from the plan
by hand (16-B flits: request 1 + 8 per live-in register, acknowledgement 1 + 8 per live-out + 4-B addresses).
"""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import TraceBuilder, alu_chain

from ndpgpu.mechanisms.tom.unit import OFFLOAD_INSTANCE_FIELDS, BlockOffload, BlockOffloadHardware, OffloadPlan
from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.policies import Pinned

A, B, C = 1 << 32, (1 << 32) + (1 << 26), (1 << 32) + (2 << 26)
REQ_FLITS = 1 + 8 * 3  # live-ins: A, B and C's addresses
ACK_FLITS = 1 + 1  # no live-out; one written line address (4 B) in one flit


def kernel(num_ctas: int = 4, threads: int = 128):
    b = TraceBuilder("triad", num_ctas, threads)
    pre = b.op("mov.u32", "int", dst=(1,), src=(0,))
    la = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    lb = b.op("ld.global.f32", "load", dst=(11,), src=(2,), space="global", width=4)
    add = b.op("add.f32", "fp32", dst=(12,), src=(10, 11))
    st = b.op("st.global.f32", "store", src=(3, 12), space="global", width=4)
    ex = b.op("exit", "branch")
    nw = num_ctas * threads // 32
    for w in range(nw):
        b.run(w, pre)
        b.run(w, la, base=A + w * 128)
        b.run(w, lb, base=B + w * 128)
        b.run(w, add)
        b.run(w, st, base=C + w * 128)
        b.run(w, ex)
    return b.build()


class Plan(BlockOffload):
    """One instance per warp: the block is PCs 1..4, decided at PC 1 (its first load)."""

    def __init__(self, mode: str = "always", allowed: int = 1, adds: tuple[int, int] = (1, 0), **kw) -> None:
        self.mode, self.allowed, self.adds, self.kw = mode, allowed, adds, kw

    def plan(self, trace, machine):
        rows = []
        for w in range(trace.num_warps):
            s = int(trace.warp_seg_start[w])
            r = int(trace.warp_mem_start[w])
            row = dict(warp=w, seg0=s, off0=1, dseg=s, doff=1, seg1=s, off1=5, rec0=r, rec1=r + 3,
                       line=A + w * 128, allowed=self.allowed, adds_tx=self.adds[0], adds_rx=self.adds[1],
                       req_flits=REQ_FLITS, ack_flits=ACK_FLITS, wl0=w, wl1=w + 1)
            rows.append([row[f] for f in OFFLOAD_INSTANCE_FIELDS])
        lines = np.array([C + w * 128 for w in range(trace.num_warps)], np.int64)
        return OffloadPlan(np.array(rows, np.int64), lines, mode=self.mode, **self.kw)


def session(c_channel: int = 18, **over) -> TimingSession:
    sess = TimingSession(load_machine("tom-ndp", over or None))
    sess.map_range(A, A + (1 << 26), Pinned(16))  # stack 1 (16 vaults per stack)
    sess.map_range(B, B + (1 << 26), Pinned(17))
    sess.map_range(C, C + (1 << 26), Pinned(c_channel))
    return sess


def rows(st) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for p, k, v, _u in st.rows():
        out.setdefault(p, {})[k] = v
    return out


def test_every_block_runs_in_its_stack():
    tr = kernel()
    n = tr.num_warps
    sess = session()
    sess.attach(BlockOffloadHardware(Plan("always")))
    r = rows(sess.run_launch(tr))
    ob = r["offload.blocks"]
    assert ob["instances"] == ob["offloaded"] == ob["completed"] == n
    assert ob["warp_instructions"] == 4 * n  # ld, ld, add, st on the stack SMs
    assert r["kernel"]["warp_instructions"] == 6 * n  # nothing run twice: the decision point is the block's start
    assert r["offload.stack_sm1"]["warp_instructions"] == 4 * n
    assert r["offload.stack_sm0"]["warp_instructions"] == 0
    # the GPU link of stack 1 carries only the offload packets; the data never leaves the stack
    assert r["link.stack1.tx"]["flits"] == REQ_FLITS * n and r["link.stack1.tx"]["packets"] == n
    assert r["link.stack1.rx"]["flits"] == ACK_FLITS * n and r["link.stack1.rx"]["packets"] == n
    for s in (0, 2, 3):
        assert r[f"link.stack{s}.tx"]["bytes"] == r[f"link.stack{s}.rx"]["bytes"] == 0
    assert r["cross_link"]["bytes"] == 0
    assert r["dram"]["reads"] == 2 * n
    assert r["l2"]["accesses"] == 0  # stack SMs bypass the GPU's L2
    sess.attach(None)
    sess.run_launch(alu_chain(3000))  # writes still queued at a kernel's end count in the next launch
    assert rows(sess.totals())["dram"]["writes"] == n
    assert r["offload.blocks"]["round_trip"] > 0


def test_remote_store_crosses_one_cross_stack_link():
    tr = kernel()
    n = tr.num_warps
    sess = session(c_channel=2 * 16 + 3)  # C in stack 2
    sess.attach(BlockOffloadHardware(Plan("always")))
    sess.run_launch(tr)
    sess.attach(None)
    sess.run_launch(alu_chain(3000))  # writes still queued at a kernel's end (and their acks) count in the next launch
    r = rows(sess.totals())
    write_flits = 1 + 128 // 16
    assert r["cross_link.stack1to2"]["flits"] == write_flits * n
    assert r["cross_link.stack2to1"]["flits"] == n  # write acknowledgements
    others = [p for p in r if p.startswith("cross_link.stack") and p not in ("cross_link.stack1to2",
                                                                                 "cross_link.stack2to1")]
    assert others and all(r[p]["bytes"] == 0 for p in others)
    assert r["energy.cross_link_bit"]["count"] == 8 * 16 * (write_flits + 1) * n


def test_same_work_without_offload_and_with_condition_false():
    tr = kernel()
    base = rows(session().run_launch(tr))
    sess = session()
    sess.attach(BlockOffloadHardware(Plan("always", allowed=0)))
    r = rows(sess.run_launch(tr))
    assert r["offload.blocks"]["declined_condition"] == tr.num_warps
    assert r["offload.blocks"]["offloaded"] == 0
    assert r["kernel"]["cycles"] == base["kernel"]["cycles"]  # declining costs nothing here
    assert r["kernel"]["thread_instructions"] == base["kernel"]["thread_instructions"]
    assert r["link.stack1.rx"]["bytes"] == base["link.stack1.rx"]["bytes"] > 0


def test_busy_channel_and_pending_limit_decline_under_control():
    tr = kernel(num_ctas=8)
    n = tr.num_warps
    sess = session()
    sess.attach(BlockOffloadHardware(Plan("ctrl", busy_threshold=0.0)))  # every channel counts as busy
    r = rows(sess.run_launch(tr))["offload.blocks"]
    assert r["declined_busy"] == n and r["offloaded"] == 0
    sess = session()
    sess.attach(BlockOffloadHardware(Plan("ctrl", adds=(0, 0), busy_threshold=0.0)))  # a block that adds no traffic
    assert rows(sess.run_launch(tr))["offload.blocks"]["offloaded"] == n
    sess = session()
    sess.attach(BlockOffloadHardware(Plan("ctrl", pending_limit=2)))
    r = rows(sess.run_launch(tr))["offload.blocks"]
    assert r["declined_pending"] > 0 and r["offloaded"] >= 2
    assert r["offloaded"] + r["declined_pending"] == n == r["instances"]


def test_stack_sm_queues_blocks_beyond_its_warp_capacity():
    tr = kernel(num_ctas=8)
    wide = session()
    wide.attach(BlockOffloadHardware(Plan("always")))
    narrow = session(**{"stacks.sm_max_warps": 2})
    narrow.attach(BlockOffloadHardware(Plan("always")))
    a, b = rows(wide.run_launch(tr)), rows(narrow.run_launch(tr))
    assert a["offload.blocks"]["completed"] == b["offload.blocks"]["completed"] == tr.num_warps
    assert b["offload.blocks"]["stack_time"] > a["offload.blocks"]["stack_time"]
    assert b["kernel"]["cycles"] > a["kernel"]["cycles"]


def test_acknowledged_lines_are_invalidated_in_the_l2():
    tr = kernel()
    n = tr.num_warps
    reader = TraceBuilder("read_c", 4, 128)
    ld = reader.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    ex = reader.op("exit", "branch")
    for w in range(n):
        reader.run(w, ld, base=C + w * 128)
        reader.run(w, ex)
    sess = session()
    sess.run_launch(reader.build())  # the GPU's L2 now holds C
    sess.attach(BlockOffloadHardware(Plan("always")))
    r = rows(sess.run_launch(tr))
    assert r["offload.blocks"]["invalidated_l2_lines"] == n


def test_coherence_steps_cost_time_and_can_be_left_out():
    """TOM section 4.4.2: (1) the warp's earlier stores reach memory before its request leaves, (2) the stack SM
    invalidates its private cache before each block, (3) the GPU invalidates the lines the block wrote. Every warp
    stores to D (in a far stack) and then offloads a block reading one line that all blocks share."""
    D = (1 << 32) + (3 << 26)
    b = TraceBuilder("shared_read", 4, 128)
    st_d = b.op("st.global.f32", "store", src=(4, 0), space="global", width=4)
    la = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    lb = b.op("ld.global.f32", "load", dst=(11,), src=(2,), space="global", width=4)
    add = b.op("add.f32", "fp32", dst=(12,), src=(10, 11))
    st = b.op("st.global.f32", "store", src=(3, 12), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(16):
        b.run(w, st_d, base=D + w * 128)
        b.run(w, la, base=A)
        b.run(w, lb, base=B)
        b.run(w, add)
        b.run(w, st, base=C + w * 128)
        b.run(w, ex)
    tr = b.build()
    reader = TraceBuilder("read_c", 4, 128)
    ld = reader.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    rex = reader.op("exit", "branch")
    for w in range(16):
        reader.run(w, ld, base=C + w * 128)
        reader.run(w, rex)

    def run(coherence: bool) -> dict[str, dict[str, float]]:
        sess = session()
        sess.map_range(D, D + (1 << 26), Pinned(3 * 16))
        sess.run_launch(reader.build())  # the GPU's L2 now holds C

        class SharedPlan(Plan):
            def plan(self, trace, machine):
                p = super().plan(trace, machine)
                inst = p.instances.copy()  # the block is PCs 1..4 as before; the store to D is PC 0 and record 0
                inst[:, OFFLOAD_INSTANCE_FIELDS.index("line")] = A
                inst[:, OFFLOAD_INSTANCE_FIELDS.index("rec0")] += 1
                inst[:, OFFLOAD_INSTANCE_FIELDS.index("rec1")] += 1
                return OffloadPlan(inst, p.written_lines, mode="always", coherence=coherence)

        sess.attach(BlockOffloadHardware(SharedPlan()))
        return rows(sess.run_launch(tr))

    kept, free = run(True), run(False)
    assert kept["offload.blocks"]["offloaded"] == free["offload.blocks"]["offloaded"] == 16
    assert kept["offload.blocks"]["invalidated_l2_lines"] == 16 and free["offload.blocks"]["invalidated_l2_lines"] == 0
    assert kept["dram"]["reads"] > free["dram"]["reads"]  # invalidated stack L1: the shared lines are read again
    assert kept["kernel"]["cycles"] > free["kernel"]["cycles"]  # and the requests waited for the stores to D


def test_ideal_offload_is_free_and_local():
    tr = kernel()
    sess = session(c_channel=2 * 16 + 3)
    sess.attach(BlockOffloadHardware(Plan("ideal")))
    r = rows(sess.run_launch(tr))
    assert r["offload.blocks"]["offloaded"] == tr.num_warps
    assert r["link"]["tx_bytes"] == r["link"]["rx_bytes"] == 0
    assert r["cross_link"]["bytes"] == 0
    real = session(c_channel=2 * 16 + 3)
    real.attach(BlockOffloadHardware(Plan("always")))
    assert rows(real.run_launch(tr))["kernel"]["cycles"] > r["kernel"]["cycles"]


def test_deterministic_and_refuses_machines_without_stack_sms():
    tr = kernel()
    outs = []
    for _ in range(2):
        sess = session()
        sess.attach(BlockOffloadHardware(Plan("ctrl", pending_limit=3)))
        outs.append(sess.run_launch(tr).rows())
    assert outs[0] == outs[1]
    sess = TimingSession("tom-baseline")
    sess.attach(BlockOffloadHardware(Plan("always")))
    with pytest.raises(ValueError, match="sms_per_stack"):
        sess.run_launch(tr)
