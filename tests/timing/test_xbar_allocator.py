"""The crossbar's allocators (``icnt.allocator``), driven cycle by cycle through the compiled ``icnt_tick`` of the
request network: every source queue kept full, every destination queue emptied each cycle, so only the crossbar's
arbitration decides who crosses."""

from collections import Counter

import pytest

from ndpgpu.timing import engine as E
from ndpgpu.timing import load_machine


def drive_xbar(allocator: str, streams: list[tuple[int, list[int]]], cycles: int, arrivals: list | None = None,
               **icnt) -> list[tuple[int, int, int]]:
    """Streams (SM, the slices its header-only read requests go to, in order; slice -1 - d: a 128-B write to
    slice d, four flits) through gtx480's request network;
    returns (cycle, SM, slice) of every request that crossed to a slice's queue, in order; ``arrivals`` gets the
    icnt cycle each one's last flit reached the slice (``icnt`` fields: overrides of the machine's)."""
    from ndpgpu.timing.build import EngineState

    m = load_machine("gtx480", overrides={"icnt.allocator": allocator, "icnt.priority_arbitration": False,
                                          **{f"icnt.{k}": v for k, v in icnt.items()}})
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
            st.rq[x, E.R_KIND] = E.PK_READ if sl >= 0 else E.PK_WRITE
            st.rq[x, E.R_BYTES] = 0 if sl >= 0 else 128
            st.rq[x, E.R_SLICE] = sl if sl >= 0 else -1 - sl
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
                if arrivals is not None:
                    arrivals.append(int(E.cyc_at(st.clk, E.D_ICNT, st.rq[x, E.R_T2])))
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


W0 = -1  # a 128-B write to slice 0 (four flits of 40 B with its 8-B header)


def test_an_output_buffer_frees_a_source_blocked_behind_a_busy_port():
    """SM 0 sends two 4-flit writes to slice 0; SM 1 two, then four one-flit reads to slice 1 (gtx480: a 5-cycle
    crossing, one flit a cycle per port). Without an output buffer slice 0's port takes a write only when free:
    SM 0 at 0, SM 1 at 4, SM 0 at 8, SM 1 at 12 (iSLIP alternates), so SM 1's reads to the idle slice 1 wait
    behind its last write and cross at 16 to 19, arriving at 21 to 24. With 8 flits of output buffer a write
    crosses while at most 8 flits wait, one a cycle: SM 0 at 0, SM 1 at 1 (its source port free), SM 0 at 4 and
    SM 1 at 5 (each source's port busy four cycles); slice 0 still ejects one flit a cycle (the writes arrive at
    8, 12, 16, 20), and SM 1's reads cross at 9 to 12 and arrive at 14 to 17."""
    streams = [(0, [W0] * 2), (1, [W0] * 2 + [1] * 4)]
    plain_at: list[int] = []
    plain = drive_xbar("islip", streams, 40, plain_at)
    assert [(k, s) for k, s, d in plain if d == 0] == [(0, 0), (4, 1), (8, 0), (12, 1)]
    assert [(k, a) for (k, _s, d), a in zip(plain, plain_at, strict=True) if d == 1] == [
        (16, 21), (17, 22), (18, 23), (19, 24)]
    at: list[int] = []
    out = drive_xbar("islip", streams, 40, at, output_buffer=8)
    assert [(k, s, a) for (k, s, d), a in zip(out, at, strict=True) if d == 0] == [
        (0, 0, 8), (1, 1, 12), (4, 0, 16), (5, 1, 20)]
    assert [(k, a) for (k, _s, d), a in zip(out, at, strict=True) if d == 1] == [
        (9, 14), (10, 15), (11, 16), (12, 17)]


@pytest.mark.parametrize("allocator", ["round_robin", "islip"])
def test_with_an_output_buffer_every_request_crosses_once_and_ports_eject_one_flit_a_cycle(allocator):
    """The scrambled streams of the test above, every third request a 4-flit write, through ports with 16 flits
    of output buffer: every request arrives once; a slice's port takes at most one packet a cycle, never holds
    more than 16 flits beyond the one it ejects, and ejects one flit a cycle (its packets' flits never overlap);
    an SM's port sends one flit a cycle."""
    streams = [(sm, [d if i % 3 else -1 - d for i, d in enumerate((sm * 7 + i * 5 + (i * i) % 3) % 12
                                                                   for i in range(40))]) for sm in range(15)]
    at: list[int] = []
    out = drive_xbar(allocator, streams, 800, at, output_buffer=16)
    assert len(out) == 600
    assert Counter((s, d) for _k, s, d in out) == Counter((s, d if d >= 0 else -1 - d) for s, ds in streams for d in ds)
    assert max(Counter((k, d) for k, _s, d in out).values()) == 1
    spans: dict[int, list[tuple[int, int, int]]] = {d: [] for d in range(12)}
    sent: dict[int, list[tuple[int, int]]] = {s: [] for s in range(15)}
    sizes = {s: [1 if d >= 0 else 4 for d in ds] for s, ds in streams}
    for (k, s, d), a in zip(out, at, strict=True):
        n = sizes[s].pop(0)
        first = a - n - 4  # its flits leave the port in cycles first .. first + n - 1 and arrive 5 cycles on
        spans[d].append((first, first + n - 1, k))
        sent[s].append((k, k + n - 1))
    for xs in spans.values():
        xs.sort()
        assert all(y[0] > x[1] for x, y in zip(xs, xs[1:], strict=False))  # no two packets' flits leave in one cycle
        assert all(0 <= first - k <= 16 for first, _last, k in xs)  # at most 16 flits waited ahead of it
    for xs in sent.values():
        assert all(y[0] > x[1] for x, y in zip(xs, xs[1:], strict=False))
