"""MPU's address interleaving and the hybrid LSU's offload rule (seed 003, section IV-C)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ndpgpu.mechanisms.mpu.lsu import locate, offloadable, transactions

FULL = (1 << 32) - 1


def test_interleaving_stripes():
    # 32 B per bank, 4 banks per NBU (128 B), 4 NBUs per core (512 B), 16 cores (8 KB), 8 processors (64 KB)
    assert dataclasses.replace(locate(31), offset=0) == locate(0)
    assert locate(32).bank == 1 and locate(96).bank == 3 and locate(128).nbu == 1
    assert locate(512).core == 1 and locate(8192).processor == 1
    assert locate(65536).column == 1 and locate(32 * 65536).row == 1 and locate(32 * 65536).column == 0
    assert (locate(0x12345).processor, locate(0x12345).core) == ((0x12345 >> 13) & 7, (0x12345 >> 9) & 15)


def test_offload_rule():
    base = 3 * 8192 + 5 * 512 + 2 * 128  # processor 3, core 5, NBU 2
    own = (3, 5, 2)
    lanes = base + 4 * np.arange(32)
    assert offloadable(lanes, FULL, own)  # full mask, coalesced, own unit: one 8-B packet
    assert not offloadable(lanes, FULL & ~1, own)  # a lane off
    assert not offloadable(lanes, FULL, (3, 5, 1))  # another unit's data
    assert not offloadable(lanes + 64, FULL, own)  # straddles two units
    assert not offloadable(lanes[::-1], FULL, own)  # not in lane order
    assert transactions(lanes, FULL) == 4  # the per-transaction path: one request per 32-B chunk
    assert transactions(base + 128 * np.arange(32), FULL) == 32
    assert transactions(lanes, 0b1) == 1


def test_counts_must_be_powers_of_two():
    from ndpgpu.mechanisms.mpu.config import MpuConfig

    with pytest.raises(ValueError, match="power-of-two"):
        locate(0, MpuConfig(cores=12))
