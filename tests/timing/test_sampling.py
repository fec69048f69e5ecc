"""Sampled timing (``sim.sample_waves``): which CTAs are timed, the projection's arithmetic, and a sampled launch
against the same launch timed in full."""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import TraceBuilder, streaming_read

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing import engine as E
from ndpgpu.timing.sampling import (
    Counts,
    SerialWork,
    StablePlan,
    StableWatch,
    WindowWatch,
    extended,
    only_ctas,
    plan_sample,
    plan_stable_sample,
    warp_instructions_per_cta,
)
from ndpgpu.trace.format import KernelTrace

SAMPLED = {"sim.sample_waves": 4, "sim.sample_min_waves": 8}


def test_plan_times_whole_waves_of_long_launches_only():
    assert plan_sample(1000, 100, 0, 8) is None  # off
    assert plan_sample(799, 100, 4, 8) is None  # 7.99 waves < 8
    p = plan_sample(800, 100, 4, 8)
    assert (p.ctas, p.ctas_timed, p.waves_timed, p.resident_ctas) == (800, 400, 4, 100)
    assert plan_sample(1000, 15, 3, 8, paired=True).ctas_timed == 46  # 45 rounded up to a pair
    assert plan_sample(950, 100, 9, 8) is None  # needs at least one wave beyond the sample


def test_instructions_per_cta_sum_segments_per_warp_then_per_cta():
    counts = np.array([3, 4, 5, 1, 2, 7])
    starts = np.array([0, 2, 3, 3, 6])  # warp 0: 3+4, warp 1: 5, warp 2: none, warp 3: 1+2+7
    assert warp_instructions_per_cta(counts, starts, 2).tolist() == [12, 10]


def test_extension_adds_the_windows_change_per_unit_of_work():
    final = np.array([100, 50, 7])
    start, end = np.array([20, 10, 5]), np.array([60, 30, 6])
    keep = np.array([False, False, True])
    # 2x the window's change added; the kept entry (a maximum) stays
    assert extended(final, start, end, 2.0, 9.9, keep).tolist() == [180, 90, 7]
    assert extended(final, None, None, None, 1.5).tolist() == [150, 75, 10]  # no window: scaled


def _at(cycle: int, units: int) -> Counts:
    return Counts(cycle, 0, {}, {}, {"UNITS": units}, None)


def test_serial_work_bounds_the_launch_by_its_backlog_in_two_phases():
    """A unit that falls behind the CTAs: while they run it does the window's units per cycle, then the rest at its
    rate once they had finished (hand-computed); one that keeps up leaves nothing to bound."""
    watch = WindowWatch.__new__(WindowWatch)
    watch.start, watch.end = _at(100, 100), _at(300, 300)  # 1 unit per cycle while the CTAs run
    final = _at(700, 1000)
    cycle = int  # times given in cycles already
    # the sample's CTAs finished at cycle 500 with 450 units done; the last of 1,000 at 700: 2.75 per cycle alone
    behind = SerialWork(3000, 1000, "UNITS", 500, 450, 700)
    # the CTAs end at 500 + 2 x 200 = 900 with 450 + 2 x 200 = 850 units done; 2,150 left / 2.75 = 781.8 more
    assert behind.cycles(final, watch, 2.0, cycle) == 1682
    # the unit finished before the sample's CTAs did: what is left at the window's rate after the CTAs' end
    kept_pace = SerialWork(3000, 1000, "UNITS", -1, 0, 650)
    assert kept_pace.cycles(final, watch, 2.0, cycle) == 700 + 400 + (3000 - 1000 - 400)
    assert SerialWork(1400, 1000, "UNITS", -1, 0, 650).cycles(final, watch, 2.0, cycle) is None  # none left
    watch.end = None
    assert behind.cycles(final, watch, 2.0, cycle) is None  # no window, no rate


@pytest.fixture(scope="module")
def pair():
    """A streaming kernel of 12 waves on gtx480 (120 resident CTAs of 128 threads), full and sampled."""
    tr = streaming_read(1440, 128, 8, store=True)
    full = TimingSession("gtx480").run_launch(tr)
    sess = TimingSession(load_machine("gtx480", SAMPLED))
    sampled = sess.run_launch(tr)
    return tr, full, sampled, sess


def test_sampled_launch_times_four_waves_and_says_so(pair):
    tr, full, sampled, _ = pair
    sp = sampled.sampled
    assert sp["ctas"] == 1440 and sp["ctas_timed"] == 4 * 120
    assert sp["window_cycles"] > 0  # a steady window was found
    assert sampled.get("sampling", "ctas_timed_fraction") == pytest.approx(480 / 1440)
    assert full.sampled is None and full.get("sampling", "ctas") is None


