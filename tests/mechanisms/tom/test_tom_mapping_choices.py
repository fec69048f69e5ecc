"""TOM's data-mapping choices (docs/tom.md, "Data mapping"): the score, the tie rule, which ranges are
remapped, and that the learned layout keeps the GPU side's vault/bank spread. Hand-computed values."""

from types import SimpleNamespace

import numpy as np
import pytest

from ndpgpu.mechanisms.policy import PolicyError
from ndpgpu.mechanisms.tom.mapping import (
    BASELINE,
    TOM_MAPPINGS,
    MemoryMapAnalyzer,
    consecutive,
    instances_from_lists,
)
from ndpgpu.mechanisms.tom.policy import TomPolicySpec, allocation_table

MB = 1 << 20
# p has bits 7..22 clear (stack 0 under every mapping), so p + 2^b differs from p in bit b alone
P = [0x4000_0000 + i * (1 << 23) for i in range(20)]
# one line at each offset 2^7, 2^9, ..., 2^17: for every start bit s in 7..16 exactly one of them has a bit
# in {s, s+1}, i.e. lands in another stack than p. No mapping keeps such an instance in one stack.
SPLIT_ALL = (0, 1 << 7, 1 << 9, 1 << 11, 1 << 13, 1 << 15, 1 << 17)


def _split_all(n: int = 3):
    return instances_from_lists([[p + o for o in SPLIT_ALL] for p in P[:n]], [0] * n)


def test_all_zero_scores_keep_the_baseline_mapping():
    an = MemoryMapAnalyzer()
    inst = _split_all()
    learned = an.learn(inst, which="one_stack")
    assert learned.scores.tolist() == [0] * 10  # no instance stays in one stack under any mapping
    assert learned.mapping is None and learned.index is None and learned.keeps_baseline
    assert learned.start_bit == -1
    # the co-location of "no mapping learned" is the baseline's
    assert an.colocation(inst, learned.mapping) == an.colocation(inst, BASELINE) == 0.0


def test_equal_nonzero_scores_keep_the_baseline_too():
    an = MemoryMapAnalyzer()
    # first stack: 7 lines, one of which leaves p's stack under every mapping -> 6 each
    assert an.score(_split_all(1), "first_stack").tolist() == [6] * 10
    assert an.learn(_split_all(1), which="first_stack").mapping is None
    single = instances_from_lists([[p] for p in P[:4]], [0] * 4)  # one line each: every mapping scores 4
    assert an.score(single).tolist() == [4] * 10
    assert an.learn(single, which="one_stack").keeps_baseline and an.learn(single).keeps_baseline


def test_partial_ties_go_to_the_lowest_start_bit():
    an = MemoryMapAnalyzer()
    # +2^8 splits s = 7 and 8 only; s = 9..16 tie at 2 instances
    inst = instances_from_lists([[p, p + (1 << 8)] for p in P[:2]], [0, 0])
    assert an.score(inst).tolist() == [0, 0] + [2] * 8
    assert an.learn(inst, which="one_stack").mapping.name == "consecutive9"
    assert MemoryMapAnalyzer(TOM_MAPPINGS[::-1]).learn(inst, which="one_stack").mapping.name == "consecutive9"


def test_first_stack_is_the_default_score_and_reads_long_instances():
    """TOM step 4: "the mapping that leads to the most accesses to the stack that the offloaded block would
    execute on". An instance of 10 lines: SPLIT_ALL (one line off p's stack for every s) plus 2^8, 2^10 and
    2^8 + 2^10, which leave p's stack for s = 7..10 (bits 8 and 10 are in {s, s+1}) and stay for s >= 11.
    Lines in p's stack: s = 7..10: 10 - 1 - 2 = 7; s = 11..16: 10 - 1 = 9."""
    an = MemoryMapAnalyzer()
    inst = instances_from_lists([[P[0] + o for o in (*SPLIT_ALL, 1 << 8, 1 << 10, (1 << 8) | (1 << 10))]], [0])
    learned = an.learn(inst)
    assert learned.which == "first_stack"
    assert learned.scores.tolist() == [7] * 4 + [9] * 6
    assert learned.mapping.name == "consecutive11"  # 11..16 tie: the lowest
    # counting instances in one stack sees nothing here (every mapping splits the instance): baseline kept
    assert an.learn(inst, which="one_stack").scores.tolist() == [0] * 10
    assert an.learn(inst, which="one_stack").keeps_baseline


def test_oracle_is_the_best_colocation():
    an = MemoryMapAnalyzer()
    # 2 instances at +2^9 (split s = 8, 9), 1 at +2^12 (split s = 11, 12)
    inst = instances_from_lists([[P[0], P[0] + 512], [P[1], P[1] + 512], [P[2], P[2] + 4096]], [0] * 3)
    oracle = an.oracle(inst)
    assert oracle.which == "one_stack" and oracle.scores.tolist() == [3, 1, 1, 3, 2, 2, 3, 3, 3, 3]
    assert oracle.mapping.name == "consecutive7"
    assert an.colocation(inst, oracle.mapping) == 1.0


