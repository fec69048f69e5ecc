"""Sampled timing: within a launch, time a prefix of its CTAs and project the rest from the steady state;
across launches, time the first of several alike and project the later ones.

Within a launch. A launch of many CTA waves spends most of its cycles in a steady state whose rate a few
waves measure. With
``sim.sample_waves`` = k > 0, a launch of at least ``sim.sample_min_waves`` waves (a wave: as many CTAs as the
GPU's SMs hold at once) dispatches only the first k waves' CTAs in its dispatch order; they run in full detail
(ramp-up with cold L1s, the steady state, the drain of the last wave, every mechanism's hardware with them)
and the launch ends as a shorter one does. Then, after Principal Kernel Projection (Avalos Baddouh et al.,
"Principal Kernel Analysis", MICRO 2021: stop detailed simulation once the rate is stable and project the
remaining instructions at that rate) and the thread-block sampling of TBPoint (Huang et al., IPDPS 2014):

* ``scale`` = the launch's recorded warp-instructions over the timed CTAs' (both from the trace, so a launch
  with CTAs of unequal work is weighted by work, not by count);
* the steady window runs from the dispatch of the second wave's first CTA (the first that waited for a slot)
  to the dispatch of the last timed wave's first CTA, whole waves; every count of the engine, the links and the
  mechanism is read at both ends (the loop hands back there: ``WindowWatch``);
* the untimed work is ``(scale - 1)`` x the sample's issued warp-instructions; every count (cycles,
  instructions, accesses, bytes, flits, stall and busy cycles, refreshes, the mechanism's counters) grows by
  its change over the window per warp-instruction times that work. Ramp-up (cold L1s and L2) and drain are
  counted once, as in the full launch; maxima (queue high-water marks) stay the sample's; CTAs and warps
  dispatched are known, so they are the sample's times the CTAs' ratio.

Nothing is read that the full run would not have read: the CTAs timed are the first ones the dispatcher
would have placed, from the same trace. What the projection cannot see: state a later CTA would find that
the prefix did not leave (the L2's contents at the launch's end, a mechanism's tables after the prefix),
phases after the prefix (a launch whose CTAs change behaviour with their index); rates over time
(utilisations) are those of the extended counts over the projected time.

Across launches. With ``sim.sample_launches`` = n > 0, launches alike (same kernel, grid, block and shared
memory, recorded warp-instructions within ``sim.sample_launch_tolerance``) are timed until n of them have
been; each later one is not timed: its statistics are the last timed one's, every count and its time times
the ratio of the two launches' recorded warp-instructions (the first of a group warms the caches up, as the
iterations of a stencil or of k-means repeat each other; after the selection of representative kernels among
many alike in PKA and in Sieve, Naderan-Tahan et al., ISPASS 2023). A launch not timed leaves the machine as
the last timed launch left it (caches, DRAM rows, a mechanism's tables): what it would have changed is not
seen by the launches after it.

Within a short launch. A launch too short for waves (fewer than ``sim.sample_min_waves``: one CTA per SM, a
single wave) is sampled, with ``sim.sample_stable_window`` = w > 0, as Principal Kernel Projection does: it is
timed in full detail from its start, the loop hands back every w/8 of the launch's recorded warp-instructions,
and once the issue rate (warp-instructions per cycle) of the last 8 such intervals (w of the launch), none
starting before w/2, varies by at most ``sim.sample_stable_tolerance`` of its mean, issue stops: every warp's
stream ends where it stands, the warps drain, and the launch ends as a shorter one does. The window is those 8
intervals; ``scale`` is the launch's recorded warp-instructions over those issued. A launch whose rate never
settles is timed in full, as are launches whose warps record fewer than ``sim.sample_stable_min_insts``
instructions on average.

Serial work. A mechanism may queue, for the whole grid, work that one unit does in sequence whatever CTAs run
(a controller that requests every block's lines while the blocks run ahead of it): the waves timed then end when
that unit has done their part, and the whole launch lasts at least as long as the unit needs for all of it. The
mechanism says so (``MechanismHardware.serial_work``: its units for the whole grid and for the CTAs timed, and
its counter of units done, and when the sample's CTAs had all finished while it still had units to do). The
unit's time has two phases: while the CTAs run, where the steady window's projection puts their end, doing units
at the window's rate of them; then the units left, at its rate in the sample after its CTAs had finished. The
projected cycles are the larger of that and the CTAs' projection: where the unit keeps up with the CTAs, no
units are left when they end and the CTAs' projection decides; where it falls behind, its backlog does. Where
the bound decides, every count is the sample's times ``scale`` (the launch is the sample stretched, as a whole),
and ``Projection.serial`` says so.

Errors against full runs are measured, not assumed: docs/sampling.md.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np


@dataclasses.dataclass(frozen=True)
class SamplePlan:
    """Which CTAs of a launch are timed: the first ``ctas_timed`` of its dispatch order."""

    ctas: int
    ctas_timed: int
    waves: float  # the launch's waves (CTAs / CTAs resident at once on the GPU's SMs)
    waves_timed: int
    resident_ctas: int


def plan_sample(num_ctas: int, resident_ctas: int, sample_waves: int, min_waves: int,
                paired: bool = False) -> SamplePlan | None:
    """The CTAs to time for a launch of ``num_ctas`` CTAs of which ``resident_ctas`` fit on the GPU at once,
    or ``None`` when the launch is timed in full (sampling off, or fewer than ``min_waves`` waves).
    ``paired``: the dispatcher places CTAs in pairs, so an even count is timed."""
    if sample_waves <= 0 or num_ctas <= 0 or resident_ctas <= 0:
        return None
    waves = num_ctas / resident_ctas
    if waves < max(min_waves, sample_waves + 1):
        return None
    timed = sample_waves * resident_ctas
    if paired and timed % 2:
        timed += 1
    if timed >= num_ctas:
        return None
    return SamplePlan(num_ctas, timed, waves, sample_waves, resident_ctas)


@dataclasses.dataclass(frozen=True)
class StablePlan:
    """A short launch timed until its issue rate is stable (``sim.sample_stable_window``), then projected."""

    ctas: int
    insts: int  # recorded warp-instructions of the launch
    window: float  # the share of ``insts`` the rate must be stable over
    tolerance: float  # the rates' spread allowed, as a share of their mean
    ctas_timed: int = 0  # CTAs dispatched when issue stopped (all of them for a one-wave launch)

    INTERVALS: ClassVar[int] = 8  # intervals of a window

    @property
    def step(self) -> int:
        """Warp-instructions per interval."""
        return max(1, int(self.insts * self.window / self.INTERVALS))


def plan_stable_sample(num_ctas: int, segment_counts: np.ndarray, num_warps: int, window: float, tolerance: float,
                       min_insts: int) -> StablePlan | None:
    """The plan for timing a launch until its rate is stable, or ``None`` when it is timed in full (sampling off,
    no warps, or fewer than ``min_insts`` recorded warp-instructions per warp on average)."""
    if window <= 0 or num_warps <= 0:
        return None
    insts = int(segment_counts.sum(dtype=np.int64))
    if insts < min_insts * num_warps:
        return None
    return StablePlan(num_ctas, insts, window, tolerance)


def only_ctas(trace: Any, ctas: np.ndarray) -> Any:
    """``trace`` keeping the streams and memory records of CTAs ``ctas`` only: every other warp keeps its place
    (warp ids stay global) with no segment and no record. A launch sampled by waves builds its tables (the
    coalesced transactions above all) from this, since the CTAs not timed never run; lane addresses stay whole
    (records index them)."""
    wpc = trace.launch.warps_per_cta
    keep = np.zeros(trace.num_warps, bool)
    keep[(np.asarray(ctas, np.int64)[:, None] * wpc + np.arange(wpc)).ravel()] = True

    def select(starts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        starts = np.asarray(starts, np.int64)
        lengths = np.where(keep, np.diff(starts), 0)
        rows = np.repeat(keep, np.diff(starts)) if n else np.zeros(0, bool)
        return rows, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)

    seg_rows, seg_starts = select(trace.warp_seg_start, len(trace.segments))
    mem_rows, mem_starts = select(trace.warp_mem_start, len(trace.mem))
    regvals = trace.regvals[keep[trace.regvals["warp"].astype(np.int64)]] if len(trace.regvals) else trace.regvals
    return dataclasses.replace(trace, segments=trace.segments[seg_rows], warp_seg_start=seg_starts,
                               mem=trace.mem[mem_rows], warp_mem_start=mem_starts, regvals=regvals)


def warp_instructions_per_cta(counts: np.ndarray, warp_seg_start: np.ndarray, warps_per_cta: int) -> np.ndarray:
    """Recorded warp-instructions of each CTA: the segments' counts summed per warp, then per CTA."""
    cum = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
    per_warp = cum[warp_seg_start[1:]] - cum[warp_seg_start[:-1]]
    return per_warp.reshape(-1, warps_per_cta).sum(axis=1)


