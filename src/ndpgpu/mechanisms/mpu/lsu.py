"""MPU's address interleaving and the hybrid LSU's offload rule (seed 003, section IV-C).

**Interleaving** (fine-grained, from the least significant bit up): a 32-B bank-IO chunk, then the bank
(of 4), the near-bank unit (of 4), the core (of 16), the processor (of 8), the column and the row. So a
coalesced 128-B warp access covers the 4 banks of one near-bank unit, a core's stripe is 512 B, a
processor's 8 KB and the whole machine's 64 KB. The paper gives only that addresses carry a near-bank-unit
field; this layout is the released simulator's (the extraction's recommendation).

**Offload rule**: a global load or store is sent to the near-bank unit's LSU extension as one 8-B packet
(leading address, register id, unit id), with no register moved, only when every lane of the warp is active,
the addresses are perfectly coalesced (one contiguous range of 4-byte words) and all of them are in the
warp's own near-bank unit. Otherwise the LSU issues per-transaction requests: one per 32-B chunk touched.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .config import MpuConfig

PAPER = MpuConfig()


@dataclasses.dataclass(frozen=True)
class Location:
    """Where a byte address lives."""

    processor: int
    core: int
    nbu: int
    bank: int
    column: int
    row: int
    offset: int  # within the 32-B bank-IO chunk


def _bits(n: int) -> int:
    if n & (n - 1):
        raise ValueError(f"MPU interleaving needs power-of-two counts, got {n}")
    return n.bit_length() - 1


def locate(addr: int, cfg: MpuConfig = PAPER) -> Location:
    """The processor, core, near-bank unit, bank, column and row of a byte address (see the module)."""
    io = cfg.bank_io_bits // 8
    fields = [("offset", io), ("bank", cfg.banks_per_nbu), ("nbu", cfg.nbus_per_core), ("core", cfg.cores),
              ("processor", cfg.processors), ("column", ROW_BYTES // io)]
    out = {}
    a = int(addr)
    for name, count in fields:
        b = _bits(count)
        out[name] = a & ((1 << b) - 1)
        a >>= b
    out["row"] = a
    return Location(**out)


ROW_BYTES = 1024
"""Bytes of one DRAM row of a bank (the extraction's recommendation: 16 MB banks of 16 K rows of 1 KB)."""


def offloadable(lane_addrs: np.ndarray, mask: int, warp_nbu: tuple[int, int, int], width: int = 4,
                cfg: MpuConfig = PAPER) -> bool:
    """True when a warp's global access goes to the LSU extension as one 8-B packet: all lanes active,
    perfectly coalesced ``width``-byte accesses, all in near-bank unit ``warp_nbu`` = (processor, core, nbu)."""
    if mask != (1 << cfg.simt_width) - 1:
        return False
    a = np.asarray(lane_addrs, dtype=np.int64)
    if len(a) != cfg.simt_width or np.any(np.diff(a) != width):
        return False
    for x in (int(a[0]), int(a[-1]) + width - 1):
        loc = locate(x, cfg)
        if (loc.processor, loc.core, loc.nbu) != warp_nbu:
            return False
    return True


def transactions(lane_addrs: np.ndarray, mask: int, width: int = 4, cfg: MpuConfig = PAPER) -> int:
    """32-B bank-IO chunks a warp's access touches (the per-transaction path's requests)."""
    io = cfg.bank_io_bits // 8
    a = np.asarray(lane_addrs, dtype=np.int64)
    lanes = [i for i in range(len(a)) if mask >> i & 1]
    chunks = {int(a[i]) // io for i in lanes} | {(int(a[i]) + width - 1) // io for i in lanes}
    return len(chunks)
