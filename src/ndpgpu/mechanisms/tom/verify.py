"""Prove TOM's offloading of a code block correct on real runs: complete live sets and exact written lines.

TOM (seed 000, §3.3) offloads a single-entry block ``[begin, end)`` of a kernel: the GPU sends the
block's live-in registers, the stack SM runs the block until control leaves it (at ``end``) and returns
the live-out registers plus the cache lines it wrote; the GPU overwrites the live-outs and continues with
every other register as it was. Two things must hold for that to be transparent, and both are checked
here on the functional engine rather than argued from the analysis that produced them:

* **Live sets** (:func:`rewrite_offload`, :func:`verify_block`). The kernel's PTX is rewritten so that,
  when a thread enters the block, every register that is *not* live-in is saved to a fresh shadow
  register and overwritten with a poison value (patterns :data:`POISON_PATTERNS`), and when it leaves the
  block (the instruction at ``end``) every register that is *not* live-out is restored from its shadow.
  That is exactly what the stack SM sees and what the GPU keeps. An "inside the block" predicate, set at
  the entry and cleared at the exit, makes paths that reach ``end`` without running the block (a guard
  that skips it) restore nothing, and keeps a loop's back edges to ``begin`` from re-poisoning. The
  outputs of the original and of every rewritten variant must be bit-identical. Poisoning one live-in
  as well (``drop_live_in``) must make them differ, which shows the check can fail.
* **Written lines** (:func:`block_instances`). Each dynamic instance of the block in a trace (a warp
  entering ``begin_pc`` from outside the block's PCs, until its PC leaves them) with the memory records it
  issued and the 128-byte lines it stored to: the addresses an acknowledgment returns.

The workload helpers (:class:`WorkloadHarness`, :func:`verify_candidates`) run both checks on TOM's
workloads.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...analysis import analyze
from ...analysis.defuse import regs_in
from ...analysis.liveness import range_is_single_entry
from ...analysis.memops import mem_op
from ...frontend.ir import Function, PtxType, Reg
from ...frontend.parser import parse_ptx
from ...trace import format as tf

POISON_PATTERNS: tuple[str, ...] = ("zero", "ones", "nan", "random")
"""Poison written into the registers that are not live-in: 0, all ones, a quiet NaN of the register's
width (0x7e00, 0x7fc00000, 0x7ff8000000000000; 1 for a predicate), and seeded random bits per register."""

LINE_BYTES = 128
_NAN_BITS = {16: 0x7E00, 32: 0x7FC0_0000, 64: 0x7FF8_0000_0000_0000}
_FORBIDDEN_OPCODES = frozenset({"bar", "barrier", "membar", "fence", "call", "atom", "red", "brx"})
_LABEL_PREFIX = re.compile(r"(?:\s+|[{}]|[A-Za-z_$%][\w$]*\s*:)*")

Run = Callable[[str], Mapping[str, np.ndarray]]
"""``run(ptx_text) -> {output name: array}``: the caller's functional run of a whole program."""


class OffloadError(ValueError):
    """The block cannot be offloaded (or rewritten): several entries, an exit other than ``end``, a
    forbidden instruction, a register type or PTX layout the rewriter does not handle."""


class OffloadMismatch(AssertionError):
    """A rewritten (poisoned) run's outputs differ from the original's."""


# ---------------------------------------------------------------------------------------------------------
# The block


def kernel_function(ptx: str, kernel: str) -> Function:
    """The IR function ``kernel`` of ``ptx`` (its PTX name)."""
    module = parse_ptx(ptx)
    if kernel not in module.functions:
        raise OffloadError(f"no function {kernel!r} in the PTX; it defines {', '.join(module.functions)}")
    return module.functions[kernel]


def offload_problems(fn: Function, begin: int, end: int) -> list[str]:
    """Why ``[begin, end)`` of ``fn`` is not an offloadable block (empty when it is).

    TOM's restrictions (§3.2): entered only at ``begin``; every edge leaving the block goes to ``end`` (or
    leaves the kernel); no shared memory, barrier, fence, atomic or call.
    """
    n = len(fn.body)
    if not 0 <= begin < end <= n:
        return [f"[{begin}, {end}) is not a range of the {n} instructions of {fn.name}"]
    an = analyze(fn)
    cfg = an.cfg
    problems = []
    if not range_is_single_entry(cfg, begin, end):
        problems.append(f"[{begin}, {end}) is entered other than at its first instruction")
    for i in range(begin, end):
        ins = fn.body[i]
        op = mem_op(ins, i)
        if ins.opcode in _FORBIDDEN_OPCODES:
            problems.append(f"instruction {i} (PTX line {ins.line}) is a {ins.full}")
        elif op is not None and op.space == "shared":
            problems.append(f"instruction {i} (PTX line {ins.line}) accesses shared memory")
    for b in cfg.blocks:
        if b.end <= begin or b.start >= end or b.end > end:
            continue  # outside, or the range ends inside this block (it falls through to ``end``)
        for s in b.succs:
            if s == cfg.exit:
                continue
            target = cfg.blocks[s].start
            if not begin <= target <= end:
                problems.append(f"block {b.index} (instructions {b.start}-{b.end - 1}) leaves to instruction "
                                f"{target}, not to end={end}")
    return problems