@dataclasses.dataclass
class Counts:
    """Every count of a launch so far, at one moment: the engine's tables, the links' and the mechanism's."""

    cycle: int
    ctas_dispatched: int
    arrays: dict[str, np.ndarray]  # ctr, per_sm, ... (the LaunchStats fields of the same names)
    extra: dict[str, int]
    mechanism: dict[str, int]
    mesh: dict[str, np.ndarray] | None

    @property
    def insts(self) -> int:
        from . import engine as E

        return int(self.arrays["ctr"][E.T_WARP_INSTS])


class WindowWatch:
    """The counts at the two ends of a sampled launch's steady window. The loop hands back
    (``ST_SAMPLE``) at the end of the cycle in which the second wave's first CTA is dispatched (the first CTA
    that waited for a slot: the first wave has begun to finish), and again when the last timed wave's first CTA
    is. Both ends sit at the start of a wave, so a launch whose CTAs run in lock-step waves is cut at the same
    phase at both ends and the window holds whole waves."""

    by_instructions = False  # the ends are counts of CTAs dispatched (``G_SAMPLE_AT``)

    def __init__(self, plan: SamplePlan) -> None:
        self.targets = [plan.resident_ctas + 1, (plan.waves_timed - 1) * plan.resident_ctas + 1]
        self.start: Counts | None = None
        self.end: Counts | None = None

    def next_target(self) -> int:
        """CTAs dispatched at which the loop should hand back next (0: no more)."""
        return self.targets[0 if self.start is None else 1] if self.end is None else 0

    def take(self, counts: Counts) -> None:
        if self.start is None:
            self.start = counts
        elif self.end is None:
            self.end = counts


