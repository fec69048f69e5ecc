"""XOR ("parity") address mappings and presets that extend another preset."""

from __future__ import annotations

import pytest

from ndpgpu.timing import MachineConfigError, TimingSession, load_machine
from ndpgpu.timing.policies import ParityMapping

# channel bit i = a[7+i] (i < 4: vault) and stack bits = a[11] ^ a[17], a[12] ^ a[18]; bank = a[16:13]
CH = tuple(1 << (7 + i) for i in range(4)) + ((1 << 11) | (1 << 17), (1 << 12) | (1 << 18))
BK = tuple(1 << (13 + i) for i in range(4))
ROW = ((1 << 48) - 1) & ~((1 << 19) - 1)


def expected(addr: int) -> tuple[int, int, int]:
    vault = (addr >> 7) & 15
    stack = ((addr >> 11) ^ (addr >> 17)) & 3
    return stack * 16 + vault, (addr >> 13) & 15, addr >> 19


@pytest.mark.parametrize("addr", [0, 0x80, 0x800, 0x1000, 0x20000, 0x20800, 0x3F_FF80, 0x1234_5680,
                                  (1 << 40) + 0x60880])
def test_parity_mapping_matches_hand_computation(addr):
    sess = TimingSession("tom-ndp")
    sess.map_range(0, 1 << 47, ParityMapping(CH, BK, ROW))
    got = sess.state.map_address(addr)
    ch, bank, row = expected(addr)
    assert (got["channel"], got["bank"], got["row"], got["slice"]) == (ch, bank, row, ch)


def test_parity_mapping_spreads_a_channels_lines_over_the_l2_sets():
    """The slice-local key drops the bits the channel fixes: lines of one channel fill every set of its slice."""
    sess = TimingSession("tom-ndp")
    sess.map_range(0, 1 << 47, ParityMapping(CH, BK, ROW))
    sets = sess.machine.l2.num_sets
    keys: dict[int, list[int]] = {}
    for line in range(1 << 14):  # 2 MB of lines
        got = sess.state.map_address(line * 128)
        keys.setdefault(got["channel"], []).append(got["key"])
    assert len(keys) == 64
    for ks in keys.values():
        assert len(set(ks)) == len(ks)  # one-to-one within the channel
        assert len({k % sets for k in ks}) == sets


def test_parity_mapping_rejects_what_the_machine_cannot_hold():
    m = load_machine("tom-ndp")
    with pytest.raises(ValueError, match="below 7"):
        ParityMapping((1 << 6,) + CH[1:], BK, ROW).descriptor(m)
    with pytest.raises(ValueError, match="channel bits"):
        ParityMapping(CH[:5], BK, ROW).descriptor(m)
    with pytest.raises(ValueError, match="bank bits"):
        ParityMapping(CH, BK[:3], ROW).descriptor(m)
    with pytest.raises(ValueError, match="lowest bit"):
        ParityMapping((CH[0], CH[0] | (1 << 30)) + CH[2:], BK, ROW).descriptor(m)


def test_extends_merges_over_the_base_preset(tmp_path):
    base, ndp = load_machine("tom-baseline"), load_machine("tom-ndp")
    assert (ndp.num_sms, ndp.num_stack_sms, base.num_stack_sms) == (64, 4, 0)
    assert ndp.l2 == base.l2 and ndp.dram == base.dram and ndp.links == base.links
    assert ndp.core.max_threads == base.core.max_threads and ndp.core.cta_dispatch.per_cycle == 64
    child = tmp_path / "child.yaml"
    child.write_text("extends: tom-ndp\nname: child\nstacks: {sm_max_warps: 96}\n")
    m = load_machine(str(child))
    assert (m.stacks.sm_max_warps, m.stacks.sms_per_stack, m.num_sms) == (96, 1, 64)
    loop = tmp_path / "loop.yaml"
    loop.write_text(f"extends: {loop}\n")
    with pytest.raises(MachineConfigError, match="cycle"):
        load_machine(str(loop))
    with pytest.raises(MachineConfigError, match="extends unknown machine"):
        (tmp_path / "bad.yaml").write_text("extends: nope\n")
        load_machine(str(tmp_path / "bad.yaml"))


def test_stack_sms_need_links():
    with pytest.raises(MachineConfigError, match="sms_per_stack"):
        load_machine("ipndp-base8", {"stacks.sms_per_stack": 1})