@dataclasses.dataclass(frozen=True)
class BlockLiveness:
    """The registers of an offloaded block: sent (``live_in``), returned (``live_out``), and every register
    of the function the rewriter handles (``registers``, name -> type)."""

    live_in: frozenset[str]
    live_out: frozenset[str]
    registers: Mapping[str, PtxType]
    unhandled: frozenset[str]  # live registers that are not declared registers (the carry flag ``%cc``)


def block_liveness(fn: Function, begin: int, end: int) -> BlockLiveness:
    """Live-in and live-out registers of ``[begin, end)`` from :mod:`ndpgpu.analysis.liveness`.

    ``registers`` holds the function's registers declared at its top scope: registers of nested ``{ }``
    scopes (renamed ``name$sN`` by the parser; call sequences, inline assembly) are not visible there.
    """
    lv = analyze(fn).liveness
    live_in = frozenset(lv.range_live_in(begin, end))
    live_out = frozenset(lv.range_live_out(begin, end))
    regs = {name: t for name, t in fn.regs.items() if "$s" not in name}
    unhandled = frozenset(r for r in live_in | live_out if r not in fn.regs)
    return BlockLiveness(live_in, live_out, regs, unhandled)


# ---------------------------------------------------------------------------------------------------------
# Rewriting


def poison_value(pattern: str, bits: int, rng: np.random.Generator) -> int:
    """The poison of ``pattern`` for a register of ``bits`` bits (1 for a predicate)."""
    if pattern == "zero":
        return 0
    if pattern == "ones":
        return (1 << bits) - 1
    if pattern == "nan":
        return 1 if bits == 1 else _NAN_BITS[bits]
    if pattern == "random":
        if bits == 1:
            return int(rng.integers(0, 2))
        return int.from_bytes(rng.bytes(bits // 8), "little")
    raise ValueError(f"unknown poison pattern {pattern!r}; the patterns are {', '.join(POISON_PATTERNS)}")


def _reg_bits(name: str, t: PtxType) -> int:
    bits = t.bits
    if bits not in (1, 16, 32, 64):
        raise OffloadError(f"register {name} of type {t} ({bits} bits) cannot be poisoned (16/32/64-bit and "
                           ".pred registers only)")
    return bits


def _mov(t: PtxType) -> str:
    return "mov.pred" if t.name == "pred" else f"mov.b{t.bits}"


def _fresh_prefix(ptx: str) -> str:
    k = 0
    while True:
        prefix = "tomv" if k == 0 else f"tomv{k}"
        if prefix not in ptx:
            return prefix
        k += 1


def _body_brace(lines: list[str], fn: Function) -> tuple[int, int]:
    """(line index, column) of the ``{`` opening ``fn``'s body (comments skipped)."""
    li = max(fn.line - 1, 0)
    in_block_comment = False
    depth = 0
    while li < len(lines):
        line = lines[li]
        col = 0
        while col < len(line):
            if in_block_comment:
                stop = line.find("*/", col)
                if stop < 0:
                    break
                in_block_comment = False
                col = stop + 2
                continue
            ch = line[col]
            if line.startswith("//", col):
                break
            if line.startswith("/*", col):
                in_block_comment = True
                col += 2
                continue
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == "{" and depth == 0:
                return li, col
            col += 1
        li += 1
    raise OffloadError(f"cannot find the body of {fn.name} in the PTX text")


def _instruction_column(lines: list[str], fn: Function, i: int) -> tuple[int, int]:
    """(line index, column) where instruction ``i`` starts, after any labels on its line."""
    ins = fn.body[i]
    if Counter(x.line for x in fn.body)[ins.line] != 1:
        raise OffloadError(f"PTX line {ins.line} holds several instructions; put instruction {i} on its own line")
    li = ins.line - 1
    line = lines[li]
    col = _LABEL_PREFIX.match(line).end()  # type: ignore[union-attr]
    rest = line[col:]
    if not (rest.startswith("@") or rest.startswith(ins.full)):
        raise OffloadError(f"cannot locate instruction {i} ({ins.full}) on PTX line {ins.line}: {line.strip()!r}")
    return li, col


def named_registers(fn: Function, begin: int, end: int) -> set[str]:
    """Every register an instruction of ``[begin, end)`` names (operands and guards): all a block can
    read or write, since a PTX instruction accesses no register it does not name."""
    out: set[str] = set()
    for ins in fn.body[begin:end]:
        if ins.guard is not None:
            out.add(ins.guard.name)
        for op in ins.operands:
            out.update(regs_in(op))
    return out


@dataclasses.dataclass(frozen=True)
class OffloadRewrite:
    """A kernel rewritten to emulate one offload of ``[begin, end)`` with one poison pattern.

    In the rewritten function the block runs from the entry code (instruction ``entry``) to the exit code
    (instruction ``exit``; ``len(body)`` when the block runs to the end of the kernel).
    """

    ptx: str
    kernel: str
    begin: int
    end: int
    pattern: str
    entry: int
    exit: int
    live: BlockLiveness
    poisoned: frozenset[str]
    restored: frozenset[str]


class OffloadEmulator:
    """The rewriter of one block ``[begin, end)`` (IR instruction indices) of ``kernel``, prepared once.

    ``scope="function"`` poisons and restores every top-scope register of the function; ``"block"`` (the
    default) only those the block names (:func:`named_registers`). The two give the same runs: a
    register the block does not name keeps its value through the block, so poisoning it at the entry and
    restoring it at the exit changes nothing; ``"block"`` only keeps large kernels (libor's 4,400
    registers) quick to rewrite and parse. Raises :class:`OffloadError` when the block is not offloadable.
    """

    def __init__(self, ptx: str, kernel: str, begin: int, end: int, *, scope: str = "block"):
        if scope not in ("block", "function"):
            raise ValueError(f"scope must be 'block' or 'function', not {scope!r}")
        fn = kernel_function(ptx, kernel)
        problems = offload_problems(fn, begin, end)
        if problems:
            raise OffloadError(f"{kernel} [{begin}, {end}): " + "; ".join(problems))
        self.ptx, self.kernel, self.begin, self.end, self.scope, self.fn = ptx, kernel, begin, end, scope, fn
        self.live = block_liveness(fn, begin, end)
        regs = dict(self.live.registers)
        if scope == "block":
            named = named_registers(fn, begin, end)
            regs = {r: t for r, t in regs.items() if r in named}
        self.regs = regs
        for r in regs:
            _reg_bits(r, regs[r])
        self._lines = ptx.splitlines(keepends=True)
        p = _fresh_prefix(ptx)
        self._prefix = p
        self._inside = f"%{p}_in"
        self._shadow = {r: f"%{p}_s{k}" for k, r in enumerate(sorted(regs))}
        self._body = _body_brace(self._lines, fn)
        self._at = {i: _instruction_column(self._lines, fn, i) for i in (begin, end) if i < len(fn.body)}
        first = self.rewrite("zero")
        new_fn = kernel_function(first.ptx, kernel)
        landed = new_fn.body[first.entry].full == "bra" and new_fn.body[first.entry].guard == Reg(self._inside)
        if end < len(fn.body):
            landed &= new_fn.body[first.exit].full == "bra" and new_fn.body[first.exit].guard == Reg(self._inside, True)
        else:
            landed &= first.exit == len(new_fn.body)
        if not landed:
            raise OffloadError(f"internal: the entry/exit code of {kernel} did not land at instructions "
                               f"{first.entry}/{first.exit}")

    def rewrite(self, pattern: str = "zero", *, drop_live_in: Iterable[str] = (), drop_live_out: Iterable[str] = (),
                seed: int = 0) -> OffloadRewrite:
        """The rewritten PTX for ``pattern``.

        At the block's entry (after its labels; skipped when the thread is already inside, i.e. on a back
        edge), every register that is not live-in is saved to a shadow and poisoned. At the instruction
        ``end`` (after its labels), a thread that was inside restores every register that is not live-out.
        Mutations that must be caught: registers in ``drop_live_in`` are poisoned too, registers in
        ``drop_live_out`` restored too (as if the analysis had missed them).
        """
        if pattern not in POISON_PATTERNS:
            raise ValueError(f"unknown poison pattern {pattern!r}; the patterns are {', '.join(POISON_PATTERNS)}")
        live, regs, p, inside, shadow = self.live, self.regs, self._prefix, self._inside, self._shadow
        dropped, dropped_out = frozenset(drop_live_in), frozenset(drop_live_out)
        for what, regset, live_set in (("live-in", dropped, live.live_in), ("live-out", dropped_out, live.live_out)):
            if regset - live_set:
                raise OffloadError(f"drop_{what.replace('-', '_')} names registers that are not {what}: "
                                   f"{sorted(regset - live_set)}")
            if regset - set(regs):
                raise OffloadError(f"drop_{what.replace('-', '_')} names registers the rewriter does not handle: "
                                   f"{sorted(regset - set(regs))}")
        poisoned = [r for r in sorted(regs) if r not in live.live_in or r in dropped]
        restored = [r for r in sorted(regs) if r not in live.live_out or r in dropped_out]
        rng = np.random.default_rng(seed)
        nl = "\n"
        decls = [f"\t.reg .pred {inside};"] + [f"\t.reg .{regs[r].name} {shadow[r]};" for r in restored]
        head = nl + nl.join([*decls, f"\tmov.pred {inside}, 0;"]) + nl
        entry_code = [f"@{inside} bra ${p}_enter;"]
        entry_code += [f"{_mov(regs[r])} {shadow[r]}, {r};" for r in restored]
        for r in poisoned:
            value = poison_value(pattern, _reg_bits(r, regs[r]), rng)
            entry_code.append(f"{_mov(regs[r])} {r}, {value if regs[r].name == 'pred' else hex(value)};")
        entry_code.append(f"mov.pred {inside}, 1;")
        exit_code = [f"@!{inside} bra ${p}_leave;"]
        exit_code += [f"{_mov(regs[r])} {r}, {shadow[r]};" for r in restored]
        exit_code.append(f"mov.pred {inside}, 0;")

        lines = list(self._lines)
        edits = [(self._body[0], self._body[1] + 1, head)]
        for i, code, label in ((self.begin, entry_code, f"${p}_enter"), (self.end, exit_code, f"${p}_leave")):
            if i not in self._at:
                continue  # the block runs to the end of the kernel: nothing follows it
            li, col = self._at[i]
            text = "".join(f"\t{c}{nl}" for c in code) + f"{label}:{nl}"
            if lines[li][:col].strip():  # labels on the instruction's own line: break it after them
                edits.append((li, col, nl + text + "\t"))
            else:
                edits.append((li, 0, text))
        for li, col, text in sorted(edits, reverse=True):
            lines[li] = lines[li][:col] + text + lines[li][col:]
        entry = self.begin + 1  # after the initialisation of the inside predicate
        exit_ = self.end + 1 + len(entry_code)  # len(body) of the rewritten function when end == len(body)
        return OffloadRewrite("".join(lines), self.kernel, self.begin, self.end, pattern, entry, exit_, live,
                              frozenset(poisoned), frozenset(restored))


def rewrite_offload(ptx: str, kernel: str, begin: int, end: int, pattern: str = "zero", *,
                    drop_live_in: Iterable[str] = (), drop_live_out: Iterable[str] = (), seed: int = 0,
                    scope: str = "block") -> OffloadRewrite:
    """Rewrite ``kernel`` so that running it emulates offloading ``[begin, end)`` (see :class:`OffloadEmulator`)."""
    return OffloadEmulator(ptx, kernel, begin, end, scope=scope).rewrite(
        pattern, drop_live_in=drop_live_in, drop_live_out=drop_live_out, seed=seed)


# ---------------------------------------------------------------------------------------------------------
# Verification


@dataclasses.dataclass(frozen=True)
class PatternOutcome:
    """One rewritten run: bit-identical outputs or not (``differing`` names them; ``error`` when it raised)."""

    pattern: str
    equal: bool
    differing: tuple[str, ...] = ()
    error: str | None = None


@dataclasses.dataclass(frozen=True)
class BlockVerification:
    """The verdict on one block: per poison pattern, whether the emulated offload left outputs unchanged."""

    kernel: str
    begin: int
    end: int
    live_in: frozenset[str]
    live_out: frozenset[str]
    poisoned: frozenset[str]
    restored: frozenset[str]
    outcomes: dict[str, PatternOutcome]
    mutation: str | None = None  # "live-in %r3 poisoned" / "live-out %f2 restored"

    @property
    def equal(self) -> dict[str, bool]:
        """Pattern -> outputs bit-identical to the original run."""
        return {p: o.equal for p, o in self.outcomes.items()}

    @property
    def ok(self) -> bool:
        return all(o.equal for o in self.outcomes.values())

    def summary(self) -> str:
        verdict = ", ".join(f"{p}={'same' if o.equal else 'DIFFERENT'}" for p, o in self.outcomes.items())
        drop = f" ({self.mutation})" if self.mutation else ""
        return (f"{self.kernel} [{self.begin}, {self.end}){drop}: {len(self.live_in)} live-in, "
                f"{len(self.live_out)} live-out, {len(self.poisoned)} poisoned: {verdict}")


def outputs_differ(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[str, ...]:
    """Names of the outputs that are not bit-identical (dtype, shape and bytes), missing ones included."""
    names = sorted(set(a) | set(b))
    out = []
    for k in names:
        if k not in a or k not in b:
            out.append(k)
            continue
        x, y = np.asarray(a[k]), np.asarray(b[k])
        if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
            out.append(k)
    return tuple(out)


def verify_block(ptx: str, kernel: str, begin: int, end: int, run: Run,
                 patterns: Sequence[str] = POISON_PATTERNS, *, drop_live_in: str | None = None,
                 drop_live_out: str | None = None, seed: int = 0,
                 strict: bool | None = None, baseline: Mapping[str, np.ndarray] | None = None,
                 scope: str = "block") -> BlockVerification:
    """Run the original program and one rewritten variant per poison pattern; compare outputs bit for bit.

    ``run(ptx_text)`` runs the whole program (every launch) with that PTX and returns its outputs; a run
    that raises counts as different. ``baseline`` skips the original run. With ``strict`` (the default
    unless ``drop_live_in`` is given) a difference raises :class:`OffloadMismatch`; otherwise the result
    says which patterns differed. ``drop_live_in`` poisons that live-in register as well: the outputs then
    differ for at least one pattern when the register's value matters; ``drop_live_out`` restores that
    live-out register at the exit, which must make them differ when the block's value of it is used.
    ``scope``: see :class:`OffloadEmulator`.
    """
    if strict is None:
        strict = drop_live_in is None and drop_live_out is None
    ref = dict(baseline) if baseline is not None else dict(run(ptx))
    dropped = (drop_live_in,) if drop_live_in is not None else ()
    dropped_out = (drop_live_out,) if drop_live_out is not None else ()
    mutation = " and ".join([*(f"live-in {r} poisoned" for r in dropped),
                             *(f"live-out {r} restored" for r in dropped_out)])
    outcomes: dict[str, PatternOutcome] = {}
    emulator = OffloadEmulator(ptx, kernel, begin, end, scope=scope)
    rw: OffloadRewrite | None = None
    for pattern in patterns:
        rw = emulator.rewrite(pattern, drop_live_in=dropped, drop_live_out=dropped_out, seed=seed)
        try:
            out = run(rw.ptx)
        except Exception as exc:  # a poisoned pointer or trip count may fault or exhaust the budget
            outcomes[pattern] = PatternOutcome(pattern, False, (), f"{type(exc).__name__}: {exc}")
            continue
        diff = outputs_differ(ref, out)
        outcomes[pattern] = PatternOutcome(pattern, not diff, diff)
    if rw is None:
        raise ValueError("verify_block needs at least one poison pattern")
    result = BlockVerification(kernel, begin, end, rw.live.live_in, rw.live.live_out, rw.poisoned, rw.restored,
                               outcomes, mutation or None)
    if strict and not result.ok:
        raise OffloadMismatch(result.summary() + "".join(
            f"\n  {o.pattern}: {o.error or 'outputs ' + ', '.join(o.differing)}"
            for o in outcomes.values() if not o.equal))
    return result


# ---------------------------------------------------------------------------------------------------------
# Block instances in a trace


def block_pcs(program: Any, fn: Function, begin: int, end: int) -> tuple[int, int]:
    """``(begin_pc, end_pc)`` of the IR range ``[begin, end)`` of kernel ``fn`` in a decoded ``Program``.

    PCs differ from IR indices after a ``call`` (its argument copies get PCs); an instruction's first PC is
    found through its PTX line. ``end == len(fn.body)`` maps to the kernel's synthesized exit.
    """
    kernel_pcs = np.array(program.pcs_of(fn.name), dtype=np.int64)
    lines = np.asarray(program.line_of_pc)[kernel_pcs]

    def pc_of(i: int) -> int:
        if i == len(fn.body):
            return int(kernel_pcs[-1])
        hits = kernel_pcs[lines == fn.body[i].line]
        if not len(hits):
            raise OffloadError(f"instruction {i} (PTX line {fn.body[i].line}) has no PC in the program")
        return int(hits[0])

    return pc_of(begin), pc_of(end)


@dataclasses.dataclass(frozen=True)
class BlockInstance:
    """One warp running the block once: from its entry at ``begin_pc`` until its PC leaves the block.

    ``segment``/``offset``: the trace segment (global index) and position in it of the entry;
    ``instructions``: warp-instructions issued inside; ``mask``: the active mask at the entry;
    ``mem_first``/``mem_last``: the first and last memory record (indices into ``trace.mem``) issued inside,
    -1 when none; ``lines``: the 128-byte lines (addresses) stored to (stores and atomics, shared memory
    excluded); ``exact``: False when a record could belong to this instance or another (a memory
    instruction whose lanes were all guarded off leaves no record, so records are matched to PCs by
    position; see :func:`match_records`).
    """

    warp: int
    segment: int
    offset: int
    instructions: int
    mask: int
    mem_first: int
    mem_last: int
    lines: frozenset[int]
    exact: bool = True

    @property
    def records(self) -> range:
        """Indices into ``trace.mem`` of the instance's memory records."""
        return range(self.mem_first, self.mem_last + 1) if self.mem_first >= 0 else range(0)


def warp_pcs(trace: tf.KernelTrace, warp: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Warp ``warp``'s dynamic stream: (PC, active mask, segment index) of each instruction it issued."""
    s0, s1 = int(trace.warp_seg_start[warp]), int(trace.warp_seg_start[warp + 1])
    seg = trace.segments[s0:s1]
    counts = seg["count"].astype(np.int64)
    total = int(counts.sum())
    starts = np.cumsum(counts) - counts
    pcs = np.repeat(seg["pc"].astype(np.int64) - starts, counts) + np.arange(total, dtype=np.int64)
    masks = np.repeat(seg["mask"].astype(np.int64), counts)
    segs = np.repeat(np.arange(s0, s1, dtype=np.int64), counts)
    return pcs, masks, segs


def _memory_pcs(trace: tf.KernelTrace) -> np.ndarray:
    """Per static PC: True when a dynamic instance may leave a memory record."""
    cls = trace.static["op_class"]
    mem = np.isin(cls, [tf.OP_CLASS["load"], tf.OP_CLASS["store"], tf.OP_CLASS["atomic"]])
    return mem & (trace.static["space"] != tf.SPACE["param"])


def match_records(trace: tf.KernelTrace, warp: int, pcs: np.ndarray | None = None,
                  masks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Positions in warp ``warp``'s stream of each of its memory records: (earliest, latest) matching.

    A memory instruction leaves a record only when some lane accessed memory, so the k-th record is the
    k-th memory instruction only when none was fully guarded off. Records are matched in order to a later
    instruction of the same PC whose active mask covers the record's lanes: greedily from the front (the
    earliest position of each record, the reading the timing engine uses) and from the back (the latest).
    Every valid matching puts record k between the two, so a record whose two positions agree, or fall in
    the same instance, is attributed exactly.
    """
    if pcs is None or masks is None:
        pcs, masks, _ = warp_pcs(trace, warp)
    r0, r1 = int(trace.warp_mem_start[warp]), int(trace.warp_mem_start[warp + 1])
    rec = trace.mem[r0:r1]
    cand = np.flatnonzero(_memory_pcs(trace)[pcs])
    rpc = rec["pc"].astype(np.int64)
    if len(cand) == len(rec) and np.array_equal(pcs[cand], rpc):
        return cand, cand
    by_pc: dict[int, np.ndarray] = {}
    for pc in np.unique(rpc):
        by_pc[int(pc)] = cand[pcs[cand] == pc]
    rmask = rec["mask"].astype(np.int64)
    n = len(rec)
    left = np.empty(n, dtype=np.int64)
    right = np.empty(n, dtype=np.int64)
    pos = -1
    for k in range(n):
        c = by_pc[int(rpc[k])]
        j = bisect.bisect_right(c, pos)
        while j < len(c) and rmask[k] & ~masks[c[j]]:
            j += 1
        if j == len(c):
            raise tf.TraceError(f"warp {warp}: memory record {r0 + k} (pc {rpc[k]}) matches no instruction")
        pos = left[k] = c[j]
    pos = len(pcs)
    for k in range(n - 1, -1, -1):
        c = by_pc[int(rpc[k])]
        j = bisect.bisect_left(c, pos) - 1
        while j >= 0 and rmask[k] & ~masks[c[j]]:
            j -= 1
        if j < 0:
            raise tf.TraceError(f"warp {warp}: memory record {r0 + k} (pc {rpc[k]}) matches no instruction")
        pos = right[k] = c[j]
    return left, right


def record_lines(trace: tf.KernelTrace, i: int) -> set[int]:
    """The 128-byte lines (addresses) touched by memory record ``i`` (first and last byte of each lane)."""
    rec = trace.mem[i]
    mask = int(rec["mask"])
    addrs = trace.lane_addresses(i)[(mask >> np.arange(32)) & 1 == 1].astype(np.uint64)
    size = np.uint64(max(int(rec["size"]), 1))
    first = addrs // np.uint64(LINE_BYTES)
    last = (addrs + size - np.uint64(1)) // np.uint64(LINE_BYTES)
    return {int(x) * LINE_BYTES for x in np.union1d(first, last)}


def _writes(trace: tf.KernelTrace, i: int) -> bool:
    rec = trace.mem[i]
    return bool(rec["flags"] & (tf.MEM_STORE | tf.MEM_ATOMIC)) and int(rec["space"]) != tf.SPACE["shared"]


def block_instances(trace: tf.KernelTrace, begin_pc: int, end_pc: int,
                    warps: Iterable[int] | None = None) -> list[BlockInstance]:
    """Every dynamic instance of the block ``[begin_pc, end_pc)`` in ``trace``, warp-major, in order.

    An instance starts where a warp's PC enters the range from outside it (it must enter at
    ``begin_pc``: the block has one entry) and lasts while the PC stays inside. ``warps`` restricts the
    scan. Raises :class:`OffloadError` when a warp enters the range elsewhere (a call inside the block
    returns into it, or the range is not a single-entry block).
    """
    out: list[BlockInstance] = []
    for w in range(trace.num_warps) if warps is None else warps:
        pcs, masks, segs = warp_pcs(trace, w)
        inside = (pcs >= begin_pc) & (pcs < end_pc)
        if not inside.any():
            continue
        before = np.concatenate(([False], inside[:-1]))
        after = np.concatenate((inside[1:], [False]))
        starts = np.flatnonzero(inside & ~before)
        stops = np.flatnonzero(inside & ~after) + 1  # one past the last position inside
        wrong = starts[pcs[starts] != begin_pc]
        if len(wrong):
            raise OffloadError(f"warp {w} enters [{begin_pc}, {end_pc}) at pc {int(pcs[wrong[0]])}, not at its "
                               f"first instruction")
        left, right = match_records(trace, w, pcs, masks)
        r0 = int(trace.warp_mem_start[w])
        # instance of a position: the last start at or before it, if the position is before that stop
        k_left = np.searchsorted(starts, left, side="right") - 1
        k_right = np.searchsorted(starts, right, side="right") - 1
        in_left = (k_left >= 0) & (left < stops[np.maximum(k_left, 0)])
        in_right = (k_right >= 0) & (right < stops[np.maximum(k_right, 0)])
        exact = np.ones(len(starts), dtype=bool)
        unsure = (k_left != k_right) | (in_left != in_right)
        for k in np.flatnonzero(unsure):
            lo = int(k_left[k]) if in_left[k] else int(k_left[k]) + 1
            exact[lo : int(k_right[k]) + 1] = False
        for n, (a, b) in enumerate(zip(starts, stops, strict=True)):
            recs = np.flatnonzero(in_left & (k_left == n)) + r0
            lines: set[int] = set()
            for i in recs:
                if _writes(trace, int(i)):
                    lines |= record_lines(trace, int(i))
            seg = int(segs[a])
            seg_pos = int(a) - int(np.searchsorted(segs, seg, side="left"))
            out.append(BlockInstance(
                warp=w, segment=seg, offset=seg_pos, instructions=int(b - a), mask=int(masks[a]),
                mem_first=int(recs[0]) if len(recs) else -1, mem_last=int(recs[-1]) if len(recs) else -1,
                lines=frozenset(lines), exact=bool(exact[n])))
    return out


# ---------------------------------------------------------------------------------------------------------
# Blocks to verify when no candidate table is given


def loop_blocks(fn: Function) -> list[tuple[int, int]]:
    """Natural loops of ``fn`` laid out as one contiguous, offloadable instruction range ``[lo, hi)``."""
    an = analyze(fn)
    cfg = an.cfg
    out = []
    for loop in an.loops.loops.values():
        lo = min(cfg.blocks[b].start for b in loop.blocks)
        hi = max(cfg.blocks[b].end for b in loop.blocks)
        covered = {b.index for b in cfg.blocks if b.start < hi and b.end > lo}
        if covered == set(loop.blocks) and hi < len(fn.body) and not offload_problems(fn, lo, hi):
            out.append((lo, hi))
    return sorted(out)


def straight_blocks(fn: Function) -> list[tuple[int, int]]:
    """Maximal straight-line runs inside basic blocks that access global or local memory and hold no
    forbidden instruction (the block's final branch or return excluded, so that it falls through)."""
    cfg = analyze(fn).cfg
    out = []
    for b in cfg.blocks:
        run: list[int] = []
        for i in [*range(b.start, b.end), -1]:
            ins = fn.body[i] if i >= 0 else None
            op = mem_op(ins, i) if ins is not None else None
            stop = ins is None or ins.opcode in _FORBIDDEN_OPCODES or ins.opcode in ("bra", "ret", "exit", "trap") \
                or (op is not None and op.space == "shared")
            if not stop:
                run.append(i)
                continue
            if len(run) >= 2 and any((o := mem_op(fn.body[k], k)) is not None and o.space in ("global", "local")
                                     for k in run):
                lo, hi = run[0], run[-1] + 1
                if hi < len(fn.body) and not offload_problems(fn, lo, hi):
                    out.append((lo, hi))
            run = []
    return out


def candidate_blocks(fn: Function, source: str = "auto", program: Any = None) -> list[tuple[int, int]]:
    """Blocks ``[begin, end)`` of ``fn`` to verify.

    ``source``: ``"candidates"`` (TOM's candidate pass, :mod:`.candidates`; ``program``, the decoded kernel,
    is passed on to it), ``"loops"`` (offloadable natural loops, else straight-line runs when the kernel
    has none), or ``"auto"`` (the candidate pass).
    """
    if source in ("auto", "candidates"):
        from .candidates import find_candidates

        return [(int(c.begin), int(c.end)) for c in find_candidates(fn, program).candidates]
    if source != "loops":
        raise ValueError(f"unknown block source {source!r}: candidates, loops or auto")
    return loop_blocks(fn) or straight_blocks(fn)


# ---------------------------------------------------------------------------------------------------------
# Workloads


@dataclasses.dataclass
class TracedRun:
    """A run: outputs, the traces of every launch (when traced), each kernel's decoded program, and the
    warp-instructions of its longest launch."""

    outputs: dict[str, np.ndarray]
    traces: list[tf.KernelTrace]
    programs: dict[str, Any]
    longest_launch: int

    def traces_of(self, kernel: str) -> list[tf.KernelTrace]:
        return [t for t in self.traces if t.launch.kernel == kernel]


class WorkloadHarness:
    """A registered workload at one scale, run with any PTX text in place of its compiled source.

    ``overrides`` change parameters of the scale (a larger ``element_n`` makes scalarprod's unrolled loop
    run). ``ptx`` is the compiled source, ``baseline`` its outputs, ``kernels`` the kernels its launches
    run and ``programs`` their decoded programs. Rewritten runs get an instruction budget
    (``budget_factor`` times the longest original launch, plus ``budget_extra``) so that a poisoned trip
    count ends in an error instead of running for hours.
    """

    def __init__(self, name: str, scale: str = "tiny", *, overrides: Mapping[str, Any] | None = None,
                 budget_factor: int = 100, budget_extra: int = 10**7):
        from ...api import RawModule
        from ...workloads.base import get_workload

        self.cls = get_workload(name)
        self.name = name
        self.scale = scale
        self.params = {**self.cls.params(scale), **(overrides or {})}
        paths = self.cls.source_paths()
        if len(paths) != 1:
            raise ValueError(f"workload {name!r} has {len(paths)} sources; the harness handles one")
        self.ptx: str = RawModule(path=str(paths[0]), options=self.cls.options).ptx
        self.budget: int | None = None
        first = self.traced(self.ptx, trace=False)
        self.baseline = first.outputs
        self.programs = first.programs
        self.kernels = list(first.programs)
        self.budget = budget_factor * first.longest_launch + budget_extra

    def traced(self, ptx: str, *, trace: bool = True) -> TracedRun:
        """Run the workload's launch sequence with ``ptx``; ``trace`` records one trace per launch."""
        from ...api import Device, RawModule
        from ...functional.launch import LaunchOptions
        from ...workloads.base import RunContext

        options = LaunchOptions() if self.budget is None else LaunchOptions(budget_warp_instructions=self.budget)
        module = RawModule(ptx=ptx)
        workload = self.cls()
        inputs = workload.inputs(self.params, np.random.default_rng(self.cls.seed))
        dev = Device(trace=trace, options=options, echo_printf=False)
        with dev:
            outputs = workload.launch(RunContext(module, dev, self.scale, self.params), inputs, self.params)
            programs = {r.kernel: module.get_function(r.kernel).program(dev) for r in dev.launches}
        longest = max((r.warp_instructions for r in dev.launches), default=0)
        return TracedRun({k: np.asarray(v) for k, v in outputs.items()}, list(dev.traces), programs, longest)

    def run(self, ptx: str) -> dict[str, np.ndarray]:
        """The outputs of a run with ``ptx`` (the ``run`` of :func:`verify_block`)."""
        return self.traced(ptx, trace=False).outputs

    def function(self, kernel: str) -> Function:
        return kernel_function(self.ptx, kernel)


def verify_candidates(workload: str, scale: str = "tiny", *, patterns: Sequence[str] = POISON_PATTERNS,
                      source: str = "auto", kernels: Iterable[str] | None = None,
                      harness: WorkloadHarness | None = None, scope: str = "block") -> list[BlockVerification]:
    """Verify every block of ``source`` (see :func:`candidate_blocks`) in each kernel the workload launches.

    Raises :class:`OffloadMismatch` at the first block whose emulated offload changes an output. A block
    the run never enters passes vacuously: :func:`block_instances` on a traced run tells which ran.
    """
    h = harness or WorkloadHarness(workload, scale)
    out = []
    for kernel in kernels or h.kernels:
        for begin, end in candidate_blocks(h.function(kernel), source, h.programs.get(kernel)):
            out.append(verify_block(h.ptx, kernel, begin, end, h.run, patterns, baseline=h.baseline, scope=scope))
    return out