def test_projection_restores_the_launchs_work_exactly(pair):
    tr, full, sampled, _ = pair
    # every warp-instruction of the trace: the sample's plus its window's rate times the untimed work
    assert sampled.c("WARP_INSTS") == full.c("WARP_INSTS") == tr.warp_instructions()
    assert sampled.c("CTAS_LAUNCHED") == 1440 and sampled.c("WARPS_LAUNCHED") == 1440 * 4
    assert sampled.get("dram", "read_bytes") == pytest.approx(full.get("dram", "read_bytes"), rel=0.02)


def test_projected_cycles_track_the_full_run(pair):
    _, full, sampled, _ = pair
    # a uniform streaming kernel: its steady state is what the full run repeats (measured error here ~1%)
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.05)
    assert sampled.time_ps == pytest.approx(full.time_ps, rel=0.05)
    assert sampled.sampled["cycles_timed"] < 0.5 * sampled.cycles


def test_session_clock_moves_by_the_projected_time(pair):
    _, _, sampled, sess = pair
    assert sess.kernel_time_ps == sampled.time_ps
    assert sess.totals().get("sampling", "launches_sampled") == 1


def test_short_launch_is_timed_in_full_and_identically():
    tr = streaming_read(300, 128, 4)  # 2.5 waves
    a = TimingSession("gtx480").run_launch(tr)
    b = TimingSession(load_machine("gtx480", SAMPLED)).run_launch(tr)
    assert b.sampled is None
    assert np.array_equal(a.ctr, b.ctr) and a.cycles == b.cycles


def test_time_series_not_asked_for_is_not_returned(pair):
    _, _, sampled, _ = pair
    assert sampled.time_series is None  # the sample's own clock is internal
    assert sampled.ctr[E.T_BEGIN_PS] >= 0


def test_launches_alike_are_timed_twice_then_projected():
    tr = streaming_read(60, 128, 8)
    full = TimingSession("gtx480")
    sess = TimingSession(load_machine("gtx480", {"sim.sample_launches": 2}))
    a = [full.run_launch(tr) for _ in range(4)]
    b = [sess.run_launch(tr) for _ in range(4)]
    assert [s.sampled is None for s in b] == [True, True, False, False]
    assert np.array_equal(a[1].ctr, b[1].ctr)  # the timed ones are the full run's
    assert b[3].cycles == b[1].cycles and np.array_equal(b[3].ctr, b[1].ctr)  # same work: the last timed one's
    assert b[3].sampled["projected_from"] == b[1].launch_id
    assert sess.kernel_time_ps == sum(s.time_ps for s in b)
    tot = sess.totals()
    assert tot.get("sampling", "launches_sampled") == 2 and tot.get("sampling", "ctas") == 4 * 60
    assert tot.get("sampling", "ctas_timed") == 2 * 60
    # the L2 kept warm by the full run's third and fourth launches is what the projection copies
    assert b[3].cycles == pytest.approx(a[3].cycles, rel=0.05)


def test_launches_of_other_work_are_timed():
    sess = TimingSession(load_machine("gtx480", {"sim.sample_launches": 1}))
    sess.run_launch(streaming_read(60, 128, 8))
    other = sess.run_launch(streaming_read(60, 128, 6))  # 25% less work: not alike
    assert other.sampled is None


def test_sampling_off_leaves_every_machine_hash_as_before_the_fields():
    # hashes of commit fcb9fca, before the sampling fields existed: stored points keep their keys
    # (gtx480's L1 took Fermi's hash later, a deliberate change: its hash of then is that of its fold, set back;
    # so did the 3.x flavour's L2 write-allocate, DRAM front end and drained launches, set back here to the
    # write-validate, the direct DRAM queue and the launches ending with their last CTA it had then, and its per-bank
    # DRAM scheduler and its atomics coalesced by segment, set back to the pooled FR-FCFS and atomics by line, and
    # its address decoding as GPGPU-Sim's, set back to the gtx480 preset's string, and its CTA round robin carried
    # across launches from SM 1 and GPGPU-Sim's latency table, set back to every launch from SM 0 and the
    # machine's latencies, and its refetch after a taken branch, set back to a fetch that reads the target, and its
    # iSLIP crossbar, set back to round robin, and its memory queue, set back to none)
    before = {"gtx480": "6b697739d82e2a10", "gtx480-gpgpusim3": "5d3e20487b8a8534", "mpu": "dd99ec0517c6af3d"}
    fold = {"gtx480": {"l1d.set_index": "xor"},
            "gtx480-gpgpusim3": {"l2.write_miss_fetch": False, "dram.partition_queue": 0, "sim.drain_memory": False,
                                 "dram.scheduler.impl": "frfcfs", "core.atomic_segment_bytes": 0,
                                 "core.atomic_warp_parts": 1, "dram.mapping.fields": "BB.GG.CCCC.P.CC.XXXXXX",
                                 "core.cta_dispatch.carry_round_robin": False, "core.cta_dispatch.first_sm": 0,
                                 "core.latency_table": "machine", "core.branch_refetch": False,
                                 "icnt.allocator": "round_robin", "core.mem_queue": 0}}
    assert {n: load_machine(n, fold.get(n)).config_hash() for n in before} == before
    sampled = load_machine("gtx480+sampled", fold["gtx480"]).config_hash()
    assert sampled != before["gtx480"]
    assert load_machine("gtx480", {"sim.sample_launches": 2, **fold["gtx480"]}).config_hash() not in (
        sampled, before["gtx480"])