class StableWatch(WindowWatch):
    """Counts every ``plan.step`` issued warp-instructions (the loop hands back at ``G_SAMPLE_INSTS``); stable
    once the last ``INTERVALS`` intervals, none before half a window, have rates within the plan's tolerance of
    their mean. ``start`` and ``end`` are then the window's two ends, and issue stops."""

    by_instructions = True

    def __init__(self, plan: StablePlan) -> None:
        self.plan = plan
        self.marks: list[Counts] = []  # the last counts taken, one per interval
        self.taken = 0
        self.start = None
        self.end = None

    def next_target(self) -> int:
        if self.end is not None:
            return 0
        return (self.taken + 1) * self.plan.step

    def take(self, counts: Counts) -> None:
        self.marks.append(counts)
        self.taken += 1
        n = self.plan.INTERVALS
        if self.taken < n + 1 + n // 2:  # the window starts at half a window or later
            return
        last = self.marks[-(n + 1):]
        rates = np.array([(b.insts - a.insts) / max(b.cycle - a.cycle, 1)
                          for a, b in zip(last[:-1], last[1:], strict=True)])
        mean = float(rates.mean())
        if mean > 0 and float(np.abs(rates - mean).max()) <= self.plan.tolerance * mean:
            self.start, self.end = last[0], last[-1]
        else:
            del self.marks[: -(n + 1)]  # keep what the next window needs

    @property
    def stable(self) -> bool:
        return self.end is not None


