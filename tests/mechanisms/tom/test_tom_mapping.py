"""TOM's data mappings and Memory Map Analyzer: hand-computed expectations."""

import dataclasses

import numpy as np
import pytest

from ndpgpu.mechanisms.tom.mapping import (
    BASELINE,
    BITS_PER_INSTANCE,
    FIXED_OFFSET_BINS,
    TOM_MAPPINGS,
    Instances,
    MemoryMapAnalyzer,
    StackMapping,
    baseline,
    consecutive,
    fixed_offset_bins,
    fixed_offset_share,
    instances_from_lists,
    learning_count,
    storage_bits,
)

MB = 1 << 20


def test_ten_mappings_start_bits_7_to_16():
    assert len(TOM_MAPPINGS) == 10
    assert [m.start_bit for m in TOM_MAPPINGS] == list(range(7, 17))
    for b, m in zip(range(7, 17), TOM_MAPPINGS, strict=True):
        assert m.stack_masks == (1 << b, 1 << (b + 1))
        assert (len(m.vault_masks), len(m.bank_masks)) == (4, 4)
        assert (m.num_stacks, m.vaults_per_stack, m.banks_per_vault, m.lines_per_row) == (4, 16, 16, 32)
        for mask in (*m.stack_masks, *m.vault_masks, *m.bank_masks, m.column_mask, m.row_mask):
            assert mask & 0x7F == 0  # line-offset bits select nothing
    assert BITS_PER_INSTANCE == 40
    assert MemoryMapAnalyzer.BITS_PER_INSTANCE == MemoryMapAnalyzer().bits_per_instance == 40


def test_line_offset_bits_never_select_a_stack():
    with pytest.raises(ValueError, match="start bit 6"):
        consecutive(6)
    with pytest.raises(ValueError, match="line-offset"):
        dataclasses.replace(BASELINE, stack_masks=(0x40, 0x100))


def test_baseline_fields_by_hand():
    m = BASELINE
    # stack = a[8:7] ^ a[18:17]
    a = np.array([0x80, 0x100, 0x20000, 0x20080, 0x60180, 0x40080, 0x7F])
    assert m.stack_of(a).tolist() == [1, 2, 1, 0, 0, 3, 0]
    # vault = a[12:9] ^ a[22:19]
    a = np.array([0x200, 0x80000, 0x80200, 0x1E00, 0x780000, 0x400000])
    assert m.vault_of(a).tolist() == [1, 1, 0, 15, 15, 8]
    # bank = a[16:13]
    assert m.bank_of(np.array([0x2000, 0x10000, 0x1E000, 0x1FFF])).tolist() == [1, 8, 15, 0]
    # column = a[21:17], row = a[47:22]
    assert m.column_of(np.array([0x20000, 0x3E0000, 0x400000])).tolist() == [1, 31, 0]
    assert m.row_of(np.array([0x400000, 0xC00000, 1 << 47, 0x3FFFFF])).tolist() == [1, 3, 1 << 25, 0]
    # channel = stack * 16 + vault: stack 3, vault 1
    assert m.channel_of(np.array([0x40080 | 0x200])).tolist() == [49]


def test_consecutive_fields_by_hand():
    m = consecutive(12)  # stack = a[13:12]; the rest from a with bits 12, 13 deleted
    assert m.stack_of(np.array([0x1000, 0x2000, 0x3000, 0x4000, 0x80, 0x20000])).tolist() == [1, 2, 3, 0, 0, 0]
    assert m.vault_of(np.array([0x80, 0x200])).tolist() == [1, 4]  # a7 -> c7 (vault bit 0); a9 -> c9 (bit 2)
    assert m.bank_of(np.array([0x800, 0x4000, 0x10000])).tolist() == [1, 2, 8]  # a11 -> c11; a14 -> c12; a16 -> c14
    m = consecutive(16)  # stack = a[17:16]
    assert m.stack_of(np.array([0x10000, 0x20000, 0x30000, 0x8000])).tolist() == [1, 2, 3, 0]
    assert m.column_of(np.array([0x8000, 0x40000, 0x200000])).tolist() == [1, 2, 16]  # a15 -> c15; a18 -> c16
    assert m.row_of(np.array([0x400000])).tolist() == [1]  # a22 -> c20


