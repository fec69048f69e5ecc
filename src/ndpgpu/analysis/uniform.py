"""Warp-uniform registers: the registers that hold one value for every active lane of a warp.

A register is *warp-uniform* when every definition of it computes the same value in every lane that runs it:
its sources are immediates, kernel parameters (``ld.param``), constant memory at a uniform address
(``ld.const``, read-only for the launch), the launch's uniform special registers (:data:`UNIFORM_SPECIALS`:
``%ctaid``, ``%nctaid``, ``%ntid``, ``%gridid``) and other uniform registers, through a side-effect-free
instruction (arithmetic, moves, conversions, comparisons, selects), unguarded or guarded by a uniform
predicate. Everything else is *per-lane* (varying): ``%tid``, ``%laneid`` and every other special register,
loads from global, local, shared or generic memory, atomics, shuffles, votes, texture reads and call results.

Control dependence: the lanes of a warp split at a conditional ``bra`` on a varying predicate and reconverge
at the branch block's immediate post-dominator. A register defined in the blocks between (reachable from the
branch's successors without passing the post-dominator) may then hold different values in different lanes
once they reconverge, so it is varying when any instruction outside those blocks reads it. Inside them the
active lanes took the same path, and a loop whose exit diverges keeps a uniform counter among the lanes still
iterating. A conditional ``exit``/``ret`` is no divergence: the lanes that leave never read anything again.

The analysis is flow-insensitive (one answer per register for the whole kernel) and runs to a fixed point:
a branch becomes divergent when its predicate turns varying, which may turn more registers varying.
"""

from __future__ import annotations

from ..frontend.ir import ArgList, Function, Instruction, Operand, Special, Vec
from .cfg import CFG
from .defuse import DefUse
from .memops import mem_op

UNIFORM_SPECIALS_PREFIXES = ("%ctaid", "%nctaid", "%ntid", "%gridid")
"""Special registers with one value for a whole thread block (launch constants and the block's index)."""

# instructions whose result depends on other lanes, on memory or on the moment they run, whatever the sources
_VARYING_OPCODES = frozenset({
    "atom", "red", "shfl", "vote", "match", "activemask", "redux", "call", "tex", "tld4", "txq", "suld", "suq",
    "ldmatrix", "mma", "wmma", "cp", "mbarrier", "bar", "barrier", "mapa", "getctarank", "elect",
})


def uniform_special(name: str) -> bool:
    """Whether special register ``name`` (``%ctaid.x``...) holds one value for every lane of a warp."""
    return name.startswith(UNIFORM_SPECIALS_PREFIXES)


def _specials(op: Operand | None) -> list[str]:
    if isinstance(op, Special):
        return [op.name]
    if isinstance(op, (Vec, ArgList)):
        return [s for it in op.items for s in _specials(it)]
    return []


def _source_varying(ins: Instruction) -> bool:
    """Whether ``ins`` produces a per-lane value whatever its register sources (see the module docstring)."""
    if ins.opcode in _VARYING_OPCODES:
        return True
    m = mem_op(ins)
    if m is not None and not (m.kind == "load" and m.space in ("param", "const")):
        return True  # a load from memory a lane can address on its own, or any other memory instruction
    return any(not uniform_special(s) for op in ins.operands for s in _specials(op))


def _influence(cfg: CFG, block: int) -> set[int]:
    """The blocks between a branch ending ``block`` and its reconvergence point (its immediate
    post-dominator): reachable from its successors without passing that point."""
    stop = cfg.ipdom.get(block, cfg.exit)
    seen: set[int] = set()
    todo = [s for s in cfg.blocks[block].succs if s not in (stop, cfg.exit)]
    while todo:
        b = todo.pop()
        if b in seen:
            continue
        seen.add(b)
        todo.extend(s for s in cfg.blocks[b].succs if s not in (stop, cfg.exit) and s not in seen)
    return seen


def varying_registers(fn: Function, cfg: CFG | None = None, du: DefUse | None = None) -> frozenset[str]:
    """The per-lane registers of ``fn`` (every other register is warp-uniform; see the module docstring)."""
    cfg = cfg or CFG(fn)
    du = du or DefUse(fn)
    body = fn.body
    varying: set[str] = set()
    for i, ins in enumerate(body):
        if du.defs[i] and _source_varying(ins):
            varying.update(du.defs[i])
    branches = [b.index for b in cfg.blocks
                if body[b.end - 1].opcode == "bra" and body[b.end - 1].guard is not None and len(b.succs) > 1]
    regions: dict[int, set[int]] = {}
    divergent: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i in range(len(body)):  # data dependence (guards included: uses_of lists the guard)
            if du.defs[i] and not varying.issuperset(du.defs[i]) and any(u in varying for u in du.uses[i]):
                varying.update(du.defs[i])
                changed = True
        for b in branches:  # control dependence
            guard = body[cfg.blocks[b].end - 1].guard
            if b in divergent or guard is None or guard.name not in varying:
                continue
            divergent.add(b)
            region = regions.setdefault(b, _influence(cfg, b))
            inside = [i for k in region for i in range(cfg.blocks[k].start, cfg.blocks[k].end)]
            defined = {r for i in inside for r in du.defs[i]} - varying
            if not defined:
                continue
            inside_set = set(inside)
            used_outside = {r for i, us in enumerate(du.uses) if i not in inside_set for r in us}
            escaped = defined & used_outside
            if escaped:
                varying.update(escaped)
                changed = True
    return frozenset(varying)


def uniform_registers(fn: Function, cfg: CFG | None = None, du: DefUse | None = None) -> frozenset[str]:
    """The warp-uniform registers of ``fn``: every register it declares or names that is not varying."""
    du = du or DefUse(fn)
    return frozenset(set(du.regs) - varying_registers(fn, cfg, du))


__all__ = ["UNIFORM_SPECIALS_PREFIXES", "uniform_registers", "uniform_special", "varying_registers"]
