"""The GPGPU-Sim machines decode DRAM addresses as GPGPU-Sim does (src/gpgpu-sim/addrdec.cc; the mapping strings
of configs/GTX480 at 3.2.2 and of SM2_GTX480 / SM7_QV100 at 4.0.1): checked against a plain-Python decoder written
from that code, and against addresses worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.spec import MappingSpec

# -gpgpu_mem_addr_mapping strings (dramid@8), most significant bit first
GTX480_MAP = "0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS"
QV100_MAP = "0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS"


def _packbits(mask: str, value: int, letter: str) -> int:
    """GPGPU-Sim's addrdec_packbits: the bits of ``value`` the string marks ``letter``, packed lowest first."""
    bits = [i for i, c in enumerate(reversed(mask.replace(".", ""))) if c == letter]
    return sum(((value >> b) & 1) << k for k, b in enumerate(bits))


def gpgpusim_decode(addr: int, mask: str, channels: int, subs: int, group_low: bool) -> dict[str, int]:
    """addrdec_tlx with a channel count that is not a power of two (the split at bit 8), the sub-partition from
    the bank's low bits, and dram.cc's bank group (policy 0: the bank's high bits; 1: its low bits)."""
    chip = (addr >> 8) % channels
    rest = (((addr >> 8) // channels) << 8) | (addr & 0xFF)
    bk = _packbits(mask, rest, "B")
    nbank_bits = mask.count("B")
    grp = bk & 3 if group_low else bk >> (nbank_bits - 2)
    within = bk >> 2 if group_low else bk & ((1 << (nbank_bits - 2)) - 1)
    # rows: the string's R bits, then every bit above the string (as our decoder: bits above it are row bits)
    nbits = len(mask.replace(".", ""))
    row = _packbits(mask, rest, "R") | ((rest >> nbits) << mask.count("R"))
    return {"channel": chip, "slice": chip * subs + (bk & (subs - 1)), "bank_group": grp, "within": within,
            "row": row}


def _ours(st, addr: int) -> dict[str, int]:
    got = st.map_address(addr)
    bpg = st.m.dram.banks_per_group
    return {"channel": got["channel"], "slice": got["slice"], "bank_group": got["bank_group"],
            "within": got["bank"] - got["bank_group"] * bpg, "row": got["row"]}


@pytest.mark.parametrize("name, mask, channels, group_low", [
    # machine, GPGPU-Sim's mapping string, channels, bank groups from the bank's low bits (4.0's policy 1)
    ("gtx480-gpgpusim3", GTX480_MAP, 6, False),
    ("gtx480-gpgpusim", GTX480_MAP, 6, True),
])
def test_the_gtx480_machines_decode_as_gpgpusim_does(name, mask, channels, group_low):
    st = TimingSession(name).state
    rng = np.random.default_rng(7)
    addrs = [int(a) for a in rng.integers(0, 1 << 30, 3000)] + [i * 128 for i in range(512)]
    for a in addrs:
        assert _ours(st, a) == gpgpusim_decode(a, mask, channels, 2, group_low), hex(a)


def test_the_v100_machine_takes_gpgpusims_banks_and_sub_partitions():
    # the channel is hashed on SM7_QV100 (IPOLY), which ours approximates: compare what lies below it
    st = TimingSession("v100-gpgpusim").state
    nch = st.m.dram.scheduling_channels
    rng = np.random.default_rng(11)
    for a in (int(x) for x in rng.integers(0, 1 << 30, 2000)):
        ours = _ours(st, a)
        ref = gpgpusim_decode(a, QV100_MAP, nch, 2, True)
        assert ours["slice"] % 2 == ref["slice"] % 2, hex(a)
        assert (ours["bank_group"], ours["within"], ours["row"]) == (ref["bank_group"], ref["within"], ref["row"])


@pytest.mark.parametrize("addr, channel, slice_, bank, row", [
    (0x000, 0, 0, 0, 0),
    (0x100, 1, 2, 0, 0),          # the next 256 B: the next channel
    (6 * 0x100, 0, 1, 1, 0),      # channel 0's second 256 B: rest bit 8, bank bit 0 and so the other slice
    (6 * 0x1000, 0, 0, 0, 0),     # rest 0x1000: a column bit, same bank and row
    (6 * 0x2000, 0, 0, 2, 0),     # rest bit 13: bank bit 1
    (6 * 0x4000, 0, 0, 4, 0),     # rest bit 14: bank bit 2, which is the bank group's low bit under 3.x
    (6 * 0x10000, 0, 0, 0, 1),    # rest bit 16: the first row bit
])
def test_addresses_worked_by_hand_on_the_3x_gtx480(addr, channel, slice_, bank, row):
    got = TimingSession("gtx480-gpgpusim3").state.map_address(addr)
    assert (got["channel"], got["slice"], got["bank"], got["row"]) == (channel, slice_, bank, row)


def test_a_b_or_g_letter_is_a_bank_bit_and_a_slice_bit():
    bits = MappingSpec(fields="GG.B.CCCC.b.CC.XXXXXX", bank_xor=False).field_bits()
    assert bits["B"] == [8, 13] and bits["P"] == [8] and bits["G"] == [14, 15]
    bits = MappingSpec(fields="BB.G.CCCC.g.CC.XXXXXX", bank_xor=False).field_bits()
    assert bits["G"] == [8, 13] and bits["P"] == [8] and bits["B"] == [14, 15]
    with pytest.raises(ValueError, match="unknown letter"):
        MappingSpec(fields="BB.Q.CC.XXXXXX").field_bits()


def test_the_hardware_presets_keep_their_own_strings():
    assert load_machine("gtx480").dram.mapping.fields == "BB.GG.CCCC.P.CC.XXXXXX"
    assert load_machine("v100").dram.mapping.fields == "BB.GG.CCC.P.CCC.XXXXX"
