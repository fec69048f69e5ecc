"""MPU's configuration arithmetic against the paper's own numbers (seed 003, Table II, Table III, section III)."""

from __future__ import annotations

import pytest

from ndpgpu.mechanisms.mpu.config import AREA_PER_DIE_MM2, GIB, TOTAL_MM2, MpuConfig, area_overhead


def test_banks_and_capacity():
    c = MpuConfig()
    assert c.banks_per_processor == 256  # 16 cores x 4 NBUs x 4 banks
    assert c.processor_bytes == 4 * GIB and c.total_bytes == 32 * GIB


def test_tsv_and_bank_bandwidth():
    c = MpuConfig()
    assert c.tsv_bytes_per_beat == 8 and c.tsv_beat_ns == 0.5  # 1024 TSVs over 16 cores: 64 b per 0.5 ns
    assert c.tsv_core_gbs == 16.0
    assert c.register_move_ns == 8.0  # 128 B in 16 beats
    assert c.bank_gbs == 16.0  # 32 B per 2 ns
    assert c.peak_bank_gbs == pytest.approx(32_768.0)  # 32.8 TB/s, about 36x the V100's 900 GB/s
    assert c.peak_bank_gbs / 900 == pytest.approx(36.4, abs=0.1)


def test_table3_area():
    assert sum(n for n, _ in AREA_PER_DIE_MM2.values()) == 4 + 16 * 4 + 64 * 2
    assert sum(a for _, a in AREA_PER_DIE_MM2.values()) == pytest.approx(TOTAL_MM2, abs=0.011)  # rounded rows
    mm2, share = area_overhead()
    assert mm2 == pytest.approx(19.80) and share == pytest.approx(0.2062, abs=1e-4)  # 20.625%, printed as 20.62%
    mm2, share = area_overhead(32)  # the near-bank RF at 32 KB, before the compiler's split halves it
    assert mm2 == pytest.approx(19.80 + 9.71) and share == pytest.approx(0.3074, abs=1e-4)
