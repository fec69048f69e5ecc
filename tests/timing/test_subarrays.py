"""Subarray-level parallelism (``dram.subarrays_per_bank``, docs/timing.md "Subarrays").

Expected counts are worked out by hand: a single dependent chain reaches the DRAM one request at a
time, in program order, so the row-buffer outcome of every access is known in advance.
"""

from __future__ import annotations

import numpy as np
import pytest
from refmodel import check_dram_log, map_address, open_page
from tracegen import TraceBuilder, pointer_chase, streaming_read

from ndpgpu.timing import TimingSession, load_machine

BASE = 1 << 32
NO_REFRESH = {"dram.refresh": False}


def two_rows_of_one_bank(m, n: int, same_parity: bool, base: int = BASE) -> tuple[list[int], list[int]]:
    """``n`` line addresses in each of two rows of the bank of ``base``; the rows' indices have different
    parity (different subarrays for 2 subarrays, row mod 2) unless ``same_parity``."""
    r0 = map_address(m, base)["row"]
    for rows in bank_rows(m, base):
        for r, lines in rows.items():
            if r != r0 and ((r - r0) % 2 == 0) == same_parity and len(lines) >= n and len(rows[r0]) >= n:
                return rows[r0][:n], lines[:n]
    raise AssertionError("unreachable")


def bank_rows(m, base: int):
    """Walk lines upward from ``base``; after each line of ``base``'s bank, yield that bank's rows so far
    (row -> line addresses, in address order)."""
    first = map_address(m, base)
    rows: dict[int, list[int]] = {}
    a = base
    while True:
        loc = map_address(m, a)
        if (loc["channel"], loc["bank"]) == (first["channel"], first["bank"]):
            rows.setdefault(loc["row"], []).append(a)
            yield rows
        a += m.l1d.line_bytes


def alternate(a: list[int], b: list[int]) -> list[int]:
    return [x for pair in zip(a, b, strict=True) for x in pair]


def rows_in_distinct_subarrays(m, nrows: int, n: int, subarrays: int, base: int = BASE) -> list[list[int]]:
    """``n`` line addresses in each of ``nrows`` rows of the bank of ``base`` whose subarrays (row mod
    ``subarrays``) all differ; the first row is that of ``base``."""
    r0 = map_address(m, base)["row"]
    for rows in bank_rows(m, base):
        picked: dict[int, int] = {}
        for r, lines in rows.items():
            if len(lines) >= n and r % subarrays not in picked:
                picked[r % subarrays] = r
        if len(picked) >= nrows and picked.get(r0 % subarrays) == r0:
            order = [r0] + [r for r in picked.values() if r != r0]
            return [rows[r][:n] for r in order[:nrows]]
    raise AssertionError("unreachable")


def run_chase(name: str, subarrays: int, lines: list[int], max_open: int = 0, log: list | None = None):
    """Time a pointer chase over ``lines``; the row-buffer counts, the command log checked (and appended to
    ``log`` when given)."""
    m = load_machine(name, {**NO_REFRESH, "dram.subarrays_per_bank": subarrays, "sim.record_dram_commands": True,
                            "dram.max_open_subarrays": max_open})
    sess = TimingSession(m)
    st = sess.run_launch(pointer_chase(lines))
    got = {"hits": st.get("dram", "row_hits"), "misses": st.get("dram", "row_misses"),
           "conflicts": st.get("dram", "row_conflicts"), "activates": st.get("dram", "activates")}
    if max_open:
        got["precharges"] = st.get("dram", "precharges")
    assert check_dram_log(m, sess.dram_commands()) == []
    if log is not None:
        log.extend(sess.dram_commands().tolist())
    return m, st, got


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_two_rows_in_two_subarrays_hit_after_two_activates(name):
    """8 + 8 accesses alternating between rows A and B of one bank (A, B in different subarrays):
    with one row buffer every access after the first closes the other row (1 miss, 15 conflicts,
    16 ACTs); with 2 subarrays both rows stay open (2 misses, 14 hits, 2 ACTs)."""
    m = load_machine(name, NO_REFRESH)
    a, b = two_rows_of_one_bank(m, 8, same_parity=False)
    lines = alternate(a, b)
    _, one, got1 = run_chase(name, 1, lines)
    assert got1 == {"hits": 0, "misses": 1, "conflicts": 15, "activates": 16}
    _, two, got2 = run_chase(name, 2, lines)
    assert got2 == {"hits": 14, "misses": 2, "conflicts": 0, "activates": 2}
    assert two.cycles < one.cycles
    # the reference open-page model with a row buffer per subarray agrees
    seq = [(d["channel"], d["bank"], d["row"]) for d in (map_address(m, x) for x in lines)]
    assert open_page(seq) == {k: got1[k] for k in ("hits", "misses", "conflicts")}
    assert open_page(seq, 2) == {k: got2[k] for k in ("hits", "misses", "conflicts")}


