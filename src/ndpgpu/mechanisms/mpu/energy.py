"""The energies of MPU's own units, declared to the power model (docs/power.md, "Mechanisms"), and the ALU
energy class of each opcode.

Sources: [T2] the paper's Table II (per access or per bit); [A] the authors' released simulator (MPU-Sim), whose
ALU energies per warp-instruction are measured V100 values (Arafa et al.). The counters are the hardware's
(:data:`.hardware.COUNTER_NAMES`): the TSV bytes, the register files' and operand collectors' accesses per side,
the LSU extensions' accesses, and the ALU warp-instructions of each class (counted per PC when a launch ends,
:func:`alu_class`). The engine's built-in events (DRAM commands, shared memory, the network's flits, the
front end) are priced by the ``mpu`` parameter set (``power/mpu.yaml``).
"""

from __future__ import annotations

from ...power import UnitEnergy, declare_unit_energies

T2 = "MPU (seed 003) Table II"
A = "MPU-Sim [A] (the authors' simulator): measured V100 energy per warp-instruction (Arafa et al.)"

# ALU energy classes: counter -> (pJ per warp-instruction, source)
ALU_CLASSES: dict[str, tuple[float, str]] = {
    "ALU_INT": (6.4, f"{A}: int add 0.0064 nJ; logic, shift, move, convert, compare and select assumed the "
                "same (one pass through the integer adder datapath)"),
    "ALU_IMUL": (9.2, f"{A}: int mul 0.0092 nJ; mad and mul24 assumed the same"),
    "ALU_FADD": (6.4, f"{A}: fp32 add 0.0064 nJ; fp32 compare, min, max, abs and neg assumed the same"),
    "ALU_FFMA": (2.1, f"{A}: fp32 fma 0.0021 nJ (as measured, below fp32 add); fp32 mul assumed the same"),
    "ALU_FDIV": (5109.6, f"{A}: fp32 div 5.1096 nJ (a software sequence)"),
    "ALU_IDIV": (4200.0, f"{A}: int div about 4.2 nJ; rem assumed the same"),
    "ALU_SQRT": (2430.0, f"{A}: sqrt 2.43 nJ; rsqrt assumed the same"),
    "ALU_RCP": (2430.0, f"{A}: rcp 2.43 nJ"),
    "ALU_EX2": (480.0, f"{A}: ex2 0.48 nJ; lg2, sin, cos and tanh assumed the same (the SFU's other "
                "table-interpolated functions)"),
}

_NOT_ALU = frozenset({"load", "store", "atomic", "branch", "barrier", "fence", "nop"})
_FLOAT_TYPES = frozenset({"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"})
_SFU = {"sqrt": "ALU_SQRT", "rsqrt": "ALU_SQRT", "rcp": "ALU_RCP", "ex2": "ALU_EX2", "lg2": "ALU_EX2",
        "sin": "ALU_EX2", "cos": "ALU_EX2", "tanh": "ALU_EX2"}
_ADD_LIKE = frozenset({"add", "sub", "min", "max", "abs", "neg", "setp", "set", "selp", "slct", "testp",
                       "copysign"})


def alu_class(opcode: str, op_class: str) -> str | None:
    """The ALU energy counter of one instruction (``opcode`` as the trace names it, e.g. ``fma.rn.f32``; its
    ``op_class``), or None for memory, control, synchronisation and no-ops, which use no ALU. Double precision
    is priced as the same single-precision operation (assumed: [A] has no fp64 value; the ``mpu`` workloads run
    none)."""
    if op_class in _NOT_ALU:
        return None
    parts = opcode.split(".")
    base, mods = parts[0], set(parts[1:])
    fp = bool(mods & _FLOAT_TYPES)
    if base in _SFU:
        return _SFU[base]
    if base in ("div", "rem"):
        return "ALU_FDIV" if fp and base == "div" else "ALU_IDIV"
    if base in ("mul", "mad", "fma", "mul24", "mad24"):
        return "ALU_FFMA" if fp else "ALU_IMUL"
    if fp and base in _ADD_LIKE:
        return "ALU_FADD"
    return "ALU_INT"


UNITS: dict[str, UnitEnergy] = {
    "TSV_BYTES": UnitEnergy("tsv", 8 * 4.53, f"[T2] TSV 4.53 pJ/bit x 8 bits ({T2}); every byte over a core's "
                            "TSV bus: register moves, packets and data", "bytes"),
    "NB_RF_ACC": UnitEnergy("regfile", 40.0, f"[T2] RF 40.0 pJ per access ({T2}): near-bank register file, per "
                            "warp register read or written", "accesses"),
    "FB_RF_ACC": UnitEnergy("regfile", 40.0, f"[T2] RF 40.0 pJ per access ({T2}): the far-bank register file, "
                            "priced as the near-bank one (Table II gives one RF price)", "accesses"),
    "NB_OPC_ACC": UnitEnergy("regfile", 41.49, f"[T2] operand collector 41.49 pJ per access ({T2}): each operand "
                             "a near-bank instruction reads or writes", "accesses"),
    "LSU_EXT_ACC": UnitEnergy("lsu_ext", 39.67, f"[T2] LSU-Extension 39.67 pJ per access ({T2}): one per 32-B "
                              "transaction an NBU's LSU extension serves (its pending-request table, [A])",
                              "accesses"),
    **{name: UnitEnergy("alu", pj, src, "warp-instr") for name, (pj, src) in ALU_CLASSES.items()},
}

declare_unit_energies("mpu", UNITS)