def test_colocation_as_applied_uses_the_baseline_outside_the_remapped_ranges():
    an = MemoryMapAnalyzer()
    m = consecutive(9)  # stack = a[10:9]
    lo = P[0]
    # instance 0: p, p + 2^17, both inside [p, p + MB): consecutive9 keeps them in stack 0 (baseline: a17 -> 0, 1)
    # instance 1: q, q + 2^17 outside the range: baseline stacks 0 and 1 -> split
    # instance 2: p + 128 (inside: consecutive9 stack 0) and q + 128 (outside: baseline a7 -> stack 1)
    q = P[1]
    inst = instances_from_lists([[lo, lo + (1 << 17)], [q, q + (1 << 17)], [lo + 128, q + 128]], [0] * 3)
    assert m.stack_of(np.array([lo, lo + (1 << 17), lo + 128])).tolist() == [0, 0, 0]
    assert BASELINE.stack_of(np.array([q, q + (1 << 17), q + 128])).tolist() == [0, 1, 1]
    assert an.colocation(inst, m) == 1.0  # as if everything were remapped
    assert an.colocation(inst, m, [(lo, lo + MB)]) == pytest.approx(1 / 3)  # instance 0 only
    # no mapping learned: the baseline everywhere, where only instance 2 (a7 set in both lines) is in one stack
    assert an.colocation(inst, None, [(lo, lo + MB)]) == an.colocation(inst, BASELINE) == pytest.approx(1 / 3)


def test_only_application_allocations_by_default():
    """Section 4.3 step 3: the analyzer flags "each application-allocated memory range (Step 1) that has been
    accessed by an offloading candidate"; a launch's local-memory window is no application allocation."""
    rec = SimpleNamespace(allocations=[{"addr": 0x7_0000_0000, "bytes": 4096}, {"addr": 0x7_0000_1000, "bytes": 0}])
    launch = SimpleNamespace(local_bytes_per_thread=80, local_base=0xF0_0000_0000)
    traces = [SimpleNamespace(launch=launch, num_warps=4)] * 2  # two launches share one window
    assert allocation_table(rec, traces, local=False).tolist() == [[0x7_0000_0000, 4096]]
    # 80 B x 32 lanes = 2560 B per warp (a multiple of 128), 4 warps
    assert allocation_table(rec, traces).tolist() == [[0x7_0000_0000, 4096], [0xF0_0000_0000, 4 * 2560]]


def test_policy_spec_defaults_follow_the_paper():
    spec = TomPolicySpec.parse("ctrl+tmap")
    assert (spec.score, spec.local) == ("first_stack", 0)
    spec = TomPolicySpec.parse("gpu+tmap,score=one_stack,local=1")
    assert (spec.control, spec.mapping, spec.score, spec.local) == ("gpu", "tmap", "one_stack", 1)
    with pytest.raises(PolicyError, match="local"):
        TomPolicySpec.parse("ctrl+tmap,local=2")


STREAM = np.uint64(0x7_0000_0000) + np.arange(8 * MB // 128, dtype=np.uint64) * np.uint64(128)  # 8 MB, aligned


def _spread(m, lines: np.ndarray, window: int, key) -> int:
    """The fewest distinct ``key`` values in any aligned window of ``window`` consecutive lines."""
    k = key(m, lines).reshape(-1, window)
    return int(min(len(np.unique(r)) for r in k))


def _channel(m, a):
    return m.channel_of(a)


def _channel_bank(m, a):
    return m.channel_of(a) * 16 + m.bank_of(a)


@pytest.mark.parametrize("m", TOM_MAPPINGS, ids=lambda m: m.name)
def test_a_streamed_array_keeps_the_baselines_vault_bank_and_row_spread(m):
    """The GPU streaming a remapped array: the layout after the stack bits (vault, bank, column, row from
    the address with the stack bits deleted) gives every (vault, bank) of the 64 x 16 the same share as the
    baseline (8 MB / 128 B / 1024 = 64 lines), the same rows per bank (2 of 4 MB each), and any 4 or 16
    consecutive lines as many distinct vaults (channels) as the baseline; a 128 KB window covers as many
    (vault, bank) pairs (1024), except consecutive16 (stack bits 16, 17 are above the window: 512)."""
    for mp in (BASELINE, m):
        cb = _channel_bank(mp, STREAM)
        assert np.bincount(cb, minlength=1024).tolist() == [64] * 1024
        assert len(np.unique(cb * (1 << 26) + mp.row_of(STREAM))) == 1024 * 2
    head = STREAM[: 64 * 1024]
    for window, base in ((4, 4), (16, 16)):
        assert _spread(BASELINE, head, window, _channel) == base
        assert _spread(m, head, window, _channel) == base
    assert _spread(BASELINE, STREAM, 1024, _channel_bank) == 1024
    assert _spread(m, STREAM, 1024, _channel_bank) == (512 if m.start_bit == 16 else 1024)
