"""The energies of LLC-Compute / Omni-Compute's own units, declared to the power model (docs/power.md).

Counted by the hardware's counters (:data:`.hardware.COUNTER_NAMES`). Their packets are mesh flits and
their loads and stores L2 and DRAM accesses, which the machine's own prices cover; what is priced here is
what the baseline does not have: the offload and service queues' table accesses, the LLC-side ALU, the
second LLC read of each operand into the service queue's buffer and Omni-Compute's operand buffering in
shared memory. The paper (Sec. 6.4) sizes the OQ at about 330 B and the SQ at about 2.4 kB (CACTI) and the
LLC ALU as one core SP unit; it gives no per-access energies, so the values below are assumed from those
sizes and gtx480's prices.
"""

from __future__ import annotations

from ...timing.power import UnitEnergy, declare_unit_energies

_K11 = "Keckler et al., IEEE Micro 2011: 14 pJ per 64-bit read of an 8 KB SRAM at 40 nm"

UNITS = {
    "CH_SEEN": UnitEnergy("offload", 14.0, f"assumed: the OQMU reads the chain's EMN table entry and its OQSR "
                          f"occupancy, about one small-SRAM read ({_K11})", "instances"),
    "CH_PACKETS": UnitEnergy("offload", 60.0, f"assumed: an OQSR entry (~55 bits) written and read back at the "
                             f"reply, plus the CPGU assembling a 256-bit packet: about four small-SRAM accesses "
                             f"({_K11})", "packets"),
    "CH_AT_LLC": UnitEnergy("offload", 60.0, f"assumed: an SQSR entry (~14 B) written, updated per operand and "
                            f"read, about four small-SRAM accesses ({_K11})", "packets"),
    "CH_AT_CORE": UnitEnergy("offload", 60.0, "assumed: as CH_AT_LLC (the same SQSR in the core's LD/ST unit)",
                             "packets"),
    "CH_ALU_OPS": UnitEnergy("offload", 320.0, "assumed: a 32-lane FP32 operation at gtx480's 10 pJ per lane "
                             "(inst_fp32); the paper prices the LLC ALU as one SP unit", "warp-ops"),
    "CH_SMEM": UnitEnergy("offload", 224.0, "assumed: a warp-wide shared-memory access, at gtx480's smem_access",
                          "accesses"),
}

declare_unit_energies("llc", UNITS)
