"""MPU's processor in the timing engine (``core.model: mpu``): its register moves and near-bank split equal the
offload-engine replay of ``registers.py`` under every location policy, it issues exactly the traced
instructions, the TSV bus bounds its time, and the policy refuses a machine that is not an MPU."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from ndpgpu.mechanisms.mpu import hardware as H
from ndpgpu.mechanisms.mpu.energy import ALU_CLASSES, alu_class
from ndpgpu.mechanisms.mpu.locations import POLICIES, annotate
from ndpgpu.mechanisms.mpu.policy import MpuPolicyError
from ndpgpu.mechanisms.mpu.registers import register_traffic
from ndpgpu.mechanisms.mpu.unit import MpuHardware, MpuMachineError, alu_classes, check_machine, placement_rows
from ndpgpu.mechanisms.policy import PolicyError, make_policy
from ndpgpu.power import evaluate
from ndpgpu.timing.power.events import declared_unit_energies
from ndpgpu.timing.presets import load_machine
from ndpgpu.timing.session import CoreModelError, TimingSession
from ndpgpu.workloads.runner import run_workload, toolchain_available

needs_nvcc = pytest.mark.skipif(not toolchain_available(), reason="needs nvcc and a host C++ compiler")

KERNELS = ("mpu_axpy", "mpu_gemv", "mpu_blur", "mpu_hist")
REGISTER_MOVE_PS = 128 // 8 * 500  # a 128-B warp register over a core's 8 B per 0.5 ns


@functools.cache
def recorded(workload: str):
    """One functional run per workload, shared by every test."""
    run = run_workload(workload, "tiny", trace=True)
    assert run.passed, f"{workload}: functional outputs differ from NumPy"
    return run


@functools.cache
def timed(workload: str, policy: str, near_bank_smem: bool = True, remote_cache: bool = True):
    """The per-launch statistics of ``workload`` on the mpu machine under ``policy``."""
    run = recorded(workload)
    s = TimingSession("mpu")
    s.attach(MpuHardware(run.module, policy, near_bank_smem=near_bank_smem, remote_cache=remote_cache))
    return tuple(s.run_launch(tr) for tr in run.device.traces)


@needs_nvcc
@pytest.mark.parametrize("workload", KERNELS)
def test_register_moves_and_locations_equal_the_replay(workload):
    run = recorded(workload)
    for policy in POLICIES:
        for tr, st in zip(run.device.traces, timed(workload, policy), strict=True):
            fn = run.module.ir.functions[tr.launch.kernel]
            ref = register_traffic(fn, annotate(fn), tr, policy)
            got = (st.c("MOVES_DOWN"), st.c("MOVES_UP"), st.c("NEAR_INSTS"), st.c("FAR_ALU_INSTS"))
            assert got == (ref.moves_down, ref.moves_up, ref.near, ref.far_alu), (policy, tr.launch.kernel)
            assert st.c("TSV_MOVE_BYTES") == 128 * ref.moves


@needs_nvcc
@pytest.mark.parametrize("workload", KERNELS)
def test_warp_instructions_equal_the_traced_ones(workload):
    run = recorded(workload)
    for tr, st in zip(run.device.traces, timed(workload, "annotation"), strict=True):
        assert st.c("WARP_INSTS") == st.c("MPU_WARP_INSTS") == tr.warp_instructions()
        assert st.c("THREAD_INSTS") == tr.thread_instructions()
        # every warp-instruction is near-bank ALU, far-bank ALU or another far-bank one, once
        assert st.c("NEAR_INSTS") + st.c("FAR_ALU_INSTS") + st.c("FAR_OTHER_INSTS") == tr.warp_instructions()


@needs_nvcc
@pytest.mark.parametrize(("workload", "policy"), [("mpu_blur", "hardware"), ("mpu_gemv", "all-near"),
                                                   ("mpu_axpy", "all-far")])
def test_the_tsv_bus_bounds_the_time(workload, policy):
    """A core that moves N warp registers keeps its TSV's two directions busy N x 8 ns at least in all, and the
    kernel lasts as long as the busiest direction of any core."""
    for st in timed(workload, policy):
        n = st.c("MOVES_MAX_CORE")
        assert n > 0
        assert st.c("TSV_BUSY_MAX_PS") >= n * REGISTER_MOVE_PS
        assert st.c("TSV_BUSY_MAX_PS") >= st.c("TSV_DIR_BUSY_MAX_PS") >= st.c("TSV_BUSY_MAX_PS") / 2
        assert st.time_ps >= st.c("TSV_DIR_BUSY_MAX_PS")
        assert st.c("TSV_BYTES") == st.c("TSV_MOVE_BYTES") + st.c("TSV_PKT_BYTES") + st.c("TSV_DATA_BYTES")
        assert st.c("TSV_BUSY_PS") * 8 >= st.c("TSV_BYTES") * 500  # 8 B per 500 ps, whole beats


@needs_nvcc
def test_memory_instructions_take_one_lsu_path_each():
    for st in timed("mpu_gemv", "annotation"):
        global_ldst = st.c("LD_OFFLOADED") + st.c("ST_OFFLOADED") + st.c("LD_TX_PATH") + st.c("ST_TX_PATH")
        assert global_ldst == st.c("LOADS") + st.c("STORES") + st.c("ATOMICS") - st.c("SMEM_ACCESSES")
        assert st.c("TX_LOCAL") + st.c("TX_REMOTE") > 0
        rows = {(p, m): v for p, m, v, _ in st.rows()}
        assert rows[("mpu.registers", "moves_down")] == st.c("MOVES_DOWN")
        assert 0.0 <= rows[("mpu.dram", "row_buffer_miss_rate")] <= 1.0


@needs_nvcc
def test_mpu_policy_needs_an_mpu_machine():
    run = recorded("mpu_axpy")
    pol = make_policy("mpu:annotation")
    with pytest.raises(MpuPolicyError, match="not an MPU"):
        pol.prepare(TimingSession("gtx480"), run, list(run.device.traces))
    assert issubclass(MpuPolicyError, PolicyError)
    with pytest.raises(PolicyError, match="expected mpu:<policy>"):
        make_policy("mpu:nearest")
    with pytest.raises(CoreModelError, match="cores are the 'mpu' mechanism's"):
        TimingSession("mpu").run_launch(run.device.traces[0])  # no processor attached
    with pytest.raises(MpuMachineError, match="gtx480 is not an MPU"):
        check_machine(load_machine("gtx480"))


@needs_nvcc
@pytest.mark.parametrize("workload", ["mpu_hist", "mpu_blur"])
def test_far_bank_smem_moves_equal_the_replay_and_leave_the_tsv(workload):
    """Far-bank shared memory: the engine's register moves are the replay's with shared-memory operands far,
    and the shared-memory packets are gone from the TSV (packets = 8 B x (near-bank instructions + offloaded
    loads and stores), plus 8 B per shared-memory access only when it is near bank)."""
    run = recorded(workload)
    for policy in ("annotation", "hardware"):
        near, far = timed(workload, policy), timed(workload, policy, False)
        assert sum(st.c("SMEM_ACCESSES") for st in far) > 0
        for tr, sn, sf in zip(run.device.traces, near, far, strict=True):
            fn = run.module.ir.functions[tr.launch.kernel]
            ref = register_traffic(fn, annotate(fn, near_bank_smem=False), tr, policy, near_bank_smem=False)
            got = (sf.c("MOVES_DOWN"), sf.c("MOVES_UP"), sf.c("NEAR_INSTS"), sf.c("FAR_ALU_INSTS"))
            assert got == (ref.moves_down, ref.moves_up, ref.near, ref.far_alu), (policy, tr.launch.kernel)
            assert sf.c("SMEM_ACCESSES") == sn.c("SMEM_ACCESSES")
            for st, smem_packets in ((sn, sn.c("SMEM_ACCESSES")), (sf, 0)):
                offloaded = st.c("LD_OFFLOADED") + st.c("ST_OFFLOADED")
                assert st.c("TSV_PKT_BYTES") == 8 * (st.c("NEAR_INSTS") + offloaded + smem_packets)
    # the replay with near-bank shared memory differs: the setting reaches the placement
    fn = run.module.ir.functions[run.device.traces[0].launch.kernel]
    tr = run.device.traces[0]
    assert (register_traffic(fn, annotate(fn), tr, "hardware").moves
            != register_traffic(fn, annotate(fn, near_bank_smem=False), tr, "hardware", near_bank_smem=False).moves)


@needs_nvcc
def test_far_bank_smem_changes_nothing_without_shared_memory():
    for sn, sf in zip(timed("mpu_axpy", "annotation"), timed("mpu_axpy", "annotation", False), strict=True):
        assert sn.c("SMEM_ACCESSES") == 0
        assert sn.time_ps == sf.time_ps
        assert sn.rows() == sf.rows()


def test_mpu_policy_specs():
    pol = make_policy("mpu:all-far+far-smem")
    assert (pol.spec.policy, pol.spec.far_bank_smem, str(pol.spec)) == ("all-far", True, "all-far+far-smem")
    rows = {m: v for _, m, v, _ in pol.rows()}
    assert rows["far_bank_smem"] == 1.0 and rows["all_far"] == 1.0 and rows["annotation"] == 0.0
    assert {m: v for _, m, v, _ in make_policy("mpu:hardware").rows()}["far_bank_smem"] == 0.0
    for bad, why in (("mpu:annotation+near-smem", "unknown switch.*'near-smem'"),
                     ("mpu:annotation+far-smem+far-smem", "given twice"),
                     ("mpu:far-smem", "expected mpu:<policy>.*unknown 'far-smem'"),
                     ("mpu:", "expected mpu:<policy>.*unknown ''")):
        with pytest.raises(MpuPolicyError, match=why):
            make_policy(bad)


def trace_transactions(tr, classes: tuple[str, ...] = ("load", "store")) -> int:
    """The 32-B chunks each global access of these op classes touches, counted from the trace's lane addresses
    (a hand count independent of the engine's coalescer)."""
    from ndpgpu.trace.format import OP_CLASS, SPACE

    n = 0
    for m in tr.mem:
        cls = int(tr.static["op_class"][int(m["pc"])])
        if cls not in {OP_CLASS[c] for c in classes} or int(m["space"]) not in (SPACE["global"], SPACE["generic"]):
            continue
        lanes = [j for j in range(32) if int(m["mask"]) >> j & 1]
        if int(m["addr_index"]) >= 0:
            addrs = [int(tr.lane_addrs[int(m["addr_index"]) + j]) for j in lanes]
        else:
            w = int(m["row_lanes"]) or 32  # affine, by rows of w lanes
            addrs = [int(m["base"]) + j % w * int(m["stride"]) + j // w * int(m["row_stride"]) for j in lanes]
        size = int(m["size"])
        n += len({a // 32 for a in addrs} | {(a + size - 1) // 32 for a in addrs})
    return n


def offchip_flits(st) -> float:
    """Flits that crossed the hierarchical mesh's off-chip links (from the network's per-port counts)."""
    off = np.asarray(st.mesh["offchip"], bool)
    return float(sum(ports[off, 0].sum() for ports in st.mesh["ports"]))


@needs_nvcc
def test_ponb_runs_everything_on_the_base_die():
    """PonB on AXPY: no near-bank instruction, register move, offload or packet; the TSV carries exactly the
    32-B transactions (loads up, stores down), counted by hand from the trace's addresses, less the remote
    stores still on their way when the kernel ends (stores are fire-and-forget: a remote one crosses its NBU's
    TSV when it arrives there, and the kernel ends when its warps do); the busiest core's TSV bytes at 8 B per
    0.5 ns in each of the two directions bound the kernel's time."""
    run = recorded("mpu_axpy")
    for tr, st, mpu in zip(run.device.traces, timed("mpu_axpy", "ponb"), timed("mpu_axpy", "annotation"),
                           strict=True):
        assert st.c("NEAR_INSTS") == st.c("MOVES_DOWN") == st.c("MOVES_UP") == 0
        assert st.c("LD_OFFLOADED") == st.c("ST_OFFLOADED") == 0
        assert st.c("TSV_MOVE_BYTES") == st.c("TSV_PKT_BYTES") == 0
        ntx = trace_transactions(tr)
        assert ntx > 0
        assert st.c("TX_LOCAL") + st.c("TX_REMOTE") == ntx
        store_tx = trace_transactions(tr, ("store",))
        in_flight = store_tx - st.c("DR_WBURST")  # store transactions not yet written when the kernel ended
        assert 0 <= in_flight < store_tx // 8
        # every load's 32 B and every store's that has reached its NBU (a remote store crosses the far TSV as
        # its write is acknowledged, a little after its burst): at most the stores in flight are missing
        assert st.c("TSV_DATA_BYTES") == st.c("TSV_BYTES") and st.c("TSV_BYTES") % 32 == 0
        assert 32 * (ntx - store_tx // 8) <= st.c("TSV_BYTES") <= 32 * ntx
        assert st.c("LD_TX_PATH") + st.c("ST_TX_PATH") == st.c("LOADS") + st.c("STORES")
        assert st.c("FAR_ALU_INSTS") == mpu.c("NEAR_INSTS") + mpu.c("FAR_ALU_INSTS")
        busiest = st.c("TSV_BYTES_MAX_CORE")
        assert busiest * 128 >= st.c("TSV_BYTES")  # at least the mean of the 128 cores
        assert st.time_ps >= busiest // 16 * 500  # both directions at once at best
        assert st.time_ps >= st.c("TSV_DIR_BUSY_MAX_PS") >= busiest // 16 * 500
        assert mpu.c("LD_OFFLOADED") > 0  # the same kernel offloads under MPU


@needs_nvcc
def test_ponb_puts_shared_memory_on_the_base_die():
    run = recorded("mpu_hist")
    assert sum(st.c("SMEM_ACCESSES") for st in timed("mpu_hist", "ponb")) > 0
    for tr, st in zip(run.device.traces, timed("mpu_hist", "ponb"), strict=True):
        assert st.c("NEAR_INSTS") == st.c("MOVES_DOWN") + st.c("MOVES_UP") == st.c("TSV_PKT_BYTES") == 0
        assert st.c("WARP_INSTS") == tr.warp_instructions()


def test_ponb_policy_spec():
    pol = make_policy("mpu:ponb")
    assert (pol.spec.policy, pol.spec.ponb, pol.spec.far_bank_smem, str(pol.spec)) == ("ponb", True, True, "ponb")
    rows = {m: v for _, m, v, _ in pol.rows()}
    assert rows["ponb"] == rows["far_bank_smem"] == 1.0 and rows["annotation"] == rows["all_far"] == 0.0
    assert {m: v for _, m, v, _ in make_policy("mpu:annotation").rows()}["ponb"] == 0.0
    with pytest.raises(MpuPolicyError, match="takes no far-smem option"):
        make_policy("mpu:ponb+far-smem")
    with pytest.raises(ValueError, match="unknown MPU location policy"):
        MpuHardware(None, "near")


def dynamic_counts(tr) -> np.ndarray:
    """How many times each PC ran, summed over the trace's warps (from its segments)."""
    n = np.zeros(len(tr.static), np.int64)
    for s in tr.segments:
        pc0, cnt = int(s["pc"]), int(s["count"])
        n[pc0:pc0 + cnt] += 1
    return n


@needs_nvcc
@pytest.mark.parametrize("workload", ["mpu_axpy", "mpu_hist"])
def test_energy_counters_by_hand(workload):
    """The ALU classes are the trace's instructions by class; every operand is one register-file access on its
    side and a move one on each side (so near + far - 2 x moves is the same under every policy, PonB included,
    and equals the placement rows' operands over the trace); the operand collector serves near-bank
    instructions only; the LSU extension one access per transaction, none in PonB."""
    run = recorded(workload)
    for i, tr in enumerate(run.device.traces):
        fn = run.module.ir.functions[tr.launch.kernel]
        counts = dynamic_counts(tr)
        alu = alu_classes(tr)
        rows, _ = placement_rows(fn, annotate(fn).hints_for("annotation"), len(tr.static))
        live = rows[:, H.PM_KIND] != H.PMK_SKIP
        operands = int((counts * live * (rows[:, H.PM_NS] + rows[:, H.PM_ND])).sum())
        for policy in ("annotation", "hardware", "all-near", "all-far", "ponb"):
            st = timed(workload, policy)[i]
            for j, name in enumerate(H.ALU_COUNTERS):
                assert st.c(name) == int(counts[alu == j].sum()), (policy, name)
            moves = st.c("MOVES_DOWN") + st.c("MOVES_UP")
            assert st.c("NB_RF_ACC") + st.c("FB_RF_ACC") - 2 * moves == operands, policy
            ext = 0 if policy == "ponb" else st.c("TX_LOCAL") + st.c("TX_REMOTE")
            assert st.c("LSU_EXT_ACC") == ext
            if policy in ("all-far", "ponb"):
                assert st.c("NB_OPC_ACC") == 0
            if policy == "ponb":
                assert st.c("NB_RF_ACC") == 0
        assert timed(workload, "all-near")[i].c("NB_OPC_ACC") > 0
    assert sum(st.c("ALU_INT") for st in timed(workload, "annotation")) > 0


# Table II's prices (pJ) and the ALU energies per warp-instruction MPU-Sim loads (config/execution_unit_config.json,
# nJ x 1000: int add, int mul, fp32 add, fp32 fma, fp32 div, int div_s, sqrt, rcp, ex2)
PRICE = {"TSV_BYTES": 8 * 4.53, "NB_RF_ACC": 40.0, "FB_RF_ACC": 40.0, "NB_OPC_ACC": 41.49, "LSU_EXT_ACC": 39.67,
         "ALU_INT": 1154.68, "ALU_IMUL": 1659.86, "ALU_FADD": 1154.68, "ALU_FFMA": 378.88, "ALU_FDIV": 921869.17,
         "ALU_IDIV": 766582.49, "ALU_SQRT": 439302.34, "ALU_RCP": 437786.82, "ALU_EX2": 86565.06}
# the same classes in MPU-Sim's config/README.md (nJ x 1000)
README = {"ALU_INT": 6.4, "ALU_IMUL": 9.2, "ALU_FADD": 6.4, "ALU_FFMA": 2.1, "ALU_FDIV": 5109.6, "ALU_IDIV": 4248.9,
          "ALU_SQRT": 2434.9, "ALU_RCP": 2426.5, "ALU_EX2": 479.8}


@needs_nvcc
@pytest.mark.parametrize(("workload", "policy"), [("mpu_hist", "annotation"), ("mpu_axpy", "ponb")])
def test_energy_equals_the_hand_computation(workload, policy):
    for st in timed(workload, policy):
        rep = evaluate(st)
        assert rep is not None and rep.model == "mpu"
        c = st.c
        alu = sum(PRICE[n] * c(n) for n in H.ALU_COUNTERS)
        hand = {
            "tsv": PRICE["TSV_BYTES"] * c("TSV_BYTES"),
            "regfile": 40.0 * (c("NB_RF_ACC") + c("FB_RF_ACC")) + 41.49 * c("NB_OPC_ACC"),
            "lsu_ext": 39.67 * c("LSU_EXT_ACC"),
            "alu": alu,
            "dram": 540.0 * c("DR_ACT") + 150.0 * c("DR_BURST") + 1130.0 * c("DR_REF"),
            "smem": 22.2 * (c("SMEM_ACC") + c("SMEM_CONF_CYC")),
            # 0.72 pJ/bit per on-chip flit-hop, 4.50 per off-chip one (16-B flits), routers free
            "noc": 92.16 * float(st.mesh["kinds"][:, :, 2].sum()) + (576.0 - 92.16) * offchip_flits(st),
            "core": 107.0 * c("WARP_INSTS"),
        }
        comps = rep.components()
        for comp, pj in hand.items():
            assert comps[comp][0] == pytest.approx(pj, rel=1e-9, abs=1e-6), comp
            assert comps[comp][1] == 0.0
        assert rep.dynamic_pj == pytest.approx(sum(hand.values()), rel=1e-9)
        assert rep.static_pj == 0.0
        assert hand["tsv"] > 0 and hand["dram"] > 0 and hand["alu"] > 0
        if policy == "ponb":
            nb = [e for e in rep.events if e.name in ("NB_RF_ACC", "NB_OPC_ACC", "LSU_EXT_ACC")]
            assert len(nb) == 3 and all(e.energy_pj == 0.0 for e in nb)


def test_the_energy_table_prices_every_alu_class():
    assert set(ALU_CLASSES) == set(H.ALU_COUNTERS)
    assert set(declared_unit_energies("mpu")) <= set(H.COUNTER_NAMES)
    assert {n: u.pj for n, u in declared_unit_energies("mpu").items()} == pytest.approx(PRICE)
    assert alu_class("fma.rn.f32", "fp32") == "ALU_FFMA" and alu_class("mad.lo.s32", "imul") == "ALU_IMUL"
    assert alu_class("div.rn.f32", "fdiv") == "ALU_FDIV" and alu_class("rem.u32", "idiv") == "ALU_IDIV"
    assert alu_class("setp.lt.f32", "setp") == "ALU_FADD" and alu_class("shl.b32", "int") == "ALU_INT"
    assert alu_class("ex2.approx.f32", "sfu") == "ALU_EX2" and alu_class("ld.global.f32", "load") is None


def test_the_hardware_declares_its_hooks():
    assert set(H.HOOKS) == {"core_receive", "core_check", "core_issue", "core_tick", "l2_deliver",
                            "slice_tick"}
    assert len(H.COUNTER_NAMES) == len(set(H.COUNTER_NAMES))
    assert H.COUNTER_NAMES[H.ALU0:] == H.ALU_COUNTERS


@needs_nvcc
def test_the_remote_cache_serves_or_forwards_every_remote_transaction():
    """GEMV reads its vector x from other cores' banks in every block: with each core's read-only cache of
    remote data, every remote transaction either hits it (no request leaves the core, no NBU serves it) or
    leaves as before; without the cache nothing hits. Shared x lines are read by many warps of a core, so some
    hit; a miss is counted once per transaction that leaves."""
    for with_cache, without in zip(timed("mpu_gemv", "annotation"),
                                   timed("mpu_gemv", "annotation", remote_cache=False), strict=True):
        assert without.c("ROC_HITS") == without.c("ROC_MISSES") == 0
        hits, misses = with_cache.c("ROC_HITS"), with_cache.c("ROC_MISSES")
        assert hits > 0
        assert hits + with_cache.c("TX_REMOTE") == without.c("TX_REMOTE")
        assert misses <= with_cache.c("TX_REMOTE")  # (stores and atomics leave without a lookup)
        assert with_cache.c("LSU_EXT_ACC") == without.c("LSU_EXT_ACC") - hits
        assert with_cache.c("WARP_INSTS") == without.c("WARP_INSTS")


def test_remote_cache_policy_option():
    pol = make_policy("mpu:annotation+far-smem+no-remote-cache")
    assert (pol.spec.remote_cache, pol.spec.far_bank_smem, str(pol.spec)) == (
        False, True, "annotation+far-smem+no-remote-cache")
    assert make_policy("mpu:ponb+no-remote-cache").spec.remote_cache is False
    rows = {m: v for _, m, v, _ in make_policy("mpu:hardware").rows()}
    assert rows["remote_cache"] == 1.0
    with pytest.raises(MpuPolicyError, match="given twice"):
        make_policy("mpu:annotation+no-remote-cache+no-remote-cache")


def test_the_readme_alu_energies_are_one_factor_below_the_loaded_ones():
    """The README's ALU prices are the loaded ones over one common factor (180.42, to the README's rounding), so
    a README-priced ALU energy is the loaded one times ``readme_alu_factor``."""
    from ndpgpu.mechanisms.mpu.energy import README_ALU_PJ, readme_alu_factor

    assert README_ALU_PJ == README
    for name, pj in README.items():
        assert PRICE[name] / pj == pytest.approx(180.42, rel=2e-3), name
    assert 1 / readme_alu_factor() == pytest.approx(180.42, rel=1e-3)


def test_a_core_model_must_define_the_four_core_hooks(monkeypatch):
    """A machine whose cores are a mechanism's needs that mechanism's core_receive, core_check, core_issue and
    core_tick (the engine's schedulers call the middle two): a mechanism lacking any is refused by name."""
    from types import SimpleNamespace

    from ndpgpu.timing.engine import hooks
    from ndpgpu.timing.session import CORE_HOOKS

    hooks.bind()
    assert set(CORE_HOOKS) <= set(hooks.MECHANISMS["mpu"].HOOKS)
    session = TimingSession("mpu")
    active = SimpleNamespace(mechanism="mpu")
    partial = SimpleNamespace(HOOKS=("core_receive", "core_tick"))
    monkeypatch.setitem(hooks.MECHANISMS, "mpu", partial)
    with pytest.raises(CoreModelError, match="without the hooks core_check, core_issue"):
        session._core_model(active)
