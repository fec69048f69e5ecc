"""Built-in implementations, registered by name (selected with ``impl:`` in machine YAML).

Mechanism packages register theirs the same way from their own modules.
"""

from __future__ import annotations

import numpy as np

from . import engine as E
from .interfaces import AddressMapping, CompiledVariant, CtaDispatch, DispatchPlan
from .registry import register

# ------------------------------------------------------------------------------------------------------
# compiled variants: warp schedulers, DRAM schedulers, interconnects, DRAM standards, prefetchers


@register("warp_scheduler", "lrr")
class LooseRoundRobin(CompiledVariant):
    code = E.SCHED_LRR

    def describe(self) -> str:
        return "loose round robin over ready warps, starting after the last issued"


@register("warp_scheduler", "gto")
class GreedyThenOldest(CompiledVariant):
    code = E.SCHED_GTO

    def describe(self) -> str:
        return "greedy-then-oldest: keep issuing one warp until it stalls, then the oldest ready"


@register("warp_scheduler", "two_level")
class TwoLevel(CompiledVariant):
    code = E.SCHED_TWO_LEVEL

    def describe(self) -> str:
        return "two-level: round robin over an active pool; warps waiting on memory leave it"


@register("dram_scheduler", "frfcfs")
class FrFcfs(CompiledVariant):
    code = E.DS_FRFCFS

    def describe(self) -> str:
        return "first-ready FCFS: row hits first, then oldest (priority classes first)"


@register("dram_scheduler", "fcfs")
class Fcfs(CompiledVariant):
    code = E.DS_FCFS

    def describe(self) -> str:
        return "strict FCFS per channel (priority classes first)"


@register("dram_scheduler", "frfcfs_bank")
class FrFcfsBank(CompiledVariant):
    code = E.DS_FRFCFS_BANK

    def describe(self) -> str:
        return ("GPGPU-Sim's FR-FCFS: each bank serves one request at a time, taken from the queue (its open row's "
                "oldest, else its oldest) one bank a cycle; commands only for those, banks in round robin")


@register("interconnect", "crossbar")
class Crossbar(CompiledVariant):
    code = 0

    def describe(self) -> str:
        return "crossbar: one flit per port per cycle, round-robin within priority classes"


@register("interconnect", "mesh")
class Mesh(CompiledVariant):
    code = 1

    def describe(self) -> str:
        return ("2D mesh (icnt.mesh): XY/YX dimension-order routing, credit-based VCs holding one packet each, "
                "one flit per link per cycle, router pipeline latency per hop")


@register("interconnect", "butterfly")
class Butterfly(CompiledVariant):
    code = 2

    def describe(self) -> str:
        return ("k-ary n-fly (icnt.butterfly): destination-tag routing through n stages of k x k routers, "
                "the mesh's routers (credit-based VCs, one flit per link per cycle, pipeline latency per stage)")


@register("interconnect", "hmesh")
class HierarchicalMesh(CompiledVariant):
    code = 3

    def describe(self) -> str:
        return ("hierarchical mesh (icnt.hmesh): chips of on-chip 2D meshes joined by an off-chip 2D mesh between "
                "one gateway router per chip; dimension-order routing on both levels, several terminals per "
                "router, per-link widths and latencies, the mesh's routers")


class DramStandard(CompiledVariant):
    """A DRAM standard: checks that a DRAM spec is consistent with it."""

    data_rates: tuple[int, ...] = ()

    def check(self, spec) -> list[str]:
        errs = []
        if self.data_rates and spec.data_rate not in self.data_rates:
            errs.append(f"dram.data_rate={spec.data_rate} is not valid for {self.impl_name} "
                        f"(allowed: {self.data_rates})")
        return errs


@register("dram", "gddr5")
class Gddr5(DramStandard):
    code = 0
    data_rates = (4,)

    def describe(self) -> str:
        return "GDDR5: quad data rate against the command clock, 16 banks in 4 bank groups"


