"""Memory instructions issued ahead of a busy LD/ST unit (``core.mem_queue``), as GPGPU-Sim's scheduler issues
them into ID_OC_MEM while the unit works on an earlier one (docs/timing.md, field `core.mem_queue`). Expected values
are derived here by hand from the rule: the warp goes on issuing, the unit takes the waiting instructions in issue
order once it is free, an SM (or, when sub-cores own their units, each sub-core) issues one a cycle, and with the queue
full a memory instruction waits as it would without one."""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession, load_machine

ONE = {"core.num_sms": 1, "core.sub_cores": 1, "core.ibuffer": 0, "l1i.enabled": False}
CONFLICT = 32  # lane l at word 32 l: every lane in bank 0, a 32-way conflict (32 passes of the unit)


def conflicted_loads_then_adds(loads: int, adds: int) -> object:
    """One warp: ``loads`` independent shared loads with a 32-way bank conflict, ``adds`` independent adds (no
    operand from the loads), exit."""
    b = TraceBuilder("q", 1, 32, shared_bytes=32 * 4 * CONFLICT)
    lds = [b.op("ld.shared.f32", "load", dst=(20 + r,), src=(1,), space="shared", width=4) for r in range(loads)]
    add = [b.op("add.s32", "int", dst=(10 + r,), src=(1,)) for r in range(8)]
    ex = b.op("exit", "branch")
    for ld in lds:
        b.run(0, ld, base=0, stride=4 * CONFLICT)
    for i in range(adds):
        b.run(0, add[i % 8])
    b.run(0, ex)
    return b.build()


def _run(trace, queue: int, machine: str = "gtx480", **extra):
    return TimingSession(machine, {**ONE, "core.mem_queue": queue, **extra}).run_launch(trace)


def test_the_flavours_take_gpgpusims_pipeline_registers():
    """4 on GTX480 (ID_OC_MEM 1 + 2 memory collector units + OC_EX_MEM 1, both versions), 10 on SM7_QV100's
    widths, none on the hardware presets."""
    assert load_machine("gtx480").core.mem_queue == 0
    assert load_machine("v100").core.mem_queue == 0
    assert load_machine("gtx480-gpgpusim").core.mem_queue == 4
    assert load_machine("gtx480-gpgpusim3").core.mem_queue == 4
    assert load_machine("v100-gpgpusim").core.mem_queue == 10


@pytest.mark.parametrize("adds", [40, 64])
def test_the_warp_issues_past_a_waiting_load(adds):
    """Without the queue the second load issues when the first frees the unit, 32 cycles after it, and the
    adds and exit follow it; with the queue it issues the next cycle and waits there, so exit issues 31 cycles
    sooner (it still issues after the second load starts: 2 + adds > 32). Everything after exit is the same."""
    trace = conflicted_loads_then_adds(2, adds)
    off = _run(trace, 0)
    on = _run(trace, 4)
    assert off.c("WARP_INSTS") == on.c("WARP_INSTS") == 2 + adds + 1
    assert off.cycles - on.cycles == CONFLICT - 1
    assert on.c("MQ_STARTS") == 1 and on.c("MQ_WAIT_CYC") == CONFLICT - 1  # issued at t0 + 1, taken at t0 + 32
    assert off.c("MQ_STARTS") == 0
    assert on.c("SMEM_ACC") == off.c("SMEM_ACC") == 2
    assert on.c("SMEM_CONF_CYC") == off.c("SMEM_CONF_CYC") == 2 * (CONFLICT - 1)


def test_a_full_queue_holds_the_next_memory_instruction():
    """Queue of 1, three loads: load 1 takes the unit at t0, load 2 waits in the queue from t0 + 1, load 3 finds
    it full and waits until the unit takes load 2 at t0 + 32 (the warps waiting for room look again the next
    cycle), issuing at t0 + 33 and taken at t0 + 64: 31 + 31 cycles waited. Exit issues after the adds, from t0 +
    34 with the queue (at t0 + 65 without): 31 cycles sooner."""
    trace = conflicted_loads_then_adds(3, 40)
    off = _run(trace, 0)
    on = _run(trace, 1)
    assert on.c("MQ_STARTS") == 2
    assert on.c("MQ_WAIT_CYC") == 2 * (CONFLICT - 1)
    assert off.cycles - on.cycles == CONFLICT - 1


def two_warps_one_load_each(adds: int = 40) -> object:
    """Two warps (one per scheduler with two sub-cores), each one conflicted shared load, ``adds`` adds, exit."""
    b = TraceBuilder("q2", 1, 64, shared_bytes=32 * 4 * CONFLICT)
    ld = b.op("ld.shared.f32", "load", dst=(20,), src=(1,), space="shared", width=4)
    add = [b.op("add.s32", "int", dst=(10 + r,), src=(1,)) for r in range(8)]
    ex = b.op("exit", "branch")
    for w in range(2):
        b.run(w, ld, base=0, stride=4 * CONFLICT)
        for i in range(adds):
            b.run(w, add[i % 8])
        b.run(w, ex)
    return b.build()


@pytest.mark.parametrize("own_units, waited", [(False, CONFLICT - 1), (True, CONFLICT)])
def test_one_memory_instruction_a_cycle_through_each_id_oc_mem_slot(own_units, waited):
    """Both schedulers want to issue their warp's load at t0. An SM's one ID_OC_MEM slot takes one a cycle: warp
    0's load takes the unit at t0, warp 1's issues at t0 + 1 and waits until t0 + 32 (31 cycles). When sub-cores own
    their units (SM7_QV100: a slot per scheduler) both issue at t0, and warp 1's waits 32."""
    st = _run(two_warps_one_load_each(), 4, **{"core.sub_cores": 2, "core.sub_core_units": own_units})
    assert st.c("MQ_STARTS") == 1
    assert st.c("MQ_WAIT_CYC") == waited


def scattered_stores(warps: int, stores: int) -> object:
    """``warps`` warps, each ``stores`` stores of 32 lanes to 32 different lines, then exit."""
    b = TraceBuilder("st", 1, 32 * warps)
    st = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(warps):
        for s in range(stores):
            b.run(w, st, base=(1 << 32) + (w * stores + s) * 32 * 128, stride=128)
        b.run(w, ex)
    return b.build()


@pytest.mark.parametrize("machine", ["gtx480-gpgpusim", "gtx480-gpgpusim3"])
def test_every_store_waiting_in_the_queue_reaches_memory(machine):
    """Warps end with stores still waiting for the unit; they retire only once their stores are sent: the L2
    sees every store, queue or not, and the queue was used."""
    trace = scattered_stores(8, 3)
    on = _run(trace, 4, machine)
    off = _run(trace, 0, machine)
    assert on.c("STORES") == off.c("STORES") == 8 * 3
    assert on.c("L2_ST") == off.c("L2_ST") > 0
    assert on.c("MQ_STARTS") > 0
    assert on.cycles <= off.cycles
