"""MPU's offload engine and register track table over a functional trace (seed 003, section IV-B): operand
sides of the hybrid LSU, the policies' register moves, and the paper's AXPY claim (with the compiler's
annotation, no register moves per loop iteration; alpha moves once per warp)."""

from __future__ import annotations

import pytest

from ndpgpu.frontend.parser import parse_ptx
from ndpgpu.mechanisms.mpu.locations import annotate
from ndpgpu.mechanisms.mpu.registers import FAR, NEAR, _placement, register_traffic, traffic_by_policy
from ndpgpu.workloads.runner import run_workload, toolchain_available

needs_nvcc = pytest.mark.skipif(not toolchain_available(), reason="needs nvcc and a host C++ compiler")

PTX = """.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
    .reg .b64 %rd<8>;
    .reg .f32 %f<8>;
    ld.global.f32 %f1, [%rd1];
    st.global.f32 [%rd2], %f1;
    ld.shared.f32 %f2, [%rd3];
    add.f32 %f3, %f2, 0f3F800000;
    ret;
}
"""


def test_operand_sides_of_the_hybrid_lsu():
    body = parse_ptx(PTX).functions["k"].body
    load, store, shared, add = (_placement(body[i], None, NEAR) for i in range(4))
    assert load.reads == (("%rd1", FAR),) and load.writes == (("%f1", NEAR),)  # address far, value near
    assert set(store.reads) == {("%rd2", FAR), ("%f1", NEAR)} and store.writes == ()
    assert shared.reads == (("%rd3", NEAR),) and shared.writes == (("%f2", NEAR),)  # near-bank shared memory
    assert _placement(body[2], None, FAR).writes == (("%f2", FAR),)
    assert not load.near_capable and add.near_capable and not add.plain_operands  # an immediate: not plain


@needs_nvcc
def test_axpy_moves_alpha_once_per_warp_and_nothing_per_iteration():
    run = run_workload("mpu_axpy", "tiny", trace=True)
    trace = run.device.traces[0]
    fn = run.module.ir.functions["mpu_axpy"]
    table = annotate(fn)
    res = traffic_by_policy(fn, table, trace)
    ann = res["annotation"]
    assert ann.moves_down == trace.num_warps and ann.moves_up == 0  # alpha, loaded far, read near once
    assert ann.warp_instructions == trace.warp_instructions()
    for other in ("hardware", "all-near", "all-far"):  # every other policy moves registers in the loop
        assert res[other].moves >= 4 * ann.moves, other
    assert res["all-near"].near_share == 1.0 and res["all-far"].near_share == 0.0
    with pytest.raises(ValueError, match="unknown MPU location policy"):
        register_traffic(fn, table, trace, "nearest")
