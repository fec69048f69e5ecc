"""TOM's instances, offload plans and session policy (mechanisms/tom: instances, offload, policy).

Synthetic traces give hand-computed instance positions, trip counts and packet sizes; a real workload at
tiny scale checks the plan against its candidate table and the policy's co-location ordering.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from ndpgpu.mechanisms.policy import PolicyError, make_policy
from ndpgpu.mechanisms.tom.candidates import Candidate, CandidateTable
from ndpgpu.mechanisms.tom.config import TomConfig
from ndpgpu.mechanisms.tom.instances import (
    I_DOFF,
    I_DSEG,
    I_INSTR,
    I_OFF0,
    I_REC0,
    I_REC1,
    I_SEG0,
    I_SEG1,
    I_TRIPS,
    I_WARP,
    find_instances,
)
from ndpgpu.mechanisms.tom.plan import TomOffload
from ndpgpu.mechanisms.tom.policy import TomPolicySpec, allocation_table
from ndpgpu.mechanisms.tom.unit import OFFLOAD_INSTANCE_FIELDS
from ndpgpu.timing import load_machine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "timing"))
from tracegen import TraceBuilder  # noqa: E402

A, C = 1 << 32, (1 << 32) + (1 << 26)
COL = {f: i for i, f in enumerate(OFFLOAD_INSTANCE_FIELDS)}


def loop_kernel(trips: list[int]):
    """Warp w: mov; then ``trips[w]`` iterations of the block [1, 5) (ld A, add, st C, bra); exit.

    The block is a loop whose header is PC 1; PC 0 runs before, PC 5 after."""
    b = TraceBuilder("loop", 1, 32 * len(trips))
    pre = b.op("mov.u32", "int", dst=(1,), src=(0,))
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    add = b.op("add.f32", "fp32", dst=(11,), src=(10, 11))
    st = b.op("st.global.f32", "store", src=(3, 11), space="global", width=4)
    br = b.op("bra", "branch", src=(2,))
    ex = b.op("exit", "branch")
    for w, n in enumerate(trips):
        b.run(w, pre)
        for k in range(n):
            b.run(w, ld, base=A + (w * 64 + k) * 128)
            b.run(w, add)
            b.run(w, st, base=C + w * 128)
            b.run(w, br)
        b.run(w, ex)
    return b.build()


def candidate(tmin: int | None = 3, trip: str = "entry") -> Candidate:
    return Candidate(index=0, kernel="loop", begin=1, end=5, begin_pc=1, end_pc=5, live_in=("%r1", "%r3", "%f11"),
                     live_out=("%f11",), reg_tx=3, reg_rx=1, n_ld_fixed=0, n_st_fixed=0, n_ld_iter=1, n_st_iter=1,
                     trip=trip, trip_count=None, header_pc=1, tmin=tmin)


def test_instances_positions_trips_and_lines():
    tr = loop_kernel([2, 5, 0])
    inst = find_instances(tr, [candidate()])
    t = inst.table
    assert len(inst) == 2  # warp 2 never enters the block
    assert list(t[:, I_WARP]) == [0, 1] and list(t[:, I_TRIPS]) == [2, 5] and list(t[:, I_INSTR]) == [8, 20]
    # each warp's stream is one segment (consecutive PCs, one mask): the block starts at offset 1
    for i, w in enumerate((0, 1)):
        s = int(tr.warp_seg_start[w])
        assert (t[i, I_SEG0], t[i, I_OFF0], t[i, I_DSEG], t[i, I_DOFF]) == (s, 1, s, 1)
        assert t[i, I_SEG1] >= s and t[i, I_REC0] == tr.warp_mem_start[w] and t[i, I_REC1] == tr.warp_mem_start[w + 1]
    # lines in access order (ld, st per iteration) and the distinct written lines
    l0 = inst.lines[inst.lines_start[0]:inst.lines_start[1]]
    assert list(l0) == [A, C, A + 128, C]
    assert list(inst.written[inst.written_start[1]:inst.written_start[2]]) == [C + 128]
    assert inst.first_line[1] == A + 64 * 128


def test_instances_reject_overlap_and_out_of_range():
    tr = loop_kernel([1])
    with pytest.raises(ValueError, match="overlap"):
        find_instances(tr, [candidate(), candidate()])
    bad = candidate()
    object.__setattr__(bad, "end_pc", 99)
    with pytest.raises(ValueError, match="past the trace"):
        find_instances(tr, [bad])


def test_plan_condition_tag_and_packets():
    tr = loop_kernel([2, 3, 8])
    c = candidate(tmin=3)
    off = TomOffload({"loop": CandidateTable("loop", [c], [])}, TomConfig(control="ctrl"))
    plan = off.plan(tr, load_machine("tom-ndp"))
    rows = plan.instances
    assert list(rows[:, COL["allowed"]]) == [0, 1, 1]  # trips >= tmin
    # the tag at each instance's own trip count (Eqs. 3-4: BW_TX = 32*3 - 0.5 T - 33 T, BW_RX = 32 - 16.25 T)
    for i, trips in enumerate((2, 3, 8)):
        bw_tx, bw_rx = 96 - 33.5 * trips, 32 - 16.25 * trips
        assert rows[i, COL["adds_tx"]] == int(bw_tx >= 0) and rows[i, COL["adds_rx"]] == int(bw_rx >= 0)
    assert (rows[:, COL["req_flits"]] == 1 + 3 * 8).all()  # 3 registers x 32 lanes x 4 B in 16-B flits
    assert (rows[:, COL["ack_flits"]] == 1 + 8 + 1).all()  # 1 register + one 4-B line address
    assert plan.mode == "ctrl" and plan.pending_limit == 48  # G5: one stack SM's 48 warps
    off.learning[0] = np.array([2])
    assert off.plan(tr, load_machine("tom-ndp")).instances[2, COL["allowed"]] == 0
    # without section 4.4.2's coherence the acknowledgement carries the live-out only, no written lines
    free = TomOffload({"loop": CandidateTable("loop", [c], [])}, TomConfig(control="ctrl", coherence=False))
    plan = free.plan(tr, load_machine("tom-ndp"))
    assert (plan.instances[:, COL["ack_flits"]] == 1 + 8).all() and plan.coherence is False


def test_ideal_has_no_control_or_pending_limit():
    """TOM section 2: the ideal NDP system has "no overhead for offloading code blocks" and co-locates all offloaded
    code and data; ideal-limited keeps the pending limit (48 blocks per stack, G5)."""
    tr = loop_kernel([2, 3, 8])
    tables = {"loop": CandidateTable("loop", [candidate(tmin=3)], [])}
    m = load_machine("tom-ndp")
    ideal = TomOffload(tables, TomConfig(control="ideal")).plan(tr, m)
    assert ideal.mode == "ideal" and ideal.pending_limit == 0
    limited = TomOffload(tables, TomConfig(control="ideal-limited")).plan(tr, m)
    assert limited.mode == "ideal" and limited.pending_limit == 48
    assert (ideal.instances == limited.instances).all()
    assert TomPolicySpec.parse("ideal-limited+oracle").control == "ideal-limited"


def test_coherence_setting():
    assert TomPolicySpec.parse("ctrl+tmap").coherence == 1
    assert TomPolicySpec.parse("ctrl+tmap,coherence=0").coherence == 0
    with pytest.raises(PolicyError, match=r"coherence=.2. is not valid \(0 or 1\)"):
        TomPolicySpec.parse("ctrl+tmap,coherence=2")


def test_policy_names():
    assert TomPolicySpec.parse("ctrl+tmap,threshold=0.6,pending=2") == TomPolicySpec(
        control="ctrl", mapping="tmap", threshold=0.6, pending=2.0)
    for bad in ("ctrl", "fast+tmap", "ctrl+nomap", "ctrl+tmap,speed=2", "ctrl+tmap,threshold=x"):
        with pytest.raises(PolicyError):
            make_policy("tom:" + bad)
    with pytest.raises(PolicyError, match="prefix"):
        make_policy("nope:ctrl+tmap")


def test_allocation_table_merges_local_windows():
    class Rec:
        allocations = [{"addr": 0x1000, "bytes": 256}, {"addr": 0x2000, "bytes": 0}]

    tr = loop_kernel([1])
    tr.launch.local_bytes_per_thread = 8
    tr.launch.local_base = 1 << 40
    table = allocation_table(Rec(), [tr, tr])
    assert table.tolist() == [[0x1000, 256], [1 << 40, 256]]


def test_policy_on_a_workload_orders_colocation(tmp_path):
    from ndpgpu.timing import TimingSession
    from ndpgpu.trace.format import KernelTrace
    from ndpgpu.workloads.runner import record_workload

    rec = record_workload("reduction", "tiny", tmp_path)
    traces = [KernelTrace.load(p) for p in rec.trace_paths]
    sess = TimingSession("tom-ndp")
    pol = make_policy("tom:ctrl+tmap")
    pol.prepare(sess, rec, traces)
    for tr in traces:
        sess.run_launch(tr)
    rows = {(p, m): v for p, m, v, _u in pol.rows()}
    assert rows[("tom", "instances")] > 0
    base, learned, oracle = (rows[("tom.colocation", k)] for k in ("baseline", "learned", "oracle"))
    assert 0 <= base <= oracle and learned <= oracle <= 1
    got = {(p, m): v for p, m, v, _u in sess.totals().rows()}
    assert got[("offload.blocks", "instances")] == rows[("tom", "instances")]
    assert got[("offload.blocks", "offloaded")] + sum(
        got[("offload.blocks", f"declined_{w}")] for w in ("memory", "condition", "busy", "pending")) == got[
        ("offload.blocks", "instances")]
