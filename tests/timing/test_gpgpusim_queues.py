"""Three GPGPU-Sim queueing and arbitration rules, each a machine field off by default: a load that misses the L1
needs room in the miss queue for one request more than its own (``l1d.read_miss_slack``), a slice stops taking
requests off the network once its icnt-to-L2 queue is too full (``l2.input_queue``, ``l2.input_queue_room``), and
the SM's warp schedulers take turns going first (``core.scheduler_rotation``)."""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder, streaming_read

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.spec import MachineConfigError

BASE = 1 << 32
# the instruction fetch left out: every request in the SM's queue below is a load's or a store's
IDEAL_FRONT = {"core.ibuffer": 0, "l1i.enabled": False}


def _run(trace, **over):
    return TimingSession("gtx480+gpgpusim3", {**IDEAL_FRONT, **over}).run_launch(trace)


def _stats(st) -> tuple:
    return (st.cycles, st.get("l1d", "misses"), st.get("l1d", "reservation_fails"), st.get("dram", "reads"))


def test_a_load_miss_with_slack_needs_room_for_two():
    """GPGPU-Sim's data_cache::rd_miss_base refuses a read miss unless its miss queue has room for two requests
    (miss_queue_full(1)). On a kernel of loads alone, a 2-entry queue with that slack admits a miss exactly when a
    1-entry queue without it does (when the queue is empty): the two runs match in every count, and differ from the
    2-entry queue without slack, which holds two misses at once."""
    trace = streaming_read(8, 256, 4)
    slack = _run(trace, **{"l1d.miss_queue": 2, "l1d.read_miss_slack": 1})
    one = _run(trace, **{"l1d.miss_queue": 1, "l1d.read_miss_slack": 0})
    two = _run(trace, **{"l1d.miss_queue": 2, "l1d.read_miss_slack": 0})
    assert _stats(slack) == _stats(one)
    assert _stats(two) != _stats(one)
    assert slack.get("dram", "reads") == two.get("dram", "reads")


def test_a_slack_that_fills_the_miss_queue_is_refused():
    with pytest.raises(MachineConfigError, match="read_miss_slack"):
        load_machine("gtx480", {"l1d.miss_queue": 2, "l1d.read_miss_slack": 2})


def stores_and_loads(warps: int = 32, rounds: int = 6) -> object:
    """Each warp stores one lane to one shared line (held at its slice by the L2's write-allocate: a write past
    the line's MSHR merge limit waits for the fill at the head of the slice's queue), then loads a line of
    another slice and uses it, ``rounds`` times."""
    b = TraceBuilder("stld", 1, 32 * warps)
    st = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    ld = b.op("ld.global.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    use = b.op("add.f32", "fp32", dst=(4,), src=(3,))
    ex = b.op("exit", "branch")
    for w in range(warps):
        for i in range(rounds):
            b.run(w, st, mask=1, addrs=[BASE + 4 * w] * 32)
            b.run(w, ld, mask=1, addrs=[BASE + 256 * 1024 + 128 * (7 * w + 1000 * i)] * 32)
            b.run(w, use)
        b.run(w, ex)
    return b.build()


def test_a_slice_stops_taking_requests_when_its_input_queue_is_full():
    """GPGPU-Sim's memory partition takes a request off the network only while its icnt-to-L2 queue (the
    requests past the ROP delay) has room: 3.x for one (memory_sub_partition::full, stop at 8 of 8), 4.0 for a
    sectored request's four (stop at 5 of 8). So an 8-entry queue needing room for 4 behaves exactly as a 5-entry
    one needing room for 1. While the slice's head waits for a fill, the stores behind it then stay in the SM's
    queue and hold up the SM's loads to other slices: slower than with no such limit, and a 64-entry queue, which
    this kernel never fills, changes nothing."""
    trace = stores_and_loads()
    free = _run(trace)
    g40 = _run(trace, **{"l2.input_queue": 8, "l2.input_queue_room": 4})
    five = _run(trace, **{"l2.input_queue": 5, "l2.input_queue_room": 1})
    g3x = _run(trace, **{"l2.input_queue": 8, "l2.input_queue_room": 1})
    deep = _run(trace, **{"l2.input_queue": 64, "l2.input_queue_room": 1})
    assert _stats(g40) == _stats(five)
    assert g40.cycles > free.cycles and g3x.cycles > free.cycles
    assert _stats(deep) == _stats(free)
    # the same requests in every run: only when they move changes
    for unit, count in (("l2", "misses"), ("dram", "writes"), ("dram", "reads")):
        assert g40.get(unit, count) == free.get(unit, count)


def test_an_input_queue_without_room_for_one_request_is_refused():
    with pytest.raises(MachineConfigError, match="input_queue_room"):
        load_machine("gtx480", {"l2.input_queue": 2, "l2.input_queue_room": 4})


def loads_then_chain(m: int, chain: int = 200) -> object:
    """Warps 0 and 1 (schedulers 0 and 1 of a Fermi SM) each issue ``m`` independent coalesced loads (one L1
    transaction each, so both want the shared LD/ST unit every cycle); warp 0 then runs a dependent chain of
    ``chain`` adds, the kernel's critical path."""
    b = TraceBuilder("rot", 1, 64)
    lds = [b.op("ld.global.f32", "load", dst=(10 + i,), src=(1,), space="global", width=4) for i in range(m)]
    add = b.op("add.s32", "int", dst=(5,), src=(5,))
    ex = b.op("exit", "branch")
    for w in range(2):
        for i in range(m):
            b.run(w, lds[i], base=BASE + w * 4096 + i * 128, stride=4)
        if w == 0:
            for _ in range(chain):
                b.run(w, add)
        b.run(w, ex)
    return b.build()


@pytest.mark.parametrize("m", [8, 16])
def test_rotating_schedulers_share_the_ldst_unit_every_other_cycle(m):
    """GPGPU-Sim 3.x calls scheduler 0 first every cycle, so warp 0 takes the LD/ST unit on m consecutive cycles
    before warp 1 gets it; 4.0 (shader_core_ctx::issue) rotates which goes first, so the two alternate and warp
    0's last load goes m - 1 cycles later, its chain and the kernel ending m - 1 cycles later too."""
    trace = loads_then_chain(m)
    fixed = _run(trace)
    rotating = _run(trace, **{"core.scheduler_rotation": True})
    assert rotating.cycles - fixed.cycles == m - 1
    assert rotating.get("l1d", "accesses") == fixed.get("l1d", "accesses") == 2 * m
