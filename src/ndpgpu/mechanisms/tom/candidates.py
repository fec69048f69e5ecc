"""TOM's offload-candidate pass (seed 000, section 3.1; extraction G7-G10).

For one kernel, :func:`find_candidates` enumerates code regions, prices each with the bandwidth cost
model (:mod:`.cost`) and picks the offload candidates that make up the kernel's offload metadata table.

**Regions** are contiguous instruction ranges ``[begin, end)`` entered only at ``begin``. The kernel is
cut into *segments* at the instructions an offloaded block may not contain (:func:`disallowed`:
shared-memory accesses, barriers, fences, atomics and reductions, texture and surface instructions, and
calls, ``ret``, ``exit`` and ``trap``). Seeds are every natural loop (inner and outer), every
straight-line span (a basic block, or the part of it between disallowed instructions) and every closed
acyclic span of consecutive basic blocks within a segment (if-then-else regions, sequences of blocks:
section 3.1.4 only asks that branch destinations stay inside the block; a span never holds a back edge,
so loops stay their own seeds). Each seed is then *closed*: grown until every branch inside targets an
instruction inside or exactly ``end`` (so a warp leaves the region only at ``end``, where it reconverges)
and no instruction after ``begin`` is entered from outside. A seed that cannot be closed without crossing
a segment boundary, or that is left or entered before ``begin``, is rejected.

**Counting** (G9). ``REG_TX`` is the live-in registers plus the special registers the region reads
(``%tid.x``...), ``REG_RX`` the live-out registers, both in 32-bit units (64-bit registers count 2,
predicates 1, specials 1). ``N_LD``/``N_ST`` count global and local ``ld``/``ldu``/``st`` instructions
once each (a vector access counts once); ``ld.param``, ``ld.const`` and prefetches are allowed and not
counted. An instruction inside loops of the region counts once per iteration of each: a ``static`` loop
by its count, an ``unknown`` loop as 1 (G3c). One ``entry`` loop that is not nested in another loop of
the region, the heaviest in loads and stores, stays symbolic: its instructions make ``n_ld_iter`` /
``n_st_iter``, and the region is a *conditional* candidate when some trip count ``T`` makes
BW_TX + BW_RX < 0 (``tmin``, G10); other ``entry`` loops count as 1. ``reg_tx_uniform`` is the part of
``REG_TX`` that is warp-uniform (:mod:`ndpgpu.analysis.uniform`: launch constants, ``%ctaid``, parameters and
values derived only from them); it is recorded always and priced once per warp only with
``CostParams.uniform_live_ins`` (not the paper's model, off by default), which then also decides the
selection, ``tmin`` and the tags.

**Selection** (G8). A region is a candidate when it has a global/local load or store, at most
``max_live_regs`` live registers (live-in and live-out names, specials included) and BW_TX + BW_RX < 0,
at its static trip count or, for a conditional candidate, at ``tmin``. Candidates are taken greedily,
most negative total first, skipping any that overlaps one already taken, up to ``max_entries``
metadata-table entries. Every region not taken is kept in :attr:`CandidateTable.rejected` with the
reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ...analysis import Analyses, analyze
from ...analysis.cfg import branch_target
from ...analysis.loops import Loop
from ...analysis.memops import mem_op
from ...analysis.uniform import uniform_special, varying_registers
from ...frontend.ir import ArgList, Function, Instruction, Operand, Special, Vec
from .cost import DEFAULT_PARAMS, CostParams, bw_per_warp, min_trips

METADATA_BITS_PER_ENTRY = 258
"""Bits of one offload metadata table entry (begin/end PC, live-in/live-out bit vectors, tag, condition;
PTX ISA 1.4 basis, section 3.3)."""

DEFAULT_MAX_ENTRIES = 40
"""Metadata table entries per kernel: twice the paper's observed maximum of 20 (section 6.6)."""

_DISALLOWED_OPCODES = {
    "bar": "barrier", "barrier": "barrier", "mbarrier": "barrier",
    "membar": "memory fence", "fence": "memory fence",
    "atom": "atomic", "red": "atomic reduction",
    "tex": "texture", "tld4": "texture", "txq": "texture",
    "suld": "surface", "sust": "surface", "sured": "surface", "suq": "surface",
    "cp": "asynchronous copy to shared memory", "ldmatrix": "shared-memory access",
    "stmatrix": "shared-memory access",
    "call": "call", "ret": "return", "exit": "exit", "trap": "trap", "brkpt": "trap", "brx": "indirect branch",
}


