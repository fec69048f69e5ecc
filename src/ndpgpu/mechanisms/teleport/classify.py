"""TELEPORT's precalculability analysis on PTX (seed 002, Sec. 2.1 and 3.1.1).

Every global read of a kernel is one *read index*. Its address, as the shared affine analysis
(:mod:`ndpgpu.analysis.affine`) expresses it, decides its class:

* ``static``: only launch constants (``%ntid``, ``%nctaid``, scalar parameters, the array's base);
* ``quasi-static``: also ``%tid.*`` and ``%ctaid.*`` (known when the block is dispatched), with its
  *degree*, the largest number of ``%ctaid`` atoms multiplied in one term (Eq. 1; usable when <= 1);
* ``indirect``: the index was read from memory (``a[b[i]]``);
* ``operator``: an operator other than + - x (``&``, shifts by a register, ``/``, ``%``, min/max);
* ``control``: the index depends on which path was taken (``a[c ? 1 : 0]``, a value set in a branch);
* ``induction``: the index is a loop variable (``edges[i]``), reported non-precalculable as the paper does.

The paper's priority Indirect > Operator > Control > Induction applies; an index that is a loop's
induction variable is ``induction`` even when the loop starts from a loaded value (``edges[i]`` with
``i = nodes[tid].starting``), and ``indirect`` only when the index itself is a loaded value.
"""

from __future__ import annotations

import dataclasses

from ...analysis import Analyses, analyze
from ...analysis.affine import Affine
from ...analysis.defuse import START
from ...analysis.linexpr import Fail
from ...analysis.memops import mem_op
from ...frontend.ir import Addr, Function, Param, Reg

CLASSES = ("static", "quasi-static", "indirect", "operator", "control", "induction")
PRECALCULABLE = ("static", "quasi-static")
_FAIL_CLASS = {"load": "indirect", "operator": "operator", "float": "operator", "special": "operator",
               "control": "control", "undefined": "control", "induction": "induction"}


@dataclasses.dataclass(frozen=True)
class ReadIndex:
    """One global read of a kernel: where, on which array, its class and (when affine) its address."""

    instr: int  # position in the function body
    line: int  # PTX line
    array: str | None  # the pointer parameter it reads (None when no single base is found)
    cls: str  # one of CLASSES
    degree: int  # %ctaid degree of a static/quasi-static index (-1 otherwise)
    width: int  # bytes per thread
    expr: Affine | None  # the byte address (None when not affine)
    detail: str = ""

    @property
    def usable(self) -> bool:
        """Precalculable and of degree <= 1 (what the preload table can hold)."""
        return self.cls in PRECALCULABLE and self.degree <= 1 and self.array is not None

    @property
    def offset(self) -> Affine | None:
        """The address minus the array's base (bytes)."""
        if self.expr is None or self.array is None:
            return None
        return self.expr - Affine.atom(self.array)


def _is_global_read(fn: Function, i: int) -> bool:
    op = mem_op(fn.body[i], i)
    return op is not None and op.kind == "load" and op.space in ("global", "generic")


def _dependency_kind(an: Analyses, instr: int, reg: str) -> str | None:
    """Walk ``reg``'s definitions back from ``instr``: ``load`` when the value itself comes from a global or
    generic load, ``induction`` when it is a loop's induction variable (its start is not followed), None
    when neither is met."""
    cfg, du, rd, loops = an.cfg, an.defuse, an.reaching, an.loops
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()
    stack = [(reg, instr)]
    while stack:
        r, i = stack.pop()
        if (r, i) in seen:
            continue
        seen.add((r, i))
        b = cfg.block_of_instr[i]
        if any(r in loops.induction_variables(h) for h in _headers_containing(loops, b)):
            found.add("induction")
            continue
        blk = cfg.blocks[b]
        for d in rd.at(r, b, i if blk.start <= i < blk.end else blk.end):
            if d == START:
                continue
            j, _ = du.sites[d]
            ins = an.fn.body[j]
            if ins.opcode in ("ld", "ldu"):
                op = mem_op(ins, j)
                if op is not None and op.space != "param":
                    found.add("load")
                continue
            for u in du.uses[j]:
                stack.append((u, j))
    if "load" in found:
        return "load"
    return "induction" if found else None


def _headers_containing(loops, block: int) -> list[int]:
    return [lp.header for lp in loops.loops_containing(block)]


def _array_of(v: Affine, params: dict[str, Param]) -> str | None:
    """The pointer parameter an address is based on: the one parameter added with coefficient 1. When a 32-bit
    scalar parameter is added too (``data[id * W + L_POS - 1]`` with ``int L_POS``), the 64-bit one (a pointer
    on the 64-bit target) is the base; None when that leaves no single candidate."""
    bases = [m[0] for m, c in v.terms.items() if len(m) == 1 and c == 1 and m[0] in params]
    if len(bases) > 1:
        bases = [b for b in bases if params[b].type.bits == 64]
    return bases[0] if len(bases) == 1 else None


def classify_reads(fn: Function, an: Analyses | None = None) -> list[ReadIndex]:
    """Every global read of ``fn`` with its class, in program order."""
    an = an or analyze(fn)
    aff = an.affine
    params = {p.name: p for p in fn.params}
    out: list[ReadIndex] = []
    for i, ins in enumerate(fn.body):
        if not _is_global_read(fn, i):
            continue
        op = mem_op(ins, i)
        assert op is not None
        v = aff.address_or_reason(i)
        addr = ins.operands[op.addr_operand]
        base_reg = addr.base.name if isinstance(addr, Addr) and isinstance(addr.base, Reg) else None
        if isinstance(v, Fail):
            cls = _FAIL_CLASS.get(v.kind, "control")
            if base_reg is not None and cls in ("indirect", "control", "induction"):
                dep = _dependency_kind(an, i, base_reg)
                if dep == "induction" and cls in ("indirect", "control"):
                    # edges[i]: i is the loop variable (its start is loaded); a remainder loop's a[i] (its start
                    # is the unrolled loop's last counter or 0): the index is a loop variable in the source
                    cls = "induction"
            out.append(ReadIndex(i, ins.line, None, cls, -1, op.width, None, str(v)))
            continue
        array = _array_of(v, params)
        atoms = v.atoms()
        if any(a.startswith("loop:") for a in atoms):
            out.append(ReadIndex(i, ins.line, array, "induction", -1, op.width, v, "a loop counter in the index"))
            continue
        per_thread = [a for a in atoms if a.startswith(("%tid", "%ctaid"))]
        deg = v.degree_in(("%ctaid",))
        cls = "quasi-static" if per_thread else "static"
        out.append(ReadIndex(i, ins.line, array, cls, deg, op.width, v))
    return out


def count_classes(reads: list[ReadIndex]) -> dict[str, int]:
    """Reads per class (every class present, zeros included)."""
    out = dict.fromkeys(CLASSES, 0)
    for r in reads:
        out[r.cls] += 1
    return out
