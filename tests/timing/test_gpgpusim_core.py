"""GPGPU-Sim's pipeline depth, L2 sector requests and L1D allocate-on-miss: fields off by default, turned on by the
``gpgpusim`` / ``gpgpusim3`` overlays. Every expectation is counted by hand (no clock is read)."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import TraceBuilder, alu_chain, pointer_chase

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.engine import l2 as l2_engine
from ndpgpu.timing.engine import layout as E

BASE = 1 << 32
NO_REFRESH = {"dram.refresh": False}
OFF = {"core.pipeline_depth": 0, "core.pipeline_depth_mem": 0, "l1d.allocate": "fill",
       "l2.sector_requests": False, "l2.data_port_bytes": 0, "l1d.miss_after_hit_latency": False}


def _fields(m) -> tuple:
    return (m.core.pipeline_depth, m.core.pipeline_depth_mem, m.l1d.allocate, m.l2.sector_requests,
            m.l2.data_port_bytes, m.l1d.miss_after_hit_latency)


def test_the_overlays_turn_them_on_with_each_versions_values():
    assert _fields(load_machine("gtx480")) == (0, 0, "fill", False, 0, False)
    assert _fields(load_machine("v100")) == (0, 0, "fill", False, 0, False)
    assert _fields(load_machine("gtx480+gpgpusim")) == (6, 4, "miss", True, 32, True)
    assert _fields(load_machine("gtx480-gpgpusim")) == (6, 4, "miss", True, 32, True)
    # 3.2.2: no sector requests, its 32-B data port held by hits; no L1 latency queue (its hits take 1 cycle)
    assert _fields(load_machine("gtx480-gpgpusim3")) == (6, 4, "miss", False, 32, False)
    # SM7_QV100 steps the operand collector twice a cycle and streams its L1 (allocate on fill)
    assert _fields(load_machine("v100-gpgpusim")) == (5, 3, "fill", True, 32, True)


def test_a_miss_waits_the_hit_latency_before_it_is_sent():
    """A chain of three loads to three lines, each an L1D miss (gtx480: latency 35): behind the latency pipeline
    each miss leaves for the L2 35 cycles later, so its reply, its data and the next load all come 35 cycles
    later: 3 x 35 in all (the warp retires when its last load's reply arrives)."""
    chain = pointer_chase([BASE, BASE + 4096, BASE + 8192])
    runs = [TimingSession(load_machine("gtx480", {**NO_REFRESH, "l1d.miss_after_hit_latency": on})).run_launch(
        chain) for on in (False, True)]
    assert runs[0].get("l1d", "misses") == runs[1].get("l1d", "misses") == 3
    assert runs[1].cycles - runs[0].cycles == 3 * 35
    # the delay is in the request's trip, not after its fill: the L2 sees each request 35 cycles later
    lat = [r.get("latency", "average") for r in runs]
    assert lat[1] - lat[0] == pytest.approx(35, abs=0.01)


def test_a_store_waits_the_hit_latency_before_it_is_sent():
    """A store passes the L1D's latency pipeline too (GPGPU-Sim 4.0 puts every L1D access in it): one warp's
    store is acknowledged, and the warp retires, 35 cycles later."""
    b = TraceBuilder("st1", 1, 32)
    st = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    ex = b.op("exit", "branch")
    b.run(0, st, base=BASE)
    b.run(0, ex)
    trace = b.build()
    runs = [TimingSession(load_machine("gtx480", {**NO_REFRESH, "l1d.miss_after_hit_latency": on})).run_launch(
        trace) for on in (False, True)]
    assert runs[1].cycles - runs[0].cycles == 35


def test_the_latency_pipeline_holds_its_accesses_beside_the_miss_queue():
    """The accesses in the pipeline do not take the miss queue's entries: 16 warps' misses to 16 lines, issued one a
    cycle, all leave (no LD/ST stall for a full queue) with a miss queue of 8."""
    b = TraceBuilder("ld16", 1, 32 * 16)
    ld = b.op("ld.global.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(16):
        b.run(w, ld, base=BASE + 4096 * w)
        b.run(w, ex)
    trace = b.build()
    on = TimingSession(load_machine("gtx480", {**NO_REFRESH, "l1d.miss_after_hit_latency": True})).run_launch(trace)
    off = TimingSession(load_machine("gtx480", {**NO_REFRESH})).run_launch(trace)
    assert on.get("l1d", "misses") == off.get("l1d", "misses") == 16
    assert on.cycles - off.cycles == 35


# ----------------------------------------------------------------------------------------------------
# pipeline depth


@pytest.mark.parametrize("depth", [0, 6])
def test_a_dependent_alu_chain_takes_latency_plus_depth_an_op(depth):
    """add.s32 has latency 4 on gtx480: each op of a chain issues when the last one's result is usable, so 12
    more ops take 12 x (4 + depth) more cycles."""
    m = load_machine("gtx480", {"core.pipeline_depth": depth})
    short = TimingSession(m).run_launch(alu_chain(4))
    long = TimingSession(m).run_launch(alu_chain(16))
    assert long.cycles - short.cycles == 12 * (4 + depth)


def _independent(n: int) -> object:
    """``n`` adds of one warp, each reading r1 and writing one of 16 registers in turn (a register is written
    again 16 instructions later, after its last result at any depth here: no dependence stalls)."""
    b = TraceBuilder("indep", 1, 32)
    ops = [b.op("add.s32", "int", dst=(10 + r,), src=(1,)) for r in range(16)]
    ex = b.op("exit", "branch")
    for k in range(n):
        b.run(0, ops[k % 16])
    b.run(0, ex)
    return b.build()


def test_an_independent_stream_issues_at_the_same_rate():
    """Independent adds issue one a cycle whatever the depth (the depth delays results, it holds no unit)."""
    diffs = []
    for depth in (0, 6):
        m = load_machine("gtx480", {"core.pipeline_depth": depth})
        short = TimingSession(m).run_launch(_independent(16))
        long = TimingSession(m).run_launch(_independent(64))
        diffs.append(long.cycles - short.cycles)
    assert diffs[0] == diffs[1] == 48


@pytest.mark.parametrize("depth", [0, 4])
def test_a_chain_of_l1_hits_takes_hit_latency_plus_memory_depth(depth):
    """A dependent chain of L1D hits (gtx480: 35 cycles each): the LD/ST unit reaches each load ``depth`` cycles
    after issue, so 12 more hits take 12 x (35 + depth) more cycles; the ALU depth does not apply."""
    m = load_machine("gtx480", {**NO_REFRESH, "core.pipeline_depth_mem": depth, "core.pipeline_depth": 6})
    short = TimingSession(m).run_launch(pointer_chase([BASE] * 5))
    long = TimingSession(m).run_launch(pointer_chase([BASE] * 17))
    assert long.get("latency.load_to_use.l1", "loads") == 16
    assert long.cycles - short.cycles == 12 * (35 + depth)


def test_a_chain_of_shared_loads_takes_the_memory_depth_too():
    """Shared loads of 26 cycles on gtx480, each the LD/ST unit reaches 4 cycles after issue."""
    runs = {}
    for n in (4, 16):
        b = TraceBuilder("schain", 1, 32, shared_bytes=128)
        ld = b.op("ld.shared.u32", "load", dst=(1,), src=(1,), space="shared", width=4)
        ex = b.op("exit", "branch")
        for _ in range(n):
            b.run(0, ld, base=0, stride=4)
        b.run(0, ex)
        runs[n] = TimingSession(load_machine("gtx480", {"core.pipeline_depth_mem": 4})).run_launch(b.build())
    assert runs[16].cycles - runs[4].cycles == 12 * (26 + 4)


# ----------------------------------------------------------------------------------------------------
# L2 port time per request


def test_port_cycles_per_request_counted_by_hand():
    cfg = np.zeros(E.NCFG, np.int64)
    line, one = 0b1111, 0b0001  # a 128-B line's four 32-B atoms; one sector
    cost = l2_engine.l2_port_cycles
    # off: a whole request a cycle
    assert (cost(E.PK_READ, line, True, 0, cfg), cost(E.PK_READ, line, False, 0, cfg)) == (1, 1)
    # 4.0: one cycle per sector request, hit or miss; a write of two sectors two
    cfg[E.C_L2_SECT_REQ] = 1
    cfg[E.C_L2_PORT_BYTES] = 32
    assert (cost(E.PK_READ, line, True, 0, cfg), cost(E.PK_READ, line, False, 0, cfg)) == (4, 4)
    assert (cost(E.PK_READ, one, True, 0, cfg), cost(E.PK_WRITE, 0b0011, False, 0, cfg)) == (1, 2)
    # 3.2.2: whole requests; a hit holds the 32-B data port for its bytes, a miss takes one cycle
    cfg[E.C_L2_SECT_REQ] = 0
    assert (cost(E.PK_READ, line, True, 0, cfg), cost(E.PK_READ, line, False, 0, cfg)) == (4, 1)
    assert cost(E.PK_OFFLOAD, line, True, 0, cfg) == 1  # packets for memory-side units are not cache data
    # a tag probe (the LLC service queue's availability check) reads no data: one cycle, hit or miss
    assert (cost(E.PK_READ, line, True, 1, cfg), cost(E.PK_READ, line, False, 1, cfg)) == (1, 1)


def _one_slice_lines(sess: TimingSession, k: int) -> list[int]:
    """``k`` distinct 128-B lines of slice 0 above BASE."""
    out, a = [], BASE
    while len(out) < k:
        if sess.state.map_address(a)["slice"] == 0:
            out.append(a)
        a += 128
    return out


def _slice_reads(k: int, over: dict) -> int:
    """One warp's load of ``k`` lines that all live in slice 0's L2 (placed there by a host copy); a network
    wide enough (256-B flits) that the slice's port is the only limit. Returns the launch's cycles."""
    sess = TimingSession(load_machine("gtx480", {**NO_REFRESH, "icnt.flit_bytes": 256, **over}))
    lines = _one_slice_lines(sess, k)
    sess.copy(lines[-1] + 128 - BASE, "h2d", BASE)
    b = TraceBuilder("slice", 1, 32)
    ld = b.op("ld.global.u32", "load", dst=(2,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    b.run(0, ld, (1 << k) - 1 if k < 32 else 0xFFFFFFFF, addrs=lines + [0] * (32 - k))
    b.run(0, ex)
    st = sess.run_launch(b.build())
    assert st.get("l2", "hits") == k
    return st.cycles


def test_a_slice_takes_four_cycles_a_line_with_sector_requests():
    """k 128-B line reads, all L2 hits in one slice (core and L2 clocks equal on gtx480): with sector requests
    each line holds the slice four cycles, so 16 more lines take 64 more cycles; without, the L1D's one miss a
    cycle is the limit (16 more)."""
    on = {"l2.sector_requests": True}
    assert _slice_reads(32, on) - _slice_reads(16, on) == 16 * 4
    assert _slice_reads(32, {}) - _slice_reads(16, {}) == 16


# ----------------------------------------------------------------------------------------------------
# L1D allocate on miss


def _reserve_pattern(n_new: int) -> object:
    """One lane loads line A (set 0); when A has come back, one load touches ``n_new`` other lines of set 0
    (4-way, linear set index: lines 4 KB apart), and the next instruction, independent of it, loads A again
    while those misses are out."""
    b = TraceBuilder("rsv", 1, 32)
    first = b.op("ld.global.u32", "load", dst=(1,), src=(9,), space="global", width=4)
    use = b.op("add.s32", "int", dst=(8,), src=(1,))
    many = b.op("ld.global.u32", "load", dst=(2,), src=(8,), space="global", width=4)
    again = b.op("ld.global.u32", "load", dst=(3,), src=(8,), space="global", width=4)
    ex = b.op("exit", "branch")
    b.run(0, first, 1, addrs=[BASE] + [0] * 31)
    b.run(0, use, 1)
    lanes = [BASE + 4096 * (i + 1) for i in range(n_new)]
    b.run(0, many, (1 << n_new) - 1, addrs=lanes + [0] * (32 - n_new))
    b.run(0, again, 1, addrs=[BASE] + [0] * 31)
    b.run(0, ex)
    return b.build()


def _l1(alloc: str, n_new: int):
    m = load_machine("gtx480", {**NO_REFRESH, "l1d.set_index": "linear", "l1d.allocate": alloc})
    assert (m.l1d.num_sets, m.l1d.assoc, m.l1d.line_bytes) == (32, 4, 128)
    return TimingSession(m).run_launch(_reserve_pattern(n_new))


def test_allocate_on_miss_evicts_a_line_allocate_on_fill_keeps():
    """Four misses in A's set: on fill, A stays until their lines come back, so the second load of A hits (the
    last of the four fills evicts A: one eviction); on miss, the four reserve the set's ways when sent (three
    empty ways and A's), so A is gone and misses, and finding every way reserved it waits for the first fill,
    then reserves that line (the least recent unreserved), evicting it: two evictions."""
    fill, miss = _l1("fill", 4), _l1("miss", 4)
    assert (fill.get("l1d", "accesses"), fill.get("l1d", "hits"), fill.get("l1d", "misses")) == (6, 1, 5)
    assert (miss.get("l1d", "accesses"), miss.get("l1d", "hits"), miss.get("l1d", "misses")) == (6, 0, 6)
    assert (fill.get("l1d", "evictions"), miss.get("l1d", "evictions")) == (1, 2)
    assert fill.get("l1d", "reservation_fails") == 0 < miss.get("l1d", "reservation_fails")
    assert miss.cycles > fill.cycles


def test_a_set_with_every_line_reserved_stalls_the_access_until_a_fill():
    """Five misses to one 4-way set: the fifth finds every line reserved, fails and retries until a fill frees
    one; all complete."""
    st = _l1("miss", 5)
    assert st.get("l1d", "reservation_fails") > 0
    assert st.get("l1d", "misses") == 7  # A, the five, A again
    assert _l1("fill", 5).get("l1d", "reservation_fails") == 0


# ----------------------------------------------------------------------------------------------------
# off is today's engine


def _small_kernel() -> object:
    b = TraceBuilder("mix", 2, 64, shared_bytes=256)
    ld = b.op("ld.global.u32", "load", dst=(2,), src=(1,), space="global", width=4)
    add = b.op("add.s32", "int", dst=(3,), src=(2,))
    sld = b.op("ld.shared.u32", "load", dst=(4,), src=(3,), space="shared", width=4)
    st = b.op("st.global.u32", "store", src=(4, 1), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(4):
        for i in range(3):
            b.run(w, ld, base=BASE + 4096 * i + 128 * w, stride=4)
            b.run(w, add)
            b.run(w, sld, base=0, stride=4)
            b.run(w, st, base=BASE + (1 << 20) + 128 * w, stride=4)
        b.run(w, ex)
    return b.build()


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_fields_explicitly_off_give_the_same_statistics(name):
    a = TimingSession(load_machine(name, NO_REFRESH)).run_launch(_small_kernel())
    b = TimingSession(load_machine(name, {**NO_REFRESH, **OFF})).run_launch(_small_kernel())
    assert a.cycles == b.cycles
    assert a.metrics() == b.metrics()


def test_an_outbound_queue_under_the_pipeline_is_kept_in_order_of_readiness():
    """A request ready sooner (a constant miss, a mechanism's) passes the L1D requests still in the latency
    pipeline; among equally ready ones the order of arrival stands, and the head's recorded block is cleared when
    a new head is put in front of it."""
    from ndpgpu.timing.engine.queues import q_pop, q_push_by_ready

    qb = np.zeros((1, 8), np.int64)
    qm = np.zeros((1, 10), np.int64)
    qm[0, E.Q_CAP] = 8
    qm[0, E.Q_HEAD] = 6  # (wraps around the ring)
    rq = np.zeros((6, E.NRQ), np.int64)
    for r, ready in enumerate([40, 41, 42, 5, 41, 3]):
        rq[r, E.R_READY] = ready
    for r in range(3):
        q_push_by_ready(qb, qm, 0, r, rq)
    qm[0, E.Q_BLOCK] = 1
    q_push_by_ready(qb, qm, 0, 3, rq)  # ready at 5: ahead of the three still in the pipeline
    assert qm[0, E.Q_BLOCK] == 0
    q_push_by_ready(qb, qm, 0, 4, rq)  # ready at 41: behind request 1 (also 41), ahead of request 2 (42)
    q_push_by_ready(qb, qm, 0, 5, rq)
    assert qm[0, E.Q_COUNT] == 6 and qm[0, E.Q_NZ] & 1
    assert [q_pop(qb, qm, 0) for _ in range(6)] == [5, 3, 0, 1, 4, 2]
