"""Occupancy equals the CUDA occupancy rules, computed by hand for each launch shape and preset.

Rules (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor): warps = ceil(threads / 32);
threads limit = max_warps // warps; registers per warp = roundup(regs x 32, reg_alloc_unit), the register
file holds floor(floor(registers / per warp) / granularity) x granularity warps (allocation per
sub-partition) and the limit is that // warps; shared = shared_mem // roundup(bytes, shared_alloc_unit);
CTA slots = max_ctas. Each case also runs on a one-SM machine, where the most resident warps seen by the
time series must be CTAs x warps.
"""

from __future__ import annotations

import pytest
from tracegen import empty_kernel

from ndpgpu.timing import LaunchDoesNotFit, TimingSession, load_machine, occupancy

# (threads, regs/thread, shared bytes) -> (CTAs per SM, limiting factor), computed by hand
CASES = {
    "gtx480": [  # 48 warps, 8 CTAs, 32768 registers (unit 64, granularity 2), 48 KB shared (unit 128)
        ((256, 0, 0), (6, "threads")),  # 48 // 8
        ((128, 20, 0), (8, "ctas")),  # 640 regs/warp: 51 -> 50 warps -> 12 CTAs; threads 12
        ((256, 32, 0), (4, "registers")),  # 1024 regs/warp: 32 warps // 8
        ((96, 63, 0), (5, "registers")),  # 2016 -> 2048 regs/warp: 16 warps // 3 warps
        ((64, 0, 10000), (4, "shared_memory")),  # 10112 B: 49152 // 10112
        ((1024, 0, 0), (1, "threads")),  # 32 warps
        ((192, 16, 8192), (6, "shared_memory")),  # regs 64 warps // 6 = 10; threads 8; shared 6
    ],
    "v100": [  # 64 warps, 32 CTAs, 65536 registers (unit 256, granularity 4), 96 KB shared (unit 256)
        ((32, 0, 0), (32, "ctas")),  # threads 64
        ((256, 64, 0), (4, "registers")),  # 2048 regs/warp: 32 warps // 8; threads 8
        ((160, 40, 0), (9, "registers")),  # 1280 regs/warp: 51 -> 48 warps // 5; threads 12
        ((128, 0, 20000), (4, "shared_memory")),  # 20224 B: 98304 // 20224; threads 16
        ((512, 0, 0), (4, "threads")),  # 16 warps
        ((96, 255, 0), (2, "registers")),  # 8160 -> 8192 regs/warp: 8 warps // 3
    ],
}


@pytest.mark.parametrize("name,shape,want", [(n, s, w) for n, cs in CASES.items() for s, w in cs])
def test_occupancy_rules(name, shape, want):
    m = load_machine(name)
    occ = occupancy(m.core, *shape)
    assert (occ.ctas_per_sm, occ.limit) == want


@pytest.mark.parametrize("name,shape,want", [(n, s, w) for n, cs in CASES.items() for s, w in cs])
def test_engine_residency_equals_occupancy(name, shape, want):
    threads, regs, smem = shape
    n = want[0]
    warps = -(-threads // 32)
    m = load_machine(name, {"core.num_sms": 1, "sim.time_series_interval": 1})
    st = TimingSession(m).run_launch(empty_kernel(n + 2, threads, smem, regs, body=40))
    assert st.get("core", "ctas_per_sm") == n
    assert int(st.time_series["active_warps"].max()) == n * warps
    assert st.get("core", "occupancy_theoretical") == pytest.approx(n * warps / m.core.max_warps)


def test_launches_that_do_not_fit():
    g = load_machine("gtx480").core
    with pytest.raises(LaunchDoesNotFit):
        occupancy(g, 32, 64, 0)  # more than 63 registers per thread
    with pytest.raises(LaunchDoesNotFit):
        occupancy(g, 32, 0, 49153)  # more shared memory than the SM has
    with pytest.raises(LaunchDoesNotFit):
        occupancy(g, 2048, 0, 0)  # more threads than the SM holds


def test_registers_above_the_target_limit_are_capped_for_timing():
    """PTX compiled for a newer target may use 167 registers; Fermi's ptxas would allocate 63 and spill."""
    g = load_machine("gtx480").core
    assert occupancy(g, 128, 167, 0, cap_registers=True) == occupancy(g, 128, 63, 0)
    assert occupancy(g, 128, 63, 0).limit == "registers"