@register("dram", "hbm2")
class Hbm2(DramStandard):
    code = 1
    data_rates = (2,)

    def describe(self) -> str:
        return "HBM2: double data rate, 128-bit channels (or 2 x 64-bit pseudo channels), dual command bus"


@register("dram", "ddr3")
class Ddr3(DramStandard):
    code = 2
    data_rates = (2,)

    def describe(self) -> str:
        return "DDR3-class timing (for memory stacks' vaults)"


@register("prefetcher", "none")
class NoPrefetch(CompiledVariant):
    code = E.PF_NONE

    def describe(self) -> str:
        return "no prefetching"


@register("prefetcher", "next_line")
class NextLine(CompiledVariant):
    code = E.PF_NEXT_LINE

    def describe(self) -> str:
        return "on a demand L1 miss, fetch the next `degree` lines (at the prefetch priority class)"


# ------------------------------------------------------------------------------------------------------
# CTA dispatch


@register("cta_dispatch", "round_robin")
class RoundRobinDispatch(CtaDispatch):
    """CTAs in id order, each to the next SM (round robin) with room: GPGPU-Sim's default."""

    def plan(self, launch, machine) -> DispatchPlan:
        n = launch.num_ctas
        return DispatchPlan(np.arange(n, dtype=np.int64), np.full(n, -1, np.int64), E.DISP_RR)


@register("cta_dispatch", "greedy")
class GreedyDispatch(CtaDispatch):
    """CTAs in id order, each to the lowest-numbered SM with room (fills SM 0 first)."""

    def plan(self, launch, machine) -> DispatchPlan:
        n = launch.num_ctas
        return DispatchPlan(np.arange(n, dtype=np.int64), np.full(n, -1, np.int64), E.DISP_GREEDY)


@register("cta_dispatch", "blocked")
class BlockedDispatch(CtaDispatch):
    """Contiguous ranges of CTA ids pinned to each SM (CTA c runs on SM c * num_sms // num_ctas)."""

    def plan(self, launch, machine) -> DispatchPlan:
        n = launch.num_ctas
        target = (np.arange(n, dtype=np.int64) * machine.core.num_sms) // max(n, 1)
        return DispatchPlan(np.arange(n, dtype=np.int64), target, E.DISP_STATIC)


# ------------------------------------------------------------------------------------------------------
# address mappings


def _mask(bits: list[int]) -> int:
    m = 0
    for b in bits:
        m |= 1 << b
    return m


@register("address_mapping", "bitfields")
class BitFields(AddressMapping):
    """The machine's ``dram.mapping``: channel by modulo (optionally XOR-hashed), then bit fields."""

    kind = E.MAPK_BITFIELDS

    def __init__(self, channel: int = -1) -> None:
        self.channel = channel

    def descriptor(self, machine) -> np.ndarray:
        spec = machine.dram.mapping
        bits = spec.field_bits()
        top = len(set().union(*bits.values()))  # (a b/g bit is both a bank and a slice bit)
        line_shift = machine.l1d.line_bytes.bit_length() - 1
        if spec.channel_bit < line_shift:
            raise ValueError(f"dram.mapping.channel_bit={spec.channel_bit} splits {machine.l1d.line_bytes}-B lines "
                             f"across channels (needs >= {line_shift})")
        keep = ((1 << top) - 1) & ~_mask(bits["P"]) & ~((1 << line_shift) - 1)
        d = np.zeros(E.NMAPD, np.int64)
        d[E.MD_KIND] = self.kind
        d[E.MD_CHAN_SHIFT] = spec.channel_bit
        d[E.MD_NCHAN] = machine.dram.scheduling_channels
        d[E.MD_CHAN_XOR] = int(spec.channel_xor)
        d[E.MD_BANK_XOR] = int(spec.bank_xor)
        d[E.MD_FIXED_CHAN] = max(self.channel, 0)
        d[E.MD_MROW] = _mask(bits["R"])
        d[E.MD_MBANK] = _mask(bits["B"])
        d[E.MD_MBG] = _mask(bits["G"])
        d[E.MD_MSLICE] = _mask(bits["P"])
        d[E.MD_TOP] = top
        d[E.MD_NROWL] = len(bits["R"])
        d[E.MD_LOGBPG] = len(bits["B"])
        d[E.MD_LOGNBG] = len(bits["G"])
        d[E.MD_KEEP] = keep
        d[E.MD_NKEEP] = bin(keep).count("1")
        d[E.MD_SPC] = machine.l2.slices_per_channel if machine.l2 is not None else 1
        return d