@dataclasses.dataclass(frozen=True)
class SerialWork:
    """Work a mechanism's one unit does in sequence for the whole grid (module docstring, "Serial work")."""

    units: int  # for every CTA of the launch
    units_timed: int  # for the CTAs timed
    counter: str  # the mechanism's counter of units done (read at the steady window's ends)
    ctas_done_ps: int  # when every timed CTA had finished with units still to do (-1: the unit finished first)
    units_at_ctas_done: int  # the units done by then
    last_ps: int  # when the sample's last unit was done

    def cycles(self, final: Counts, watch: WindowWatch, f: float, cycle_of: Any) -> int | None:
        """The launch's cycles if the unit bounds it (``None``: it does not), in two phases. While CTAs run: they
        end where the CTAs' projection puts their end (the sample's, plus ``f`` x the window's cycles), and the
        unit does by then the sample's units plus ``f`` x the window's. After: the units left, at the unit's rate
        in the sample once its CTAs had finished (at the window's rate where none were left)."""
        a, b = watch.start, watch.end
        if a is None or b is None or b.cycle <= a.cycle:
            return None
        done_window = b.mechanism.get(self.counter, 0) - a.mechanism.get(self.counter, 0)
        if self.ctas_done_ps >= 0:
            ctas_done = cycle_of(self.ctas_done_ps)
            tail = cycle_of(self.last_ps) - ctas_done
            if tail <= 0 or self.units_timed <= self.units_at_ctas_done:
                return None
            rate = (self.units_timed - self.units_at_ctas_done) / tail
            done = self.units_at_ctas_done
        else:  # the unit kept up with the sample's CTAs
            if done_window <= 0:
                return None
            ctas_done = final.cycle
            rate = done_window / (b.cycle - a.cycle)
            done = self.units_timed
        end = ctas_done + f * (b.cycle - a.cycle)
        left = self.units - done - f * done_window
        return int(round(end + left / rate)) if left > 0 else None


@dataclasses.dataclass(frozen=True)
class Projection:
    """How a sampled launch was extended to the whole launch (``LaunchStats.sampled``)."""

    ctas: int
    ctas_timed: int
    scale: float  # recorded warp-instructions of the launch / of the timed CTAs
    cycles_timed: int
    cycles: int  # projected
    extra_insts: int  # issued warp-instructions added at the steady window's rates
    window_cycles: int  # the steady window's length (0: none found; counts scaled by ``scale`` instead)
    window_insts: int
    insts_timed: int = 0  # issued warp-instructions timed in detail
    kind: str = "waves"  # "waves": the first waves of CTAs; "stable": a short launch until its rate settled
    serial: int = 0  # 1: a mechanism's serial work bounded the cycles (counts are the sample's x ``scale``)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def project(plan: SamplePlan | StablePlan, scale: float, final: Counts, watch: WindowWatch,
            serial: SerialWork | None = None, cycle_of: Any = None) -> tuple[Projection, float | None]:
    """The projection and the factor ``f`` of the steady window's change that extends every count (``None``:
    every count is the sample's times ``scale``). The untimed work is ``(scale - 1)`` x the sample's issued
    warp-instructions; each count grows by its steady-window change per warp-instruction times that (cycles
    too). Without a usable window (too short a sample) every count is multiplied by ``scale``. A mechanism's
    ``serial`` work (:meth:`SerialWork.cycles`; ``cycle_of(ps)``: a time's core cycle from the launch's start),
    where it takes longer than that projection, gives the launch's cycles, every count the sample's times
    ``scale``."""
    p, f = _project(plan, scale, final, watch)
    serial_cycles = serial.cycles(final, watch, f, cycle_of) if serial is not None and f is not None else None
    if serial_cycles is not None and serial_cycles > p.cycles:
        return dataclasses.replace(p, cycles=serial_cycles, serial=1), None
    return p, f