def test_two_rows_in_one_subarray_still_conflict():
    """Rows of equal parity share a subarray when there are 2: the same ping-pong as with one buffer."""
    m = load_machine("gtx480", NO_REFRESH)
    a, b = two_rows_of_one_bank(m, 8, same_parity=True)
    _, _, got = run_chase("gtx480", 2, alternate(a, b))
    assert got == {"hits": 0, "misses": 1, "conflicts": 15, "activates": 16}


def test_default_is_one_subarray():
    assert load_machine("gtx480").dram.subarrays_per_bank == 1


@pytest.mark.parametrize("subarrays, cap", [(2, 0), (4, 0), (8, 2)])
def test_command_log_legal_with_subarrays(subarrays, cap):
    """Reads and write-throughs with refresh: every logged ACT/PRE/RD/WR/REF obeys the per-subarray and
    channel rules (an ACT to another subarray of an open bank is legal) and, with a cap, the open-subarray
    cap (some bank reaches it, none exceeds it)."""
    ov = {"l2.write_policy": "write_through", "l2.write_allocate": False, "sim.record_dram_commands": True,
          "dram.timing.tREFI": 1500, "dram.subarrays_per_bank": subarrays, "dram.max_open_subarrays": cap}
    m = load_machine("gtx480", ov)
    sess = TimingSession(m)
    sess.run_launch(streaming_read(8, 256, 8, store=True))
    sess.run_launch(pointer_chase(alternate(*two_rows_of_one_bank(m, 8, False, BASE + (1 << 28)))))
    if cap:
        rows = rows_in_distinct_subarrays(m, 4, 2, subarrays, BASE + (1 << 29))
        sess.run_launch(pointer_chase([rows[r][i] for i in range(2) for r in range(4)]))
    log = sess.dram_commands()
    assert {1, 2, 3, 4, 5} <= set(log[:, 2].tolist())
    assert check_dram_log(m, log) == []
    # some bank had two subarrays open at once (an ACT while another subarray's row was open)
    open_units: dict[tuple[int, int], set[int]] = {}
    most = 0
    for _k, ch, cmd, bank, row in log.tolist():
        units = open_units.setdefault((ch, bank), set())
        if cmd == 1:
            units.add(row % subarrays)
            most = max(most, len(units))
        elif cmd == 2:
            units.discard(-1 - row)
        elif cmd == 5:
            units.clear()
    assert most >= 2
    if cap:
        assert most == cap


# ------------------------------------------------------------------------------------------------------
# open-subarray cap (dram.max_open_subarrays: MPU keeps at most 4 of 8 subarrays of a bank open, LRU)


def chase_seq(m, lines: list[int]) -> list[tuple[int, int, int]]:
    return [(d["channel"], d["bank"], d["row"]) for d in (map_address(m, x) for x in lines)]


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_cap_thrashes_when_five_rows_cycle_over_four_latches(name):
    """Rows A..E of one bank in five different subarrays (S = 8), read A B C D E four times over (20
    accesses, each to a new line). No cap: 5 misses (one ACT per row), then 15 hits. Cap 4, LRU: A-D are
    misses (4 ACTs); E finds 4 open and closes the LRU one, A; A then closes B, and so on: every access
    after the fourth is a conflict, 16 of them, each a PRE + ACT (20 ACTs, 16 PREs, no hit). A cap of 5
    changes nothing."""
    m = load_machine(name, NO_REFRESH)
    rows = rows_in_distinct_subarrays(m, 5, 4, 8)
    lines = [rows[r][i] for i in range(4) for r in range(5)]
    _, free, got0 = run_chase(name, 8, lines)
    assert got0 == {"hits": 15, "misses": 5, "conflicts": 0, "activates": 5}
    _, capped, got4 = run_chase(name, 8, lines, max_open=4)
    assert got4 == {"hits": 0, "misses": 4, "conflicts": 16, "activates": 20, "precharges": 16}
    assert capped.cycles > free.cycles
    _, _, got5 = run_chase(name, 8, lines, max_open=5)
    assert got5 == {**got0, "precharges": 0}
    seq = chase_seq(m, lines)
    assert open_page(seq, 8, 4, commands=True) == got4
    assert open_page(seq, 8, 5, commands=True) == {**got0, "precharges": 0}


