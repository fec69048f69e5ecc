"""Memory instructions of a function: kind, state space and width, and counts per basic block.

TOM's cost model needs per-block loads and stores (global and local, counted once per vector
instruction) and the instructions that forbid offloading (shared memory, barriers, fences, atomics).
"""

from __future__ import annotations

import dataclasses

from ..frontend.ir import Addr, Instruction, Vec
from .cfg import CFG

SPACES = ("global", "shared", "local", "param", "const", "tex", "generic")
KINDS = ("load", "store", "atomic", "reduction", "prefetch")


@dataclasses.dataclass(frozen=True)
class MemOp:
    """One memory instruction: ``kind`` in :data:`KINDS`, ``space`` in :data:`SPACES` (``generic`` when
    the instruction names none), ``width`` bytes per thread (vector elements included), the address
    operand and its index in ``operands``."""

    index: int
    kind: str
    space: str
    width: int
    vector: int
    addr: Addr
    addr_operand: int


def _space(ins: Instruction) -> str:
    for m in ins.mods:
        base = m.split("::")[0]
        if base in SPACES:
            return base
    return "generic"


def _width(ins: Instruction) -> tuple[int, int]:
    vec = 1
    for m in ins.mods:
        if m in ("v2", "v4", "v8"):
            vec = int(m[1:])
    types = ins.types()
    size = types[-1].size if types else 0
    return size * vec, vec


def mem_op(ins: Instruction, index: int = 0) -> MemOp | None:
    """Describe ``ins`` if it accesses memory through an address operand, else None."""
    op = ins.opcode
    if op in ("ld", "ldu"):
        kind, k = "load", 1
    elif op == "st":
        kind, k = "store", 0
    elif op == "atom":
        kind, k = "atomic", 1
    elif op == "red":
        kind, k = "reduction", 0
    elif op in ("prefetch", "prefetchu"):
        kind, k = "prefetch", 0
    else:
        return None
    if len(ins.operands) <= k or not isinstance(ins.operands[k], Addr):
        return None
    width, vec = _width(ins)
    if op == "ld" and isinstance(ins.operands[0], Vec):
        vec = max(vec, len(ins.operands[0].items))
    return MemOp(index, kind, _space(ins), width, vec, ins.operands[k], k)  # type: ignore[arg-type]


@dataclasses.dataclass
class BlockMem:
    """Memory statistics of one basic block.

    ``loads``/``stores``/``atomics``: counts per state space (one per instruction, vectors count once).
    ``barrier``: a ``bar``/``barrier``; ``fence``: ``membar``/``fence``; ``shared``: any shared-memory
    access. ``ops``: the :class:`MemOp` of each memory instruction, in order.
    """

    block: int
    loads: dict[str, int] = dataclasses.field(default_factory=dict)
    stores: dict[str, int] = dataclasses.field(default_factory=dict)
    atomics: dict[str, int] = dataclasses.field(default_factory=dict)
    barrier: bool = False
    fence: bool = False
    shared: bool = False
    ops: list[MemOp] = dataclasses.field(default_factory=list)

    def n_loads(self, spaces: tuple[str, ...] = ("global", "local")) -> int:
        """Loads in ``spaces`` (TOM's N_LD uses global and local)."""
        return sum(self.loads.get(s, 0) for s in spaces)

    def n_stores(self, spaces: tuple[str, ...] = ("global", "local")) -> int:
        """Stores in ``spaces`` (TOM's N_ST uses global and local)."""
        return sum(self.stores.get(s, 0) for s in spaces)


def block_memory(cfg: CFG) -> list[BlockMem]:
    """A :class:`BlockMem` per basic block of ``cfg``."""
    body = cfg.fn.body
    out: list[BlockMem] = []
    for b in cfg.blocks:
        bm = BlockMem(b.index)
        for i in range(b.start, b.end):
            ins = body[i]
            if ins.opcode in ("bar", "barrier"):
                bm.barrier = True
            elif ins.opcode in ("membar", "fence"):
                bm.fence = True
            m = mem_op(ins, i)
            if m is None:
                continue
            bm.ops.append(m)
            if m.space == "shared":
                bm.shared = True
            if m.kind == "load":
                bm.loads[m.space] = bm.loads.get(m.space, 0) + 1
            elif m.kind == "store":
                bm.stores[m.space] = bm.stores.get(m.space, 0) + 1
            elif m.kind in ("atomic", "reduction"):
                bm.atomics[m.space] = bm.atomics.get(m.space, 0) + 1
        out.append(bm)
    return out
