"""TELEPORT in the timing engine: results unchanged, every preloaded line read or counted wasted, gating
(the I-/S-/R-machines), preload counts from Eqs. 2/3 only (data-dependent control flow and indirect
indexes leave them unchanged: no knowledge of the trace's future), analytic bounds of the controller
and the buffer, the policy string, and a kernel outside the paper's suite."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import ndpgpu.api as cp
from ndpgpu.mechanisms.policy import PolicyError, make_policy
from ndpgpu.mechanisms.teleport.config import Teleport
from ndpgpu.mechanisms.teleport.policy import kernel_plans, parse
from ndpgpu.mechanisms.teleport.unit import KernelPlan, TeleportHardware, TeleportPreloader
from ndpgpu.timing.session import TimingSession
from ndpgpu.workloads.runner import run_workload

SRC = r"""
extern "C" __global__ void guarded(const int *flag, const float *a, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  if (t < n && flag[t]) s = a[t] * 2.0f;
  if (t < n) out[t] = s;
}
extern "C" __global__ void gather(const int *idx, const float *a, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[t] = a[idx[t]];
}
extern "C" __global__ void wide(const float4 *a, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = a[t];
  out[t] = v.x + v.y + v.z + v.w;
}
extern "C" __global__ void strided(const float *a, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = a[32 * t];
}
"""
N = 4096
BLOCK = 256


@functools.cache
def module() -> cp.RawModule:
    return cp.RawModule(code=SRC)


def plans() -> dict[str, KernelPlan]:
    m = module()
    return {k: KernelPlan.of(m.ir.functions[k]) for k in ("guarded", "gather", "wide", "strided")}


@functools.cache
def recorded(kernel: str, data: str):
    """(trace, output) of one launch of ``kernel`` on N elements; ``data`` picks the flags / indexes."""
    rng = np.random.default_rng(3)
    with cp.Device(trace=True) as dev:
        a = cp.asarray(rng.random(N, dtype=np.float32))
        out = cp.zeros(N, np.float32)
        if kernel == "guarded":
            flag = np.zeros(N, np.int32) if data == "zeros" else np.ones(N, np.int32)
            first = cp.asarray(flag)
        else:
            idx = rng.permutation(N).astype(np.int32) if data == "random" else np.arange(N, dtype=np.int32)
            first = cp.asarray(idx)
        module().get_function(kernel)((N // BLOCK,), (BLOCK,), (first, a, out, np.int32(N)))
        return dev.traces[0], out.get()


@functools.cache
def recorded_small(kernel: str, blocks: int, threads: int):
    """The trace of ``kernel`` (guarded, wide or strided) on a grid of ``blocks`` x ``threads``."""
    rng = np.random.default_rng(4)
    n = blocks * threads
    with cp.Device(trace=True) as dev:
        out = cp.zeros(n, np.float32)
        f = module().get_function(kernel)
        if kernel == "guarded":
            f((blocks,), (threads,), (cp.asarray(np.ones(n, np.int32)), cp.asarray(rng.random(n, dtype=np.float32)),
                                      out, np.int32(n)))
        else:
            a = cp.asarray(rng.random(n * (4 if kernel == "wide" else 32), dtype=np.float32))
            f((blocks,), (threads,), (a, out))
        return dev.traces[0]


def timed_trace(trace, config: Teleport | None):
    s = TimingSession("gtx480")
    if config is not None:
        s.attach(TeleportHardware(plans(), config))
    st = s.run_launch(trace)
    return st, {(p, m): v for p, m, v, _ in st.rows()}


def timed(kernel: str, data: str, config: Teleport | None):
    trace, _ = recorded(kernel, data)
    s = TimingSession("gtx480")
    if config is not None:
        s.attach(TeleportHardware(plans(), config))
    st = s.run_launch(trace)
    return st, {(p, m): v for p, m, v, _ in st.rows()}


def tp(m, name):
    return m[("teleport", name)]


LINES_PER_CTA = 2 * BLOCK * 4 // 128  # flag[t] and a[t]: 8 lines each (Eqs. 2/3)
CTAS = N // BLOCK


@pytest.mark.parametrize("machine", ["real", "I", "S", "R"])
def test_every_preloaded_line_read_or_wasted(machine):
    st, m = timed("guarded", "ones", Teleport(machine=machine))
    assert tp(m, "filled") == tp(m, "used") + tp(m, "wasted")
    assert tp(m, "filled") == CTAS * LINES_PER_CTA  # every line of every block, none shared between blocks
    assert tp(m, "used") == tp(m, "filled")  # every thread reads its flag and its a[t]
    assert tp(m, "coverage") == 1.0 and tp(m, "miss_loads") == 0


def test_preloads_do_not_depend_on_the_data():
    """The flags decide which threads read a[t] (data-dependent control flow the analysis cannot know): the
    requests are Eqs. 2/3's lines either way; with all flags 0 the a[t] lines are wasted, not skipped."""
    _, m0 = timed("guarded", "zeros", Teleport(machine="R"))
    _, m1 = timed("guarded", "ones", Teleport(machine="R"))
    assert tp(m0, "requests") == tp(m1, "requests") == CTAS * LINES_PER_CTA
    assert tp(m0, "used") == CTAS * LINES_PER_CTA // 2 and tp(m0, "wasted") == CTAS * LINES_PER_CTA // 2
    assert tp(m1, "wasted") == 0


