"""The events the power model prices, each with its component and how it is counted from a launch's statistics.

A count function returns None when the machine has no such part (links on a machine without stacks): the
event is then neither reported nor priced. The built-in events register under the ``energy_event``
registry kind, where other code may add events the same way (``registry.register("energy_event", name)``);
an added event belongs to the component its price names (default ``other``).

Mechanisms price their own units' counters with :func:`declare_unit_energies`, from their own package.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from ...trace.format import OP_CLASS
from .. import engine as E
from ..registry import register

if TYPE_CHECKING:
    from ..stats import LaunchStats

Count = Callable[["LaunchStats"], "float | None"]

# unit classes of the execution units: op classes whose lane operations share a price
UNIT_CLASSES: dict[str, tuple[str, ...]] = {
    "inst_int": ("int", "mov", "cvt", "setp", "branch", "shfl"),
    "inst_imul": ("imul",),
    "inst_idiv": ("idiv",),
    "inst_fp32": ("fp32", "fp16"),
    "inst_fdiv": ("fdiv",),
    "inst_fp64": ("fp64",),
    "inst_sfu": ("sfu",),
    "inst_ldst": ("load", "store", "atomic"),
}


def _lane_ops(classes: tuple[str, ...]) -> Count:
    """Lane operations of these op classes: warp instructions x the launch's mean active lanes per warp
    instruction (the engine counts active lanes in total, not per class)."""
    def count(st: LaunchStats) -> float:
        wi = st.c("WARP_INSTS")
        lanes = st.c("THREAD_INSTS") / wi if wi else 0.0
        return float(sum(int(st.per_class[OP_CLASS[c]]) for c in classes)) * lanes
    return count


def _ctr(*names: str) -> Count:
    return lambda st: float(sum(st.c(n) for n in names))


def _mesh_whops(st: LaunchStats) -> float | None:
    if not st.mesh:
        return None
    return float(st.mesh["kinds"][:, :, 2].sum())


def _mesh_offchip(st: LaunchStats) -> float | None:
    """Flits over off-chip links (a hierarchical mesh's links between chips; None on networks without any)."""
    if not st.mesh or "offchip" not in st.mesh:
        return None
    off = np.asarray(st.mesh["offchip"], bool)
    return float(sum(ports[off, 0].sum() for ports in st.mesh["ports"]))


def _mesh_routers(st: LaunchStats) -> float | None:
    """Router traversals of flits: each flit crosses hops + 1 routers."""
    wh = _mesh_whops(st)
    return None if wh is None else wh + float(st.packet_kinds[:, 1::2].sum())


def _link_bits(st: LaunchStats, direction: str) -> float | None:
    if not st.consts.get("links"):
        return None
    return float(8 * sum(st.extra.get(f"link{s}.{direction}.bytes", 0) for s in range(st.consts["stacks"]["count"])))


def _link_idle_bits(st: LaunchStats) -> float | None:
    """Idle bit-slots of the GPU's serial links: per channel, (time - busy time) x bandwidth."""
    lk = st.consts.get("links")
    if not lk:
        return None
    total = 0.0
    for s in range(st.consts["stacks"]["count"]):
        for d in ("tx", "rx"):
            idle_ps = max(0, st.time_ps - st.extra.get(f"link{s}.{d}.busy_ps", 0))
            total += idle_ps * 1e-12 * lk[f"{d}_gbs"] * 8e9
    return float(round(total))


def cross_link_dirs(st: LaunchStats) -> list[tuple[str, float]] | None:
    """Each timed cross-stack link direction as (counter prefix, GB/s): the stack SMs' pairs (``xlink{a}to{b}``)
    or a logic die's links (row ``link{t}``: tx home -> t, rx t -> home); None when there are none."""
    ss = st.consts.get("stack_sms")
    if ss and ss["pairs"]:
        return [(f"xlink{u}to{v}", ss["cross_gbs"]) for a, b in ss["pairs"] for u, v in ((a, b), (b, a))]
    xl = st.consts.get("cross_links")
    if not xl:
        return None
    return [(f"link{s}.{d}", xl["gbs"]) for s in range(st.consts["stacks"]["count"]) if s != xl["home"]
            for d in ("tx", "rx")]


def _cross_link_bits(st: LaunchStats, idle: bool) -> float | None:
    dirs = cross_link_dirs(st)
    if dirs is None:
        return None
    total = 0.0
    for key, gbs in dirs:
        if idle:
            total += max(0, st.time_ps - st.extra.get(f"{key}.busy_ps", 0)) * 1e-12 * gbs * 8e9
        else:
            total += 8 * st.extra.get(f"{key}.bytes", 0)
    return float(round(total))


def _stacks(count: Count) -> Count:
    return lambda st: count(st) if st.consts.get("stacks") else None


# name -> (component, count, unit of the count)
EVENTS: dict[str, tuple[str, Count, str]] = {
    # SIMT cores: front end (fetch, decode, scheduling, scoreboard) per warp instruction, clocked pipeline per
    # active SM cycle (an SM without warps is clock-gated), execution units per lane operation
    "warp_issue": ("core", _ctr("WARP_INSTS"), "warp-instr"),
    "sm_active_cycle": ("core", lambda st: float(st.per_sm[:, E.SMS_BUSY].sum()), "SM-cycles"),
    **{name: ("core", _lane_ops(classes), "lane-ops") for name, classes in UNIT_CLASSES.items()},
    # register file and operand collectors: warp-wide (32 x 32-bit) operand reads and writes
    "regfile_access": ("regfile", lambda st: float(st.extra.get("rf_accesses", 0)), "warp-operands"),
    "l1d_access": ("l1d", _ctr("L1_ACC"), "transactions"),
    "l1d_miss": ("l1d", _ctr("L1_MISS"), "transactions"),
    # a bank conflict replays the access: one more array access per conflict cycle
    "smem_access": ("smem", _ctr("SMEM_ACC", "SMEM_CONF_CYC"), "array accesses"),
    "l2_access": ("l2", _ctr("L2_ACC"), "requests"),
    "l2_fill": ("l2", _ctr("L2_FILL"), "lines"),
    "l2_writeback": ("l2", _ctr("L2_WB"), "lines"),
    "l2_atomic": ("l2", _ctr("L2_ATOM"), "requests"),
    # interconnect: a crossbar's flits, or a mesh's flit-hops (links) and flit router traversals
    "icnt_flit": ("noc", lambda st: None if st.mesh else float(st.packet_kinds[:, 1::2].sum()), "flits"),
    "mesh_link_flit": ("noc", _mesh_whops, "flit-hops"),
    "mesh_router_flit": ("noc", _mesh_routers, "flit-traversals"),
    # an off-chip hop's flit costs its link-hop price plus this (a hierarchical mesh's links between chips)
    "mesh_offchip_flit": ("noc", _mesh_offchip, "flits"),
    # DRAM: ACT (with its PRE), bursts, REF, and the bits moved (I/O, or a per-bit model of the whole access)
    "dram_activate": ("dram", _ctr("DR_ACT"), "commands"),
    "dram_read_burst": ("dram", lambda st: float(st.c("DR_BURST") - st.c("DR_WBURST")), "bursts"),
    "dram_write_burst": ("dram", _ctr("DR_WBURST"), "bursts"),
    "dram_refresh": ("dram", _ctr("DR_REF"), "commands"),
    "dram_read_bit": ("dram", lambda st: 8.0 * st.c("DR_RD_BYTES"), "bits"),
    "dram_write_bit": ("dram", lambda st: 8.0 * st.c("DR_WR_BYTES"), "bits"),
    # memory stacks: TSVs; the GPU's serial links (bits sent, idle bit-slots) and the cross-stack links
    "tsv_bit": ("tsv", _stacks(lambda st: 8.0 * (st.c("DR_RD_BYTES") + st.c("DR_WR_BYTES"))), "bits"),
    "link_tx_bit": ("links", lambda st: _link_bits(st, "tx"), "bits"),
    "link_rx_bit": ("links", lambda st: _link_bits(st, "rx"), "bits"),
    "link_idle_bit": ("links", _link_idle_bits, "bit-slots"),
    "cross_link_bit": ("cross_links", lambda st: _cross_link_bits(st, False), "bits"),
    "cross_link_idle_bit": ("cross_links", lambda st: _cross_link_bits(st, True), "bit-slots"),
}

for _name, (_component, _count, _unit) in EVENTS.items():
    register("energy_event", _name)(_count)


def event_component(name: str) -> str | None:
    """The component of a built-in event (None for others)."""
    e = EVENTS.get(name)
    return e[0] if e else None


# ------------------------------------------------------------------------------------------------------
# mechanisms' units


@dataclasses.dataclass(frozen=True)
class UnitEnergy:
    """The energy of one event of a mechanism's unit, counted by one of its hardware counters.

    ``pj`` is the default price; a machine's parameter set may re-price the counter under its own name.
    ``source`` cites where the value comes from, or starts with ``assumed:`` and gives the reasoning."""

    component: str
    pj: float
    source: str
    unit: str = "events"

    def __post_init__(self) -> None:
        if self.pj < 0:
            raise ValueError(f"UnitEnergy.pj must be >= 0, got {self.pj}")
        if not self.source.strip():
            raise ValueError("UnitEnergy.source: cite the value's source or say 'assumed: <reasoning>'")


_UNITS: dict[str, dict[str, UnitEnergy]] = {}


def declare_unit_energies(mechanism: str, units: Mapping[str, UnitEnergy]) -> None:
    """Declare the per-event energies of ``mechanism``'s units, keyed by its hardware counter names
    (``MechanismHardware.counter_names``). Call it from the mechanism's own package; a later call replaces
    the mechanism's table."""
    for k, v in units.items():
        if not isinstance(v, UnitEnergy):
            raise TypeError(f"declare_unit_energies({mechanism!r}): {k!r} needs a UnitEnergy, got {type(v).__name__}")
        if k in EVENTS:
            raise ValueError(f"declare_unit_energies({mechanism!r}): {k!r} is a built-in event's name")
    _UNITS[mechanism] = dict(units)


def declared_unit_energies(mechanism: str | None) -> dict[str, UnitEnergy]:
    """The units ``mechanism`` declared (empty when none or no mechanism)."""
    return dict(_UNITS.get(mechanism, {})) if mechanism else {}
