"""FR-FCFS with priority classes (timing/engine/dram.py): a channel prefers the better class among the commands
ready this cycle and never idles while any request can be served. One DRAM cycle of one channel, set up by hand:
a top-class read (TELEPORT's class 3) that misses its bank's open row, and a class-0 read that hits another
bank's open row."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import queue_dram_request

from ndpgpu.timing import engine as E
from ndpgpu.timing.build import EngineState
from ndpgpu.timing.engine.dram import dram_tick
from ndpgpu.timing.presets import load_machine

K = 1000  # the DRAM cycle of the test
TOP, CORE = 3, 0  # TELEPORT's class, the cores' class


def _channel(pre_ready: int):
    """Channel 0 with two ready reads: rq 0 (class 3, older) to bank 0 row 5 while bank 0 holds row 7 open (its
    PRE allowed from cycle ``pre_ready``), rq 1 (class 0) to bank 1's open row 9."""
    # the pooled FR-FCFS (GPGPU-Sim's per-bank scheduler is tests/timing/test_dram_bank_scheduler.py's)
    st = EngineState(load_machine("gtx480-gpgpusim3", {"dram.scheduler.impl": "frfcfs"}))
    cfg = st.cfg
    assert cfg[E.C_DRAM_SCHED] == E.DS_FRFCFS and cfg[E.C_NSA] == 1
    nb = int(cfg[E.C_NBANK])
    st.chs[0, E.H_NEXT_REF] = 1 << 40  # no refresh due
    for r, (bank, row, prio, seq) in enumerate([(0, 5, TOP, 1), (1, 9, CORE, 2)]):
        queue_dram_request(st, r, bank, row, prio=prio, seq=seq)
    st.chs[0, E.H_NQ] = 2
    st.bank[0, E.B_ROW] = 7
    st.bank[0, E.B_PRE_READY] = pre_ready
    st.bank[1, E.B_ROW] = 9
    assert nb >= 2
    return st


def _tick(st) -> None:
    now = int(E.edge(st.clk, E.D_DRAM, K))
    dram_tick(0, now, K, st.cfg, st.clk, st.rq, st.rq_free, st.dq, st.bank, st.bgt, st.chs, st.faw, st.qb, st.qm,
              st.wake, st.g, st.ctr, st.chst, st.bkst, st.dlog, st.hitpend, np.zeros(1, np.int64))


def test_a_top_class_row_miss_does_not_idle_the_channel():
    """The TELEPORT read cannot open its row this cycle (its bank's PRE is not allowed until later): the core's
    ready row hit is served, where strict class order left the channel idle."""
    st = _channel(pre_ready=K + 50)
    _tick(st)
    assert st.ctr[E.T_DR_BURST] == 1 and st.ctr[E.T_DR_RD] == 1
    assert st.dq[0, 1, E.DQ_RID] == -1  # the class-0 hit left the queue
    assert st.dq[0, 0, E.DQ_RID] == 0 and st.bank[0, E.B_ROW] == 7  # the TELEPORT read still waits
    assert st.rq[1, E.R_HIT] == 0  # as a row hit


@pytest.mark.parametrize("dual", [0, 1])
def test_a_ready_top_class_command_goes_first(dual):
    """When the TELEPORT read's PRE is allowed, it is the better class's ready command: it issues (one command
    bus: the core's hit waits a cycle; two: both issue)."""
    st = _channel(pre_ready=0)
    st.cfg[E.C_DUAL_CMD] = dual
    _tick(st)
    assert st.bank[0, E.B_ROW] == -1  # bank 0 precharged for the TELEPORT read
    assert st.ctr[E.T_DR_BURST] == dual
    assert (st.dq[0, 1, E.DQ_RID] == -1) == bool(dual)
