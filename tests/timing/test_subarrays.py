"""Subarray-level parallelism (``dram.subarrays_per_bank``, docs/timing.md "Subarrays").

Expected counts are worked out by hand: a single dependent chain reaches the DRAM one request at a
time, in program order, so the row-buffer outcome of every access is known in advance.
"""

from __future__ import annotations

import pytest
from refmodel import check_dram_log, map_address, open_page
from tracegen import pointer_chase, streaming_read

from ndpgpu.timing import TimingSession, load_machine

BASE = 1 << 32
NO_REFRESH = {"dram.refresh": False}


def two_rows_of_one_bank(m, n: int, same_parity: bool, base: int = BASE) -> tuple[list[int], list[int]]:
    """``n`` line addresses in each of two rows of the bank of ``base``; the rows' indices have different
    parity (different subarrays for 2 subarrays, row mod 2) unless ``same_parity``."""
    first = map_address(m, base)
    rows: dict[int, list[int]] = {}
    a = base
    while True:
        loc = map_address(m, a)
        if (loc["channel"], loc["bank"]) == (first["channel"], first["bank"]):
            rows.setdefault(loc["row"], []).append(a)
            r0 = first["row"]
            for r, lines in rows.items():
                if r != r0 and ((r - r0) % 2 == 0) == same_parity and len(lines) >= n and len(rows[r0]) >= n:
                    return rows[r0][:n], lines[:n]
        a += m.l1d.line_bytes


def alternate(a: list[int], b: list[int]) -> list[int]:
    return [x for pair in zip(a, b, strict=True) for x in pair]


def run_chase(name: str, subarrays: int, lines: list[int]):
    m = load_machine(name, {**NO_REFRESH, "dram.subarrays_per_bank": subarrays, "sim.record_dram_commands": True})
    sess = TimingSession(m)
    st = sess.run_launch(pointer_chase(lines))
    got = {"hits": st.get("dram", "row_hits"), "misses": st.get("dram", "row_misses"),
           "conflicts": st.get("dram", "row_conflicts"), "activates": st.get("dram", "activates")}
    assert check_dram_log(m, sess.dram_commands()) == []
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


@pytest.mark.parametrize("subarrays", [2, 4])
def test_command_log_legal_with_subarrays(subarrays):
    """Reads and write-throughs with refresh: every logged ACT/PRE/RD/WR/REF obeys the per-subarray and
    channel rules (an ACT to another subarray of an open bank is legal)."""
    ov = {"l2.write_policy": "write_through", "l2.write_allocate": False, "sim.record_dram_commands": True,
          "dram.timing.tREFI": 1500, "dram.subarrays_per_bank": subarrays}
    m = load_machine("gtx480", ov)
    sess = TimingSession(m)
    sess.run_launch(streaming_read(8, 256, 8, store=True))
    sess.run_launch(pointer_chase(alternate(*two_rows_of_one_bank(m, 8, False, BASE + (1 << 28)))))
    log = sess.dram_commands()
    assert {1, 2, 3, 4, 5} <= set(log[:, 2].tolist())
    assert check_dram_log(m, log) == []
    # some bank had two subarrays open at once (an ACT while another subarray's row was open)
    open_units: dict[tuple[int, int], set[int]] = {}
    overlap = False
    for _k, ch, cmd, bank, row in log.tolist():
        units = open_units.setdefault((ch, bank), set())
        if cmd == 1:
            overlap |= bool(units)
            units.add(row % subarrays)
        elif cmd == 2:
            units.discard(-1 - row)
    assert overlap
