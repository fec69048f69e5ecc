"""``l2.lazy_fetch_on_read`` (GPGPU-Sim 4.0's L2 write allocation 'L', in the ``gpgpusim`` overlay): a sector a
write miss allocates is readable only if that write covered all 32 of its bytes; a read of an unreadable sector
misses and fetches it from DRAM, after which it is readable; a write hit leaves readability as it was. Expected
counts are derived by hand; the coalescer's partial-sector masks are checked against a plain-Python count of the
bytes the lanes cover."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import TraceBuilder, pointer_chase

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.trace.coalesce import coalesce_trace

BASE = 1 << 32
FULL = 0xFFFFFFFF
# the memory side alone: no refresh, an ideal front end
QUIET = {"dram.refresh": False, "core.ibuffer": 0, "l1i.enabled": False}


def stores(rows: list[tuple[int, int, int]], width: int = 4) -> object:
    """One warp stores, for each ``(base, stride, mask)``, lane ``i``'s ``width`` bytes at ``base + stride * i``."""
    b = TraceBuilder("st", 1, 32)
    st = b.op("st.global.b32" if width == 4 else "st.global.u8", "store", src=(1, 2), space="global", width=width)
    ex = b.op("exit", "branch")
    for base, stride, mask in rows:
        b.run(0, st, mask, base=base, stride=stride)
    b.run(0, ex)
    return b.build()


def partial_reference(base: int, stride: int, mask: int, width: int) -> dict[int, int]:
    """Per 128-B line, the 32-B sectors the lanes touch without covering all 32 bytes (plain Python)."""
    held: dict[int, set[int]] = {}
    for lane in range(32):
        if (mask >> lane) & 1:
            for byte in range(base + stride * lane, base + stride * lane + width):
                held.setdefault(byte // 32, set()).add(byte % 32)
    out: dict[int, int] = {}
    for atom, got in held.items():
        line = atom * 32 // 128 * 128
        out.setdefault(line, 0)
        if len(got) < 32:
            out[line] |= 1 << (atom * 32 - line) // 32
    return out


@pytest.mark.parametrize("base,stride,mask,width", [
    (BASE, 4, FULL, 4),                 # one full line: nothing partial
    (BASE, 4, FULL & ~1, 4),            # lane 0 off: sector 0 lacks its first word
    (BASE + 16, 4, FULL, 4),            # misaligned by half a sector: the first and last sectors partial
    (BASE, 1, FULL, 1),                 # 32 bytes by 32 lanes: one full sector
    (BASE, 1, 0x0000FFFF, 1),           # 16 bytes: partial
    (BASE, 8, FULL, 4),                 # every other word of two lines
    (BASE, 128, 0b1011, 4),             # one word in each of three lines
])
def test_partial_sectors_match_a_byte_count(base, stride, mask, width):
    trace = stores([(base, stride, mask)], width)
    co = coalesce_trace(trace, 128, partial=True)
    got = {int(line): int(p) for line, p in zip(co.tx_line, co.tx_partial, strict=True)}
    assert got == partial_reference(base, stride, mask, width)
    assert coalesce_trace(trace, 128).tx_partial is None


def test_random_records_match_a_byte_count():
    rng = np.random.default_rng(7)
    for _ in range(40):
        base = BASE + int(rng.integers(0, 512))
        stride = int(rng.choice([1, 2, 4, 8, 12, 64]))
        mask = int(rng.integers(1, 1 << 32))
        width = int(rng.choice([1, 4]))
        co = coalesce_trace(stores([(base, stride, mask)], width), 128, partial=True)
        got = {int(line): int(p) for line, p in zip(co.tx_line, co.tx_partial, strict=True)}
        assert got == partial_reference(base, stride, mask, width), (base, stride, mask, width)


def _session(lazy: bool) -> TimingSession:
    return TimingSession("gtx480-gpgpusim", {**QUIET, "l2.lazy_fetch_on_read": lazy})


def test_only_the_4_0_flavour_takes_it():
    for name in ("gtx480-gpgpusim", "v100-gpgpusim"):
        assert load_machine(name).l2.lazy_fetch_on_read
    for name in ("gtx480", "v100", "gtx480-gpgpusim3", "llc-mesh+gpgpusim3"):
        assert not load_machine(name).l2.lazy_fetch_on_read


def test_a_sector_written_in_part_is_fetched_when_read():
    """Launch 1 stores lanes 1-31 of line A (its sector 0 lacks 4 bytes, sectors 1-3 whole) and all of line B.
    Launch 2 reads a word of A and one of B, one dependent load each; the overlay's unsectored L1D asks the L2 for
    each whole line. Under the rule A's request misses and reads its sector 0 from DRAM (one read), B's hits;
    without it both hit. Launch 3 reads A again: filled by launch 2, it hits."""
    a, b = BASE, BASE + 4096
    for lazy, (misses, dram_reads) in ((True, (1, 1)), (False, (0, 0))):
        sess = _session(lazy)
        sess.run_launch(stores([(a, 4, FULL & ~1), (b, 4, FULL)]))
        reads = sess.run_launch(pointer_chase([a + 64, b]))
        assert (reads.get("l2", "misses"), reads.get("l2", "hits")) == (misses, 2 - misses)
        assert reads.get("dram", "reads") == dram_reads
        again = sess.run_launch(pointer_chase([a]))
        assert (again.get("l2", "hits"), again.get("dram", "reads")) == (1, 0)


def test_a_write_hit_keeps_a_sector_readable_and_a_whole_write_makes_one_readable():
    """Line A read in from DRAM (clean, readable), then written in part (a hit): it stays readable. Line B
    written but for lane 0 (sector 0 unreadable), then its sector 0 written whole by lanes 0-7: readable again.
    A later launch reading both hits twice and reads nothing from DRAM."""
    a, b = BASE, BASE + 4096
    sess = _session(True)
    first = sess.run_launch(pointer_chase([a]))
    assert first.get("dram", "reads") == 1
    sess.run_launch(stores([(a, 4, 0b10)]))
    sess.run_launch(stores([(b, 4, FULL & ~1)]))
    sess.run_launch(stores([(b, 4, 0xFF)]))
    reads = sess.run_launch(pointer_chase([a, b]))
    assert (reads.get("l2", "hits"), reads.get("dram", "reads")) == (2, 0)
