"""A timing session: one machine, several launches and copies, state kept warm between them.

    sess = TimingSession(load_machine("gtx480"))
    sess.copy(nbytes, "h2d", addr=ptr)        # timed PCIe transfer (lines optionally left in L2)
    st = sess.run_launch(trace)               # caches, DRAM rows and queues stay warm; L1 is invalidated
    sess.totals().table()

Python runs only here, around the compiled loop: at launch (building arrays), when the loop returns
(time-series buffer full, instruction cap, watchdog) and at kernel end.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from .._compile_notice import first_call
from ..trace.format import KernelTrace, LaunchInfo, TracePrefixExhausted
from . import engine as E
from . import registry, sampling
from .build import EngineState, LaunchArrays, launch_occupancy
from .interfaces import AddressMapping, CtaDispatch, ExecutionPlacement, Preloader
from .mechanism import MechanismHardware, mechanism_code
from .peaks import dram_peak_gbs
from .presets import load_machine
from .spec import Machine
from .stats import LaunchStats, combine


class SimulationStalled(RuntimeError):
    """The machine made no progress (watchdog) or nothing can ever happen again (deadlock)."""

    def __init__(self, message: str, summary: dict[str, Any]) -> None:
        super().__init__(message)
        self.summary = summary


# the hooks a mechanism's hardware defines to be a machine's cores (core.model)
CORE_HOOKS = ("core_receive", "core_check", "core_issue", "core_tick")


class CoreModelError(ValueError):
    """A machine whose cores are a mechanism's (``core.model``) was run without that mechanism's hardware."""


class TimingSession:
    """Times launches on one machine; see the module docstring."""

    def __init__(self, machine: Machine | str, overrides: dict | None = None) -> None:
        self.machine = machine if isinstance(machine, Machine) and not overrides else load_machine(machine, overrides)
        self.state = EngineState(self.machine)
        self.config_hash = self.machine.config_hash()
        self.now_ps = 0
        self.launches: list[LaunchStats] = []
        self.copies = {"h2d_bytes": 0, "d2h_bytes": 0, "copies": 0, "copy_time": 0.0}
        self.kernel_time_ps = 0
        self.cta_dispatch: CtaDispatch = registry.lookup("cta_dispatch", self.machine.core.cta_dispatch.impl)()
        self.placement: ExecutionPlacement | None = None
        self.preloader: Preloader | None = None
        self.mechanism: MechanismHardware | None = None
        self.capped = False
        self.packet_names = dict(E_PACKET_NAMES)
        self.wall_seconds = 0.0
        self._insts_total = 0
        self._launches_reset = 0  # launches timed so far (the first starts the CTA round robin at first_sm)
        self._code: dict[str, int] = {}  # kernel (or module id) -> its code's address (l1i)
        self._alike: dict[tuple, list[tuple[int, LaunchStats]]] = {}  # sim.sample_launches: timed launches by group
        self._code_bytes = 0

    # ------------------------------------------------------------------ extension points
    def set_cta_dispatch(self, policy: CtaDispatch | str) -> None:
        """Use ``policy`` (an instance, or a registered name) for the following launches."""
        self.cta_dispatch = registry.lookup("cta_dispatch", policy)() if isinstance(policy, str) else policy

    def set_placement(self, policy: ExecutionPlacement | None) -> None:
        self.placement = policy

    def set_preloader(self, policy: Preloader | None) -> None:
        self.preloader = policy

    def attach(self, hardware: MechanismHardware | None) -> None:
        """Run the following launches with a mechanism's ``hardware`` (None: without one)."""
        if hardware is not None:
            mechanism_code(hardware)  # its compiled side must exist
        self.mechanism = hardware

    def map_range(self, lo: int, hi: int, mapping: AddressMapping) -> None:
        """Addresses in [lo, hi) (an allocation) use ``mapping`` instead of the machine's."""
        self.state.map_range(lo, hi, mapping.descriptor(self.machine))

    def register_packet_type(self, name: str, service_latency: int = 4) -> int:
        """A new packet type served at an L2 slice after ``service_latency`` L2 cycles; returns its code."""
        for code, n in self.packet_names.items():
            if n == name:
                return code
        code = max([E.PK_USER - 1, *[c for c in self.packet_names if E.PK_USER <= c < E.PK_MECH]]) + 1
        if code >= E.PK_MECH:
            raise ValueError(f"at most {E.PK_MECH - E.PK_USER} user packet types")
        self.packet_names[code] = name
        self.state.ptype[code, 0] = service_latency
        return code

    def set_offload_latency(self, cycles: int) -> None:
        """Service latency (L2 cycles) of instructions placed on a slice's unit."""
        self.state.ptype[E.PK_OFFLOAD, 0] = cycles

    # ------------------------------------------------------------------ copies
    def copy(self, nbytes: int, direction: str, addr: int | None = None) -> dict[str, float]:
        """A synchronous host<->device copy over the PCIe link; ``h2d`` copies may leave their lines in L2."""
        if direction not in ("h2d", "d2h"):
            raise ValueError(f"direction must be 'h2d' or 'd2h', not {direction!r}")
        p = self.machine.pcie
        dur = int(round(p.latency_us * 1e6 + nbytes * 1000.0 / p.bandwidth_gbs))
        self.now_ps += dur
        self.copies[f"{direction}_bytes"] += int(nbytes)
        self.copies["copies"] += 1
        self.copies["copy_time"] += dur / 1000.0
        placed = 0
        st = self.state
        if direction == "h2d" and p.place_in_l2 and addr is not None and st.cfg[E.C_L2_EN]:
            placed = int(E.l2_install_range(int(addr), int(addr) + int(nbytes), st.cfg, st.l2t, st.mapd, st.mrange,
                                            st.g))
        return {"bytes": float(nbytes), "time_ns": dur / 1000.0, "lines_in_l2": float(placed)}

    # ------------------------------------------------------------------ launches
    def run_launch(self, trace: KernelTrace) -> LaunchStats:
        """Time one launch; the machine's state carries over to the next."""
        if trace.truncated and not self.capped and not self.machine.sim.max_warp_instructions:
            raise TracePrefixExhausted(
                f"{trace.launch.kernel} (launch {trace.launch.launch_id}): its trace keeps only a prefix of each "
                "warp (the size cap, LaunchOptions.trace_cap_bytes, stopped recording), so it can be timed only "
                "within a window that closes before a warp's prefix ends (sim.max_warp_instructions); set one or "
                "raise the cap")
        t_wall = time.perf_counter()
        group = alike = None
        if self.machine.sim.sample_launches and not self.capped and not trace.truncated:
            group, alike = self._alike_launch(trace)
            if alike is not None:
                stats = self._projected_launch(trace, *alike)
                self.wall_seconds += time.perf_counter() - t_wall
                return stats
        m = self.machine
        st = self.state
        launch = trace.launch
        occ = launch_occupancy(m, trace)
        plan = self.cta_dispatch.plan(launch, m)
        # a long launch timed on its first waves: its tables hold only the CTAs timed (``sampling.only_ctas``)
        sample = None if self.capped or trace.truncated else sampling.plan_sample(
            launch.num_ctas, min(m.core.max_ctas, occ.ctas_per_sm) * int(st.cfg[E.C_NGPU]), m.sim.sample_waves,
            m.sim.sample_min_waves, paired=plan.mode == E.DISP_BLOCK)
        # a shorter one timed until its rate is stable
        splan = self._stable_sample_plan(trace) if sample is None else None
        full_trace = trace
        if sample is not None:
            per_cta = sampling.warp_instructions_per_cta(trace.segments["count"], trace.warp_seg_start,
                                                         launch.warps_per_cta)
            timed_ctas = np.asarray(plan.order, np.int64)[: sample.ctas_timed]
            timed = int(per_cta[timed_ctas].sum())
            wave_scale = float(per_cta.sum()) / timed if timed else 1.0
            trace = sampling.only_ctas(full_trace, timed_ctas)
        placement = self.placement.place(trace, m) if self.placement is not None else None
        preload = self.preloader.lines(trace, m) if self.preloader is not None else None
        pkind = E.PK_OFFLOAD
        if self.placement is not None and self.placement.packet != "offload":
            pkind = self.register_packet_type(self.placement.packet)
        la = LaunchArrays(st, trace, plan, occ, placement, preload, pkind)
        hw = self.mechanism  # attached: its rows are reported (zeros when it sits this launch out)
        mx = hw.launch_state(self, trace) if hw is not None else None
        active = hw if mx is not None else None  # runs in this launch
        if mx is None:
            mx = np.zeros(1, np.int64)
        cfg = st.cfg
        cfg[E.C_MECH] = mechanism_code(active) if active is not None else 0
        cfg[E.C_CORE_MODEL] = self._core_model(active)
        addresses = self._hook_addresses(active)
        cfg[E.C_NPC] = len(la.pct)
        cfg[E.C_IC_BASE] = self._code_address(launch, len(la.pct))
        cfg[E.C_NWARPS] = trace.num_warps
        cfg[E.C_NCTAS] = launch.num_ctas if not self.capped else 0
        cfg[E.C_WARPS_PER_CTA] = launch.warps_per_cta
        cfg[E.C_CTA_THREADS] = occ.threads_per_cta
        cfg[E.C_CTA_WARPS] = occ.warps_per_cta
        cfg[E.C_CTA_REGS] = occ.regs_per_cta
        cfg[E.C_CTA_SMEM] = occ.smem_per_cta
        # resident CTAs: the occupancy rules' count (the register rule is per sub-partition, not a sum)
        cfg[E.C_NCTA_SLOTS] = min(m.core.max_ctas, occ.ctas_per_sm)
        cfg[E.C_DISPATCH_MODE] = la.mode
        cfg[E.C_PRELOAD_PRIO] = self.preloader.priority if self.preloader is not None else 0
        cfg[E.C_PRELOAD_TO_L1] = 1
        if trace.num_warps != launch.num_ctas * launch.warps_per_cta:
            raise ValueError(
                f"trace has {trace.num_warps} warps, launch implies {launch.num_ctas * launch.warps_per_cta}")
        declined = active.declines_sampling(mx) if sample is not None and active is not None else None
        if declined:  # timed in full: the mechanism's work does not grow with the CTAs timed; its tables and
            sample, trace = None, full_trace  # the mechanism's state are built again from the whole trace
            if preload is not None:
                preload = self.preloader.lines(trace, m)
            la = LaunchArrays(st, trace, plan, occ, placement, preload, pkind)
            mx = hw.launch_state(self, trace)
            cfg[E.C_NPC] = len(la.pct)
        if splan is not None and active is not None:
            declined = active.declines_stable_sampling(mx)
            if declined:  # timed in full
                splan = None
        if sample is not None:  # the first waves' CTAs in dispatch order
            cfg[E.C_NCTAS] = sample.ctas_timed
        self._reset_for_launch(la)
        st.mesh_reset_counters()
        links0 = self._links0 = st.link_counters(self.now_ps)
        xl0 = st.xl_counters(self.now_ps)
        g, clk = st.g, st.clk
        k0 = int(E.cyc_at(clk, E.D_CORE, self.now_ps))
        start = int(E.edge(clk, E.D_CORE, k0))
        g[E.G_NOW] = start
        g[E.G_DISPATCH_AT] = int(E.edge(clk, E.D_CORE, k0 + m.core.cta_dispatch.kernel_launch_latency))
        g[E.G_LAST_PROGRESS] = start
        g[E.G_START_PS] = start
        cap = m.sim.max_warp_instructions
        g[E.G_CAP] = max(cap - self._insts_total, 1) if cap else 0
        st.ctr[E.T_BEGIN_PS] = start
        st.wake[: st.nsm] = E.INF
        st.wake[cfg[E.C_WK_DISP]] = g[E.G_DISPATCH_AT]
        st.smt[:, E.S_LAST_TICK] = k0 - 1
        st.smt[:, E.S_OCC_T] = k0
        tsi = int(cfg[E.C_TS_INTERVAL_PS])
        if tsi:
            g[E.G_TS_NEXT] = start + tsi
            g[E.G_TS_N] = 0
            st.ts = np.zeros((256, E.NTS + 2 * st.nstacks_linked), np.int64)
        watch = None
        g[E.G_SAMPLE_AT] = 0
        g[E.G_SAMPLE_INSTS] = 0
        scale = 1.0
        if splan is not None:
            watch = sampling.StableWatch(splan)
            g[E.G_SAMPLE_INSTS] = watch.next_target()
        elif sample is not None:
            scale = wave_scale
            watch = sampling.WindowWatch(sample)
            g[E.G_SAMPLE_AT] = watch.next_target()
        capped = False
        if active is not None:
            active.launch_begin(self, mx, start)
        try:
            if launch.num_ctas and not self.capped:
                while True:
                    status = self._run(la, mx, addresses)
                    if status == E.ST_TS_FULL:
                        st.ts = np.concatenate([st.ts, np.zeros_like(st.ts)])
                        continue
                    if status == E.ST_SAMPLE and watch is not None:  # an end of the steady window
                        watch.take(self._counts_now(la, links0, xl0, int(g[E.G_NOW]), k0, active, mx))
                        if splan is not None and watch.stable:  # the rate has settled: issue stops here
                            now = int(g[E.G_NOW])
                            E.end_streams(int(E.cyc_at(clk, E.D_CORE, now)), cfg, clk, g, st.wt, st.ctat, st.smt,
                                          st.subt, st.wake)
                            splan = dataclasses.replace(splan, ctas_timed=int(g[E.G_NEXT_CTA]))
                            sample = splan
                        g[E.G_SAMPLE_INSTS if watch.by_instructions else E.G_SAMPLE_AT] = watch.next_target()
                        continue
                    if status in (E.ST_WATCHDOG, E.ST_DEADLOCK):
                        raise self._stalled(launch, status)
                    if status == E.ST_CAP:
                        capped = True
                        self.capped = True
                    break
                end = int(st.ctr[E.T_END_PS])
                if trace.truncated:
                    self._check_prefix(trace, la)
            else:
                end = start
                capped = self.capped
        finally:
            if active is not None:
                active.launch_end(self, mx)
        k_end = int(E.cyc_at(clk, E.D_CORE, end))
        E.finalize(k_end, cfg, st.smt, st.subt, st.ctr, st.pcst, st.smst)
        E.l2_close_waits(_last_edge(clk, E.D_L2, end), cfg, st.qm, st.ctr)
        cycles = k_end - k0 + 1 if launch.num_ctas and end > start or capped else 0
        time_ps = end - start
        self.now_ps = max(self.now_ps, end)
        self.kernel_time_ps += time_ps
        self._insts_total += int(st.ctr[E.T_WARP_INSTS])
        stats = LaunchStats(
            kernel=launch.kernel, launch_id=launch.launch_id, machine=m.name, config_hash=self.config_hash,
            cycles=cycles, time_ps=time_ps, ctr=st.ctr.copy(), per_sm=st.smst.copy(), per_slice=st.slst.copy(),
            per_channel=st.chst.copy(), per_class=st.clst.copy(), per_prio=st.prst.copy(), net_ports=st.nst.copy(),
            packet_kinds=st.kst.copy(), per_pc=st.pcst.copy(), per_bank=st.bkst.copy(),
            pc_info=[(trace.opcode_names[int(r["opcode"])] if 0 <= int(r["opcode"]) < len(trace.opcode_names) else "",
                      int(r["line"])) for r in trace.static],
            time_series=self._time_series() if tsi else None, consts=self._consts(),
            occupancy={"occupancy_theoretical": occ.theoretical, "ctas_per_sm": occ.ctas_per_sm,
                       "occupancy_limit": occ.limit},
            capped=capped,
            extra={"pf_drop": int(g[E.G_PF_DROP]), **self._near_data_extra(la, links0, xl0, end)},
            packet_names=self.packet_names, mesh=st.mesh_snapshot(),
            mechanism=hw.mechanism if hw is not None else None,
            mechanism_counters=(active.counters(mx) if active is not None else
                                dict.fromkeys(hw.counter_names, 0) if hw is not None else {}),
            mechanism_metrics=type(hw).metrics if hw is not None else None,
        )
        if sample is splan and splan is not None:  # stopped once stable: the recorded work over the issued
            issued = int(st.ctr[E.T_WARP_INSTS])
            scale = splan.insts / issued if issued else 1.0
        if sample is not None and watch is not None and not capped and cycles:
            final = sampling.Counts(cycles, sample.ctas_timed, {
                k: getattr(stats, k) for k in ("ctr", "per_sm", "per_slice", "per_channel", "per_class", "per_prio",
                                               "net_ports", "packet_kinds", "per_pc", "per_bank")}, stats.extra,
                stats.mechanism_counters, stats.mesh)
            serial = None  # waves: a mechanism's work that the CTAs timed do not scale
            if active is not None and sample is not splan:
                serial = active.serial_work(self, mx, launch.num_ctas, timed_ctas)
            projection, f = sampling.project(sample, scale, final, watch, serial,
                                             lambda ps: int(E.cyc_at(clk, E.D_CORE, ps)) - k0 + 1)
            stats = sampling.project_stats(stats, projection, f, final, watch)
            stats.time_ps = int(round(time_ps * projection.cycles / cycles))
            self.now_ps = max(self.now_ps, start + stats.time_ps)
            self.kernel_time_ps += stats.time_ps - time_ps
            self._insts_total += int(stats.ctr[E.T_WARP_INSTS]) - int(st.ctr[E.T_WARP_INSTS])
        elif declined and not capped:
            stats.sampled = sampling.declined(launch.num_ctas, cycles, int(st.ctr[E.T_WARP_INSTS]), declined)
        g[E.G_PF_DROP] = 0
        if group is not None and sampling.timed_in_full(stats) and not capped:
            self._alike.setdefault(group, []).append((full_trace.warp_instructions(), stats))
        self.launches.append(stats)
        self.wall_seconds += time.perf_counter() - t_wall
        return stats

    def _check_prefix(self, trace: KernelTrace, la: LaunchArrays) -> None:
        """A truncated trace's launch has stopped (its window closed, or every warp ran out): raise
        :class:`TracePrefixExhausted` if a warp whose recording was cut issued its last recorded instruction,
        since the timing then ended that warp early."""
        st = self.state
        wpc = trace.launch.warps_per_cta
        started = la.cta_order[: int(st.g[E.G_NEXT_CTA])]
        warps = (started[:, None] * wpc + np.arange(wpc)).ravel()
        rows = st.wt[st.wt[:, E.W_STATE] != E.WS_FREE]
        si, end = rows[:, E.W_SEG], rows[:, E.W_SEG_END]
        going = (si < end) | ((si == end) & (rows[:, E.W_SEG_OFF] < rows[:, E.W_END_OFF]))
        finished = np.setdiff1d(warps, rows[going, E.W_GWARP])
        ran_out = finished[~trace.complete_warps()[finished]]
        if len(ran_out):
            raise TracePrefixExhausted(
                f"{trace.launch.kernel} (launch {trace.launch.launch_id}): {len(ran_out)} warp(s) (first: "
                f"{int(ran_out[0])}) issued the last instruction of their recorded prefix (the size cap, "
                "LaunchOptions.trace_cap_bytes, stopped recording) before the window (sim.max_warp_instructions) "
                "closed; the timing would have ended them early. Raise the cap or narrow the window")

    def _alike_launch(self, trace: KernelTrace) -> tuple[tuple, tuple[int, LaunchStats] | None]:
        """``sim.sample_launches``: this launch's group (kernel, grid, block, shared memory) and, once the group
        has that many timed launches whose recorded work is within ``sim.sample_launch_tolerance`` of this one's,
        the last of them (``None``: time this launch)."""
        la = trace.launch
        group = (la.kernel, tuple(la.grid), tuple(la.block), la.shared_bytes)
        work = trace.warp_instructions()
        tol = self.machine.sim.sample_launch_tolerance
        timed = [t for t in self._alike.get(group, []) if abs(t[0] - work) <= tol * max(t[0], 1)]
        return group, (timed[-1] if len(timed) >= self.machine.sim.sample_launches else None)

    def _stable_sample_plan(self, trace: KernelTrace) -> sampling.StablePlan | None:
        """The plan to time a launch too short for wave sampling until its issue rate is stable
        (``sim.sample_stable_window``), or ``None``."""
        sim = self.machine.sim
        if not sim.sample_stable_window or self.capped or trace.truncated or self.preloader is not None:
            return None  # (a preloader's lines are a whole CTA's, whatever part of its warps runs)
        return sampling.plan_stable_sample(trace.launch.num_ctas, trace.segments["count"], trace.num_warps,
                                           sim.sample_stable_window, sim.sample_stable_tolerance,
                                           sim.sample_stable_min_insts)

    def _projected_launch(self, trace: KernelTrace, rep_work: int, rep: LaunchStats) -> LaunchStats:
        """A launch not timed: the last timed launch alike (``rep``), its counts and time times the ratio of the
        two launches' recorded warp-instructions; the session's clock moves by that time."""
        ratio = trace.warp_instructions() / rep_work if rep_work else 1.0
        stats = sampling.projected_launch(rep, ratio, trace.launch.kernel, trace.launch.launch_id,
                                          trace.launch.num_ctas)
        self.now_ps += stats.time_ps
        self.kernel_time_ps += stats.time_ps
        self._insts_total += int(stats.ctr[E.T_WARP_INSTS])
        self.launches.append(stats)
        return stats

    def _counts_now(self, la: LaunchArrays, links0: np.ndarray, xl0: np.ndarray, now: int, k0: int,
                    active: MechanismHardware | None, mx: np.ndarray) -> sampling.Counts:
        """Every count of the launch so far (a sampled launch's look at its steady window, ``timing.sampling``)."""
        st = self.state
        arrays = {"ctr": st.ctr.copy(), "per_sm": st.smst.copy(), "per_slice": st.slst.copy(),
                  "per_channel": st.chst.copy(), "per_class": st.clst.copy(), "per_prio": st.prst.copy(),
                  "net_ports": st.nst.copy(), "packet_kinds": st.kst.copy(), "per_pc": st.pcst.copy(),
                  "per_bank": st.bkst.copy()}
        # the occupancy, busy and sleeping-SM stall cycles up to the cycle before ``now``, closed on copies as the
        # launch's end closes them
        k = int(E.cyc_at(st.clk, E.D_CORE, now)) - 1
        E.finalize(k, st.cfg, st.smt.copy(), st.subt, arrays["ctr"], arrays["per_pc"], arrays["per_sm"])
        E.l2_close_waits(_last_edge(st.clk, E.D_L2, now), st.cfg, st.qm.copy(), arrays["ctr"])
        extra = {"pf_drop": int(st.g[E.G_PF_DROP]), **self._near_data_extra(la, links0, xl0, now)}
        mech = active.counters_now(self, mx) if active is not None else (
            dict.fromkeys(self.mechanism.counter_names, 0) if self.mechanism is not None else {})
        cycle = int(E.cyc_at(st.clk, E.D_CORE, now)) - k0 + 1
        return sampling.Counts(cycle, int(st.g[E.G_NEXT_CTA]), arrays, extra, mech, st.mesh_snapshot())

    def _core_model(self, active: MechanismHardware | None) -> int:
        """The code of the mechanism whose compiled core tick replaces the SM's (``core.model``), 0 for the SM.

        Such a core runs on its mechanism's state vector, so that mechanism must be attached and running."""
        model = self.machine.core.model
        if model == "gpu":
            return 0
        if active is None or active.mechanism != model:
            have = f"{active.mechanism!r} is attached" if active is not None else "no mechanism is running"
            raise CoreModelError(f"{self.machine.name}: the cores are the {model!r} mechanism's (core.model) but "
                                 f"{have}; attach its hardware (e.g. --policy {model}:...)")
        from .engine import hooks

        hooks.bind()
        missing = [h for h in CORE_HOOKS if h not in getattr(hooks.MECHANISMS.get(model), "HOOKS", ())]
        if missing:
            raise CoreModelError(f"{self.machine.name}: core.model {model!r} names a mechanism without the hooks "
                                 f"{', '.join(missing)} (a core model defines {', '.join(CORE_HOOKS)})")
        return mechanism_code(active)

    @staticmethod
    def _hook_addresses(active: MechanismHardware | None) -> np.ndarray:
        """The running mechanism's compiled hook functions (engine/hooks.py), compiled on its first use in this
        process: the values of the cfg columns C_HK_*."""
        from .engine import hooks

        if active is None:
            return hooks.pointers(None)
        with first_call(f"{active.mechanism} mechanism's", "under a minute", noun="hardware"):
            return hooks.pointers(active.mechanism)

    def _run(self, la: LaunchArrays, mx: np.ndarray, addresses: np.ndarray) -> int:
        st = self.state
        hook_columns = slice(E.C_HK_DECIDE, E.C_HK_DECIDE + len(addresses))
        st.cfg[hook_columns] = addresses  # valid in this process only: cleared when the loop returns
        try:
            with first_call("timing", "1 to 2 minutes"):
                return int(E.run_loop(st.cfg, st.clk, st.g, st.wake, la.tables(), st.core_state(),
                                      st.memory_state(), st.network_state(), st.stats_tables(), mx))
        finally:
            st.cfg[hook_columns] = 0

    def _stalled(self, launch: Any, status: int) -> SimulationStalled:
        m, g, clk = self.machine, self.state.g, self.state.clk
        summary = self.state_summary()
        what = "watchdog: no progress for" if status == E.ST_WATCHDOG else "deadlock: nothing can happen"
        return SimulationStalled(
            f"{launch.kernel} (launch {launch.launch_id}) on {m.name}: {what} "
            f"{m.sim.watchdog_cycles if status == E.ST_WATCHDOG else ''} cycles at core cycle "
            f"{int(E.cyc_at(clk, E.D_CORE, int(g[E.G_NOW])))}\n" + _format_summary(summary), summary)

    def _code_address(self, launch: LaunchInfo, ninst: int) -> int:
        """Where the launched kernel's code sits (``l1i``), ``l1i.inst_bytes`` per instruction from
        ``l1i.code_base``: each module whole, in the order of its first launch, its functions as GPGPU-Sim
        assembles them (in the order the PTX defines them, ``LaunchInfo.code_offset``); a trace that does not
        say where its kernel sits in its module (an older or hand-built one) has the kernel alone in its place."""
        ic = self.machine.l1i
        if launch.code_offset >= 0 and launch.module_id:
            key = "module:" + launch.module_id
            if key not in self._code:
                self._code[key] = ic.code_base + self._code_bytes
                self._code_bytes += launch.module_insts * ic.inst_bytes
            return self._code[key] + launch.code_offset * ic.inst_bytes
        if launch.kernel not in self._code:
            self._code[launch.kernel] = ic.code_base + self._code_bytes
            self._code_bytes += ninst * ic.inst_bytes
        return self._code[launch.kernel]

    def _reset_for_launch(self, la: LaunchArrays) -> None:
        st = self.state
        # the L1Ds are invalidated; the constant caches too unless l1c.keep_across_launches; the instruction
        # caches (rows from IC_T0) stay warm
        keep = int(st.cfg[E.C_CC_T0]) if self.machine.l1c.keep_across_launches else int(st.cfg[E.C_IC_T0])
        st.l1t[:keep, E.LN_VALID] = 0
        st.l1t[:keep, E.LN_DIRTY] = 0
        st.wt[:] = 0
        st.wt[:, E.W_READY] = E.INF
        keep = st.smt[:, E.S_MSHR_USED].copy()
        st.smt[:] = 0
        st.smt[:, E.S_MSHR_USED] = keep
        st.smt[:, E.S_LDST_REC] = -1
        st.subt[:] = 0
        st.subt[:, E.SB_LAST] = -1
        st.subt[:, E.SB_RPC] = -1
        st.ctat[:] = 0
        st.ctat[:, E.CT_CTA] = -1
        st.ufree[:] = 0
        st.ufree[:, :, int(st.cfg[E.C_UF_BASE]):] = -1  # core.result_buses' rings and ports (layout.py, RB_RING)
        for name in ("ctr", "smst", "slst", "chst", "bkst", "clst", "prst", "nst", "kst"):
            getattr(st, name)[...] = 0
        st.pcst = np.zeros((len(la.pct), E.NPCS), np.int64)
        g = st.g
        for f in (E.G_NEXT_CTA, E.G_CTAS_DONE, E.G_LIVE_CTAS, E.G_TS_N):
            g[f] = 0
        if not self.machine.core.cta_dispatch.carry_round_robin or self._launches_reset == 0:
            g[E.G_RR_SM] = self.machine.core.cta_dispatch.first_sm % self.machine.core.num_sms
        self._launches_reset += 1

    def _time_series(self) -> dict[str, np.ndarray]:
        st = self.state
        n = int(st.g[E.G_TS_N])
        out = {name: st.ts[:n, i].copy() for i, name in enumerate(E.TS_NAMES)}
        for i in range(2 * st.nstacks_linked):  # busy time (ps) of each link channel since the launch began
            out[f"link{i // 2}_{('tx', 'rx')[i % 2]}_busy_ps"] = st.ts[:n, E.NTS + i] - self._links0[i // 2, i % 2, 0]
        return out

    def _near_data_extra(self, la: LaunchArrays, links0: np.ndarray, xl0: np.ndarray, end: int) -> dict[str, int]:
        """Per-launch link counters (differences of the cumulative ones) and register-file accesses."""
        st = self.state
        out: dict[str, int] = {}
        d = st.link_counters(end) - links0
        for s in range(d.shape[0]):
            for k, name in enumerate(("tx", "rx")):
                out[f"link{s}.{name}.busy_ps"] = int(d[s, k, 0])
                out[f"link{s}.{name}.bytes"] = int(d[s, k, 1])
                out[f"link{s}.{name}.packets"] = int(d[s, k, 2])
        dx = st.xl_counters(end) - xl0  # the stack SMs' cross-stack links: pair (a, b), TX a -> b, RX b -> a
        for p, (a, b) in enumerate(st.xl_pairs):
            for k, (x, y) in enumerate(((a, b), (b, a))):
                out[f"xlink{x}to{y}.busy_ps"] = int(dx[p, k, 0])
                out[f"xlink{x}to{y}.bytes"] = int(dx[p, k, 1])
                out[f"xlink{x}to{y}.packets"] = int(dx[p, k, 2])
        # warp-wide register operands (destinations and sources) of every issued instruction; a guard predicate
        # is read from the predicate registers, not the register file
        nops = (la.pct[:, E.P_D0:E.P_S3 + 1] >= 0).sum(axis=1)
        out["rf_accesses"] = int((st.pcst[: len(nops), E.PCS_ISSUED] * nops[: len(st.pcst)]).sum())
        return out

    def link_utilisation(self, launch: int = -1) -> dict[str, np.ndarray]:
        """Per link channel, its utilisation in each ``sim.time_series_interval`` of a launch.

        Keys ``cycle`` (core cycle at each sample's end) and ``stack{s}.tx`` / ``stack{s}.rx`` (busy fraction
        of the interval ending there); on a logic die with cross-stack links (on stack h) ``stack{h}to{t}`` and
        ``stack{t}to{h}``. Needs a machine with links and a time-series interval."""
        if not self.launches:
            raise ValueError("no launch timed yet")
        ts = self.launches[launch].time_series
        if ts is None:
            raise ValueError("set sim.time_series_interval to record link utilisation over time")
        interval_ps = int(self.state.cfg[E.C_TS_INTERVAL_PS])
        out = {"cycle": ts["cycle"].copy()}
        home = self.state.cross_home
        for s in range(self.state.nstacks_linked):
            if s == home:  # a logic die's own stack: no link
                continue
            for name in ("tx", "rx"):
                busy = ts[f"link{s}_{name}_busy_ps"]
                key = f"stack{s}.{name}" if home < 0 else (f"stack{home}to{s}" if name == "tx" else f"stack{s}to{home}")
                out[key] = np.diff(busy, prepend=0) / interval_ps
        return out

    def _consts(self) -> dict[str, Any]:
        m = self.machine
        dr = m.dram
        return {
            "core_mhz": m.clocks.core_mhz, "icnt_mhz": m.clocks.icnt_mhz, "l2_mhz": m.clocks.l2_mhz,
            "dram_mhz": m.clocks.dram_mhz, "num_sms": m.core.num_sms, "max_warps": m.core.max_warps,
            "flit_bytes": m.icnt.flit_bytes, "channels": dr.scheduling_channels,
            "dram_peak_gbs": dram_peak_gbs(m), "dram_atom_bytes": dr.atom_bytes,
            "energy": dict(m.energy.events), "static_power_w": m.energy.static_power_w,
            **self._near_data_consts(),
        }

    def _near_data_consts(self) -> dict[str, Any]:
        m = self.machine
        out: dict[str, Any] = {}
        if m.stacks is not None:
            out["stacks"] = {**m.stacks.model_dump(), "vault_gbs": m.stacks.vault_gbs()}
        if m.links is not None:
            out["links"] = m.links.model_dump()
        if m.logic_die is not None:
            has_l2 = m.l2 is not None and m.l2.enabled
            out["logic_die"] = {**m.logic_die.model_dump(), "area_mm2": m.logic_die.area_mm2(m.num_sms, has_l2)}
            if m.logic_die.cross_stack is not None and m.stacks is not None:
                out["cross_links"] = {**m.logic_die.cross_stack.model_dump(), "home": m.logic_die.stack}
        if m.num_stack_sms:
            xl = m.links.cross_stack
            out["stack_sms"] = {"count": m.num_stack_sms, "first": m.core.num_sms, "per_stack": m.stacks.sms_per_stack,
                                "pairs": [list(p) for p in self.state.xl_pairs],
                                "cross_gbs": xl.gbs if xl is not None else 0.0,
                                "cross_flit_bytes": xl.flit_bytes if xl is not None else 1}
        return out

    # ------------------------------------------------------------------ results
    def totals(self) -> LaunchStats:
        """Statistics summed over every launch so far: ``kernel.time`` (and every rate) over the launches alone,
        the copies under ``copies`` with ``application.time`` (kernels + copies) beside it."""
        return combine(self.launches, copies=self.copies, time_ps=self.kernel_time_ps, machine=self.machine.name,
                       config_hash=self.config_hash, consts=self._consts())

    def dram_commands(self) -> np.ndarray:
        """The DRAM command log (``sim.record_dram_commands``): rows (cycle, channel, cmd, bank, row);
        a PRE logs -1 - subarray as its row (docs/timing.md "Subarrays")."""
        n = int(self.state.g[E.G_DLOG_N])
        return self.state.dlog[:n].copy()

    def state_summary(self) -> dict[str, Any]:
        """What every component holds: warps by state, queues, MSHRs, DRAM queues, free pool entries."""
        st = self.state
        states = st.wt[:, E.W_STATE]
        q = {}
        names = [("sm_out", st.q_smout, st.nsm), ("sm_in", st.q_smin, st.nsm), ("l2_in", st.q_l2in, st.nsl),
                 ("l2_out", st.q_l2out, st.nsl), ("l2_dram_return", st.q_l2ret, st.nsl),
                 ("vault_in", st.q_l2vin, st.nsl), ("l2_own_requests", st.q_l2req, st.nsl),
                 ("l2_reply_in", st.q_l2rin, st.nsl), ("sm_replies", st.q_smrep, st.nsm)]
        for name, base, n in names:
            counts = st.qm[base:base + n, E.Q_COUNT]
            q[name] = {int(i): int(c) for i, c in enumerate(counts) if c}
        return {
            "core_cycle": int(E.cyc_at(st.clk, E.D_CORE, int(st.g[E.G_NOW]))),
            "ctas": {"dispatched": int(st.g[E.G_NEXT_CTA]), "done": int(st.g[E.G_CTAS_DONE]),
                     "total": int(st.cfg[E.C_NCTAS])},
            "warps": {"active": int((states == E.WS_ACTIVE).sum()), "at_barrier": int((states == E.WS_BARRIER).sum()),
                      "draining": int((states == E.WS_DRAIN).sum()),
                      "waiting_on_memory": int(((states == E.WS_ACTIVE) & (st.wt[:, E.W_READY] >= E.INF)).sum()),
                      "pending_loads": int(st.wt[:, E.W_PEND_LD].sum()),
                      "pending_store_acks": int(st.wt[:, E.W_PEND_ST].sum())},
            "ldst_busy_sms": [int(i) for i in np.nonzero(st.smt[:, E.S_LDST_REC] >= 0)[0]],
            "l1_mshrs_in_use": {int(i): int(v) for i, v in enumerate(st.smt[:, E.S_MSHR_USED]) if v},
            "l2_mshrs_in_use": int((st.l2m[:, E.M_NREQ] > 0).sum()),
            "queues": q,
            "dram_queue": {int(c): int(n) for c, n in enumerate(st.chs[:, E.H_NQ]) if n},
            "request_pool_free": int(st.g[E.G_RQ_TOP]), "request_pool_size": int(len(st.rq)),
            "load_ops_free": int(st.g[E.G_LD_TOP]),
        }


E_PACKET_NAMES = {
    E.PK_READ: "read", E.PK_WRITE: "write", E.PK_ATOMIC: "atomic", E.PK_PREFETCH: "prefetch",
    E.PK_PRELOAD: "preload", E.PK_WBACK: "l1_writeback", E.PK_DREAD: "dram_read", E.PK_DWRITE: "dram_write",
    E.PK_ACK: "write_ack", E.PK_OFFLOAD: "offload",
}


def _last_edge(clk: np.ndarray, domain: int, t: int) -> int:
    """The last edge of clock ``domain`` at or before time ``t`` (ps)."""
    k = int(E.cyc_at(clk, domain, t))
    return k if int(E.edge(clk, domain, k)) <= t else k - 1


def _format_summary(s: dict[str, Any]) -> str:
    return "\n".join(f"  {k}: {v}" for k, v in s.items())
