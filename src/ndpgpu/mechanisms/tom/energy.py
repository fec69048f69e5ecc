"""The energies of TOM's own units, declared to the power model (docs/power.md, "Mechanisms").

Counted by TOM's hardware counters (:data:`.hardware.COUNTER_NAMES`). The offload packets themselves are
not priced here: their flits are bits on the serial links, which the machine's link prices cover, and the
offloaded instructions run on stack SMs whose events the core prices cover.
"""

from __future__ import annotations

from ...timing.power import UnitEnergy, declare_unit_energies

_K11 = "Keckler et al., IEEE Micro 2011: 14 pJ per 64-bit read of an 8 KB SRAM at 40 nm"

UNITS = {
    "BO_SEEN": UnitEnergy("offload", 20.0, f"assumed: the offload decision of a candidate instance reads its metadata "
                          f"entry and checks the condition, about one small-SRAM read ({_K11}) plus compare logic",
                          "instances"),
    "BO_SENT": UnitEnergy("offload", 900.0, "assumed: reading about four warp-wide live-in registers into the offload "
                          "packet, at the 224-pJ warp-wide register access of gtx480's set", "instances"),
    "BO_DONE": UnitEnergy("offload", 900.0, "assumed: writing about four warp-wide live-out registers back, as BO_SENT",
                          "instances"),
    "BO_INVAL_L1": UnitEnergy("offload", 14.0, f"assumed: one tag write per invalidated L1 line ({_K11})", "lines"),
    "BO_INVAL_L2": UnitEnergy("offload", 14.0, f"assumed: one tag write per invalidated L2 line ({_K11})", "lines"),
}

declare_unit_energies("tom", UNITS)
