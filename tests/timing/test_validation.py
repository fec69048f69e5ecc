"""Validation with answers known in advance (issue 3, "What it must show").

Every expected value is computed here, or in ``ndpgpu.timing.bounds``, from the preset's YAML values by
the formulas of docs/timing.md ("Latencies", "Bandwidth bounds"), never read back from the engine.
"""

from __future__ import annotations

import numpy as np
import pytest
from refmodel import check_dram_log, l1_set, map_address, open_page, strided_degree
from tracegen import TraceBuilder, pointer_chase, shared_strided, streaming_read

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.bounds import dram_data_cycles, flits, l1_fill_bytes, load_to_use, stream_bounds

BASE = 1 << 32
NO_REFRESH = {"dram.refresh": False}  # a refresh closes every row at an arbitrary point of the chase


def lines_in_one_row(m, n: int, base: int = BASE) -> list[int]:
    """``n`` line addresses that map (reference mapping) to the DRAM row of the line at ``base``."""
    want = None
    out = []
    a = base
    while len(out) < n:
        loc = map_address(m, a)
        key = (loc["channel"], loc["bank"], loc["row"])
        if want is None:
            want = key
        if key == want:
            out.append(a)
        a += m.l1d.line_bytes
    return out


# ------------------------------------------------------------------------------------------------------
# 1. load-to-use latency of each level (pointer chasing, one thread, dependent loads)


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_load_to_use_formulas_by_hand(name):
    """The bounds module's formula evaluated by hand for each preset (docs/timing.md, "Latencies")."""
    m = load_machine(name)
    lat = load_to_use(m)
    if name == "gtx480":
        # L1 35; L2: miss 1 + request (5 + 1 - 1) + ROP 120 + L2 1 + reply (5 + ceil(136/40) - 1 = 8) + use 1
        # DRAM: 136 - 1 + 1 + (132 + 12 + 3 + 2) x 700/924 (two 64-B bursts to one bank group: tCCD_L 3)
        assert (l1_fill_bytes(m), flits(m, 0), flits(m, 128)) == (128, 1, 4)
        assert lat == pytest.approx({"l1": 35, "l2": 136, "dram": 136 + 149 * 700 / 924})
    else:
        # L1 28; L2: 1 + 5 + 120 + 1 + (5 + ceil(40/40) - 1) + 1 = 133; DRAM: 133 + (75 + 12 + 1) x 1132/850
        assert (l1_fill_bytes(m), flits(m, 32), dram_data_cycles(m, 32)) == (32, 1, 13)
        assert lat == pytest.approx({"l1": 28, "l2": 133, "dram": 133 + 88 * 1132 / 850})


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_load_to_use_l1_and_l2_exact(name):
    m = load_machine(name, NO_REFRESH)
    lat = load_to_use(m)
    lines = [BASE + 128 * 37 * i for i in range(8)]
    sess = TimingSession(m)
    first = sess.run_launch(pointer_chase(lines + lines))  # 8 DRAM loads warm L1 and L2, then 8 L1 hits
    assert first.get("latency.load_to_use.l1", "loads") == 8
    # exact up to the integer-picosecond rounding of clock edges (edge k is at k x 10^9 // f_kHz ps)
    assert first.get("latency.load_to_use.l1", "average") == pytest.approx(lat["l1"], abs=1e-3)
    second = sess.run_launch(pointer_chase(lines))  # L1 was invalidated at the launch; L2 is warm
    assert second.get("latency.load_to_use.l2", "loads") == 8
    assert second.get("latency.load_to_use.l2", "average") == pytest.approx(lat["l2"], abs=1e-3)


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_load_to_use_dram_row_hit(name):
    """Lines of one open row: every load is an L2 miss and a DRAM row hit.

    Tolerance: the request enters the DRAM clock domain at the next DRAM edge and the data re-enters
    the L2 domain at the next L2 edge, so the measured latency lies in [formula, formula + 1 + core/dram).
    """
    m = load_machine(name, NO_REFRESH)
    lat = load_to_use(m)["dram"]
    lines = lines_in_one_row(m, 9)
    sess = TimingSession(m)
    sess.run_launch(pointer_chase(lines[:1]))  # opens the row
    st = sess.run_launch(pointer_chase(lines[1:]))
    assert st.get("latency.load_to_use.dram", "loads") == 8
    assert st.get("dram", "row_hits") == 8
    got = st.get("latency.load_to_use.dram", "average")
    slack = 1 + m.clocks.core_mhz / m.clocks.dram_mhz
    assert lat <= got < lat + slack


