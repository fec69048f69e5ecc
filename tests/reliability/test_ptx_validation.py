"""PTX validation at load: an instruction with the wrong number of operands, a duplicate label and an
instruction that is not PTX are PTXParseError at their line when the module is loaded (not silently run
with a missing source, or found only when traced); a PTX instruction the engine does not implement stays
UnsupportedPTX, raised when its kernel is decoded."""

from __future__ import annotations

import pytest

import ndpgpu

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"


def _kernel(body: str) -> str:
    # the body starts at line 8
    return HEADER + ".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  .reg .pred %p<3>;\n" + body + "  ret;\n}\n"


@pytest.mark.parametrize("line, message", [
    ("add.s32 %r1, %tid.x;", "add.s32 takes 3 operands, found 2"),
    ("mad.lo.s32 %r1, %r2, %r3;", "mad.lo.s32 takes 4 operands, found 3"),
    ("mov.u32 %r1, %r2, %r3;", "mov.u32 takes 2 operands, found 3"),
    ("setp.lt.s32 %p1, %r1;", "setp.lt.s32 takes 3 or 4 operands, found 2"),
    ("selp.b32 %r1, %r2, %r3;", "selp.b32 takes 4 operands, found 3"),
])
def test_a_wrong_operand_count_is_a_parse_error_at_load(line: str, message: str) -> None:
    with pytest.raises(ndpgpu.PTXParseError, match=f"<ptx>:9:3: {message}") as e:
        ndpgpu.RawModule(ptx=_kernel(f"  mov.u32 %r2, 1;\n  {line}\n"))
    assert e.value.line == 9


def test_the_accepted_operand_counts_load() -> None:
    ok = ("  setp.lt.and.s32 %p1, %r1, %r2, %p2;\n  setp.lt.s32 %p1|%p2, %r1, %r2;\n"
          "  cvt.rn.f16x2.f32 %r1, %r2, %r3;\n  max.s32 %r1, %r2, %r3;\n  lop3.b32 %r1, %r2, %r3, %r1, 0x96;\n")
    ndpgpu.RawModule(ptx=_kernel(ok))


def test_a_duplicate_label_is_a_parse_error_at_load() -> None:
    body = "L1:\n  mov.u32 %r1, 1;\nL1:\n  mov.u32 %r2, 2;\n"
    expected = r"<ptx>:10:1: duplicate label 'L1' in k \(first defined at line 8\)"
    with pytest.raises(ndpgpu.PTXParseError, match=expected):
        ndpgpu.RawModule(ptx=_kernel(body))


def test_an_unknown_instruction_says_unknown_at_load() -> None:
    with pytest.raises(ndpgpu.PTXParseError, match=r"<ptx>:8:3: unknown instruction 'frobnicate' "
                                                   r"\(in 'frobnicate.u32'\): not a PTX instruction"):
        ndpgpu.RawModule(ptx=_kernel("  frobnicate.u32 %r1, %r2;\n"))


def test_a_known_but_unimplemented_instruction_stays_unsupported() -> None:
    fn = ndpgpu.RawModule(ptx=_kernel("  vadd.u32.u32.u32 %r1, %r2, %r3;\n")).get_function("k")
    with pytest.raises(ndpgpu.UnsupportedPTX, match="unsupported PTX in kernel 'k' at PTX line 8") as e:
        fn((1,), (1,), ())
    assert "unknown" not in str(e.value)
