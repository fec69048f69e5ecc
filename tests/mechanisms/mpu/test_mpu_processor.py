"""MPU's processor in the timing engine (``core.model: mpu``): its register moves and near-bank split equal the
offload-engine replay of ``registers.py`` under every location policy, it issues exactly the traced
instructions, the TSV bus bounds its time, and the policy refuses a machine that is not an MPU."""

from __future__ import annotations

import functools

import pytest

from ndpgpu.experiments.policies import PolicyError, make_policy
from ndpgpu.mechanisms.mpu import hardware as H
from ndpgpu.mechanisms.mpu.locations import POLICIES, annotate
from ndpgpu.mechanisms.mpu.policy import MpuPolicyError
from ndpgpu.mechanisms.mpu.processor import MpuHardware, MpuMachineError, check_machine
from ndpgpu.mechanisms.mpu.registers import register_traffic
from ndpgpu.timing.session import CoreModelError, TimingSession
from ndpgpu.timing.spec import load_machine
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
def timed(workload: str, policy: str, near_bank_smem: bool = True):
    """The per-launch statistics of ``workload`` on the mpu machine under ``policy``."""
    run = recorded(workload)
    s = TimingSession("mpu")
    s.attach(MpuHardware(run.module, policy, near_bank_smem=near_bank_smem))
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
    """A core that moves N warp registers keeps its TSV busy N x 8 ns at least, and the kernel lasts as long."""
    for st in timed(workload, policy):
        n = st.c("MOVES_MAX_CORE")
        assert n > 0
        assert st.c("TSV_BUSY_MAX_PS") >= n * REGISTER_MOVE_PS
        assert st.time_ps >= st.c("TSV_BUSY_MAX_PS")
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
    for bad, why in (("mpu:annotation+near-smem", "unknown option"), ("mpu:annotation+far-smem+far-smem",
                                                                       "unknown option"),
                     ("mpu:far-smem", "unknown location policy"), ("mpu:", "unknown location policy")):
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
            addrs = [int(m["base"]) + j * int(m["stride"]) for j in lanes]
        size = int(m["size"])
        n += len({a // 32 for a in addrs} | {(a + size - 1) // 32 for a in addrs})
    return n


@needs_nvcc
def test_ponb_runs_everything_on_the_base_die():
    """PonB on AXPY: no near-bank instruction, register move, offload or packet; the TSV carries exactly the
    32-B transactions (loads up, stores down), counted by hand from the trace's addresses, less the remote
    stores still on their way when the kernel ends (stores are fire-and-forget: a remote one crosses its NBU's
    TSV when it arrives there, and the kernel ends when its warps do); the busiest core's TSV bytes at 8 B per
    0.5 ns bound the kernel's time."""
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
        assert st.c("TSV_DATA_BYTES") == st.c("TSV_BYTES") == 32 * (ntx - in_flight)
        assert st.c("LD_TX_PATH") + st.c("ST_TX_PATH") == st.c("LOADS") + st.c("STORES")
        assert st.c("FAR_ALU_INSTS") == mpu.c("NEAR_INSTS") + mpu.c("FAR_ALU_INSTS")
        busiest = st.c("TSV_BYTES_MAX_CORE")
        assert busiest * 128 >= st.c("TSV_BYTES")  # at least the mean of the 128 cores
        assert st.time_ps >= busiest // 8 * 500
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
    with pytest.raises(MpuPolicyError, match="takes no options"):
        make_policy("mpu:ponb+far-smem")
    with pytest.raises(ValueError, match="unknown MPU location policy"):
        MpuHardware(None, "near")


def test_the_hardware_declares_its_hooks():
    assert set(H.HOOKS) == {"core_tick", "l2_deliver", "slice_tick"}
    assert len(H.COUNTER_NAMES) == len(set(H.COUNTER_NAMES))