# ---------------------------------------------------------------- short launches: until the rate is stable

STABLE = {"sim.sample_stable_window": 0.2, "sim.sample_stable_tolerance": 0.1, "sim.sample_stable_min_insts": 500}


class _C:
    """The two numbers a stability watch reads of a count."""

    def __init__(self, cycle: int, insts: int) -> None:
        self.cycle, self.insts = cycle, insts


def test_plan_for_a_stable_rate_needs_long_warps():
    counts = np.array([1000, 1000, 999])
    p = plan_stable_sample(1, counts, 1, 0.2, 0.1, 2000)
    assert p is not None and p.insts == 2999 and p.step == int(2999 * 0.2 / 8)
    assert plan_stable_sample(1, counts, 2, 0.2, 0.1, 2000) is None  # 1,499.5 per warp on average
    assert plan_stable_sample(1, counts, 1, 0.0, 0.1, 2000) is None  # off


def test_watch_waits_half_a_window_then_stops_on_eight_steady_intervals():
    w = StableWatch(StablePlan(1, 8000, 0.2, 0.1))  # 200 warp-instructions per interval
    assert w.next_target() == 200
    t = 0
    for i in range(12):
        t += 100  # 2 warp-instructions per cycle throughout
        w.take(_C(t, 200 * (i + 1)))
        assert w.stable == (i + 1 >= 8 + 1 + 4)  # 13 marks: a window of 8 starting at the 5th
        if w.stable:
            break
    else:
        w.take(_C(t + 100, 200 * 13))
    assert w.stable and w.next_target() == 0
    assert (w.end.insts - w.start.insts, w.end.cycle - w.start.cycle) == (1600, 800)


def test_watch_does_not_stop_while_the_rate_drifts():
    w = StableWatch(StablePlan(1, 40000, 0.2, 0.1))
    t, n = 0, 0
    for i in range(40):
        t += int(100 * 1.04**i)  # each interval 4% longer: the rate keeps falling (by 24% over 8 of them)
        n += w.plan.step
        w.take(_C(t, n))
    assert not w.stable  # over 8 intervals the rates spread beyond 10% of their mean at every point
    assert len(w.marks) == 9  # only what the next window needs is kept


@pytest.fixture(scope="module")
def one_wave():
    """A one-wave streaming kernel on gtx480 (120 CTAs of 4 warps, 8 per SM), full and stopped once stable."""
    tr = streaming_read(120, 128, 300, store=True)
    full = TimingSession("gtx480").run_launch(tr)
    sess = TimingSession(load_machine("gtx480", {**SAMPLED, **STABLE}))
    return tr, full, sess.run_launch(tr), sess


def test_a_one_wave_launch_stops_once_stable_and_says_so(one_wave):
    tr, full, sampled, sess = one_wave
    sp = sampled.sampled
    assert sp["kind"] == "stable" and sp["ctas"] == sp["ctas_timed"] == 120
    assert sp["window_insts"] > 0.15 * tr.warp_instructions()  # a window of about a fifth of the launch
    assert sampled.get("sampling", "launches_stable") == 1
    assert 0 < sampled.get("sampling", "insts_timed_fraction") < 0.6
    assert sess.kernel_time_ps == sampled.time_ps


def test_a_stable_projection_restores_the_work_and_tracks_the_cycles(one_wave):
    tr, full, sampled, _ = one_wave
    assert sampled.c("WARP_INSTS") == full.c("WARP_INSTS") == tr.warp_instructions()
    assert sampled.c("CTAS_LAUNCHED") == 120 and sampled.c("WARPS_LAUNCHED") == 480
    assert sampled.get("dram", "read_bytes") == pytest.approx(full.get("dram", "read_bytes"), rel=0.03)
    # a uniform stream: its steady state is what the full run repeats (measured here: 4.2% under)
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.05)
    assert sampled.sampled["cycles_timed"] < 0.6 * sampled.cycles


def test_stable_sampling_leaves_long_launches_to_waves_and_short_warps_in_full(pair):
    tr, _, wave_sampled, _ = pair
    both = TimingSession(load_machine("gtx480", {**SAMPLED, **STABLE})).run_launch(tr)
    assert both.sampled["kind"] == "waves" and both.cycles == wave_sampled.cycles
    short = streaming_read(120, 128, 20)  # 21 instructions per warp
    a = TimingSession("gtx480").run_launch(short)
    b = TimingSession(load_machine("gtx480", STABLE)).run_launch(short)
    assert b.sampled is None and a.cycles == b.cycles