def test_load_to_use_dram_closed_row():
    """Closed page policy: every access activates its row, adding tRCD (x core/dram) to the row-hit value."""
    m = load_machine("gtx480", {**NO_REFRESH, "dram.page_policy": "closed"})
    lat = load_to_use(m, row="closed")["dram"]
    assert lat == pytest.approx(load_to_use(m)["dram"] + m.dram.timing.tRCD * 700 / 924)
    st = TimingSession(m).run_launch(pointer_chase(lines_in_one_row(m, 8)))
    assert st.get("dram", "activates") == 8
    got = st.get("latency.load_to_use.dram", "average")
    assert lat <= got < lat + 1 + 700 / 924


# ------------------------------------------------------------------------------------------------------
# 2. streaming bandwidth within [85%, 100%] of the lowest analytic bound


@pytest.mark.parametrize("name,ctas,loads", [("gtx480", 60, 16), ("v100", 320, 8), ("gtx480-gpgpusim", 60, 16)])
def test_streaming_reaches_lowest_bound(name, ctas, loads):
    # (the instruction cache of the GPGPU-Sim overlay off: its code line would be one more DRAM read)
    m = load_machine(name, {"l1i.enabled": False} if "gpgpusim" in name else None)
    b = stream_bounds(m)
    assert b["lowest"] == b["dram"]  # both presets are DRAM-bound for a coalesced read stream
    st = TimingSession(m).run_launch(streaming_read(ctas, 512, loads))
    assert st.get("dram", "read_bytes") == ctas * 16 * loads * 128  # every line read once from DRAM
    bw = st.get("dram", "bandwidth")
    assert 0.85 * b["lowest"] <= bw <= b["lowest"]


def test_stream_bounds_by_hand():
    g = stream_bounds(load_machine("gtx480"))
    # DRAM: 6 x 8 B x 4 x 924 MHz x (1 - 102/3604); icnt: 12 slices x 128 B / 4 flits x 700 MHz
    assert g["dram"] == pytest.approx(6 * 8 * 4 * 0.924 * (1 - 102 / 3604))
    assert g["icnt"] == pytest.approx(12 * 32 * 0.7)
    # L1 MSHRs: 15 SMs x 64 x 128 B over the DRAM load-to-use latency (248.9 cycles at 700 MHz)
    lat = 136 + 149 * 700 / 924
    assert g["mshr"] == pytest.approx(min(15 * 64 * 128 / (lat / 0.7), 12 * 256 * 128 / (149 / 0.924)))
    # GPGPU-Sim's model: each 32-B sector read moves a whole 64-B burst, and there is no refresh
    assert stream_bounds(load_machine("gtx480-gpgpusim"))["dram"] == pytest.approx(6 * 8 * 4 * 0.924 / 2)
    v = stream_bounds(load_machine("v100"))
    assert v["dram"] == pytest.approx(32 * 16 * 2 * 0.85 * (1 - 221 / 3315))
    assert v["icnt"] == pytest.approx(64 * 128 / 4 * 1.132)


# ------------------------------------------------------------------------------------------------------
# 3. hit ratios of reuse patterns


def _chase(lines: list[int], passes: int):
    return pointer_chase(lines * passes, lane_mask=0xFFFFFFFF)


@pytest.mark.parametrize("name,k", [("gtx480", 4), ("v100", 3)])
def test_l1_working_set_that_fits_hits_k_minus_1_over_k(name, k):
    m = load_machine(name)
    n = m.l1d.num_lines // 2
    lines = [BASE + m.l1d.line_bytes * i for i in range(n)]
    per_set = np.bincount([l1_set(m, a) for a in lines], minlength=m.l1d.num_sets)
    assert per_set.max() <= m.l1d.assoc  # precondition: the set fits (reference set index)
    st = TimingSession(m).run_launch(_chase(lines, k))
    assert st.get("l1d", "accesses") == k * n
    assert st.get("l1d", "hit_rate") == pytest.approx((k - 1) / k)
    assert st.get("l2", "accesses") == n  # only the first pass leaves the SM