def _reference_fields(a: np.ndarray, s: int, xor_stack: bool):
    """Delete bits s, s+1 and read the baseline layout without its stack: vault c[10:7]^c[20:17], bank c[14:11],
    column c[19:15], row c[45:20]."""
    a = a.astype(np.uint64)
    u = np.uint64
    c = (a & u((1 << s) - 1)) | ((a >> u(s + 2)) << u(s))
    stack = (a >> u(s)) & u(3)
    if xor_stack:
        stack ^= (a >> u(17)) & u(3)
    vault = ((c >> u(7)) & u(15)) ^ ((c >> u(17)) & u(15))
    return stack, vault, (c >> u(11)) & u(15), (c >> u(15)) & u(31), c >> u(20)


@pytest.mark.parametrize("m", (BASELINE, *TOM_MAPPINGS), ids=lambda m: m.name)
def test_masks_equal_deleting_the_stack_bits(m: StackMapping):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 1 << 48, 20000, dtype=np.uint64)
    stack, vault, bank, column, row = _reference_fields(a, m.start_bit, m is BASELINE)
    assert np.array_equal(m.stack_of(a), stack.astype(np.int64))
    assert np.array_equal(m.vault_of(a), vault.astype(np.int64))
    assert np.array_equal(m.bank_of(a), bank.astype(np.int64))
    assert np.array_equal(m.column_of(a), column.astype(np.int64))
    assert np.array_equal(m.row_of(a), row.astype(np.int64))


def _distinct_locations(m: StackMapping, lines: np.ndarray) -> int:
    key = (((m.channel_of(lines) * 16 + m.bank_of(lines)) << 26 | m.row_of(lines)) << 5) | m.column_of(lines)
    return len(np.unique(key))


