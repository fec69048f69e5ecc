"""MPU's location annotation (seed 003, Algorithm 1): the paper's Fig. 7 example and Listing 1, the join rule,
registers used as both address and value, shared memory near or far, the location policies and the CLI."""

from __future__ import annotations

import json

import pytest

from ndpgpu.frontend.parser import parse_ptx
from ndpgpu.mechanisms.mpu.locations import FIG7_BODY, B, F, N, U, annotate, join
from ndpgpu.workloads.runner import toolchain_available

needs_nvcc = pytest.mark.skipif(not toolchain_available(), reason="needs nvcc and a host C++ compiler")

HEADER = ".version 8.0\n.target sm_75\n.address_size 64\n\n"
REGS = "    .reg .pred %p<8>;\n    .reg .b32 %r<32>;\n    .reg .b64 %rd<32>;\n    .reg .f32 %f<16>;\n"


def kernel(body: str):
    return parse_ptx(f"{HEADER}.visible .entry k(\n    .param .u64 k_param_0\n)\n{{\n{REGS}{body}\n}}\n").functions["k"]


FIG7 = FIG7_BODY  # the paper's Fig. 7

LISTING1 = """
__global__ void scale(const float *input, float *output, float alpha, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        output[i] = alpha * input[i];
}
"""


def test_join_rule():
    assert [join(U, x) for x in (U, N, F, B)] == [U, N, F, B]  # an unknown destination changes nothing
    assert [join(N, x) for x in (U, N, F, B)] == [N, N, B, B]
    assert [join(F, x) for x in (U, N, F, B)] == [F, B, F, B]


def test_fig7_values_near_addresses_far():
    t = annotate(kernel(FIG7))
    assert {r for r, v in t.registers.items() if v == N} == {"%f1", "%f2", "%f3"}
    assert {r for r, v in t.registers.items() if v == F} == {"%rd1", "%rd7", "%rd8", "%rd9", "%rd10"}
    assert t.hints == (None, None, "nb", "fb", None, None)  # add.f32 near bank, add.s64 far bank
    assert t.locations[0] == t.locations[1] == t.locations[4] == "far"
    assert t.iterations == 2  # the first sweep labels %rd1 and %rd7 (and the sums), the second changes nothing
    assert t.split() == {N: 3 / 8, F: 5 / 8, B: 0.0, U: 0.0}


def test_a_register_used_as_value_and_address_is_both():
    t = annotate(kernel("""
    ld.param.u64 %rd1, [k_param_0];
    add.s32 %r3, %r1, 1;
    st.global.u32 [%rd1], %r3;
    mul.wide.s32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r5, [%rd3];
    ret;
    """))
    assert t.registers["%r3"] == B and t.registers["%r1"] == B  # B flows on to the sources
    assert t.registers["%r5"] == N and t.registers["%rd2"] == F
    assert t.hints[1] is None  # B: no hint, the hardware's register track table decides


def test_propagation_runs_until_nothing_changes():
    """A chain written backwards in program order needs a sweep per link (the pass walks in reverse)."""
    t = annotate(kernel("""
    mov.f32 %f1, 0f3F800000;
    add.f32 %f2, %f1, %f1;
    add.f32 %f3, %f2, %f2;
    bra.uni L2;
L1:
    add.f32 %f5, %f4, %f4;
    st.global.f32 [%rd1], %f5;
    ret;
L2:
    add.f32 %f4, %f3, %f3;
    bra.uni L1;
    """))
    assert all(t.registers[r] == N for r in ("%f1", "%f2", "%f3", "%f4", "%f5"))
    assert t.iterations >= 2


def test_shared_memory_near_or_far():
    body = """
    ld.shared.f32 %f1, [%r1];
    add.f32 %f2, %f1, %f1;
    st.shared.f32 [%r2], %f2;
    ret;
    """
    near, far = annotate(kernel(body)), annotate(kernel(body), near_bank_smem=False)
    assert {near.registers[r] for r in ("%r1", "%r2", "%f1", "%f2")} == {N}
    assert {far.registers[r] for r in ("%r1", "%r2", "%f1", "%f2")} == {F}
    assert (near.hints[1], far.hints[1]) == ("nb", "fb")


def test_policies():
    t = annotate(kernel(FIG7))
    assert t.hints_for("hardware") == (None,) * 6
    assert t.hints_for("all-near") == (None, None, "nb", "nb", None, None)
    assert t.hints_for("all-far") == (None, None, "fb", "fb", None, None)
    with pytest.raises(ValueError, match="policies: annotation, hardware, all-near, all-far"):
        t.hints_for("nearest")


@needs_nvcc
def test_listing1_alpha_and_values_near_index_loop_and_predicates_far(tmp_path, capsys):
    from ndpgpu import RawModule
    from ndpgpu.cli import main

    t = annotate(RawModule(code=LISTING1).ir.functions["_Z5scalePKfPffi"])
    regs = t.registers
    assert B not in regs.values() and U not in regs.values()
    assert {r for r, v in regs.items() if v == N} == {r for r in regs if r.startswith("%f")}  # alpha included
    assert all(regs[r] == F for r in regs if r.startswith(("%r", "%p")))
    src = tmp_path / "listing1.cu"
    src.write_text(LISTING1)
    assert main(["analyze", "mpu", str(src), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    k = doc["kernels"][0]
    hinted = {i["text"].split()[0]: i["hint"] for i in k["instructions"] if i["hint"]}
    assert hinted["mul.f32"] == "nb" and hinted["setp.lt.s32"] == "fb" and hinted["add.s64"] == "fb"
    assert k["split"]["N"] == pytest.approx(3 / len(regs))