def _project(plan: SamplePlan | StablePlan, scale: float, final: Counts,
             watch: WindowWatch) -> tuple[Projection, float | None]:
    extra = int(round((scale - 1.0) * final.insts))
    kind = "stable" if isinstance(plan, StablePlan) else "waves"
    a, b = watch.start, watch.end
    if a is not None and b is not None and b.insts > a.insts and b.cycle > a.cycle:
        f = extra / (b.insts - a.insts)
        cycles = final.cycle + int(round(f * (b.cycle - a.cycle)))
        p = Projection(plan.ctas, plan.ctas_timed, scale, final.cycle, cycles, extra, b.cycle - a.cycle,
                       b.insts - a.insts, final.insts, kind)
        return p, f
    return Projection(plan.ctas, plan.ctas_timed, scale, final.cycle, int(round(final.cycle * scale)), extra, 0,
                      0, final.insts, kind), None


def extended(final: np.ndarray, start: np.ndarray | None, end: np.ndarray | None, f: float | None, scale: float,
             keep: np.ndarray | None = None) -> np.ndarray:
    """A count array extended to the whole launch: ``final + f x (end - start)`` (the steady window's change),
    or ``final x scale`` without a window; entries where ``keep`` is true (maxima, timestamps) stay."""
    if f is None or start is None or end is None:
        out = np.rint(final.astype(np.float64) * scale).astype(final.dtype)
    else:
        out = final + np.rint(f * (end - start).astype(np.float64)).astype(final.dtype)
    if keep is not None:
        out[keep] = final[keep]
    return out


def project_stats(st: Any, p: Projection, f: float | None, final: Counts, watch: WindowWatch) -> Any:
    """A sampled launch's ``LaunchStats`` extended to the whole launch (module docstring)."""
    from . import engine as E
    from .stats import is_maximum_counter

    a, b = watch.start, watch.end

    def field(name: str, keep: np.ndarray | None = None) -> np.ndarray:
        return extended(final.arrays[name], a.arrays[name] if a else None, b.arrays[name] if b else None, f,
                        p.scale, keep)

    def named(fin: dict[str, int], sa: dict[str, int] | None, sb: dict[str, int] | None) -> dict[str, int]:
        out = {}
        for k, v in fin.items():
            if is_maximum_counter(k):
                out[k] = v
            elif f is None or sa is None or sb is None:
                out[k] = int(round(v * p.scale))
            else:
                out[k] = v + int(round(f * (sb.get(k, 0) - sa.get(k, 0))))
        return out

    keep_ctr = np.zeros(len(st.ctr), bool)
    keep_ctr[[E.T_BEGIN_PS, E.T_END_PS]] = True
    # CTAs and warps are known exactly: counted at dispatch, their window rate would carry the in-flight CTAs'
    # progress at the two ends, so they are the sample's times the CTAs' ratio
    per_cta = p.ctas / p.ctas_timed
    ctr = field("ctr", keep_ctr)
    ctr[E.T_CTAS_LAUNCHED] = p.ctas
    ctr[E.T_WARPS_LAUNCHED] = int(round(final.arrays["ctr"][E.T_WARPS_LAUNCHED] * per_cta))
    per_sm = field("per_sm")
    per_sm[:, E.SMS_CTAS] = np.rint(final.arrays["per_sm"][:, E.SMS_CTAS] * per_cta).astype(per_sm.dtype)
    mesh = None
    if st.mesh is not None and final.mesh is not None:
        mesh = dict(st.mesh)
        keep_mesh = np.zeros(final.mesh["totals"].shape, bool)
        keep_mesh[..., E.MS_MAX_OCC] = True
        for k in ("ports", "kinds", "totals"):
            mesh[k] = extended(final.mesh[k], a.mesh[k] if a and a.mesh else None, b.mesh[k] if b and b.mesh else None,
                               f, p.scale, keep_mesh if k == "totals" else None)
    extra = named(final.extra, a.extra if a else None, b.extra if b else None)
    return dataclasses.replace(
        st, cycles=p.cycles, ctr=ctr, per_sm=per_sm, per_slice=field("per_slice"),
        per_channel=field("per_channel"), per_class=field("per_class"), per_prio=field("per_prio"),
        net_ports=field("net_ports"), packet_kinds=field("packet_kinds"),
        per_pc=field("per_pc") if st.per_pc is not None else None,
        per_bank=field("per_bank") if st.per_bank is not None else None,
        extra={**st.extra, **extra}, mesh=mesh,
        mechanism_counters=named(final.mechanism, a.mechanism if a else None, b.mechanism if b else None),
        sampled=p.as_dict())


