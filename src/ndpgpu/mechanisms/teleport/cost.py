"""TELEPORT's hardware cost (seed 002, Sec. 6), its development-effort table (Table 5) and the footprint
arithmetic of Sec. 5.1.1 (MMA).

The paper's areas: CACTI 6.5 at 40 nm for the tag arrays and the preload table, and the ALU of its
reference [23] (0.071 mm^2 at 90 nm) scaled by (40/90)^2. The die is the GTX480's 529 mm^2.
"""

from __future__ import annotations

import dataclasses

from ...analysis.memops import mem_op
from ...frontend.ir import Function

# the paper's field widths (Sec. 6: 21 B per entry): a 32-bit pointer, a 1-B type size, 16-bit products/offsets
POINTER_BYTES, TYPESIZE_BYTES, PRODUCT_BYTES = 4, 1, 2
ENTRY_BYTES = TYPESIZE_BYTES + POINTER_BYTES + 8 * PRODUCT_BYTES  # the paper's entry


def table_entry_bytes() -> int:
    """Bytes of one entry of *our* preload table: the compiled hardware's row fields (one base pointer, one
    type size, the rest min/max products and offsets) at the paper's field widths."""
    from . import hardware as H

    products = H.NRW - 2
    return POINTER_BYTES + TYPESIZE_BYTES + products * PRODUCT_BYTES
TAG_MM2_PER_CORE = 0.009  # CACTI 6.5, 40 nm: a 4-set 96-way tag array (paper, Sec. 6)
TABLE_MM2 = 0.004  # CACTI 6.5, 40 nm: the 1344-B preload table (paper, Sec. 6)
ALU_MM2_90NM = 0.071  # reference [23]'s 16-bit ALU at 90 nm (paper, Sec. 6)
DIE_MM2 = 529.0  # GTX480 (paper, Sec. 6)

# Table 5: kernel lines of code, TELEPORT (= Baseline) / hand-written shared memory (paper's counts)
TABLE5_LOC = {"EDS": (13, 19), "HSP": (21, 51), "JAC": (8, 23), "MMA": (4, 9), "PTF": (10, 34)}


@dataclasses.dataclass(frozen=True)
class HardwareCost:
    """The added hardware's storage and area."""

    entries: int = 64
    entry_size: int = ENTRY_BYTES
    cores: int = 15
    alus: int = 12  # 6 multipliers + 6 adders of the controller (one block's min and max per cycle)
    node_nm: float = 40.0

    @property
    def entry_bytes(self) -> int:
        return self.entry_size

    @property
    def table_bytes(self) -> int:
        return self.entries * self.entry_size

    @property
    def tags_mm2(self) -> float:
        return TAG_MM2_PER_CORE * self.cores

    @property
    def alu_mm2_each(self) -> float:
        return ALU_MM2_90NM * (self.node_nm / 90.0) ** 2

    @property
    def alus_mm2(self) -> float:
        return self.alu_mm2_each * self.alus

    @property
    def total_mm2(self) -> float:
        return self.tags_mm2 + TABLE_MM2 * self.entries / 64 + self.alus_mm2

    @property
    def die_share(self) -> float:
        return self.total_mm2 / DIE_MM2

    def rows(self) -> list[tuple[str, float, str]]:
        return [("entry_bytes", self.entry_bytes, "B"), ("table_bytes", self.table_bytes, "B"),
                ("tags_mm2", self.tags_mm2, "mm2"), ("table_mm2", TABLE_MM2 * self.entries / 64, "mm2"),
                ("alu_mm2_each", self.alu_mm2_each, "mm2"), ("alus_mm2", self.alus_mm2, "mm2"),
                ("total_mm2", self.total_mm2, "mm2"), ("die_share", self.die_share, "fraction")]


def effort_ratios(loc: dict[str, tuple[int, int]] = TABLE5_LOC) -> dict[str, float]:
    """Hand-written / TELEPORT lines of code per benchmark (Table 5's improvement)."""
    return {k: hw / tp for k, (tp, hw) in loc.items()}


def kernel_loc(source: str, kernel: str) -> int:
    """Non-blank, non-comment lines of ``kernel``'s body in CUDA ``source`` (the extraction's G18 rule)."""
    text = source.split("\n")
    start = next((i for i, ln in enumerate(text) if "__global__" in ln and f" {kernel}(" in ln), None)
    if start is None:
        raise ValueError(f"no __global__ kernel {kernel!r} in the source")
    depth = 0
    n = 0
    opened = False
    for ln in text[start:]:
        code = ln.split("//")[0].strip()
        if opened and code and code != "}":
            n += 1
        depth += code.count("{") - code.count("}")
        if "{" in code:
            opened = True
        if opened and depth <= 0:
            break
    return n


def bytes_per_thread(fn: Function) -> int:
    """Global bytes one thread reads and writes, one pass through the kernel's straight-line accesses."""
    total = 0
    for i, ins in enumerate(fn.body):
        op = mem_op(ins, i)
        if op is not None and op.space in ("global", "generic") and op.kind in ("load", "store"):
            total += op.width
    return total


def footprint(fn: Function, threads_per_block: int, blocks_per_core: int) -> tuple[int, int]:
    """(bytes per block, bytes per core) a kernel touches (Sec. 5.1.1: MMA 3 KB per block, 18 KB per core)."""
    per_block = bytes_per_thread(fn) * threads_per_block
    return per_block, per_block * blocks_per_core