def disallowed(ins: Instruction) -> str | None:
    """Why ``ins`` may not be inside an offloaded block, or None when it may."""
    why = _DISALLOWED_OPCODES.get(ins.opcode)
    if why is not None:
        return why
    m = mem_op(ins)
    if m is not None and m.space == "shared":
        return "shared-memory access"
    if m is not None and m.space == "generic" and m.kind != "prefetch":
        return "generic-address access (it may reach shared memory)"
    return None


def counted_access(ins: Instruction) -> str | None:
    """``"ld"`` or ``"st"`` when ``ins`` counts in N_LD/N_ST (a global or local load or store), else None."""
    m = mem_op(ins)
    if m is None or m.space not in ("global", "local"):
        return None
    if m.kind == "load":
        return "ld"
    if m.kind == "store":
        return "st"
    return None


def _specials(op: Operand | None) -> Iterator[str]:
    if isinstance(op, Special):
        yield op.name
    elif isinstance(op, (Vec, ArgList)):
        for it in op.items:
            yield from _specials(it)


def specials_read(ins: Instruction) -> set[str]:
    """Special registers (``%tid.x``, ``%ctaid.y``...) that ``ins`` reads."""
    out: set[str] = set()
    for op in ins.operands:
        out.update(_specials(op))
    return out


def _reg_key(name: str) -> tuple[str, int, str]:
    """Natural order of register names: ``%r2`` before ``%r10``."""
    digits = len(name) - len(name.rstrip("0123456789"))
    if digits:
        return name[:-digits], int(name[-digits:]), ""
    return name, -1, name


