"""Writeback hazards (``core.result_buses``): GPGPU-Sim's execute stage lets an ALU instruction start only on a unit
instance that completes nothing else in the cycle its result would (``simd_function_unit::occupied``) and only while
a result bus is free in that cycle (``test_res_bus``, EX_WB's width), in issue order through the unit's port.

Expected values are derived here by hand from the ``gtx480`` preset's timings (no pipeline depth): ``min.s32``
latency 13, interval 2; ``add.s32`` latency 4, interval 1; an ideal front end, one scheduler, issue width 1.
"""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession

ONE_SM = {"core.num_sms": 1, "core.sub_cores": 1}


def min_then_adds(n_adds: int) -> object:
    """One warp: a ``min`` (result 13 cycles on), ``n_adds`` independent adds, an add reading the last of them,
    then exit."""
    b = TraceBuilder("wb", 1, 32)
    pcs = [b.op("min.s32", "int", dst=(20,), src=(1, 2))]
    pcs += [b.op("add.s32", "int", dst=(30 + i,), src=(1,)) for i in range(n_adds)]
    pcs.append(b.op("add.s32", "int", dst=(90,), src=(30 + n_adds - 1,)))
    pcs.append(b.op("exit", "branch"))
    for pc in pcs:
        b.run(0, pc)
    return b.build()


def _run(trace, **extra):
    sess = TimingSession("gtx480", overrides={**ONE_SM, **extra})
    return sess.run_launch(trace)


@pytest.mark.parametrize("n_adds", [8, 12, 20])
def test_one_unit_one_bus_delays_the_add_that_would_finish_with_the_min(n_adds: int) -> None:
    """One SP unit, one result bus. The min issues at t and holds the unit two cycles; add i (1-based) issues at
    t + 1 + i and would complete at t + 5 + i, so add 8 would complete with the min at t + 13: it starts a cycle
    late, and every later add, in issue order behind it through the one unit, starts a cycle late too (n - 7 adds,
    one cycle each). The add reading the last one waits one cycle more, so the kernel takes exactly one more cycle.
    """
    trace = min_then_adds(n_adds)
    off = _run(trace, **{"core.units.sp": 1})
    on = _run(trace, **{"core.units.sp": 1, "core.result_buses": 1})
    assert on["core.issue.writeback_delayed"] == n_adds - 7
    assert on["core.issue.writeback_delay_cycles"] == n_adds - 7
    assert on.cycles - off.cycles == 1
    assert off["core.issue.writeback_delayed"] == 0
    assert on.c("WARP_INSTS") == off.c("WARP_INSTS") == n_adds + 3


def test_two_units_two_buses_take_the_colliding_add_on_the_other_unit() -> None:
    """Two SP units, two buses (the GTX480's): the add that would complete with the min goes to the unit the min
    is not on, and no instruction waits."""
    trace = min_then_adds(12)
    off = _run(trace)
    on = _run(trace, **{"core.result_buses": 2})
    assert on["core.issue.writeback_delayed"] == 0
    assert on.cycles == off.cycles


def test_one_bus_serializes_results_of_different_units() -> None:
    """Two SP units but one result bus: the add that would complete with the min must wait although a unit is
    free, so some instruction is delayed and the kernel is not faster than without the rule."""
    trace = min_then_adds(12)
    off = _run(trace)
    on = _run(trace, **{"core.result_buses": 1})
    assert on["core.issue.writeback_delayed"] >= 1
    assert on.cycles >= off.cycles
