"""``core.latency_table: gpgpusim``: GPGPU-Sim's ``ptx_instruction::set_opcode_and_latency`` gives the configured
latencies only to add/sub, max/min, mul, mad, div, the SFU functions and shfl; every other instruction keeps
latency 1 and interval 1. Checked on the timing each opcode gets and on dependent chains' cycles (each op issues
when the last one's result is usable: latency + the pipeline's depth)."""

from __future__ import annotations

import pytest
from tracegen import alu_chain

from ndpgpu.timing import TimingSession, load_machine


@pytest.mark.parametrize(("op_class", "opcode"), [("setp", "setp.lt.s32"), ("fp32", "fma.rn.f32"),
                                                  ("mov", "mov.u32"), ("int", "shr.u32"), ("idiv", "rem.s32"),
                                                  ("fp64", "fma.rn.f64"), ("branch", "bra.uni")])
def test_opcodes_outside_the_table_take_one_cycle_on_their_unit(op_class, opcode):
    plain = load_machine("gtx480").core
    table = load_machine("gtx480", {"core.latency_table": "gpgpusim"}).core
    t = table.op_timing(op_class, opcode)
    assert (t.latency, t.interval) == (1, 1)
    assert t.unit == plain.op_timing(op_class, opcode).unit


@pytest.mark.parametrize(("op_class", "opcode"), [("int", "add.s32"), ("imul", "mad.lo.s32"), ("int", "mul.lo.s32"),
                                                  ("idiv", "div.s32"), ("fp32", "sub.f32"), ("sfu", "sqrt.rn.f32"),
                                                  ("int", "max.s32"), ("load", "ld.global.u32")])
def test_opcodes_in_the_table_keep_the_machines_timing(op_class, opcode):
    plain = load_machine("gtx480").core.op_timing(op_class, opcode)
    table = load_machine("gtx480", {"core.latency_table": "gpgpusim"}).core.op_timing(op_class, opcode)
    assert (table.latency, table.interval, table.unit) == (plain.latency, plain.interval, plain.unit)


@pytest.mark.parametrize(("opcode", "op_class", "latency"), [("add.s32", "int", 4), ("shr.u32", "int", 1),
                                                             ("setp.lt.s32", "setp", 1)])
def test_a_dependent_chain_takes_the_tables_latency_plus_the_depth(opcode, op_class, latency):
    """GPGPU-Sim's issue trace of `grid_stride` on SM2_GTX480: an add read 10 cycles after issue, a shift 7."""
    m = load_machine("gtx480", {"core.latency_table": "gpgpusim", "core.pipeline_depth": 6})
    short = TimingSession(m).run_launch(alu_chain(4, opcode, op_class))
    long = TimingSession(m).run_launch(alu_chain(16, opcode, op_class))
    assert long.cycles - short.cycles == 12 * (latency + 6)


def test_both_gpgpusim_flavours_take_the_table_and_the_presets_do_not():
    for name in ("gtx480-gpgpusim", "gtx480-gpgpusim3", "v100-gpgpusim", "llc-mesh+gpgpusim3"):
        assert load_machine(name).core.latency_table == "gpgpusim"
    for name in ("gtx480", "v100", "llc-mesh", "tom-baseline", "ipndp-base8", "mpu"):
        assert load_machine(name).core.latency_table == "machine"
