"""Print GPGPU-Sim's instruction latency table as ``core.opcodes`` rules (JSON), for ``--set core.opcodes=...``.

GPGPU-Sim (3.2.2 and 4.0.1 alike, ``ptx_instruction::set_opcode_and_latency`` in ``src/cuda-sim/cuda-sim.cc``)
gives its configured latencies only to ADD/SUB, MAX/MIN, MUL, MAD, DIV, the SFU functions and SHFL; every other
ALU opcode (fma, and/or/xor/not, shifts, setp/selp, cvt, mov, neg/abs, rem, popc, prmt, ...) starts at latency 1
and interval 1 and keeps it. The numbers are SM2_GTX480's (``-ptx_opcode_latency_int 4,13,4,5,145,32``,
``_initiation_int 1,2,2,1,8,4``, ``_latency_fp 4,13,4,5,39``, ``_initiation_fp 1,2,1,1,4``, ``_latency_dp
8,19,8,8,330``, ``_initiation_dp 8,16,8,8,130``; SFU 8/8, the simulator's defaults), on the units the gtx480 preset
uses (double precision and divisions on the SFU). A measurement, not a default: benchmarks/gpgpusim/RESULTS.md,
"GPGPU-Sim's latency table".

    python benchmarks/gpgpusim/run_ndpgpu.py --machine gtx480-gpgpusim --config SM2_GTX480 \\
        --set core.opcodes="$(python benchmarks/gpgpusim/latency_table.py)" --out ...
"""

from __future__ import annotations

import json

# opcodes outside the table: latency 1, interval 1
ONE_CYCLE = ("fma", "and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "setp", "set", "selp", "slct", "cvt",
             "cvta", "mov", "neg", "abs", "rem", "popc", "clz", "bfe", "bfi", "bfind", "brev", "prmt", "lop3",
             "copysign", "testp", "sad", "isspacep", "vote", "activemask", "dp4a", "dp2a", "fns", "bmsk", "szext",
             "tanh")


def rules() -> list[dict]:
    """The rules, first match wins (fnmatch on the PTX opcode)."""
    out: list[dict] = []

    def rule(match: str, latency: int, interval: int, unit: str) -> None:
        out.append({"match": match, "latency": latency, "interval": interval, "unit": unit})

    for m in ("mul24*", "mad24*"):  # MUL24_OP, MAD24_OP: not in the table
        rule(m, 1, 1, "sp")
    for op in ("add", "sub", "mul", "mad"):
        rule(op + "*f64", 8, 8, "sfu")
    rule("div*f64", 330, 130, "sfu")
    for op in ("max", "min"):
        rule(op + "*f64", 19, 16, "sfu")
    rule("div*f32", 39, 4, "sfu")
    rule("div*f16*", 39, 4, "sfu")
    rule("div*", 145, 8, "sp")
    for op in ("max", "min"):
        rule(op + "*", 13, 2, "sp")
    rule("mul*f32", 4, 1, "sp")
    rule("mul*f16*", 4, 1, "sp")
    rule("mul*", 4, 2, "sp")
    rule("mad*", 5, 1, "sp")
    for op in ("add", "sub"):
        rule(op + "*", 4, 1, "sp")
    for op in ("sqrt", "sin", "cos", "ex2", "lg2", "rsqrt", "rcp"):
        rule(op + "*", 8, 8, "sfu")
    rule("shfl*", 32, 4, "sp")
    for op in ONE_CYCLE:
        rule(op + "*", 1, 1, "sp")
    return out


if __name__ == "__main__":
    print(json.dumps(rules()))