@pytest.mark.parametrize("repl", ["lru", "fifo"])
def test_l1_cyclic_working_set_one_line_too_large_never_hits(repl):
    """assoc + 1 lines per set read cyclically: LRU (and FIFO) evict each line just before its reuse."""
    m = load_machine("gtx480", {"l1d.replacement": repl})
    c = m.l1d
    by_set: dict[int, list[int]] = {}
    a = BASE
    while len(by_set) < c.num_sets or min(len(v) for v in by_set.values()) < c.assoc + 1:
        s = by_set.setdefault(l1_set(m, a), [])
        if len(s) < c.assoc + 1:
            s.append(a)
        a += c.line_bytes
    lines = [x for s in sorted(by_set) for x in by_set[s]]
    assert len(lines) == c.num_lines + c.num_sets
    st = TimingSession(m).run_launch(_chase(lines, 3))
    assert st.get("l1d", "hits") == 0
    # the L2 (64 KB per slice) holds them all: passes 2 and 3 hit there
    assert st.get("l2", "hit_rate") == pytest.approx(2 / 3)


def test_l1_lru_against_reference_for_a_mixed_pattern():
    m = load_machine("gtx480")
    rng = np.random.default_rng(5)
    pool = [BASE + 128 * int(i) for i in rng.choice(4096, 300, replace=False)]
    seq = [pool[int(i)] for i in rng.integers(0, 300, 600)]
    from refmodel import lru_hits

    want = lru_hits(seq, {a: l1_set(m, a) for a in pool}, m.l1d.assoc)
    st = TimingSession(m).run_launch(pointer_chase(seq))
    assert st.get("l1d", "hits") == want


# ------------------------------------------------------------------------------------------------------
# 4. shared-memory bank conflicts


@pytest.mark.parametrize("stride", [0, 1, 2, 3, 4, 8, 32])
def test_bank_conflict_cycles_for_strides(stride):
    repeats = 4
    st = TimingSession("gtx480").run_launch(shared_strided(stride, repeats))
    assert st.get("smem", "accesses") == repeats
    assert st.get("smem", "bank_conflict_cycles") == repeats * (strided_degree(stride) - 1)


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_dependent_shared_loads_pay_the_conflict_degree(name):
    """A chain of n dependent shared loads: stride 32 costs n x 31 cycles more than stride 1."""
    n = 10

    def chain(stride):
        b = TraceBuilder("smem_chain", 1, 32, shared_bytes=32 * 4 * 64)
        ld = b.op("ld.shared.u32", "load", dst=(1,), src=(1,), space="shared", width=4)
        use = b.op("add.s32", "int", dst=(2,), src=(1,))
        ex = b.op("exit", "branch")
        for _ in range(n):
            b.run(0, ld, base=0, stride=4 * stride)
        b.run(0, use)  # consume the last value: a warp may exit with a shared load in flight
        b.run(0, ex)
        return b.build()

    c1 = TimingSession(name).run_launch(chain(1)).cycles
    c32 = TimingSession(name).run_launch(chain(32)).cycles
    assert c32 - c1 == n * 31


# ------------------------------------------------------------------------------------------------------
# 5. row-buffer hit rate: sequential vs random