def register_units(fn: Function, name: str) -> int:
    """32-bit units of a register (G9): 64-bit registers 2, predicates and specials 1."""
    t = fn.regs.get(name)
    if t is None:
        return 1  # a special register, or the carry flag
    return max(1, t.bits // 32) if t.name != "pred" else 1


def pc_map(fn: Function, program=None) -> list[int]:
    """The decoded-program PC of each instruction of ``fn.body``, plus one entry for ``len(body)``.

    Without ``program`` the PCs are the instruction indices, which is only right for a kernel without
    calls (the decoder inserts argument copies around a call). With a :class:`ndpgpu.functional.decode.
    Program` of ``fn`` the map follows its ``line_of_pc``; a mismatch raises ValueError.
    """
    body = fn.body
    n = len(body)
    if program is None:
        calls = [ins.line for ins in body if ins.opcode == "call"]
        if calls:
            raise ValueError(f"kernel {fn.name!r} has calls (PTX line {calls[0]}): its trace PCs differ from "
                             "instruction indices; pass program= (the decoded kernel)")
        return list(range(n + 1))
    if program.kernel != fn.name:
        raise ValueError(f"program is kernel {program.kernel!r}, not {fn.name!r}")
    lines = program.line_of_pc
    owner = program.function_of_pc
    total = len(lines)
    pcs: list[int] = []
    pc = 0
    for i, ins in enumerate(body):
        if pc >= total or owner[pc] != fn.name or int(lines[pc]) != ins.line:
            raise ValueError(f"program does not match kernel {fn.name!r} at PTX line {ins.line} (PC {pc})")
        pcs.append(pc)
        pc += 1
        if i + 1 < n and body[i + 1].line == ins.line:
            continue  # several instructions on one line: one row each
        while pc < total and owner[pc] == fn.name and int(lines[pc]) == ins.line:
            pc += 1  # the extra rows of a call (argument and result copies)
    if pc >= total or owner[pc] != fn.name:
        raise ValueError(f"program does not match kernel {fn.name!r}: no exit row after the body")
    pcs.append(pc)
    return pcs


# ---------------------------------------------------------------------------------------------------------
# Results


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One offload candidate: an entry of the kernel's offload metadata table."""

    index: int  # position in the kernel's offload metadata table
    kernel: str
    begin: int  # IR instruction indices (fn.body), half-open [begin, end)
    end: int
    begin_pc: int  # the same range in decoded-program/trace PC space, half-open, contiguous
    end_pc: int
    live_in: tuple[str, ...]  # register names, then special registers read (G9)
    live_out: tuple[str, ...]
    reg_tx: int  # 32-bit units (64-bit registers 2, predicates 1, specials 1)
    reg_rx: int
    n_ld_fixed: int  # global+local loads/stores executed once per instance (static inner loops multiplied)
    n_st_fixed: int
    n_ld_iter: int  # per iteration of the region's symbolic 'entry' loop (0 if none)
    n_st_iter: int
    trip: str  # "none", "static", "entry", "unknown" (the region's main loop; unknown counts as 1)
    trip_count: int | None  # static count when known
    header_pc: int | None  # trace PC of the main loop header's first instruction (executions = trip count)
    tmin: int | None  # conditional candidates: the smallest trip count with BW_TX + BW_RX < 0
    reg_tx_uniform: int = 0  # units of reg_tx that are warp-uniform (priced once per warp with uniform_live_ins)

    def effective_trips(self, trips: int | None = None) -> int:
        """The trip count used when none is given: the static count, else ``tmin``, else 1."""
        if trips is not None:
            return trips
        if self.trip_count is not None:
            return self.trip_count
        return self.tmin if self.tmin is not None else 1

    def counts(self, trips: int | None = None) -> tuple[int, int]:
        """(N_LD, N_ST) of one instance at ``trips`` iterations of the symbolic loop."""
        t = self.effective_trips(trips)
        return self.n_ld_fixed + t * self.n_ld_iter, self.n_st_fixed + t * self.n_st_iter

    def bandwidth(self, trips: int | None = None, params: CostParams = DEFAULT_PARAMS) -> tuple[float, float]:
        """(BW_TX, BW_RX) per warp at ``trips`` (default: the static count, else ``tmin``, else 1)."""
        n_ld, n_st = self.counts(trips)
        return bw_per_warp(self.reg_tx, self.reg_rx, n_ld, n_st, params, self.reg_tx_uniform)

    @property
    def conditional(self) -> bool:
        """Offloaded only when the loop's run-time trip count is at least ``tmin``."""
        return self.trip == "entry" and self.tmin is not None

    @property
    def condition(self) -> str:
        """The run-time condition in words ("" for an unconditional candidate)."""
        if not self.conditional:
            return ""
        return f"trips(header PC {self.header_pc}) >= {self.tmin}"

    def tag(self, trips: int | None = None, params: CostParams = DEFAULT_PARAMS) -> tuple[bool, bool]:
        """The 2-bit tag: (offloading saves TX, saves RX), i.e. (BW_TX < 0, BW_RX < 0) at ``trips`` (G7)."""
        tx, rx = self.bandwidth(trips, params)
        return tx < 0, rx < 0

    @property
    def live_regs(self) -> int:
        """Distinct live registers (live-in and live-out names)."""
        return len(set(self.live_in) | set(self.live_out))


@dataclasses.dataclass(frozen=True)
class Rejected:
    """A region that is not a candidate, and why; the BW terms when they were computed."""

    begin: int
    end: int
    begin_pc: int
    end_pc: int
    origin: str  # the seed it came from: "loop $L__BB0_3", "block $L__BB0_5", ...
    reason: str
    bw_tx: float | None = None
    bw_rx: float | None = None
    live_regs: int | None = None


def _tag_text(tag: tuple[bool, bool]) -> str:
    return "".join(c for c, bit in zip(("T", "R"), tag, strict=True) if bit) or "-"


@dataclasses.dataclass
class CandidateTable:
    """The offload metadata table of one kernel, and the regions left out."""

    kernel: str
    candidates: list[Candidate]
    rejected: list[Rejected]
    params: CostParams = dataclasses.field(default_factory=CostParams)

    def metadata_bits(self) -> int:
        """Size of the kernel's offload metadata table: 258 bits per entry."""
        return METADATA_BITS_PER_ENTRY * len(self.candidates)

    def rows(self) -> list[dict]:
        """One dict per candidate (JSON-ready), with BW_TX, BW_RX, their total and the tag at the
        default trip count (static count, else tmin, else 1)."""
        out = []
        for c in self.candidates:
            tx, rx = c.bandwidth(params=self.params)
            n_ld, n_st = c.counts()
            row = dataclasses.asdict(c)
            row["live_in"] = list(c.live_in)
            row["live_out"] = list(c.live_out)
            row.update(n_ld=n_ld, n_st=n_st, trips=c.effective_trips(), bw_tx=tx, bw_rx=rx, bw_total=tx + rx,
                       tag=_tag_text(c.tag(params=self.params)), conditional=c.conditional,
                       condition=c.condition, live_regs=c.live_regs)
            out.append(row)
        return out


# ---------------------------------------------------------------------------------------------------------
# The pass


@dataclasses.dataclass
class _Region:
    begin: int
    end: int
    origin: str
    cand: Candidate | None = None  # index 0 until selected
    total: float = 0.0


class _Pass:
    def __init__(self, fn: Function, an: Analyses, pcs: list[int], params: CostParams, max_live_regs: int):
        self.fn = fn
        self.an = an
        self.cfg = an.cfg
        self.pcs = pcs
        self.params = params
        self.max_live_regs = max_live_regs
        body = fn.body
        n = len(body)
        self.why = [disallowed(ins) for ins in body]
        self.access = [counted_access(ins) for ins in body]
        self.target: list[int | None] = [None] * n
        for i, ins in enumerate(body):
            if ins.opcode == "bra":
                label = branch_target(ins)
                if label is not None and label in fn.labels:
                    self.target[i] = fn.labels[label]
        # segment bounds: the allowed run containing each allowed instruction
        self.seg_lo = [0] * n
        self.seg_hi = [0] * n
        i = 0
        while i < n:
            if self.why[i] is not None:
                i += 1
                continue
            j = i
            while j < n and self.why[j] is None:
                j += 1
            for k in range(i, j):
                self.seg_lo[k], self.seg_hi[k] = i, j
            i = j
        self.rejected: list[Rejected] = []
        self._varying: frozenset[str] | None = None

    def uniform_units(self, regs: list[str], specials: list[str]) -> int:
        """32-bit units of the warp-uniform ones among live-in ``regs`` and the ``specials`` read."""
        if self._varying is None:
            self._varying = varying_registers(self.fn, self.cfg, self.an.defuse)
        fn = self.fn
        return (sum(register_units(fn, r) for r in regs if r not in self._varying)
                + sum(register_units(fn, s) for s in specials if uniform_special(s)))

    # -- helpers --------------------------------------------------------------------------------
    def line(self, i: int) -> int:
        body = self.fn.body
        return body[i].line if i < len(body) else (body[-1].line + 1 if body else 0)

    def reject(self, b: int, e: int, origin: str, reason: str, **bw) -> None:
        self.rejected.append(Rejected(b, e, self.pcs[b], self.pcs[e], origin, reason, **bw))

    def _first_disallowed(self, b: int, e: int) -> int | None:
        return next((i for i in range(b, e) if self.why[i] is not None), None)

    def _describe(self, i: int) -> str:
        ins = self.fn.body[i]
        return f"{ins.full} ({self.why[i]}) at PTX line {ins.line}"

    # -- enumeration ----------------------------------------------------------------------------
    def seeds(self) -> Iterator[tuple[int, int, str]]:
        cfg = self.cfg
        label_of = {b.index: (b.labels[0] if b.labels else f"B{b.index}") for b in cfg.blocks}
        for h in sorted(self.an.loops.loops, key=lambda h: cfg.blocks[h].start):
            lp = self.an.loops.loops[h]
            lo = min(cfg.blocks[x].start for x in lp.blocks)
            hi = max(cfg.blocks[x].end for x in lp.blocks)
            yield lo, hi, f"loop {lp.label}"
        for first, last in self._straight_chains():
            blk = cfg.blocks[first]
            end = cfg.blocks[last].end
            stop = end - 1 if self.target[end - 1] is not None else end  # without its branch
            i = blk.start
            while i < stop:
                if self.why[i] is not None:
                    i += 1
                    continue
                j = i
                while j < stop and self.why[j] is None:
                    j += 1
                yield i, j, f"block {label_of[blk.index]}" + (f"+{i - blk.start}" if i > blk.start else "")
                i = j
        yield from self._closed_spans(label_of)

    def _closed_spans(self, label_of: dict[int, str]) -> Iterator[tuple[int, int, str]]:
        """Every closed single-entry range of consecutive basic blocks inside one segment (section 3.1.4: a
        block may hold control flow as long as every branch's destination stays inside it): sequences of
        blocks and loops, if-then-else regions, a loop with its guard. A range starts at a block's first
        instruction (or a segment's) and ends at a block boundary, or just before a block's closing branch.
        One pass per start extends the end block by block and keeps what closure still needs: a branch
        target or an entering predecessor before the start rules the start out from there on; one after the
        end asks for a later end."""
        cfg, body = self.cfg, self.fn.body
        starts_in: dict[int, int] = {blk.start: blk.index for blk in cfg.blocks}
        seen_seg: set[int] = set()
        for blk in cfg.blocks:
            if self.why[blk.start] is not None:
                continue
            lo, hi = self.seg_lo[blk.start], self.seg_hi[blk.start]
            if lo in seen_seg:
                continue
            seen_seg.add(lo)
            cuts = {lo, hi}
            for b2 in cfg.blocks:
                if lo < b2.start < hi:
                    cuts.add(b2.start)
                if lo < b2.end <= hi and self.target[b2.end - 1] is not None and b2.end - 1 > lo:
                    cuts.add(b2.end - 1)
            points = sorted(cuts)
            for k, b in enumerate(points[:-1]):
                if b != lo and b not in starts_in:
                    continue  # a range is entered at a block's first instruction (or the segment's)
                need = b
                prev = b
                for e in points[k + 1:]:
                    broken = False
                    for i in range(prev, e):
                        t = self.target[i]
                        if t is not None:
                            if t <= i:  # a back edge (t < b leaves the range; t >= b is a loop: its own seed)
                                broken = True
                                break
                            need = max(need, t)
                        if i > b and i in starts_in:
                            for p in cfg.blocks[starts_in[i]].preds:
                                last = cfg.blocks[p].end - 1
                                if last < b:
                                    broken = True
                                    break
                                need = max(need, last + 1)
                            if broken:
                                break
                    if broken:
                        break
                    prev = e
                    if e >= need and e > b:
                        head = cfg.block_of_instr[b]
                        yield b, e, (f"span {label_of[head]}" + (f"+{b - cfg.blocks[head].start}"
                                                                    if b > cfg.blocks[head].start else "")
                                     + f"..line {body[e - 1].line}")

    def _straight_chains(self) -> Iterator[tuple[int, int]]:
        """(first, last) block of each maximal chain that runs straight through: every block but the last
        falls through to the next, which control reaches from nowhere else."""
        blocks = self.cfg.blocks
        k = 0
        while k < len(blocks):
            first = k
            while (k + 1 < len(blocks) and self.target[blocks[k].end - 1] is None
                   and self.fn.body[blocks[k].end - 1].opcode not in ("ret", "exit", "trap")
                   and blocks[k].succs == [k + 1] and blocks[k + 1].preds == [k]):
                k += 1
            yield first, k
            k += 1

    def not_closed(self, b: int, e: int) -> str | None:
        """Why ``[b, e)`` is not a closed single-entry region, or None when it is: every branch inside
        targets ``[b, e]`` and no instruction after ``b`` is entered from outside."""
        for i in range(b, e):
            t = self.target[i]
            if t is not None and not b <= t <= e:
                return (f"branch at PTX line {self.line(i)} leaves the region (to line {self.line(t)}, "
                        f"not its end at line {self.line(e)})")
        for blk in self.cfg.blocks:
            if b < blk.start < e:
                for p in blk.preds:
                    last = self.cfg.blocks[p].end - 1  # the branch or fall-through that enters blk
                    if not b <= last < e:
                        return f"PTX line {self.line(blk.start)} is entered from line {self.line(last)}, outside"
        return None

    def close(self, b: int, e: int) -> tuple[int, str | None]:
        """Grow ``[b, e)`` forward until it is closed (:meth:`not_closed`): its end moves past every branch
        target and every entering branch after it. (The closed end, None), or (``e``, why) when that fails:
        a branch or entry from before ``b``, or growth across a disallowed instruction."""
        cfg = self.cfg
        hi = self.seg_hi[b] if self.why[b] is None else b
        while True:
            why = self.not_closed(b, e)
            if why is None:
                return e, None
            need = e
            for i in range(b, e):
                t = self.target[i]
                if t is not None:
                    if t < b:
                        return e, why
                    need = max(need, t)
            for blk in cfg.blocks:
                if b < blk.start < need:
                    for p in blk.preds:
                        last = cfg.blocks[p].end - 1
                        if last < b:
                            return e, why
                        need = max(need, last + 1)
            if need <= e:
                return e, why
            if need > hi:
                return e, f"{why}; closing it would take in {self._describe(hi)}" if hi < len(self.fn.body) else why
            e = need

    # -- evaluation -----------------------------------------------------------------------------
    def _contained_loops(self, b: int, e: int) -> list[Loop]:
        cfg = self.cfg
        return [lp for lp in self.an.loops.loops.values()
                if all(b <= cfg.blocks[x].start and cfg.blocks[x].end <= e for x in lp.blocks)]

    def evaluate(self, b: int, e: int, origin: str) -> _Region | None:
        """Price ``[b, e)``; record a rejection and return None when it cannot be a candidate."""
        fn, an, cfg, p = self.fn, self.an, self.cfg, self.params
        if not any(self.access[i] for i in range(b, e)):
            self.reject(b, e, origin, "no global or local load or store")
            return None
        inside = self._contained_loops(b, e)
        by_header = {lp.header: lp for lp in inside}
        trips = {lp.header: an.loops.trip_count(lp.header) for lp in inside}
        factor = {h: (t.count if t.kind == "static" and t.count is not None else 1) for h, t in trips.items()}
        w_ld = p.coal_ld * p.miss_ld * (1 + p.line_over_addr)
        w_st = p.warp_size + 1.25 * p.coal_st

        def chain(i: int) -> list[int]:
            """Headers of the region's loops around instruction ``i``, innermost first."""
            return [lp.header for lp in an.loops.loops_containing(cfg.block_of_instr[i]) if lp.header in by_header]

        def weight(h: int) -> float:
            """Memory weight of one iteration of loop ``h`` (inner static loops multiplied)."""
            total = 0.0
            for i in range(b, e):
                kind = self.access[i]
                if kind is None or h not in (hs := chain(i)):
                    continue
                mult = 1
                for g in hs[: hs.index(h)]:
                    mult *= factor[g]
                total += mult * (w_ld if kind == "ld" else w_st)
            return total

        top = [lp for lp in inside if lp.parent not in by_header]
        weights = {lp.header: weight(lp.header) for lp in top}
        by_weight = sorted(top, key=lambda lp: (-weights[lp.header], cfg.blocks[lp.header].start))
        symbolic = next((lp for lp in by_weight if trips[lp.header].kind == "entry" and weights[lp.header] > 0),
                        None)
        main = symbolic or (by_weight[0] if by_weight else None)
        n = {"ld": [0, 0], "st": [0, 0]}  # [fixed, per iteration]
        for i in range(b, e):
            kind = self.access[i]
            if kind is None:
                continue
            mult = 1
            per_iter = 0
            for g in chain(i):
                if symbolic is not None and g == symbolic.header:
                    per_iter = 1
                else:
                    mult *= factor[g]
            n[kind][per_iter] += mult
        lv = an.liveness
        specials = sorted(set().union(*(specials_read(fn.body[i]) for i in range(b, e))))
        regs_in = sorted(lv.range_live_in(b, e), key=_reg_key)
        live_in = tuple(regs_in) + tuple(specials)
        live_out = tuple(sorted(lv.range_live_out(b, e), key=_reg_key))
        reg_tx = sum(register_units(fn, r) for r in live_in)
        reg_rx = sum(register_units(fn, r) for r in live_out)
        reg_tx_uniform = self.uniform_units(regs_in, specials)
        trip, trip_count, header_pc, tmin = "none", None, None, None
        if main is not None:
            tc = trips[main.header]
            trip = tc.kind
            trip_count = tc.count if tc.kind == "static" else None
            header_pc = self.pcs[cfg.blocks[main.header].start]
        if symbolic is not None:
            tmin = min_trips(reg_tx, reg_rx, n["ld"][0], n["st"][0], n["ld"][1], n["st"][1], p, reg_tx_uniform)
        cand = Candidate(0, fn.name, b, e, self.pcs[b], self.pcs[e], live_in, live_out, reg_tx, reg_rx,
                         n["ld"][0], n["st"][0], n["ld"][1], n["st"][1], trip, trip_count, header_pc, tmin,
                         reg_tx_uniform)
        tx, rx = cand.bandwidth(params=p)
        live = cand.live_regs
        info = dict(bw_tx=tx, bw_rx=rx, live_regs=live)
        if symbolic is not None and tmin is None:
            self.reject(b, e, origin, "BW_TX + BW_RX >= 0 at every trip count of its entry loop", **info)
            return None
        if tx + rx >= 0:
            self.reject(b, e, origin, f"BW_TX + BW_RX = {tx + rx:g} >= 0", **info)
            return None
        if live > self.max_live_regs:
            self.reject(b, e, origin, f"{live} live registers > {self.max_live_regs}", **info)
            return None
        return _Region(b, e, origin, cand, tx + rx)

    # -- driver ---------------------------------------------------------------------------------
    def run(self, max_entries: int) -> CandidateTable:
        seen: dict[tuple[int, int], str] = {}
        regions: list[_Region] = []
        for b, e, origin in self.seeds():
            inner = self._first_disallowed(b, e)
            if inner is not None:
                self.reject(b, e, origin, f"contains {self._describe(inner)}")
                continue
            closed, why = self.close(b, e)
            if why is not None:
                self.reject(b, e, origin, why)
                continue
            if closed != e:
                origin = f"{origin} closed to line {self.line(closed - 1)}"
                e = closed
            if (b, e) in seen:
                continue
            seen[(b, e)] = origin
            region = self.evaluate(b, e, origin)
            if region is not None:
                regions.append(region)
        regions.sort(key=lambda r: (r.total, r.end - r.begin, r.begin))
        taken: list[_Region] = []
        losers: list[tuple[_Region, _Region | None]] = []
        for r in regions:
            clash = next((t for t in taken if r.begin < t.end and t.begin < r.end), None)
            if clash is None and len(taken) < max_entries:
                taken.append(r)
            else:
                losers.append((r, clash))
        taken.sort(key=lambda r: r.begin)
        index = {id(r): k for k, r in enumerate(taken)}
        for r, clash in losers:
            assert r.cand is not None
            tx, rx = r.cand.bandwidth(params=self.params)
            if clash is None:
                why = f"the metadata table is full ({max_entries} entries)"
            else:
                why = (f"overlaps candidate #{index[id(clash)]} [PTX lines {self.line(clash.begin)}-"
                       f"{self.line(clash.end - 1)}], which saves more (BW {clash.total:g})")
            self.reject(r.begin, r.end, r.origin, f"{why}; BW_TX + BW_RX = {r.total:g}",
                        bw_tx=tx, bw_rx=rx, live_regs=r.cand.live_regs)
        cands = [dataclasses.replace(r.cand, index=k) for k, r in enumerate(taken)]  # type: ignore[type-var]
        self.rejected.sort(key=lambda x: (x.begin, x.end))
        return CandidateTable(self.fn.name, cands, self.rejected, self.params)


def find_candidates(fn: Function, program=None, params: CostParams = DEFAULT_PARAMS, max_live_regs: int = 32,
                    max_entries: int = DEFAULT_MAX_ENTRIES) -> CandidateTable:
    """TOM's offload candidates of kernel ``fn`` (see the module docstring).

    ``program`` is the decoded kernel (:meth:`ndpgpu.api.Function.program`); it gives the trace PCs and is
    required when the kernel contains calls. ``max_live_regs`` caps the live registers of a candidate,
    ``max_entries`` the metadata table's entries.
    """
    if max_live_regs < 0 or max_entries < 0:
        raise ValueError("max_live_regs and max_entries must be >= 0")
    pcs = pc_map(fn, program)
    return _Pass(fn, analyze(fn), pcs, params, max_live_regs).run(max_entries)


__all__ = ["Candidate", "CandidateTable", "Rejected", "METADATA_BITS_PER_ENTRY", "counted_access", "disallowed",
           "find_candidates", "pc_map", "register_units", "specials_read"]
