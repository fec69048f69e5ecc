"""Compiled component functions against the plain-Python references of tests/timing/refmodel.py."""

from __future__ import annotations

import numpy as np
import pytest
from refmodel import bank_conflict_degree, cache_set, map_address, strided_degree
from tracegen import FULL, TraceBuilder, shared_strided

from ndpgpu.timing import engine as E
from ndpgpu.timing import load_machine
from ndpgpu.timing.build import EngineState
from ndpgpu.timing.policies import Pinned
from ndpgpu.trace.coalesce import coalesce_lanes, coalesce_trace

MAPPINGS = [
    ("gtx480", {}),
    ("v100", {}),
    ("gtx480", {"dram.mapping.channel_xor": True, "dram.mapping.bank_xor": True}),
    ("v100", {"dram.mapping.channel_xor": False, "dram.mapping.bank_xor": True}),
    ("gtx480", {"dram.channels": 8, "dram.mapping.channel_bit": 12}),
]


@pytest.mark.parametrize("name,ov", MAPPINGS)
def test_address_mapping_matches_reference(name, ov):
    m = load_machine(name, ov)
    st = EngineState(m)
    rng = np.random.default_rng(1)
    addrs = [int(a) for a in rng.integers(0, 1 << 36, 400)] + list(range(0, 1 << 16, 128))
    for a in addrs:
        got = st.map_address(a)
        want = map_address(m, a)
        assert {k: got[k] for k in want} == want, hex(a)
        assert 0 <= got["channel"] < m.dram.scheduling_channels
        assert 0 <= got["bank"] < m.dram.banks


def test_pinned_mapping_keeps_one_channel():
    m = load_machine("v100")
    st = EngineState(m)
    st.map_range(1 << 32, (1 << 32) + (1 << 20), Pinned(5).descriptor(m))
    for a in range(1 << 32, (1 << 32) + (1 << 20), 4096 + 128):
        assert st.map_address(a)["channel"] == 5
    assert st.map_address((1 << 32) + (1 << 20))["channel"] == map_address(m, (1 << 32) + (1 << 20))["channel"]


@pytest.mark.parametrize("sets,mode", [(32, "xor"), (32, "linear"), (4, "linear"), (64, "xor"), (1, "linear"),
                                       (32, "fermi"), (64, "fermi")])
def test_cache_set_index_matches_reference(sets, mode):
    xbits = max(1, (sets - 1).bit_length())
    code = {"linear": 0, "xor": 1, "fermi": 2}[mode]
    rng = np.random.default_rng(2)
    for key in [int(k) for k in rng.integers(0, 1 << 40, 300)] + list(range(200)):
        assert E.c_set(key, sets, code, xbits, 7) == cache_set(key, sets, mode, xbits)


def test_fermi_hash_by_hand():
    """Worked by hand from the hash's definition (bits 7-11 XOR bits 13, 14, 15, 17, 19; bit 12 on top with 64
    sets): rows 4 KB apart, which one linear 16 KB L1 set holds, spread over sets in pairs."""
    line = 128
    assert [E.c_set((r * 4096) // line, 32, 2, 5, 7) for r in range(8)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [E.c_set((r * 4096) // line, 32, 0, 5, 7) for r in range(8)] == [0] * 8  # 3.2.2's linear index
    assert [E.c_set((r * 4096) // line, 64, 2, 6, 7) for r in range(4)] == [0, 32, 1, 33]
    assert E.c_set(0x20000 // line, 32, 2, 5, 7) == 0b01000  # bit 17 -> set bit 3
    assert E.c_set(0x80000 // line, 32, 2, 5, 7) == 0b10000  # bit 19 -> set bit 4
    assert E.c_set(0x40000 // line, 32, 2, 5, 7) == 0  # bit 18 is not in the hash
    assert E.c_set((0x2000 + 0x80) // line, 32, 2, 5, 7) == 0  # bit 13 cancels bit 7


@pytest.mark.parametrize("stride", [0, 1, 2, 3, 4, 8, 16, 17, 32, 64])
def test_bank_conflict_degree_of_strides(stride):
    tr = shared_strided(stride, repeats=1)
    co = coalesce_trace(tr, 128, 32, 4)
    lanes = [4 * stride * lane for lane in range(32)]
    assert co.rec_conflict[0] == bank_conflict_degree(lanes) == strided_degree(stride)


@pytest.mark.parametrize("banks,bank_bytes", [(32, 4), (16, 4), (32, 8), (24, 4), (20, 12)])
def test_bank_conflicts_random_and_wide_accesses(banks, bank_bytes):
    """Power-of-two geometries take shifts and masks, the others divisions: both agree with the reference."""
    rng = np.random.default_rng(3 + banks * 100 + bank_bytes)
    b = TraceBuilder("smem", 1, 32, shared_bytes=1 << 14)
    pcs = {s: b.op(f"ld.shared.b{8 * s}", "load", dst=(2,), src=(1,), space="shared", width=s) for s in (4, 8, 16)}
    cases = []
    for i in range(60):
        size = (4, 8, 16)[i % 3]
        addrs = [int(a) * size for a in rng.integers(0, 256, 32)]
        mask = int(rng.integers(1, 1 << 32)) if i % 5 else FULL
        b.run(0, pcs[size], mask, addrs=addrs, size=size)
        active = [a for lane, a in enumerate(addrs) if (mask >> lane) & 1]
        cases.append(bank_conflict_degree(active, size, banks, bank_bytes))
    co = coalesce_trace(b.build(), 128, banks, bank_bytes)
    assert list(co.rec_conflict) == cases


def test_coalescing_matches_reference():
    rng = np.random.default_rng(4)
    b = TraceBuilder("g", 1, 32)
    pc = b.op("ld.global.f32", "load", dst=(2,), src=(1,), space="global", width=4)
    want = []
    for i in range(50):
        addrs = [int(a) * 4 for a in rng.integers(0, 1 << 12, 32)] if i % 2 else [4096 * 3 + 4 * j for j in range(32)]
        b.run(0, pc, FULL, addrs=addrs)
        want.append(coalesce_lanes(addrs, FULL, 4, 128))
    co = coalesce_trace(b.build(), 128)
    for i, ref in enumerate(want):
        s, n = co.rec_tx_start[i], co.rec_ntx[i]
        assert list(zip(co.tx_line[s:s + n].tolist(), co.tx_sectors[s:s + n].tolist(), strict=True)) == ref


def test_fermi_hash_is_refused_where_it_is_undefined():
    from ndpgpu.timing.spec import MachineConfigError

    with pytest.raises(MachineConfigError, match="set_index=fermi needs 32 or 64 sets"):
        load_machine("gtx480", {"l1d.size_kb": 8, "l1d.set_index": "fermi"})
    with pytest.raises(MachineConfigError, match="l2.set_index=fermi"):
        load_machine("gtx480", {"l2.set_index": "fermi"})
    assert load_machine("gtx480", {"l1d.size_kb": 48, "l1d.assoc": 6, "l1d.set_index": "fermi"}).l1d.num_sets == 64