@pytest.mark.parametrize("m", (BASELINE, *TOM_MAPPINGS), ids=lambda m: m.name)
@pytest.mark.parametrize("base", [0, 0x1234_5678_0080])
def test_every_mapping_is_a_bijection_on_16_mb(m: StackMapping, base: int):
    lines = np.uint64(base) + np.arange(16 * MB // 128, dtype=np.uint64) * np.uint64(128)
    assert _distinct_locations(m, lines) == len(lines)
    assert m.is_bijective()


def test_bijection_checks_catch_a_lossy_mapping():
    bad = dataclasses.replace(BASELINE, name="bad", stack_masks=(0x80200, 0x40100))  # stack bit 0 = vault bit 0
    lines = np.arange(16 * MB // 128, dtype=np.uint64) * np.uint64(128)
    assert not bad.is_bijective()
    assert _distinct_locations(bad, lines) == len(lines) // 2  # a7 is lost
    with pytest.raises(ValueError, match="one-to-one"):
        baseline(stack_xor_bit=9, vault_xor_bit=7)  # vault[1:0] = a10^a8, a9^a7 = stack bits


# p has bits 7..22 clear, so adding a power of two below 2^23 sets exactly one bit.
P = [0x4000_0000 + i * (1 << 23) for i in range(2000)]


def _yvw() -> Instances:
    """2 instances on adjacent lines (+2^7), then 1000 on arrays 128 KB apart (+2^17), then 998 at +2^8."""
    acc = [[p, p + 0x80] for p in P[:2]] + [[p, p + 0x20000] for p in P[2:1002]] + [[p, p + 0x100] for p in P[1002:]]
    return instances_from_lists(acc, [0] * 2 + [1] * 1000 + [2] * 998)


def test_score_one_stack_by_hand():
    an = MemoryMapAnalyzer()
    inst = _yvw()
    # +2^7 splits b=7; +2^17 splits b=16; +2^8 splits b=7 and b=8.
    assert an.score(inst.head(2)).tolist() == [0] + [2] * 9
    assert an.score(inst).tolist() == [1000, 1002] + [2000] * 7 + [1000]
    assert MemoryMapAnalyzer([BASELINE]).score(inst).tolist() == [0]  # every offset hits a[8:7] or a[18:17]


def test_learn_from_first_tenth_of_a_percent_and_colocation_order():
    an = MemoryMapAnalyzer()
    inst = _yvw()
    learned = an.learn(inst, which="one_stack")
    assert (learned.n_learn, learned.total, learned.which) == (2, 2000, "one_stack")
    assert learned.mapping.name == "consecutive8" and learned.index == 1  # ties among 8..16 -> lowest
    assert learned.scores.tolist() == [0] + [2] * 9
    oracle = an.oracle(inst)
    assert oracle.mapping.name == "consecutive9" and oracle.n_learn == 2000
    base, tmap, best = (an.colocation(inst, m) for m in (BASELINE, learned.mapping, oracle.mapping))
    assert (base, tmap, best) == (0.0, 1002 / 2000, 1.0)
    assert base < tmap <= best
    # a larger learning phase sees the +2^8 instances and finds the oracle
    assert an.learn(inst, fraction=0.6, which="one_stack").mapping.name == "consecutive9"


def test_learning_count():
    assert learning_count(2000) == 2
    assert learning_count(1000) == 1
    assert learning_count(1001) == 2
    assert learning_count(1) == learning_count(0) == 1
    assert learning_count(2000, 0.01) == 20
    assert learning_count(30, 0.1) == 3  # 0.1 * 30 = 3.0000000000000004 in floating point
    an = MemoryMapAnalyzer()
    assert an.learn(_yvw(), total=5000).n_learn == 5  # the total comes from a profiling pass


def test_ties_go_to_the_lowest_start_bit_whatever_the_order():
    inst = _yvw()
    for mappings in (TOM_MAPPINGS, TOM_MAPPINGS[::-1]):
        an = MemoryMapAnalyzer(mappings)
        assert an.oracle(inst).mapping.name == "consecutive9"  # 9..15 tie
    same = instances_from_lists([[p, p + MB] for p in P[:10]], [0] * 10)  # +2^20: no mapping splits it
    assert MemoryMapAnalyzer(TOM_MAPPINGS[::-1]).oracle(same).mapping is None  # all tie: see the next test


def test_touched_masks_and_first_stack_score_by_hand():
    p = P[0]
    inst = instances_from_lists([[p, p + 0x80, p + 0x20000], [p + 0x80, p]], [0, 0])
    an = MemoryMapAnalyzer()
    t = an.touched(inst)
    assert t.shape == (2, 10) and t.dtype == np.uint32
    assert t[0].tolist() == [0b11] + [0b1] * 8 + [0b101]  # b=7: stacks 0,1; b=16: a17 -> stack 2
    assert t[1].tolist() == [0b11] + [0b1] * 9
    # accesses in the first access's stack: b=7: 2 + 1; b=8..15: 3 + 2; b=16: 2 + 2
    assert an.score(inst, "first_stack").tolist() == [3] + [5] * 8 + [4]
    assert an.score(inst).tolist() == [0] + [2] * 8 + [1]
    assert MemoryMapAnalyzer([BASELINE]).score(inst, "first_stack").tolist() == [1 + 1]
    assert an.learn(inst, which="first_stack").mapping.name == "consecutive8"
    with pytest.raises(ValueError, match="unknown score"):
        an.score(inst, "most")


def test_instances_without_lines_count_but_never_score():
    inst = instances_from_lists([[], [0x80, 0xC0], []], [3, 3, 4])
    assert inst.counts.tolist() == [0, 1 * 2, 0]
    assert inst.lines.tolist() == [0x80, 0x80]  # aligned down to lines
    an = MemoryMapAnalyzer()
    assert an.touched(inst)[[0, 2]].sum() == 0
    assert an.score(inst).tolist() == [1] * 10
    assert an.score(inst, "first_stack").tolist() == [2] * 10
    assert an.colocation(inst, consecutive(8)) == pytest.approx(1 / 3)


def test_instances_validation_and_selection():
    with pytest.raises(ValueError, match="aligned"):
        Instances(np.array([0, 1]), np.array([0x81]), np.array([0]))
    with pytest.raises(ValueError, match="candidate ids"):
        Instances(np.array([0, 1]), np.array([0x80]), np.array([0, 1]))
    inst = instances_from_lists([[0x80], [0x100, 0x180], [0x200]], [7, 8, 9])
    sel = inst.select(np.array([2, 1]))
    assert sel.start.tolist() == [0, 1, 3]
    assert sel.lines.tolist() == [0x200, 0x100, 0x180]
    assert sel.candidate.tolist() == [9, 8]
    assert inst.select(inst.candidate == 8).lines.tolist() == [0x100, 0x180]
    assert inst.head(1).lines.tolist() == [0x80] and len(inst.head(0)) == 0


def test_allocations_touched_by_learning_instances_get_the_offload_bit():
    a0, a1, a2, a3 = (0x1000_0000, MB), (0x2000_0000, 4096), (0x3000_0000, MB), (0x5000_0000, 128)
    table = [a2, a0, a3, a1]  # unsorted on purpose
    first = [a0[0], a1[0] + a1[1], a2[0] + MB - 128]  # a0's first line, just past a1, a2's last line
    inst = instances_from_lists([first] + [[a1[0] + 128]] * 999, [0] * 1000)
    an = MemoryMapAnalyzer()
    learned = an.learn(inst, allocations=table)
    assert learned.n_learn == 1
    assert learned.offload.tolist() == [True, True, False, False]  # a2, a0 touched; a3, a1 not
    assert an.oracle(inst, allocations=table).offload.tolist() == [True, True, False, True]
    assert an.learn(inst).offload.size == 0
    with pytest.raises(ValueError, match="overlap"):
        an.learn(inst, allocations=[(0, 256), (128, 256)])


def test_storage_bits_match_section_6_6():
    s = storage_bits()
    assert (s.analyzer_per_sm, s.allocation_table, s.metadata_per_sm) == (1920, 9700, 10320)
    assert s.total(64) == (1920 + 10320) * 64 + 9700


def test_fixed_offset_share_by_hand():
    A, B, C = 0x1000_0000, 0x1010_0000, 0x2000_0000
    rows = []  # (instance, lane, position, addr)
    idx = [[5, 9], [2, 40], [7, 1]]
    for i in range(3):  # candidate 0: A[k], B[k] (fixed), C[idx[k]] (not)
        for lane in range(2):
            k = 256 * i + lane
            rows += [(i, lane, 0, A + 4 * k), (i, lane, 1, B + 4 * k), (i, lane, 2, C + 4 * idx[i][lane])]
    for lane in range(2):  # candidate 1 (instance 3): A[k], A[k + 32]
        rows += [(3, lane, 0, A + 4 * lane), (3, lane, 1, A + 4 * lane + 128)]
    rows += [(4, 0, 0, A)]  # candidate 2 (instance 4): nothing to compare
    for lane in range(2):  # candidate 3 (instance 5): A[k], A[2k]: the offset depends on the lane
        rows += [(5, lane, 0, A + 4 * lane), (5, lane, 1, A + 8 * lane)]
    inst, lane, pos, addr = (np.array(c) for c in zip(*rows[::-1], strict=True))  # order must not matter
    r = fixed_offset_share(inst, lane, pos, addr, np.array([0, 0, 0, 1, 2, 3]))
    assert r.candidate.tolist() == [0, 1, 2, 3]
    assert r.accesses.tolist() == [12, 2, 0, 2]
    assert r.share[[0, 1, 3]].tolist() == [0.5, 1.0, 0.0] and np.isnan(r.share[2])
    assert [FIXED_OFFSET_BINS[b] for b in fixed_offset_bins(r.share)] == ["50-75%", "all", "none", "none"]
    with pytest.raises(ValueError, match="no position-0"):
        fixed_offset_share(np.array([0]), np.array([0]), np.array([1]), np.array([A]), np.array([0]))
