"""MPU's configuration (seed 003, Table II) and its area on the DRAM die (Table III), with the arithmetic the
paper's text derives from them: banks and capacity per processor, TSV and bank bandwidth, the time to move a
warp register across the TSVs, and the area overhead with a 16 KB or a 32 KB near-bank register file."""

from __future__ import annotations

import dataclasses

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


@dataclasses.dataclass(frozen=True)
class MpuConfig:
    """Table II's hierarchy, sizes and clocks (the defaults are the paper's)."""

    processors: int = 8  # 3D stacks on the off-chip network
    dram_dies: int = 4  # per processor, above its base logic die
    cores: int = 16  # per processor
    subcores: int = 4  # per core
    nbus_per_core: int = 4  # near-bank units, one per subcore
    banks_per_nbu: int = 4
    row_buffers: int = 4  # activated subarray row buffers per bank
    bank_bytes: int = 16 * MIB
    simt_width: int = 32
    bank_io_bits: int = 256
    tsv_bits: int = 1024  # per processor, divided evenly among its cores
    onchip_bus_bits: int = 256
    offchip_bus_bits: int = 128
    icache_bytes: int = 128 * KIB
    far_rf_bytes: int = 32 * KIB  # per subcore
    near_rf_bytes: int = 16 * KIB  # per NBU: halved, as the compiler's split allows
    smem_bytes: int = 64 * KIB  # per core, on one DRAM die (the "horizontal" core)
    core_ghz: float = 1.0
    tsv_ghz: float = 2.0
    router_ghz: float = 2.0
    bus_ghz: float = 2.0
    tCCD_ns: float = 2.0  # Table II's timings, read as ns (1 GHz cycles)

    @property
    def banks_per_processor(self) -> int:
        return self.cores * self.nbus_per_core * self.banks_per_nbu

    @property
    def processor_bytes(self) -> int:
        return self.banks_per_processor * self.bank_bytes

    @property
    def total_bytes(self) -> int:
        return self.processors * self.processor_bytes

    @property
    def tsv_bytes_per_beat(self) -> int:
        """Bytes a core's share of the TSVs moves per TSV cycle."""
        return self.tsv_bits // self.cores // 8

    @property
    def tsv_beat_ns(self) -> float:
        return 1.0 / self.tsv_ghz

    @property
    def tsv_core_gbs(self) -> float:
        return self.tsv_bytes_per_beat * self.tsv_ghz

    @property
    def bank_gbs(self) -> float:
        """Peak bandwidth of one bank: its IO width per tCCD."""
        return self.bank_io_bits / 8 / self.tCCD_ns

    @property
    def peak_bank_gbs(self) -> float:
        """All banks of all processors at their peak."""
        return self.bank_gbs * self.banks_per_processor * self.processors

    @property
    def register_move_ns(self) -> float:
        """One warp register (SIMT width x 4 B) across a core's TSVs."""
        beats = -(-self.simt_width * 4 // self.tsv_bytes_per_beat)
        return beats * self.tsv_beat_ns


DIE_MM2 = 96.0
"""One DRAM die of the stack (Table III's denominator; about one HBM stack's footprint)."""

AREA_PER_DIE_MM2 = {  # Table III: (units per die, mm2 per die, DRAM-process penalty included)
    "shared memory": (4, 0.84),
    "register file": (16, 9.71),
    "memory controller": (16, 0.63),
    "operand collector": (64, 2.43),
    "vector ALU": (16, 3.74),
    "LSU extension": (16, 2.43),
    "multi-row-buffer support": (64, 0.01),
}


TOTAL_MM2 = 19.80
"""Table III's total; its rows, rounded to 0.01 mm2, add up to 19.79."""


def area_overhead(near_rf_kib: int = 16) -> tuple[float, float]:
    """(mm2 per die, share of the die) that MPU adds to a DRAM die; the register files scale with their size
    (Table III is for 16 KB; 32 KB doubles their 9.71 mm2: the paper's 30.74%)."""
    mm2 = TOTAL_MM2 + AREA_PER_DIE_MM2["register file"][1] * (near_rf_kib / 16 - 1)
    return mm2, mm2 / DIE_MM2