def _row_model(m, lines):
    seq = []
    for a in lines:
        loc = map_address(m, a)
        seq.append((loc["channel"], loc["bank"], loc["row"]))
    return open_page(seq)


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_row_buffer_serial_chase_equals_open_page_model(name):
    """One dependent chain: the DRAM sees the requests in program order, so the row hits, misses and
    conflicts equal an open-page model over the reference mapping exactly."""
    m = load_machine(name, NO_REFRESH)
    rng = np.random.default_rng(6)
    seq_lines = [BASE + 128 * i for i in range(96)]
    rnd_lines = [BASE + 128 * int(i) for i in rng.choice(1 << 18, 96, replace=False)]
    for lines, hi in ((seq_lines, True), (rnd_lines, False)):
        want = _row_model(m, lines)
        st = TimingSession(m).run_launch(pointer_chase(lines))
        got = {"hits": st.get("dram", "row_hits"), "misses": st.get("dram", "row_misses"),
               "conflicts": st.get("dram", "row_conflicts")}
        assert got == want
        rate = st.get("dram", "row_buffer_hit_rate")
        assert rate == pytest.approx(want["hits"] / len(lines))
        assert (rate > 0.5) if hi else (rate < 0.1)


def test_row_buffer_streaming_sequential_high_random_low():
    m = load_machine("gtx480")
    seq = TimingSession(m).run_launch(streaming_read(30, 256, 8))
    n = 30 * 8 * 8
    rng = np.random.default_rng(7)
    perm = rng.choice(1 << 19, n, replace=False)
    b = TraceBuilder("random", 30, 256)
    ld = [b.op("ld.global.f32", "load", dst=(10 + r,), src=(1,), space="global", width=4) for r in range(8)]
    ex = b.op("exit", "branch")
    for w in range(30 * 8):
        for k in range(8):
            b.run(w, ld[k], base=BASE + 128 * int(perm[w * 8 + k]), stride=4)
        b.run(w, ex)
    rnd = TimingSession(m).run_launch(b.build())
    # ideal sequential rate: one activation per row touched (reference mapping)
    lines = [BASE + 128 * i for i in range(n)]
    rows = {(d["channel"], d["bank"], d["row"]) for d in (map_address(m, a) for a in lines)}
    ideal = 1 - len(rows) / n
    assert ideal > 0.95
    assert seq.get("dram", "row_buffer_hit_rate") >= 0.6 * ideal
    # random lines over 64 MB: 6 ch x 16 banks x (64 MB / 96 / 8 KB = 85 rows); hits only by chance
    assert rnd.get("dram", "row_buffer_hit_rate") < 0.15
    assert rnd.cycles > seq.cycles


# ------------------------------------------------------------------------------------------------------
# 6. read/write turnaround


def test_read_write_turnaround_costs_visible():
    """Writes reach DRAM (write-through L2): a read/write mix counts tWTR/tRTW turnarounds and takes longer
    than the same number of DRAM requests that are all reads."""
    ov = {"l2.write_policy": "write_through", "l2.write_allocate": False, "sim.record_dram_commands": True}
    m = load_machine("gtx480", ov)
    mixed_s = TimingSession(m)
    mixed = mixed_s.run_launch(streaming_read(30, 256, 8, store=True))
    reads = TimingSession(m).run_launch(streaming_read(30, 256, 16))
    n = 30 * 8 * 8
    assert mixed.get("dram", "reads") == n
    # a launch ends when the L2 acknowledged its stores: the last write-throughs may still wait in the
    # DRAM queues (they drain during the next launch)
    assert 0.95 * n <= mixed.get("dram", "writes") <= n
    assert reads.get("dram", "reads") == 2 * n and reads.get("dram", "writes") == 0
    assert mixed.get("dram", "read_to_write_turnarounds") > 0
    assert mixed.get("dram", "write_to_read_turnarounds") > 0
    assert reads.get("dram", "read_to_write_turnarounds") == 0
    assert mixed.cycles > reads.cycles
    assert check_dram_log(m, mixed_s.dram_commands()) == []


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_dram_command_log_obeys_every_timing_constraint(name):
    ov = {"l2.write_policy": "write_through", "l2.write_allocate": False, "sim.record_dram_commands": True,
          "dram.timing.tREFI": 400}
    m = load_machine(name, ov)
    sess = TimingSession(m)
    sess.run_launch(streaming_read(8, 256, 8, store=True))
    log = sess.dram_commands()
    assert {1, 2, 3, 4, 5} <= set(log[:, 2].tolist())  # ACT, PRE, RD, WR and REF all occur
    assert check_dram_log(m, log) == []
