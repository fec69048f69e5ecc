"""The engine's bounded queues: first in, first out, and an entry put at the head served first (the LLC
service queue's buffer reads, docs/llc.md), across the ring's wrap-around."""

from __future__ import annotations

import numpy as np

from ndpgpu.timing import engine as E
from ndpgpu.timing.engine.queues import q_head, q_pop, q_push, q_push_front


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