def declined(ctas: int, cycles: int, insts: int, reason: str) -> dict[str, Any]:
    """``LaunchStats.sampled`` of a launch its mechanism kept from sampling (``declines_sampling``): timed in
    full, so every CTA, cycle and warp-instruction is timed; ``reason`` says why."""
    return {"launches": 0, "ctas": ctas, "ctas_timed": ctas, "cycles_timed": cycles, "insts_timed": insts,
            "declined": 1, "declined_reason": reason}


def timed_in_full(stats: Any) -> bool:
    """Whether a launch's statistics were timed CTA by CTA (not sampled, not projected from another launch)."""
    return stats.sampled is None or int(stats.sampled.get("launches", 1)) == 0


def scaled_counters(counters: dict[str, int], scale: float, is_maximum: Any) -> dict[str, int]:
    """Named counters times ``scale``, maxima (``is_maximum(name)``) kept."""
    return {k: (v if is_maximum(k) else int(round(v * scale))) for k, v in counters.items()}


def projected_launch(rep: Any, ratio: float, kernel: str, launch_id: int, ctas: int) -> Any:
    """A launch projected from a timed one alike (``sim.sample_launches``): every count, the cycles and the time
    of ``rep`` times ``ratio`` (the two launches' recorded warp-instructions), maxima and timestamps kept;
    ``sampled`` says it was not timed."""
    from . import engine as E
    from .stats import is_maximum_counter

    def times(a: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
        return extended(a, None, None, None, ratio, keep)

    keep_ctr = np.zeros(len(rep.ctr), bool)
    keep_ctr[[E.T_BEGIN_PS, E.T_END_PS]] = True
    mesh = None
    if rep.mesh is not None:
        mesh = dict(rep.mesh)
        keep_mesh = np.zeros(rep.mesh["totals"].shape, bool)
        keep_mesh[..., E.MS_MAX_OCC] = True
        mesh.update(ports=times(rep.mesh["ports"]), kinds=times(rep.mesh["kinds"]),
                    totals=times(rep.mesh["totals"], keep_mesh))
    return dataclasses.replace(
        rep, kernel=kernel, launch_id=launch_id, cycles=int(round(rep.cycles * ratio)),
        time_ps=int(round(rep.time_ps * ratio)), ctr=times(rep.ctr, keep_ctr), per_sm=times(rep.per_sm),
        per_slice=times(rep.per_slice), per_channel=times(rep.per_channel), per_class=times(rep.per_class),
        per_prio=times(rep.per_prio), net_ports=times(rep.net_ports), packet_kinds=times(rep.packet_kinds),
        per_pc=times(rep.per_pc) if rep.per_pc is not None else None, time_series=None,
        per_bank=times(rep.per_bank) if rep.per_bank is not None else None,
        extra=scaled_counters(rep.extra, ratio, is_maximum_counter), mesh=mesh,
        mechanism_counters=scaled_counters(rep.mechanism_counters, ratio, is_maximum_counter),
        sampled={"ctas": ctas, "ctas_timed": 0, "cycles_timed": 0, "insts_timed": 0, "launches": 1,
                 "projected_from": rep.launch_id})
