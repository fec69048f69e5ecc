"""The engine's bounded queues: first in, first out, and an entry put at the head served first (the LLC
service queue's buffer reads, docs/llc.md), across the ring's wrap-around."""

from __future__ import annotations

import numpy as np

from ndpgpu.timing import engine as E
from ndpgpu.timing.engine.queues import q_head, q_pop, q_push, q_push_front, q_space, q_space_head


def _queues(cap: int) -> tuple[np.ndarray, np.ndarray]:
    qm = np.zeros((2, E.NQM), np.int64)
    qm[:, E.Q_CAP] = cap
    return np.zeros((2, cap), np.int64), qm


def test_front_entries_are_served_first_and_order_is_kept():
    qb, qm = _queues(4)
    q_push(qb, qm, 1, 10)
    q_push(qb, qm, 1, 11)
    q_push_front(qb, qm, 1, 20)  # the head was slot 0: the ring wraps to slot 3
    q_push_front(qb, qm, 1, 21)
    assert qm[1, E.Q_COUNT] == 4 and qm[1, E.Q_HEAD] == 2
    assert qm[0, E.Q_NZ] & (1 << 1)
    got = []
    while qm[1, E.Q_COUNT]:
        got.append(int(q_head(qb, qm, 1)))
        q_pop(qb, qm, 1)
    assert got == [21, 20, 10, 11]
    assert not qm[0, E.Q_NZ] & (1 << 1)


def test_front_push_clears_the_former_heads_block():
    qb, qm = _queues(4)
    q_push(qb, qm, 1, 10)
    qm[1, E.Q_BLOCK] = 3  # the head waits for DRAM channel 2
    q_push_front(qb, qm, 1, 20)
    assert qm[1, E.Q_BLOCK] == 0 and int(q_head(qb, qm, 1)) == 20


def test_front_push_into_an_empty_queue_marks_it_busy():
    qb, qm = _queues(3)
    q_push_front(qb, qm, 0, 7)
    assert qm[0, E.Q_NZ] & 1 and int(q_head(qb, qm, 0)) == 7


def test_slots_kept_for_the_head_are_not_ordinary_room():
    """A queue of 6 slots keeping 2 for its head: ordinary pushes see 4, head pushes all 6; the kept slots fill
    only from the head, and the order stays head first."""
    qb, qm = _queues(6)
    qm[1, E.Q_RESV] = 2
    for v in range(4):
        assert q_space(qm, 1) > 0
        q_push(qb, qm, 1, v)
    assert q_space(qm, 1) == 0 and q_space_head(qm, 1) == 2
    q_push_front(qb, qm, 1, 40)
    q_push_front(qb, qm, 1, 41)
    assert q_space_head(qm, 1) == 0 and q_space(qm, 1) == -2
    got = []
    while qm[1, E.Q_COUNT]:
        got.append(int(q_head(qb, qm, 1)))
        q_pop(qb, qm, 1)
    assert got == [41, 40, 0, 1, 2, 3]


def test_every_l2_input_queue_keeps_its_head_slots_and_the_network_sees_the_rest():
    from ndpgpu.timing.build import EngineState
    from ndpgpu.timing.presets import load_machine

    m = load_machine("llc-mesh")
    st = EngineState(m)
    q0, nsl = int(st.cfg[E.C_Q_L2IN]), st.qm.shape[0]
    slices = range(q0, q0 + int(st.cfg[E.C_NSL]))
    assert all(st.qm[q, E.Q_RESV] == E.L2_HEAD_SLOTS for q in slices)
    # the room the network sees is the ROP queue's and the ejection buffer's, as before the kept slots
    rop = m.partition.rop_latency if m.partition.rop_latency is not None else m.l2.rop_latency
    assert all(q_space(st.qm, q) == m.icnt.eject_buffer + rop for q in slices)
    assert all(st.qm[q, E.Q_RESV] == 0 for q in range(nsl) if q not in slices)