def test_indirect_index_is_not_preloaded():
    """a[idx[t]]: only idx's lines are preloaded; the gathered loads go to L1 whatever the permutation."""
    for data in ("identity", "random"):
        _, m = timed("gather", data, Teleport(machine="R"))
        assert tp(m, "requests") == CTAS * BLOCK * 4 // 128
        assert tp(m, "hit_loads") == CTAS * BLOCK // 32  # idx[t]: one per warp
        assert tp(m, "miss_loads") == CTAS * BLOCK // 32  # a[idx[t]]


def test_results_bit_identical():
    """Timing with TELEPORT attached runs the same functional execution: outputs equal bit for bit."""
    rng = np.random.default_rng(5)
    host_a = rng.random(N, dtype=np.float32)
    flag = (rng.random(N) < 0.5).astype(np.int32)
    outs = []
    for attach in (False, True):
        with cp.Device("gtx480") as dev:
            if attach:
                dev.timing.attach(TeleportHardware(plans(), Teleport()))
            out = cp.zeros(N, np.float32)
            module().get_function("guarded")((N // BLOCK,), (BLOCK,), (cp.asarray(flag), cp.asarray(host_a), out,
                                                                      np.int32(N)))
            outs.append(out.get())
            assert dev.launch_stats
    assert outs[0].tobytes() == outs[1].tobytes()
    assert np.array_equal(outs[0], np.where(flag != 0, host_a * 2, 0).astype(np.float32))


def test_gating_of_the_machines():
    """I: no TELEPORT requests, no gating; S: as many requests as R, never gated; R: every block gated."""
    _, mi = timed("guarded", "ones", Teleport(machine="I"))
    _, ms = timed("guarded", "ones", Teleport(machine="S"))
    _, mr = timed("guarded", "ones", Teleport(machine="R"))
    _, mb = timed("guarded", "ones", None)
    assert tp(mi, "requests") == 0 and tp(mi, "arrived") == 0 and tp(mi, "gated_ctas") == 0
    assert tp(ms, "requests") == tp(mr, "requests") > 0
    assert tp(ms, "gated_ctas") == 0 and tp(ms, "gate_cycles_per_cta") == 0
    assert tp(mr, "gated_ctas") == CTAS and tp(mr, "arrived") == tp(mr, "requests")
    assert mi[("dram", "reads")] <= mb[("dram", "reads")]
    ci, cs, cr = (m[("kernel", "cycles")] for m in (mi, ms, mr))
    assert ci <= cs <= cr  # I >= S >= R in performance


