"""The crossbar's allocators (``icnt.allocator``), driven cycle by cycle through the compiled ``icnt_tick`` of the
request network: every source queue kept full, every destination queue emptied each cycle, so only the crossbar's
arbitration decides who crosses."""

from collections import Counter

import pytest

from ndpgpu.timing import engine as E
from ndpgpu.timing import load_machine


def drive_xbar(allocator: str, streams: list[tuple[int, list[int]]], cycles: int) -> list[tuple[int, int, int]]:
    """Streams (SM, the slices its header-only read requests go to, in order) through gtx480's request network;
    returns (cycle, SM, slice) of every request that reached a slice's queue, in order."""
    from ndpgpu.timing.build import EngineState

    m = load_machine("gtx480", overrides={"icnt.allocator": allocator, "icnt.priority_arbitration": False})
    st = EngineState(m)
    pending: list[tuple[int, list[int]]] = []
    r = 0
    for sm, slices in streams:
        rows = list(range(r, r + len(slices)))
        r += len(slices)
        for x, sl in zip(rows, slices, strict=True):
            st.rq[x, :] = 0
            st.rq[x, E.R_DEST] = -1
            st.rq[x, E.R_MXD] = -1
            st.rq[x, E.R_KIND] = E.PK_READ
            st.rq[x, E.R_SLICE] = sl
            st.rq[x, E.R_SRC] = sm
        pending.append((st.q_smout + sm, rows))
    out = []
    for k in range(cycles):
        for q, rows in pending:
            while rows and st.qm[q, E.Q_COUNT] < st.qm[q, E.Q_CAP]:
                E.q_push(st.qb, st.qm, q, rows.pop(0))
        E.icnt_tick(E.NET_REQ, E.edge(st.clk, E.D_ICNT, k), k, st.cfg, st.clk, st.rq, st.rq_free, st.qb, st.qm,
                    st.netd, st.pbusy, st.wake, st.g, st.nst, st.kst)
        for d in range(st.nsl):
            q = st.q_l2in + d
            while st.qm[q, E.Q_COUNT]:
                x = E.q_pop(st.qb, st.qm, q)
                out.append((k, int(st.rq[x, E.R_SRC]), d))
    return out


def test_a_contended_port_alternates_under_islip_and_stays_under_round_robin():
    """SMs 0, 1 and 2 stream one-flit requests to slice 0 (gtx480: 15 SMs). The slice's port takes one a cycle
    either way. Round robin scans the 15 sources from one pointer that advances by one a cycle: with the pointer
    at 1 SM 1 wins, at 2 SM 2, and at 0 and at 3 to 14 the scan wraps to SM 0, so in every 15 cycles SM 0 crosses
    13 times and SMs 1 and 2 once each. iSLIP's port pointer moves to one past the source it granted: 0, 1, 2,
    0, 1, 2, ..., five each in 15 cycles."""
    streams = [(sm, [0] * 200) for sm in (0, 1, 2)]
    for allocator, share in (("round_robin", {0: 13, 1: 1, 2: 1}), ("islip", {0: 5, 1: 5, 2: 5})):
        out = drive_xbar(allocator, streams, 160)
        window = out[30:150]  # eight periods of 15
        assert [k for k, _s, _d in window] == list(range(window[0][0], window[0][0] + 120))  # one a cycle
        assert Counter(s for _k, s, _d in window) == {s: 8 * n for s, n in share.items()}
        if allocator == "islip":
            assert [s for _k, s, _d in window[:6]] in ([0, 1, 2] * 2, [1, 2, 0] * 2, [2, 0, 1] * 2)


def test_islip_keeps_contending_trains_in_step():
    """Two SMs each send four requests to slice 0, then four to slice 1 (two sector trains' shape). iSLIP
    interleaves them on slice 0 (SM 0 at cycles 0, 2, 4, 6, SM 1 at 1, 3, 5, 7), so they meet again on slice 1 and
    interleave there (SM 0 at 7, 9, 11, 13; SM 1 at 8, 10, 12, 14): the last crosses at cycle 14, each train at half
    rate throughout. Round robin (pointer 0, 1, 2, ...: SM 1 wins only when the pointer is at 1) lets SM 0 finish
    slice 0 at cycle 4 and go on to slice 1 at 5 to 8 while SM 1 finishes slice 0 (5 to 7); SM 1 then waits one
    cycle behind SM 0 and crosses to slice 1 at 9 to 12: the trains pipeline, and the last crosses at 12."""
    streams = [(0, [0] * 4 + [1] * 4), (1, [0] * 4 + [1] * 4)]
    islip = drive_xbar("islip", streams, 30)
    assert [(k, s, d) for k, s, d in islip if d == 0] == [(k, k % 2, 0) for k in range(8)]
    assert [(k, s, d) for k, s, d in islip if d == 1] == [(k, (k + 1) % 2, 1) for k in range(7, 15)]
    rr = drive_xbar("round_robin", streams, 30)
    assert [(k, s) for k, s, d in rr if d == 0] == [(0, 0), (1, 1), (2, 0), (3, 0), (4, 0), (5, 1), (6, 1), (7, 1)]
    assert [(k, s) for k, s, d in rr if d == 1] == [(5, 0), (6, 0), (7, 0), (8, 0), (9, 1), (10, 1), (11, 1), (12, 1)]


@pytest.mark.parametrize("allocator", ["round_robin", "islip"])
def test_every_request_crosses_once_and_ports_move_one_a_cycle(allocator):
    """All 15 SMs stream 40 requests each to slices chosen by a fixed scramble: every request arrives exactly
    once, no slice's port takes two in one cycle, no SM's port sends two."""
    streams = [(sm, [(sm * 7 + i * 5 + (i * i) % 3) % 12 for i in range(40)]) for sm in range(15)]
    out = drive_xbar(allocator, streams, 400)
    assert len(out) == 600
    assert Counter((s, d) for _k, s, d in out) == Counter((s, d) for s, ds in streams for d in ds)
    assert max(Counter((k, d) for k, _s, d in out).values()) == 1
    assert max(Counter((k, s) for k, s, _d in out).values()) == 1
