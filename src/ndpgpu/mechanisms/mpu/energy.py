"""The energies of MPU's own units, declared to the power model (docs/power.md, "Mechanisms"), and the ALU
energy class of each opcode.

Sources: [T2] the paper's Table II (per access or per bit); [A] the authors' released simulator (MPU-Sim): the ALU
energies per warp-instruction its config/execution_unit_config.json holds, which it loads (its README lists values
180.42 times smaller: ``README_ALU_PJ``, the reproduction's second column). The counters are the hardware's
(:data:`.hardware.COUNTER_NAMES`): the TSV bytes, the register files' and operand collectors' accesses per side,
the LSU extensions' accesses, and the ALU warp-instructions of each class (counted per PC when a launch ends,
:func:`alu_class`). The engine's built-in events (DRAM commands, shared memory, the network's flits, the
front end) are priced by the ``mpu`` parameter set (``power/mpu.yaml``).
"""

from __future__ import annotations

from ...timing.power import UnitEnergy, declare_unit_energies

T2 = "MPU (seed 003) Table II"
A = ("MPU-Sim [A] (the authors' simulator), config/execution_unit_config.json, the energies it loads (nJ per "
     "warp-instruction: simulator/energy/subcore_energy.py and pg_energy.py multiply them by the instructions "
     "of each opcode)")

# ALU energy classes: counter -> (pJ per warp-instruction, source). These are the values MPU-Sim loads; its
# config/README.md lists smaller ones (README_ALU_PJ), which the reproduction reports as a second column.
ALU_CLASSES: dict[str, tuple[float, str]] = {
    "ALU_INT": (1154.68, f"{A}: alu_e_int_add 1.15468; int sub/min/max, logic, shift, mov and cvt load the "
                "same value; setp and selp assumed the same (MPU-Sim reads their latency key, alu_t_*_setp / "
                "alu_t_*_selp = 1, as their energy: 1.0 nJ)"),
    "ALU_IMUL": (1659.86, f"{A}: alu_e_int_mul and alu_e_int_mad 1.65986; mul24 assumed the same"),
    "ALU_FADD": (1154.68, f"{A}: alu_e_fp32_add/sub/min/max 1.15468; fp32 abs and neg assumed the same"),
    "ALU_FFMA": (378.88, f"{A}: alu_e_fp32_mul/mad/fma 0.37888"),
    "ALU_FDIV": (921869.17, f"{A}: alu_e_fp32_div 921.86917"),
    "ALU_IDIV": (766582.49, f"{A}: alu_e_int_div_s 766.58249 (div_u 708.2, rem_s 759.6, rem_u 714.2 priced "
                 "the same)"),
    "ALU_SQRT": (439302.34, f"{A}: sfu_e_sqrt 439.30234 (rsqrt, 225.3, priced the same)"),
    "ALU_RCP": (437786.82, f"{A}: sfu_e_rcp 437.78682"),
    "ALU_EX2": (86565.06, f"{A}: sfu_e_ex2 86.56506 (lg2 222.9 and sin/cos 106.2 priced the same)"),
}
README_ALU_PJ: dict[str, float] = {
    # MPU-Sim's config/README.md table (nJ): int add 0.0064, int mul 0.0092, fp32 add 0.0064, fp32 fma
    # 0.0021, fp32 div 5.1096, int div_s 4.2489, sqrt 2.4349, rcp 2.4265, ex2 0.4798: each 1/180.42 of the
    # loaded value (the same factor for every class)
    "ALU_INT": 6.4, "ALU_IMUL": 9.2, "ALU_FADD": 6.4, "ALU_FFMA": 2.1, "ALU_FDIV": 5109.6, "ALU_IDIV": 4248.9,
    "ALU_SQRT": 2434.9, "ALU_RCP": 2426.5, "ALU_EX2": 479.8,
}


def readme_alu_factor() -> float:
    """README price / loaded price, the same for every ALU class to the README's rounding (about 1 / 180.42):
    the factor that turns an ALU energy priced as MPU-Sim loads it into the README's."""
    ratios = [README_ALU_PJ[k] / pj for k, (pj, _) in ALU_CLASSES.items()]
    return sum(ratios) / len(ratios)


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
