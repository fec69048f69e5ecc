"""GPGPU-Sim's DRAM scheduler (``dram.scheduler.impl: frfcfs_bank``, in both GPGPU-Sim overlays): each bank
serves one request at a time, handed to it from the queue one bank a DRAM cycle (round robin), and the queue's
size counts only the requests no bank has taken (3.2.2 ``dram_sched.cc`` 79-170, ``dram.cc`` 118, 205-370). One
channel set up by hand, ticked cycle by cycle, against the pooled FR-FCFS on the same state; and a whole launch."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import queue_dram_request, streaming_read

from ndpgpu.timing import TimingSession
from ndpgpu.timing import engine as E
from ndpgpu.timing.build import EngineState
from ndpgpu.timing.engine.dram import dram_tick
from ndpgpu.timing.engine.links import dram_space
from ndpgpu.timing.presets import load_machine

K = 1000  # the first DRAM cycle of each test


def _channel(impl: str, reqs: list[tuple[int, int, bool]], open_rows: dict[int, int], queue_size: int = 16):
    """Channel 0 of gtx480-gpgpusim3 under scheduler ``impl`` with ready requests ``(bank, row, is_write)``, oldest
    first, and banks ``open_rows`` open; nothing else in flight, no refresh due. Without the memory partition's
    front end, so that the channel's room (``dram_space``) is its scheduler queue's."""
    m = load_machine("gtx480-gpgpusim3", {"dram.scheduler.impl": impl, "dram.scheduler.queue_size": queue_size,
                                          "dram.partition_queue": 0})
    st = EngineState(m)
    st.chs[0, E.H_NEXT_REF] = 1 << 40
    for r, (bank, row, wr) in enumerate(reqs):
        queue_dram_request(st, r, bank, row, write=wr, bg=bank * m.dram.bank_groups // m.dram.banks)
    st.chs[0, E.H_NQ] = len(reqs)
    for bank, row in open_rows.items():
        st.bank[bank, E.B_ROW] = row
    return st


def _tick(st, k: int) -> None:
    now = int(E.edge(st.clk, E.D_DRAM, k))
    dram_tick(0, now, k, st.cfg, st.clk, st.rq, st.rq_free, st.dq, st.bank, st.bgt, st.chs, st.faw, st.qb, st.qm,
              st.wake, st.g, st.ctr, st.chst, st.bkst, st.dlog, st.hitpend, np.zeros(1, np.int64))


def _served(st) -> list[int]:
    """The requests of ``_channel`` (rq rows 0 and 1) whose data has started."""
    return [r for r in range(2) if st.rq[r, E.R_TDS] >= 0]


def test_a_read_behind_a_write_to_its_bank_waits_for_it():
    """Bank 0 holds an older write and a younger read to its open row, and a read went on the bus just before, so
    the write must wait out tRTW. The pooled scheduler lets the read pass; GPGPU-Sim's bank serves the write first,
    and the channel issues nothing until tRTW is over."""
    for impl, first in (("frfcfs", 1), ("frfcfs_bank", 0)):
        st = _channel(impl, [(0, 5, True), (0, 5, False)], {0: 5})
        st.chs[0, E.H_LAST_RD] = K - 1
        trtw = int(st.cfg[E.C_tRTW])
        k = K
        while not _served(st):
            _tick(st, k)
            k += 1
        assert _served(st) == [first], impl
        if impl == "frfcfs_bank":
            assert k - 1 == K - 1 + trtw  # the write's first allowed cycle
            assert st.bank[0, E.B_SVC] < 0 and st.chs[0, E.H_NSVC] == 0  # done at its (only) column command
        else:
            assert k - 1 == K


def test_one_bank_a_cycle_takes_a_request_and_the_channel_may_idle():
    """Bank 0's request needs its open row closed, not allowed until K + 50; bank 1 has a ready row hit. The pooled
    scheduler serves bank 1 at once. GPGPU-Sim's hands bank 0 its request in the first cycle (its turn in the round
    robin), which can issue nothing, and bank 1 its own in the next, which issues then."""
    for impl, cycle in (("frfcfs", K), ("frfcfs_bank", K + 1)):
        st = _channel(impl, [(0, 5, False), (1, 9, False)], {0: 7, 1: 9})
        st.bank[0, E.B_PRE_READY] = K + 50
        k = K
        while 1 not in _served(st):
            _tick(st, k)
            if impl == "frfcfs_bank" and k == K:
                assert st.bank[0, E.B_SVC] == 0 and st.bank[1, E.B_SVC] == -1 and st.ctr[E.T_DR_BURST] == 0
                assert st.wake[st.cfg[E.C_WK_CH]] == E.edge(st.clk, E.D_DRAM, K + 1)  # bank 1 is waiting
            k += 1
        assert k - 1 == cycle, impl
        assert st.bank[0, E.B_ROW] == 7  # bank 0's PRE still not allowed


def test_the_queue_counts_only_requests_no_bank_has_taken():
    """A queue of 2 holding two requests to two banks, neither able to issue (their rows' PRE not yet allowed):
    after one cycle GPGPU-Sim's scheduler has handed one to its bank, and the queue has room for one more; the
    pooled scheduler's stays full."""
    for impl, room in (("frfcfs", 0), ("frfcfs_bank", 1)):
        st = _channel(impl, [(0, 5, False), (1, 6, False)], {0: 7, 1: 8}, queue_size=2)
        st.bank[0, E.B_PRE_READY] = st.bank[1, E.B_PRE_READY] = K + 50
        assert dram_space(st.cfg, st.chs, 0) == 0
        _tick(st, K)
        assert dram_space(st.cfg, st.chs, 0) == room, impl
        assert int(st.chs[0, E.H_NQ]) == 2  # both still hold their entries


@pytest.mark.parametrize(("machine", "reads", "writes"), [("gtx480-gpgpusim3", 2, 1), ("gtx480+gpgpusim", 1, 0)])
def test_a_streaming_launch_moves_every_line_once_and_leaves_the_banks_idle(machine, reads, writes):
    """Both GPGPU-Sim overlays take the per-bank scheduler. A launch streams 1,920 lines in (60 CTAs of 256
    threads, 4 coalesced loads each) and stores each to a second array: every line reaches DRAM once (3.x's
    write-allocate also reads each stored line, and its launch ends with the stores written; 4.0's L2 keeps them),
    and every bank is free at the end."""
    session = TimingSession(machine)
    assert session.machine.dram.scheduler.impl == "frfcfs_bank"
    st = session.run_launch(streaming_read(num_ctas=60, threads=256, loads_per_thread=4, store=True))
    dram = {k: v[0] for k, v in st.metrics()["dram"].items()}
    lines = 60 * 256 // 32 * 4
    code = dram["read_bytes"] - reads * lines * 128
    assert code == 2 * 128  # and the kernel's code through the L1I: 17 instructions of 8 B from 0xF0000000
    assert dram["write_bytes"] == writes * lines * 128
    s = session.state
    assert (s.bank[:, E.B_SVC] == -1).all() and (s.chs[:, E.H_NSVC] == 0).all() and (s.chs[:, E.H_NQ] == 0).all()