@register("address_mapping", "pinned")
class Pinned(BitFields):
    """Every line of the range goes to one channel (its slices, banks and rows by the machine's fields)."""

    kind = E.MAPK_PINNED

    def __init__(self, channel: int = 0) -> None:
        super().__init__(channel)

    def descriptor(self, machine) -> np.ndarray:
        if not 0 <= self.channel < machine.dram.scheduling_channels:
            raise ValueError(f"pinned channel {self.channel} outside [0, {machine.dram.scheduling_channels})")
        return super().descriptor(machine)


@register("address_mapping", "parity")
class ParityMapping(AddressMapping):
    """XOR mappings: channel bit i is the parity of the address bits in ``channel_masks[i]``, bank bit j of
    ``bank_masks[j]``; the row gathers the bits of ``row_mask``. Line-offset bits must not select a channel."""

    def __init__(self, channel_masks: tuple[int, ...], bank_masks: tuple[int, ...], row_mask: int) -> None:
        if len(channel_masks) > 8 or len(bank_masks) > 5:
            raise ValueError(f"at most 8 channel and 5 bank bits ({len(channel_masks)}, {len(bank_masks)} given)")
        self.channel_masks = tuple(int(x) for x in channel_masks)
        self.bank_masks = tuple(int(x) for x in bank_masks)
        self.row_mask = int(row_mask)

    def descriptor(self, machine) -> np.ndarray:
        line_shift = machine.l1d.line_bytes.bit_length() - 1
        low = (1 << line_shift) - 1
        if any(msk & low for msk in self.channel_masks):
            raise ValueError(f"a channel mask uses address bits below {line_shift}: lines would split across channels")
        if 1 << len(self.channel_masks) != machine.dram.scheduling_channels:
            raise ValueError(f"{len(self.channel_masks)} channel bits for {machine.dram.scheduling_channels} channels")
        if 1 << len(self.bank_masks) != machine.dram.banks:
            raise ValueError(f"{len(self.bank_masks)} bank bits for {machine.dram.banks} banks per channel")
        if machine.l2 is not None and machine.l2.slices_per_channel != 1:
            raise ValueError("parity mappings assume one L2 slice per channel")
        d = np.zeros(E.NMAPD, np.int64)
        d[E.MD_KIND] = E.MAPK_PARITY
        d[E.MD_CHAN_SHIFT] = line_shift
        d[E.MD_NCHAN] = machine.dram.scheduling_channels
        d[E.MD_PCH0:E.MD_PCH0 + len(self.channel_masks)] = self.channel_masks
        d[E.MD_PBK0:E.MD_PBK0 + len(self.bank_masks)] = self.bank_masks
        d[E.MD_NPCH] = len(self.channel_masks)
        d[E.MD_NPBK] = len(self.bank_masks)
        d[E.MD_MROW] = self.row_mask
        d[E.MD_TOP] = 62
        d[E.MD_SPC] = 1
        primary = [msk & -msk for msk in self.channel_masks]
        if len(set(primary)) != len(primary) or 0 in primary:
            raise ValueError("each channel mask needs its own lowest bit (the mapping is not one-to-one)")
        keep = ((1 << 62) - 1) & ~low & ~sum(primary)
        d[E.MD_KEEP] = keep
        d[E.MD_NKEEP] = bin(keep).count("1")
        return d
