"""The energies of TELEPORT's own units, declared to the power model (docs/power.md).

Counted by the hardware's counters (:data:`.hardware.COUNTER_NAMES`). The controller's line requests and
their replies are interconnect flits, L2 and DRAM accesses, which the machine's own prices cover; what is
priced here is what the baseline does not have: the buffer's tag probes (a 4-set x 96-way tag array,
about 0.009 mm^2 per core at 40 nm in the paper's CACTI estimate), the fills and hits of the buffer's data
in shared memory, and the controller's Eqs. 2/3 arithmetic (6 multipliers and 6 adders per block and
row). The paper gives no per-access energies; the values below are assumed from those sizes and
gtx480's prices.
"""

from __future__ import annotations

from ...timing.power import UnitEnergy, declare_unit_energies

_K11 = "Keckler et al., IEEE Micro 2011: 14 pJ per 64-bit read of an 8 KB SRAM at 40 nm"

UNITS = {
    "TP_HIT_TX": UnitEnergy("teleport", 14.0, f"assumed: one tag-array probe per line of a load served from the "
                            f"buffer, about one small-SRAM read ({_K11})", "probes"),
    "TP_MISS_TX": UnitEnergy("teleport", 14.0, "assumed: as TP_HIT_TX (a global load's line probed and missed)",
                             "probes"),
    "TP_HIT_LD": UnitEnergy("teleport", 224.0, "assumed: a warp-wide shared-memory read, at gtx480's smem_access",
                            "accesses"),
    "TP_FILLED": UnitEnergy("teleport", 224.0, "assumed: a 128-B line written into shared memory, at gtx480's "
                            "smem_access (one warp-wide access)", "lines"),
    "TP_REQS": UnitEnergy("teleport", 2.0, "assumed: the controller's address step per request (one 16-bit add; "
                          "Eqs. 2/3's 12 ALU operations per block and row are about 1 pJ each at 40 nm)",
                          "requests"),
}

declare_unit_energies("teleport", UNITS)
