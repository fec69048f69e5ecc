"""TOM's transparent data mapping: address-to-stack mappings and the Memory Map Analyzer.

A :class:`StackMapping` says which stack, vault (channel within the stack), bank, row and column a byte
address goes to. Stack, vault and bank bits are XOR ("parity") masks: bit ``i`` of the stack is
``parity(addr & stack_masks[i])``; column and row gather the bits of ``column_mask`` / ``row_mask``, low
to high. The timing engine can evaluate any such mapping from the masks alone.

The mappings (TOM section 3.2, extraction G13/G14):

* :func:`baseline` (G14): stack = a[8:7] ^ a[18:17], vault = a[12:9] ^ a[22:19], bank = a[16:13],
  column = a[21:17] (32 128-B lines = one 4 KB row), row = a[47:22]. Every position is a parameter.
* :func:`consecutive` ``(s)``: stack = a[s+1:s]. Vault, bank, column and row come from the *compact*
  address ``c`` = ``a`` with bits ``s`` and ``s+1`` deleted, laid out as the baseline's channel address
  (the baseline with its stack field a[8:7] deleted): vault = c[10:7] ^ c[20:17], bank = c[14:11],
  column = c[19:15], row = c[45:20]. The masks are that layout with two zero bits inserted at ``s``, so
  the result is exact (``consecutive(7)`` is the baseline without the stack XOR).
* :data:`TOM_MAPPINGS`: ``consecutive(7) .. consecutive(16)``, the 10 mappings the analyzer scores.

The analyzer works on :class:`Instances` (one warp executing one candidate block once: the line
addresses it touched, in order). :meth:`MemoryMapAnalyzer.learn` scores each mapping over the first
``max(1, ceil(0.001 * total))`` instances (G11) by TOM's step 4 (section 4.3: "the mapping that leads to
the most accesses to the stack that the offloaded block would execute on"): the accesses landing in the
stack of their instance's first access (``which="first_stack"``, the default; ``"one_stack"`` counts the
instances that touch exactly one stack, G12's reading). The highest score wins, ties going to the lowest
start bit; when every mapping scores the same (all zero, say) nothing is learned and the data keeps the
baseline mapping. It also flags the allocations those instances touched. :meth:`MemoryMapAnalyzer.oracle`
is the best co-location with every instance seen (Fig. 6's oracle). See docs/tom.md, "Data mapping".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Literal, NamedTuple

import numpy as np

Score = Literal["one_stack", "first_stack"]
SCORES: tuple[str, ...] = ("one_stack", "first_stack")


# ------------------------------------------------------------------------------------------------------
# bit helpers (on Python ints: masks) and vectorised field extraction (on uint64 arrays: addresses)


def _bits(lo: int, n: int) -> int:
    """Mask of ``n`` consecutive bits starting at ``lo``."""
    return ((1 << n) - 1) << lo


def _delete_bits(mask: int, lo: int, n: int) -> int:
    """``mask`` with bits ``lo .. lo+n-1`` removed (higher bits move down); they must be clear."""
    if mask & _bits(lo, n):
        raise ValueError(f"mask {mask:#x} uses bits {lo}..{lo + n - 1}, which are being deleted")
    return (mask & ((1 << lo) - 1)) | ((mask >> (lo + n)) << lo)


def _insert_bits(mask: int, lo: int, n: int) -> int:
    """``mask`` with ``n`` zero bits inserted at ``lo`` (bits from ``lo`` up move up by ``n``)."""
    return (mask & ((1 << lo) - 1)) | ((mask >> lo) << (lo + n))


def _runs(mask: int) -> list[tuple[int, int]]:
    """Runs of consecutive set bits of ``mask`` as (low bit, length), low to high."""
    out = []
    while mask:
        lo = (mask & -mask).bit_length() - 1
        n = ((mask >> lo) ^ ((mask >> lo) + 1)).bit_length() - 1
        out.append((lo, n))
        mask &= ~_bits(lo, n)
    return out


def _addrs(addrs: np.ndarray | Sequence[int] | int) -> np.ndarray:
    a = np.asarray(addrs)
    if a.dtype.kind == "i" and a.size and int(a.min()) < 0:
        raise ValueError("negative address")
    return a.astype(np.uint64, copy=False)


def _parity(a: np.ndarray, masks: tuple[int, ...]) -> np.ndarray:
    """Bit ``i`` of the result is the parity of ``a & masks[i]`` (int64)."""
    out = np.zeros(a.shape, np.int64)
    for i, m in enumerate(masks):
        out |= (np.bitwise_count(a & np.uint64(m)) & 1).astype(np.int64) << i
    return out


def _gather(a: np.ndarray, mask: int) -> np.ndarray:
    """The bits of ``a`` selected by ``mask``, packed low to high (PEXT; int64)."""
    out = np.zeros(a.shape, np.int64)
    k = 0
    for lo, n in _runs(mask):
        out |= ((a >> np.uint64(lo)) & np.uint64((1 << n) - 1)).astype(np.int64) << k
        k += n
    return out


def _gf2_rank(vectors: Sequence[int]) -> int:
    basis: dict[int, int] = {}
    for v in vectors:
        while v:
            h = v.bit_length() - 1
            if h not in basis:
                basis[h] = v
                break
            v ^= basis[h]
    return len(basis)


# ------------------------------------------------------------------------------------------------------
# mappings


@dataclasses.dataclass(frozen=True)
class StackMapping:
    """Byte address -> (stack, vault, bank, row, column), as XOR masks and gather masks.

    ``stack_masks[i]``: stack bit ``i`` = parity(addr & mask); likewise ``vault_masks`` and ``bank_masks``.
    ``column_mask`` / ``row_mask``: the address bits gathered, low to high, into the column (the line within
    the row) and the row. ``start_bit``: the lowest bit of the stack field (XOR terms aside); ``line_bits``:
    log2 of the line size; no mask touches the line offset. Addresses are ``addr_bits`` wide.
    """

    name: str
    stack_masks: tuple[int, ...]
    vault_masks: tuple[int, ...]
    bank_masks: tuple[int, ...]
    column_mask: int
    row_mask: int
    start_bit: int | None = None
    line_bits: int = 7
    addr_bits: int = 48

    def __post_init__(self) -> None:
        if not 0 < self.addr_bits <= 64:
            raise ValueError(f"{self.name}: addr_bits={self.addr_bits} is not in 1..64")
        offset = (1 << self.line_bits) - 1
        for field in ("stack_masks", "vault_masks", "bank_masks"):
            masks = tuple(int(m) for m in getattr(self, field))
            object.__setattr__(self, field, masks)
            if not masks and field == "stack_masks":
                raise ValueError(f"{self.name}: no stack masks")
            for m in masks:
                if m <= 0 or m >> self.addr_bits:
                    raise ValueError(f"{self.name}: {field} entry {m:#x} is empty or above bit {self.addr_bits - 1}")
                if m & offset:
                    raise ValueError(f"{self.name}: {field} entry {m:#x} uses line-offset bits (< {self.line_bits})")
        for field in ("column_mask", "row_mask"):
            m = int(getattr(self, field))
            if m < 0 or m >> self.addr_bits or m & offset:
                raise ValueError(f"{self.name}: {field} {m:#x} is outside bits {self.line_bits}..{self.addr_bits - 1}")

    @property
    def num_stacks(self) -> int:
        return 1 << len(self.stack_masks)

    @property
    def vaults_per_stack(self) -> int:
        return 1 << len(self.vault_masks)

    @property
    def banks_per_vault(self) -> int:
        return 1 << len(self.bank_masks)

    @property
    def lines_per_row(self) -> int:
        return 1 << self.column_mask.bit_count()

    def stack_of(self, addrs: np.ndarray) -> np.ndarray:
        """Stack index of each byte address (int64)."""
        return _parity(_addrs(addrs), self.stack_masks)

    def vault_of(self, addrs: np.ndarray) -> np.ndarray:
        """Vault within the stack (int64)."""
        return _parity(_addrs(addrs), self.vault_masks)

    def bank_of(self, addrs: np.ndarray) -> np.ndarray:
        """Bank within the vault (int64)."""
        return _parity(_addrs(addrs), self.bank_masks)

    def row_of(self, addrs: np.ndarray) -> np.ndarray:
        """Row within the bank (int64)."""
        return _gather(_addrs(addrs), self.row_mask)

    def column_of(self, addrs: np.ndarray) -> np.ndarray:
        """Line within the row (int64)."""
        return _gather(_addrs(addrs), self.column_mask)

    def channel_of(self, addrs: np.ndarray) -> np.ndarray:
        """Global vault (DRAM channel) index: ``stack * vaults_per_stack + vault`` (int64)."""
        a = _addrs(addrs)
        return _parity(a, self.stack_masks) * self.vaults_per_stack + _parity(a, self.vault_masks)

    def is_bijective(self) -> bool:
        """Whether lines (addresses of ``addr_bits`` bits, offset dropped) map one-to-one onto
        (stack, vault, bank, row, column): the map is linear over GF(2), so this is a rank test."""
        rows = [*self.stack_masks, *self.vault_masks, *self.bank_masks]
        rows += [1 << (lo + i) for lo, n in _runs(self.column_mask | self.row_mask) for i in range(n)]
        need = self.addr_bits - self.line_bits
        return len(rows) == need and _gf2_rank(rows) == need


def baseline(
    *,
    stack_bit: int = 7,
    stack_xor_bit: int | None = 17,
    vault_bit: int = 9,
    vault_xor_bit: int | None = 19,
    bank_bit: int = 13,
    column_bit: int = 17,
    stack_bits: int = 2,
    vault_bits: int = 4,
    bank_bits: int = 4,
    column_bits: int = 5,
    line_bits: int = 7,
    addr_bits: int = 48,
    name: str = "baseline",
) -> StackMapping:
    """The baseline GPU mapping (G14; TOM's [9] with XORed higher bits, exact bits not in the paper).

    stack = a[stack_bit+1:stack_bit] ^ a[stack_xor_bit+1:stack_xor_bit], vault = a[vault_bit+3:vault_bit] ^
    a[vault_xor_bit+3:vault_xor_bit], bank = a[bank_bit+3:bank_bit], column = a[column_bit+4:column_bit]
    (a 4 KB row of 128-B lines), row = every bit from ``column_bit + column_bits`` to ``addr_bits - 1``.
    ``None`` for an XOR bit drops that XOR. The primary fields must not overlap.
    """
    stack = tuple(
        (1 << (stack_bit + i)) | (0 if stack_xor_bit is None else 1 << (stack_xor_bit + i)) for i in range(stack_bits)
    )
    vault = tuple(
        (1 << (vault_bit + i)) | (0 if vault_xor_bit is None else 1 << (vault_xor_bit + i)) for i in range(vault_bits)
    )
    bank = tuple(1 << (bank_bit + i) for i in range(bank_bits))
    row_bit = column_bit + column_bits
    used = _bits(0, line_bits)
    for f in (_bits(stack_bit, stack_bits), _bits(vault_bit, vault_bits), _bits(bank_bit, bank_bits),
              _bits(column_bit, column_bits)):
        if used & f or f >> row_bit:
            raise ValueError("baseline: the stack, vault, bank and column fields overlap, use line-offset bits "
                             f"or lie above the row (bit {row_bit})")
        used |= f
    m = StackMapping(
        name=name,
        stack_masks=stack,
        vault_masks=vault,
        bank_masks=bank,
        column_mask=_bits(column_bit, column_bits),
        row_mask=_bits(row_bit, addr_bits - row_bit),
        start_bit=stack_bit,
        line_bits=line_bits,
        addr_bits=addr_bits,
    )
    if not m.is_bijective():
        raise ValueError(f"{name}: the XOR terms make the mapping lose lines (not one-to-one)")
    return m


BASELINE = baseline()


def consecutive(start_bit: int, base: StackMapping = BASELINE, name: str | None = None) -> StackMapping:
    """stack = a[start_bit+len-1 : start_bit] (``len`` = the base's stack bits, 2 for 4 stacks), TOM's mapping.

    Vault, bank, column and row: delete the stack bits from the address and apply ``base``'s layout with
    its own stack field (``base.start_bit``) deleted (G13). Exactly: each of ``base``'s vault/bank/column/
    row masks loses its stack-field bits and gains zero bits at ``start_bit``.
    """
    n = len(base.stack_masks)
    if base.start_bit is None:
        raise ValueError(f"{base.name} has no stack field (start_bit None) to derive a layout from")
    if not base.line_bits <= start_bit <= base.addr_bits - n:
        raise ValueError(f"start bit {start_bit} is not in {base.line_bits}..{base.addr_bits - n} "
                         f"(line-offset bits never select a stack)")

    def move(m: int) -> int:
        return _insert_bits(_delete_bits(m, base.start_bit, n), start_bit, n)

    return StackMapping(
        name=name or f"consecutive{start_bit}",
        stack_masks=tuple(1 << (start_bit + i) for i in range(n)),
        vault_masks=tuple(move(m) for m in base.vault_masks),
        bank_masks=tuple(move(m) for m in base.bank_masks),
        column_mask=move(base.column_mask),
        row_mask=move(base.row_mask),
        start_bit=start_bit,
        line_bits=base.line_bits,
        addr_bits=base.addr_bits,
    )


TOM_START_BITS = tuple(range(7, 17))
TOM_MAPPINGS: tuple[StackMapping, ...] = tuple(consecutive(b) for b in TOM_START_BITS)
BITS_PER_INSTANCE = len(TOM_MAPPINGS) * TOM_MAPPINGS[0].num_stacks  # 40: one 4-bit touched mask per mapping


# ------------------------------------------------------------------------------------------------------
# instances


@dataclasses.dataclass(frozen=True, eq=False)
class Instances:
    """Candidate instances (one warp executing one candidate block once), as CSR arrays.

    Instance ``i`` touched the line addresses ``lines[start[i]:start[i+1]]`` (byte addresses, multiples of
    ``line_bytes``) in access order, duplicates kept; ``candidate[i]`` is its candidate block id. The order
    of instances is the order the analyzer sees them ("first" = learning phase).
    """

    start: np.ndarray
    lines: np.ndarray
    candidate: np.ndarray
    line_bytes: int = 128

    def __post_init__(self) -> None:
        start = np.asarray(self.start, np.int64)
        lines = _addrs(self.lines).reshape(-1)
        cand = np.asarray(self.candidate, np.int64).reshape(-1)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "lines", lines)
        object.__setattr__(self, "candidate", cand)
        if start.ndim != 1 or len(start) < 1 or start[0] != 0 or start[-1] != len(lines):
            raise ValueError("start must run from 0 to len(lines)")
        if (np.diff(start) < 0).any():
            raise ValueError("start must be non-decreasing")
        if len(cand) != len(start) - 1:
            raise ValueError(f"{len(cand)} candidate ids for {len(start) - 1} instances")
        if self.line_bytes <= 0 or self.line_bytes & (self.line_bytes - 1):
            raise ValueError(f"line_bytes={self.line_bytes} is not a power of two")
        if (lines & np.uint64(self.line_bytes - 1)).any():
            raise ValueError(f"lines must be {self.line_bytes}-B aligned line addresses")

    def __len__(self) -> int:
        return len(self.start) - 1

    @property
    def counts(self) -> np.ndarray:
        """Lines per instance."""
        return np.diff(self.start)

    def head(self, k: int) -> Instances:
        """The first ``k`` instances."""
        k = max(0, min(k, len(self)))
        return Instances(self.start[: k + 1], self.lines[: self.start[k]], self.candidate[:k], self.line_bytes)

    def select(self, which: np.ndarray) -> Instances:
        """The instances picked by a boolean mask or index array, in that order."""
        idx = np.arange(len(self))[which]
        counts = self.counts[idx]
        start = np.zeros(len(idx) + 1, np.int64)
        np.cumsum(counts, out=start[1:])
        pos = np.repeat(self.start[:-1][idx] - start[:-1], counts) + np.arange(start[-1])
        return Instances(start, self.lines[pos], self.candidate[idx], self.line_bytes)


def instances_from_lists(
    accesses: Sequence[np.ndarray | Sequence[int]], candidate_ids: Sequence[int] | np.ndarray, line_bytes: int = 128
) -> Instances:
    """:class:`Instances` from one array of byte addresses per instance (aligned down to lines)."""
    arrays = [_addrs(a).reshape(-1) for a in accesses]
    start = np.zeros(len(arrays) + 1, np.int64)
    np.cumsum([len(a) for a in arrays], out=start[1:])
    lines = np.concatenate(arrays) if arrays else np.zeros(0, np.uint64)
    lines = lines & ~np.uint64(line_bytes - 1)
    return Instances(start, lines, np.asarray(candidate_ids, np.int64), line_bytes)


# ------------------------------------------------------------------------------------------------------
# the analyzer


def learning_count(total: int, fraction: float = 0.001) -> int:
    """Instances in the learning phase: ``max(1, ceil(fraction * total))`` (G11), in exact decimal arithmetic."""
    if total < 0 or not 0 < fraction <= 1:
        raise ValueError(f"total={total} and fraction={fraction} must be >= 0 and in (0, 1]")
    return max(1, math.ceil(Fraction(repr(fraction)) * total))


def touched_allocations(lines: np.ndarray, allocations: Sequence[tuple[int, int]] | np.ndarray,
                        line_bytes: int = 128) -> np.ndarray:
    """Which allocations ``(start, length)`` (non-overlapping) some line of ``lines`` overlaps (bool)."""
    alloc = np.asarray(allocations, np.uint64).reshape(-1, 2)
    order = np.argsort(alloc[:, 0], kind="stable")
    s = alloc[order, 0]
    e = s + alloc[order, 1]
    if (s[1:] < e[:-1]).any():
        raise ValueError("allocations overlap")
    hit = np.zeros(len(alloc), bool)
    lines = np.unique(_addrs(lines))
    if not len(alloc) or not len(lines):
        return hit
    i = np.searchsorted(s, lines + np.uint64(line_bytes), side="left") - 1  # last allocation starting before line end
    ok = i >= 0
    ok[ok] = e[i[ok]] > lines[ok]
    hit[order[i[ok]]] = True
    return hit


@dataclasses.dataclass(frozen=True, eq=False)
class LearnResult:
    """The outcome of a learning phase: the chosen mapping and what the analyzer recorded."""

    mapping: StackMapping | None  # None: no mapping scored above another, the baseline mapping stays
    index: int | None  # of ``mapping`` in the analyzer's mappings
    scores: np.ndarray  # int64 per mapping, over the learning instances
    n_learn: int  # instances observed
    total: int  # instances the fraction was taken of
    which: str  # the score
    offload: np.ndarray  # bool per allocation table entry: touched by a learning instance (empty without a table)

    @property
    def keeps_baseline(self) -> bool:
        """Whether the learning found no preferred mapping (every score equal): nothing is remapped."""
        return self.mapping is None

    @property
    def start_bit(self) -> int:
        """The chosen mapping's start bit, -1 when the baseline mapping stays."""
        return -1 if self.mapping is None or self.mapping.start_bit is None else self.mapping.start_bit


class MemoryMapAnalyzer:
    """TOM's Memory Map Analyzer over a set of candidate mappings (default :data:`TOM_MAPPINGS`).

    Per instance it keeps one ``num_stacks``-bit mask per mapping (the stacks touched: 4 x 10 =
    :data:`BITS_PER_INSTANCE` bits); at instance end each mapping scores one if exactly one bit is set.
    Instances without lines count as instances but never score.
    """

    BITS_PER_INSTANCE = BITS_PER_INSTANCE

    def __init__(self, mappings: Sequence[StackMapping] = TOM_MAPPINGS) -> None:
        self.mappings = tuple(mappings)
        if not self.mappings:
            raise ValueError("no mappings")
        if len({m.num_stacks for m in self.mappings}) != 1 or self.mappings[0].num_stacks > 32:
            raise ValueError("mappings must agree on the number of stacks (at most 32)")

    @property
    def bits_per_instance(self) -> int:
        return len(self.mappings) * self.mappings[0].num_stacks

    def touched(self, instances: Instances) -> np.ndarray:
        """(instances, mappings) uint32: bit ``s`` set when the instance touched stack ``s``."""
        out = np.zeros((len(instances), len(self.mappings)), np.uint32)
        nonempty = instances.counts > 0
        if not nonempty.any():
            return out
        first = instances.start[:-1][nonempty]
        for j, m in enumerate(self.mappings):
            bits = np.left_shift(np.uint32(1), m.stack_of(instances.lines).astype(np.uint32))
            out[nonempty, j] = np.bitwise_or.reduceat(bits, first)
        return out

    def score(self, instances: Instances, which: Score = "one_stack") -> np.ndarray:
        """Per mapping (int64): instances touching exactly one stack (``one_stack``, G12), or accesses
        landing in the stack of their instance's first access (``first_stack``)."""
        if which == "one_stack":
            return (np.bitwise_count(self.touched(instances)) == 1).sum(axis=0, dtype=np.int64)
        if which != "first_stack":
            raise ValueError(f"unknown score {which!r}; valid: {', '.join(SCORES)}")
        counts = instances.counts
        nonempty = counts > 0
        first = instances.start[:-1][nonempty]
        out = np.zeros(len(self.mappings), np.int64)
        for j, m in enumerate(self.mappings):
            stacks = m.stack_of(instances.lines)
            out[j] = np.count_nonzero(stacks == np.repeat(stacks[first], counts[nonempty]))
        return out

    def best(self, scores: np.ndarray) -> int | None:
        """Index of the highest score; ties go to the lowest start bit, then to the earlier mapping.

        ``None`` when every mapping scores the same (all zero, say): the instances seen prefer no mapping,
        so the data keeps the baseline mapping instead of taking the lowest start bit by default."""
        scores = np.asarray(scores)
        if not len(scores) or scores.min() == scores.max():
            return None
        top = np.flatnonzero(scores == scores.max())
        return int(min(top, key=lambda i: (self.mappings[i].start_bit is None, self.mappings[i].start_bit or 0, i)))

    def learn(
        self,
        instances: Instances,
        fraction: float = 0.001,
        *,
        total: int | None = None,
        which: Score = "first_stack",
        allocations: Sequence[tuple[int, int]] | np.ndarray | None = None,
    ) -> LearnResult:
        """Score the first ``max(1, ceil(fraction * total))`` instances (``total`` defaults to all of
        ``instances``) and pick the best mapping; flag the allocations those instances touched."""
        total = len(instances) if total is None else total
        n = min(learning_count(total, fraction), len(instances))
        if n == 0:
            raise ValueError("no instances to learn from")
        part = instances.head(n)
        scores = self.score(part, which)
        i = self.best(scores)
        offload = (np.zeros(0, bool) if allocations is None
                   else touched_allocations(part.lines, allocations, instances.line_bytes))
        return LearnResult(None if i is None else self.mappings[i], i, scores, n, total, which, offload)

    def oracle(self, instances: Instances, which: Score = "one_stack",
               allocations: Sequence[tuple[int, int]] | np.ndarray | None = None) -> LearnResult:
        """The best mapping with every instance observed; by default the best co-location (``one_stack``:
        Fig. 6's "oracle knowledge" is the highest probability of accessing one stack)."""
        return self.learn(instances, 1.0, which=which, allocations=allocations)

    @staticmethod
    def colocation(instances: Instances, mapping: StackMapping | None,
                   remapped: Sequence[tuple[int, int]] | None = None, base: StackMapping = BASELINE) -> float:
        """P(an instance touches exactly one stack) under ``mapping`` (instances without lines count as misses).

        ``mapping`` None means ``base``. With ``remapped`` (``(lo, hi)`` address ranges) only lines inside
        them use ``mapping`` and the others ``base``: the co-location of the mapping as applied."""
        if not len(instances):
            raise ValueError("no instances")
        if mapping is None:
            mapping, remapped = base, None
        if remapped is None:
            hits = MemoryMapAnalyzer([mapping]).score(instances, "one_stack")[0]
            return float(hits) / len(instances)
        lines = instances.lines
        inside = np.zeros(len(lines), bool)
        for lo, hi in remapped:
            inside |= (lines >= np.uint64(lo)) & (lines < np.uint64(hi))
        stacks = np.where(inside, mapping.stack_of(lines), base.stack_of(lines))
        nonempty = instances.counts > 0
        if not nonempty.any():
            return 0.0
        bits = np.left_shift(np.uint32(1), stacks.astype(np.uint32))
        masks = np.bitwise_or.reduceat(bits, instances.start[:-1][nonempty])
        return float(np.count_nonzero(np.bitwise_count(masks) == 1)) / len(instances)


# ------------------------------------------------------------------------------------------------------
# fixed-offset accesses (G20, TOM Fig. 5)

FIXED_OFFSET_BINS = ("all", "75-99%", "50-75%", "25-50%", "0-25%", "none")


class FixedOffsetShare(NamedTuple):
    candidate: np.ndarray  # candidate ids, ascending
    share: np.ndarray  # fraction of the candidate's compared accesses that are fixed-offset (nan: none compared)
    accesses: np.ndarray  # compared accesses (position > 0)


def fixed_offset_share(
    instance: np.ndarray, lane: np.ndarray, position: np.ndarray, addr: np.ndarray, candidate: np.ndarray
) -> FixedOffsetShare:
    """Share of fixed-offset accesses per candidate (G20), from per-lane accesses.

    Row ``r`` is one lane's access: instance ``instance[r]``, lane ``lane[r]``, ``position[r]`` = its index
    among that lane's accesses in the instance (0 = the first; loop iterations continue the count) and byte
    address ``addr[r]``; ``candidate[i]`` is instance ``i``'s candidate. Each (instance, lane) needs one
    position-0 row. An access at position ``k > 0`` is fixed-offset when ``addr - first address of its
    lane`` is the same for every lane and instance of the candidate at position ``k``. Position 0 is the
    reference and is not counted.
    """
    instance = np.asarray(instance, np.int64)
    lane = np.asarray(lane, np.int64)
    position = np.asarray(position, np.int64)
    addr = _addrs(addr).astype(np.int64)
    cand = np.asarray(candidate, np.int64)[instance]
    thread = instance * 32 + lane
    is_first = position == 0
    t0, first_at = np.unique(thread[is_first], return_index=True)
    if len(t0) != int(is_first.sum()):
        raise ValueError("a lane has two position-0 accesses in one instance")
    j = np.searchsorted(t0, thread)
    if (j >= len(t0)).any() or (t0[np.minimum(j, len(t0) - 1)] != thread).any():
        raise ValueError("a lane has accesses but no position-0 access")
    delta = addr - addr[is_first][first_at][j]
    rest = ~is_first
    c, p, d = cand[rest], position[rest], delta[rest]
    order = np.lexsort((d, p, c))
    c, p, d = c[order], p[order], d[order]
    new = np.ones(len(c), bool)
    new[1:] = (c[1:] != c[:-1]) | (p[1:] != p[:-1])
    gstart = np.flatnonzero(new)
    gend = np.append(gstart[1:], len(c)) - 1
    fixed = d[gstart] == d[gend]  # sorted by delta within a group: constant iff first == last
    ids = np.unique(cand)
    k = np.searchsorted(ids, c[gstart])
    size = gend - gstart + 1
    accesses = np.bincount(k, weights=size, minlength=len(ids)).astype(np.int64)
    passed = np.bincount(k, weights=size * fixed, minlength=len(ids))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(accesses > 0, passed / np.maximum(accesses, 1), np.nan)
    return FixedOffsetShare(ids, share, accesses)


def fixed_offset_bins(share: np.ndarray) -> np.ndarray:
    """Index into :data:`FIXED_OFFSET_BINS` of each share (Fig. 5 categories; nan counts as ``none``)."""
    s = np.nan_to_num(np.asarray(share, float), nan=0.0)
    return np.select([s >= 1, s >= 0.75, s >= 0.5, s >= 0.25, s > 0], [0, 1, 2, 3, 4], 5)


# ------------------------------------------------------------------------------------------------------
# storage (TOM section 6.6)


class StorageBits(NamedTuple):
    analyzer_per_sm: int  # touched masks for every resident warp
    allocation_table: int  # shared by all SMs
    metadata_per_sm: int  # offload metadata table

    def total(self, sms: int) -> int:
        """Bits for a GPU of ``sms`` SMs."""
        return (self.analyzer_per_sm + self.metadata_per_sm) * sms + self.allocation_table


def storage_bits(
    *,
    mappings: int = len(TOM_MAPPINGS),
    stacks: int = 4,
    warps_per_sm: int = 48,
    va_bits: int = 48,
    allocation_entries: int = 100,
    metadata_entry_bits: int = 258,
    metadata_entries: int = 40,
) -> StorageBits:
    """Section 6.6: analyzer 40 x 48 = 1,920 bits per SM; allocation table (48 + 48 + 1) x 100 = 9,700;
    metadata table 258 x 40 = 10,320 bits per SM."""
    return StorageBits(
        analyzer_per_sm=mappings * stacks * warps_per_sm,
        allocation_table=(2 * va_bits + 1) * allocation_entries,
        metadata_per_sm=metadata_entry_bits * metadata_entries,
    )