def test_a_launch_whose_rate_never_settles_is_timed_in_full():
    tr = streaming_read(120, 128, 300, store=True)
    a = TimingSession("gtx480").run_launch(tr)
    b = TimingSession(load_machine("gtx480", {**STABLE, "sim.sample_stable_tolerance": 0.0})).run_launch(tr)
    assert b.sampled is None and a.cycles == b.cycles and np.array_equal(a.ctr, b.ctr)


def test_stable_sampling_off_keeps_the_hash_and_on_changes_it():
    base = load_machine("gtx480").config_hash()
    assert load_machine("gtx480", {"sim.sample_stable_min_insts": 2000}).config_hash() == base
    assert load_machine("gtx480", STABLE).config_hash() != base
    assert load_machine("gtx480+sampled-all").config_hash() != load_machine("gtx480+sampled").config_hash()


def _barrier_loop(ctas: int, iterations: int) -> KernelTrace:
    """Each warp of 4-warp CTAs loads a line and waits at the CTA's barrier, ``iterations`` times; warp 0 of each
    CTA also runs 6 ALU instructions per iteration, so its warps reach each barrier at different times."""
    b = TraceBuilder("bar_loop", ctas, 128)
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    add = b.op("add.s32", "int", dst=(11,), src=(11,))
    bar = b.op("bar.sync", "barrier")
    ex = b.op("exit", "branch")
    nw = ctas * 4
    for w in range(nw):
        for k in range(iterations):
            b.run(w, ld, base=(1 << 32) + (k * nw + w) * 128, stride=4)
            for _ in range(6 if w % 4 == 0 else 0):
                b.run(w, add)
            b.run(w, bar)
        b.run(w, ex)
    return b.build()


def test_issue_stops_cleanly_with_warps_waiting_at_a_barrier():
    tr = _barrier_loop(60, 300)  # one wave on gtx480: 60 CTAs, 4 per SM
    full = TimingSession("gtx480").run_launch(tr)
    sampled = TimingSession(load_machine("gtx480", STABLE)).run_launch(tr)
    sp = sampled.sampled
    assert sp is not None and sp["kind"] == "stable" and sp["insts_timed"] < tr.warp_instructions()
    # the launch ended (no stall) and its work is restored; every barrier the full run passed is counted
    assert sampled.c("WARP_INSTS") == full.c("WARP_INSTS")
    assert sampled.c("BARRIERS") == pytest.approx(full.c("BARRIERS"), rel=0.01)
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.10)


def test_the_run_summary_says_the_launch_was_sampled(one_wave):
    from ndpgpu.clisummary import totals_block

    _, full, _, sess = one_wave
    line = [x for x in totals_block(sess.totals()) if "SAMPLED" in x]
    assert len(line) == 1 and "1 launch(es) projected (1 stopped once their rate was stable)" in line[0]
    assert "of the warp-instructions" in line[0]
    assert not [x for x in totals_block(full) if "SAMPLED" in x]


def test_only_ctas_keeps_the_timed_ctas_streams_in_place():
    tr = streaming_read(6, 64, 5)  # 6 CTAs of 2 warps
    sub = only_ctas(tr, np.array([4, 1]))
    assert sub.num_warps == tr.num_warps  # warp ids stay global
    kept = {2, 3, 8, 9}  # the warps of CTAs 1 and 4
    for w in range(tr.num_warps):
        a = tr.segments[tr.warp_seg_start[w]:tr.warp_seg_start[w + 1]]
        b = sub.segments[sub.warp_seg_start[w]:sub.warp_seg_start[w + 1]]
        ma = tr.mem[tr.warp_mem_start[w]:tr.warp_mem_start[w + 1]]
        mb = sub.mem[sub.warp_mem_start[w]:sub.warp_mem_start[w + 1]]
        assert (np.array_equal(a, b) and np.array_equal(ma, mb)) if w in kept else (len(b) == 0 and len(mb) == 0)


def test_a_launch_sampled_by_waves_is_timed_the_same_from_its_timed_ctas_alone(pair, monkeypatch):
    # the tables built from the CTAs timed give the statistics the whole trace's tables give
    import ndpgpu.timing.sampling as sampling

    tr, _, sampled, _ = pair
    monkeypatch.setattr(sampling, "only_ctas", lambda trace, ctas: trace)
    whole = TimingSession(load_machine("gtx480", SAMPLED)).run_launch(tr)
    assert whole.cycles == sampled.cycles and np.array_equal(whole.ctr, sampled.ctr)
    assert np.array_equal(whole.per_sm, sampled.per_sm)