def test_expected_zero_starts_at_once():
    """A kernel with nothing precalculable: no block waits, and the run is the baseline's cycle for cycle."""
    base, mb = timed("gather", "random", None)
    st, m = timed("gather", "random", Teleport(machine="real", table_entries=1, merge=True))
    assert tp(m, "requests") > 0  # idx's row fits in the one entry
    empty = {k: KernelPlan(p.fn, []) for k, p in plans().items()}
    s = TimingSession("gtx480")
    s.attach(TeleportHardware(empty, Teleport()))
    st0 = s.run_launch(recorded("gather", "random")[0])
    m0 = {(p, mm): v for p, mm, v, _ in st0.rows()}
    assert tp(m0, "gated_ctas") == 0 and tp(m0, "requests") == 0
    assert m0[("kernel", "cycles")] == mb[("kernel", "cycles")]


def test_controller_and_buffer_bounds():
    """The dispatcher's controller sends one line per cycle, so a gated block waits at least its line count; the
    launch lasts at least every block's lines (per-core controllers: the busiest core's); a buffer hit costs
    the shared-memory latency, so the I-machine's loads cannot beat it."""
    st, m = timed("guarded", "ones", Teleport(machine="R"))
    assert tp(m, "gate_cycles_per_cta") >= LINES_PER_CTA
    assert m[("kernel", "cycles")] >= CTAS * LINES_PER_CTA
    _, mc = timed("guarded", "ones", Teleport(machine="R", controller="core"))
    assert mc[("kernel", "cycles")] >= -(-CTAS // 15) * LINES_PER_CTA
    _, mi = timed("guarded", "ones", Teleport(machine="I", smem_latency=200))
    _, mi1 = timed("guarded", "ones", Teleport(machine="I", smem_latency=1))
    assert mi[("kernel", "cycles")] >= 2 * 200  # two dependent buffer loads per warp (flag, then a[t])
    assert mi1[("kernel", "cycles")] < mi[("kernel", "cycles")]


def test_buffer_capacity_evicts_lru():
    """A 1 KB buffer (4 sets x 2 ways) cannot hold a block's 16 lines: lines are evicted, loads miss, and
    every filled line is still either used or wasted."""
    _, m = timed("guarded", "ones", Teleport(machine="real", buffer_kb=1))
    assert tp(m, "evicted") > 0 and tp(m, "miss_loads") > 0
    assert tp(m, "filled") == tp(m, "used") + tp(m, "wasted")


@pytest.mark.parametrize("arb", ["tpref", "cpref", "alt"])
def test_arbitration_policies_run(arb):
    _, m = timed("guarded", "ones", Teleport(arbitration=arb))
    assert tp(m, "requests") == CTAS * LINES_PER_CTA and tp(m, "coverage") == 1.0


def test_outstanding_bound_slows_the_gate():
    """The optional cap (one request in flight per core): a block's lines come one round trip apart, so the same
    requests, a longer wait per gated block and a longer launch than with only the queues bounding them."""
    _, mfree = timed("guarded", "ones", Teleport(machine="R", controller="core"))
    _, m1 = timed("guarded", "ones", Teleport(machine="R", controller="core", max_outstanding=1))
    assert Teleport().max_outstanding == 0  # the default: no cap (the paper gives no number)
    assert tp(m1, "requests") == tp(mfree, "requests")
    assert tp(m1, "gate_cycles_per_cta") > tp(mfree, "gate_cycles_per_cta")
    assert m1[("kernel", "cycles")] > mfree[("kernel", "cycles")]


@pytest.mark.parametrize("controller", ["shared", "core"])
def test_controller_starts_a_block_at_its_dispatch(controller):
    """Sec. 3.2.2: "Upon dispatching every thread block, the controller ... issues a burst of requests": a lone
    block's first request leaves in the cycle it is dispatched (the machine's CTA launch latency is 0)."""
    _, m = timed_trace(recorded_small("guarded", 1, BLOCK), Teleport(machine="R", controller=controller))
    assert tp(m, "requests") == LINES_PER_CTA
    assert tp(m, "start_cycles_per_cta") == 0


def test_shared_controller_serves_blocks_in_dispatch_order():
    """The dispatcher's one controller sends one line per cycle in all: the i-th block's first line leaves no
    earlier than i x (lines per block) cycles after the first's, so the mean start is at least (n - 1) / 2 x
    lines; per-core controllers start the first wave's 15 blocks at once."""
    _, ms = timed("guarded", "ones", Teleport(machine="R"))
    _, mc = timed("guarded", "ones", Teleport(machine="R", controller="core"))
    # (the statistic is picoseconds over the core period: allow a rounding of a thousandth of a cycle)
    assert tp(ms, "start_cycles_per_cta") >= LINES_PER_CTA * (CTAS - 1) / 2 - 1e-3
    assert tp(mc, "start_cycles_per_cta") < tp(ms, "start_cycles_per_cta")


def test_s_machine_issues_every_line():
    """The S-machine's blocks are never gated and may end before their lines are requested; the launch lasts
    until the controller has requested every line (here the cap of one request in flight per core makes the
    controller far slower than the blocks), so it pays the whole bandwidth and takes longer."""
    _, mfast = timed("guarded", "ones", Teleport(machine="S", controller="core"))
    _, mslow = timed("guarded", "ones", Teleport(machine="S", controller="core", max_outstanding=1))
    for m in (mfast, mslow):
        assert tp(m, "requests") == CTAS * LINES_PER_CTA and tp(m, "gated_ctas") == 0
    assert mslow[("kernel", "cycles")] > mfast[("kernel", "cycles")]
    assert tp(mslow, "arrived") <= tp(mslow, "requests")  # (replies may outlive the launch: zero-latency data)


@pytest.mark.parametrize(("kernel", "lines"), [("wide", 4), ("strided", 32)])
def test_buffer_hit_costs_a_read_per_line(kernel, lines):
    """A buffer hit is a shared-memory access: a warp's float4 load reads 4 whole lines (4 passes through the
    banks), a[32 t] reads one word at the same offset of 32 lines (the same banks: 32 passes); the LD/ST port is
    held a cycle per pass and the data comes after the shared-memory latency plus the extra passes."""
    trace = recorded_small(kernel, 1, 32)
    lat = 200
    _, m = timed_trace(trace, Teleport(machine="I", smem_latency=lat))
    assert tp(m, "hit_loads") == 1 and tp(m, "hit_transactions") == lines
    assert tp(m, "hit_line_reads") == lines
    assert m[("kernel", "cycles")] >= lat + lines - 1
    _, m4 = timed_trace(recorded_small(kernel, 4, 256), Teleport(machine="I"))
    assert tp(m4, "hit_line_reads") == lines * tp(m4, "hit_loads") == lines * 4 * 256 // 32


def test_shared_and_per_core_controllers():
    """The dispatcher's one controller (`shared`) sends one line per cycle for every core, block after block in
    dispatch order: the launch lasts at least all blocks' lines, and the last block waits for every earlier
    block's lines to go out first. Per-core controllers send the same requests."""
    _, ms = timed("guarded", "ones", Teleport(machine="R", controller="shared"))
    _, mc = timed("guarded", "ones", Teleport(machine="R", controller="core"))
    assert tp(ms, "requests") == tp(mc, "requests") == CTAS * LINES_PER_CTA
    assert ms[("kernel", "cycles")] >= CTAS * LINES_PER_CTA
    # block i's first line leaves after blocks 0..i-1's: the mean wait is at least the mean of (i+1) x lines
    assert tp(ms, "gate_cycles_per_cta") >= LINES_PER_CTA * (CTAS + 1) / 2
    assert parse("real,controller=core")[0].controller == "core" and parse("real")[0].controller == "shared"
    with pytest.raises(PolicyError, match="controller"):
        make_policy("teleport:real,controller=both")


def test_policy_spec():
    cfg, l1 = parse("S,buffer_kb=16,arb=alt,priority=2,table=32,merge=0")
    assert (cfg.machine, cfg.buffer_kb, cfg.arbitration, cfg.priority, cfg.table_entries, cfg.merge, l1) == (
        "S", 16, "alt", 2, 32, False, False)
    assert parse("l1")[1] is True
    assert parse("real,outstanding=8")[0].max_outstanding == 8
    assert parse("mthwp,mthwp_ids=global")[0].mthwp_ids == "global" and parse("real,mthwp")[0].mthwp_ids == "slot"
    with pytest.raises(PolicyError, match="mthwp_ids"):
        make_policy("teleport:real,mthwp_ids=global")
    with pytest.raises(PolicyError, match="machine"):
        make_policy("teleport:Q")
    with pytest.raises(PolicyError, match="unknown setting"):
        make_policy("teleport:real,size=3")
    with pytest.raises(PolicyError, match="not an integer"):
        make_policy("teleport:real,buffer_kb=big")


def test_l1_preloader_path_same_lines():
    """The table as the engine's Preloader (lines into L1 at dispatch): the same lines per block."""
    trace, _ = recorded("guarded", "ones")
    start, lines = TeleportPreloader(plans()).lines(trace, None)
    assert len(start) == CTAS + 1 and int(start[-1]) == CTAS * LINES_PER_CTA
    assert np.all(np.diff(lines[start[0]:start[1]]) > 0)
    s = TimingSession("gtx480")
    s.set_preloader(TeleportPreloader(plans()))
    st = s.run_launch(trace)
    assert st.c("PRELOADS") == CTAS * LINES_PER_CTA


def test_kernel_outside_the_paper_suite():
    """saxpy (the builtin suite) under teleport:real on gtx480: x and y preloaded, every load a buffer hit."""
    run = run_workload("saxpy", "tiny", trace=True)
    s = TimingSession("gtx480")
    s.attach(TeleportHardware(kernel_plans("saxpy"), Teleport()))
    for tr in run.device.traces:
        s.run_launch(tr)
    m = {(p, mm): v for p, mm, v, _ in s.totals().rows()}
    assert tp(m, "coverage") > 0.9
    assert tp(m, "filled") == tp(m, "used") + tp(m, "wasted")


def test_machine_parameters_fill_what_the_policy_string_leaves_unset():
    from ndpgpu.mechanisms.policy import make_policy
    from ndpgpu.mechanisms.teleport.policy import on_machine
    from ndpgpu.timing import MachineConfigError, load_machine

    plain = load_machine("gtx480-gpgpusim3")
    assert plain.mechanism("teleport").buffer_kb == 48  # the defaults: config.Teleport's
    m16 = load_machine("gtx480-gpgpusim3", {"mechanisms.teleport.buffer_kb": 16,
                                            "mechanisms.teleport.controller": "core"})
    assert m16.config_hash() != plain.config_hash()
    pol = make_policy("teleport:real")
    cfg = on_machine(pol.config, pol.explicit, m16)
    assert (cfg.buffer_kb, cfg.controller) == (16, "core")
    assert on_machine(pol.config, pol.explicit, plain) == pol.config  # nothing set: the policy's own
    own = make_policy("teleport:real,buffer_kb=64")
    assert on_machine(own.config, own.explicit, m16).buffer_kb == 64  # the string wins
    with pytest.raises(MachineConfigError, match="buffer_kbb"):
        load_machine("gtx480", {"mechanisms.teleport.buffer_kbb": 16})


def test_s_machine_is_sampled_by_waves_with_its_controllers_backlog():
    """The S-machine's launch lasts until its one controller has requested every block's lines, and its blocks
    are never gated, so they run ahead of it: extending the waves timed by their instructions alone misses that
    backlog. Its controller's requests are serial work (docs/sampling.md): the projection's cycles are at least
    the requests the table gives the whole grid at its measured rate, and the shared controller sends at most
    one request a cycle, so neither run can be shorter than the grid's lines (an analytic bound)."""
    from ndpgpu.timing import load_machine

    trace = recorded_small("guarded", 720, 256)  # 8 waves of 90 resident blocks on gtx480
    sampled = {"sim.sample_waves": 4, "sim.sample_min_waves": 8}

    def run(machine: str, overrides: dict | None):
        s = TimingSession(load_machine("gtx480", overrides or {}))
        s.attach(TeleportHardware(plans(), Teleport(machine=machine)))
        return s.run_launch(trace)

    full, cut = run("S", None), run("S", sampled)
    lines = full.get("teleport", "requests")
    assert lines == 720 * 16  # two 1 KB rows per block (flags and values), 128-B lines
    assert cut.sampled["ctas_timed"] == 4 * 90 and "declined" not in cut.sampled
    assert cut.get("teleport", "requests") == lines  # the sample's 360 blocks' requests, scaled by the work
    assert full.cycles >= lines and cut.cycles >= lines
    assert cut.sampled["serial"] == 1 and cut.get("sampling", "launches_serial_bound") == 1
    sp = cut.sampled  # the CTAs' projection alone would end before the controller could have sent every line
    assert sp["cycles_timed"] + sp["extra_insts"] / sp["window_insts"] * sp["window_cycles"] < lines
    assert abs(cut.cycles / full.cycles - 1) < 0.1  # measured: 13,340 against 12,771 (+4.5%)
    r = run("R", sampled)  # the R-machine gates its blocks: no backlog, the CTAs' projection alone
    assert r.sampled["ctas_timed"] == 4 * 90 and r.sampled["serial"] == 0


def test_the_policy_says_before_a_run_what_its_hardware_may_decline():
    """A sampled reproduction times every point alike (docs/sampling.md, Paired points), so it must know before
    running which kinds of sampling a policy's launches may refuse: stopping short launches wherever blocks
    preload (the S-machine's backlog is projected, above, so it accepts waves); MTHWP alone preloads nothing and
    refuses neither."""
    from ndpgpu.mechanisms.policy import make_policy

    def says(name: str) -> tuple[bool, bool]:
        p = make_policy(name)
        return bool(p.may_decline_sampling("waves")), bool(p.may_decline_sampling("stable"))

    assert says("teleport:S") == says("teleport:R") == says("teleport:I") == (False, True)
    assert says("teleport:real,mthwp") == (False, True)
    assert says("teleport:l1") == (False, True)  # the L1 variant's preloader: never stopped mid-launch
    assert says("teleport:mthwp") == says("teleport:mthwp,mthwp_ids=global") == (False, False)
    assert says("llc:llc") == says("llc:omni") == says("tom:ctrl+tmap") == (False, True)
    assert says("mpu:annotation") == says("ipndp:paca+pf") == (False, False)


def test_buffer_hits_wait_in_the_memory_queue():
    """With ``core.mem_queue`` a buffer hit that finds the LD/ST unit busy (or instructions waiting for it) waits
    behind them (``memq.ldst_hold``), and the unit's start of it wakes its warp: the run ends with every
    instruction issued, loads served from the buffer, and instructions that waited in the queue."""
    trace = recorded_small("strided", 8, 256)  # 32 lines a load: the unit is busy 32 cycles for each miss
    runs = {}
    for q in (0, 4):
        s = TimingSession("gtx480", {"core.mem_queue": q})
        s.attach(TeleportHardware(plans(), Teleport(machine="R", controller="core")))
        runs[q] = s.run_launch(trace)
    assert runs[4].c("WARP_INSTS") == runs[0].c("WARP_INSTS")
    assert runs[4].c("MQ_STARTS") > 0 and runs[0].c("MQ_STARTS") == 0
    assert runs[4].c("TP_HIT_LD") > 0