def test_cap_evicts_the_least_recently_used_subarray():
    """A B C D A E A B with A..E in different subarrays (S = 8, cap 4). A-D: 4 misses; A: hit (A is now the
    most recently used); E: at the cap, the LRU open subarray is B's (FIFO would pick A), so PRE B, ACT E:
    a conflict; A: hit; B: at the cap again (A, C, D, E open), LRU is C: PRE C, ACT B. Totals: 2 hits,
    4 misses, 2 conflicts, 6 ACTs, 2 PREs, and the PREs close B's then C's subarray."""
    m = load_machine("gtx480", NO_REFRESH)
    a, b, c, d, e = rows_in_distinct_subarrays(m, 5, 3, 8)
    lines = [a[0], b[0], c[0], d[0], a[1], e[0], a[2], b[1]]
    log: list = []
    _, _, got = run_chase("gtx480", 8, lines, max_open=4, log=log)
    assert got == {"hits": 2, "misses": 4, "conflicts": 2, "activates": 6, "precharges": 2}
    seq = chase_seq(m, lines)
    assert open_page(seq, 8, 4, commands=True) == got
    closed = [-1 - row for _k, _ch, cmd, _bank, row in log if cmd == 2]
    assert closed == [seq[1][2] % 8, seq[2][2] % 8]


def test_cap_spec_checks():
    from ndpgpu.timing import MachineConfigError

    assert load_machine("gtx480").dram.max_open_subarrays == 0
    with pytest.raises(MachineConfigError, match="max_open_subarrays"):
        load_machine("gtx480", {"dram.subarrays_per_bank": 4, "dram.max_open_subarrays": 5})


def random_gather(ctas: int, loads: int, span_lines: int, seed: int = 1) -> object:
    """Two warps per CTA; each load gathers 32 random lines of ``span_lines``, every third also scatters a
    store: requests to many rows of every bank at once."""
    rng = np.random.default_rng(seed)
    b = TraceBuilder("gather", ctas, 64)
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    st = b.op("st.global.f32", "store", src=(1, 10), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(ctas * 2):
        for i in range(loads):
            b.run(w, ld, addrs=BASE + 128 * rng.integers(0, span_lines, 32))
            if i % 3 == 0:
                b.run(w, st, addrs=BASE + 128 * rng.integers(0, span_lines, 32))
        b.run(w, ex)
    return b.build()


@pytest.mark.parametrize("sched", ["frfcfs", "fcfs"])
def test_cap_of_one_is_one_row_buffer_per_bank(sched):
    """With K = 1 only one subarray of a bank is open at a time and every other row needs a PRE (of the
    open subarray) and an ACT tRP later; as tRC = tRAS + tRP on gtx480, that is exactly one row buffer per
    bank: a random gather with stores and refresh gives the same cycles, DRAM statistics and command log
    (up to the subarray a PRE names) with S = 4, K = 1 as with S = 1. Under K = 4 of S = 8 the log is legal,
    and there are fewer conflicts than with K = 1 and more than without a cap."""
    tr = random_gather(30, 6, 1 << 17)
    runs = {}
    for sa, cap in ((1, 0), (4, 1), (8, 4), (8, 0)):
        m = load_machine("gtx480", {"sim.record_dram_commands": True, "dram.timing.tREFI": 1500,
                                    "dram.scheduler.impl": sched, "dram.subarrays_per_bank": sa,
                                    "dram.max_open_subarrays": cap})
        sess = TimingSession(m)
        st = sess.run_launch(tr)
        log = sess.dram_commands()
        assert check_dram_log(m, log) == []
        log[log[:, 2] == 2, 4] = -1  # a PRE's subarray
        runs[sa, cap] = (st.cycles, [r for r in st.rows() if r[0] == "dram"], log)
    one, capped = runs[1, 0], runs[4, 1]
    assert one[0] == capped[0] and one[1] == capped[1]
    assert np.array_equal(one[2], capped[2])

    def conflicts(*key: int) -> int:
        return next(v for p, mname, v, _u in runs[key][1] if mname == "row_conflicts")

    assert conflicts(8, 0) < conflicts(8, 4) < conflicts(4, 1)
