"""Control-flow graph, dominators and post-dominators of one PTX function.

Blocks are maximal straight-line runs of instructions; a ``bra``, ``ret``, ``exit`` or ``trap`` ends a
block, a label starts one. A virtual exit node (index ``len(blocks)``) follows every block that leaves the
function; blocks that cannot reach it (infinite loops) are given an edge to it so that post-dominators are
defined everywhere.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property

from ..frontend.ir import Function, Instruction, Sym

TERMINATORS = ("bra", "ret", "exit", "trap", "brx")


@dataclasses.dataclass
class BasicBlock:
    index: int
    start: int  # first instruction index
    end: int  # one past the last instruction index
    succs: list[int] = dataclasses.field(default_factory=list)
    preds: list[int] = dataclasses.field(default_factory=list)
    labels: list[str] = dataclasses.field(default_factory=list)

    def __len__(self) -> int:
        return self.end - self.start


class CFGError(Exception):
    """The function's control flow cannot be analysed (unknown label, indirect branch...)."""


def branch_target(ins: Instruction) -> str | None:
    """The label of a direct ``bra``, or None."""
    for op in ins.operands:
        if isinstance(op, Sym):
            return op.name
    return None


class CFG:
    """The CFG of ``fn`` with dominator and post-dominator trees (immediate ones as index lists)."""

    def __init__(self, fn: Function):
        self.fn = fn
        body = fn.body
        n = len(body)
        leaders = {0} if n else set()
        leaders.update(i for i in fn.labels.values() if i < n)
        for i, ins in enumerate(body):
            if ins.opcode in TERMINATORS and i + 1 < n:
                leaders.add(i + 1)
        starts = sorted(leaders)
        self.blocks: list[BasicBlock] = []
        for k, s in enumerate(starts):
            e = starts[k + 1] if k + 1 < len(starts) else n
            self.blocks.append(BasicBlock(k, s, e))
        self.block_of_instr = [0] * n
        for b in self.blocks:
            for i in range(b.start, b.end):
                self.block_of_instr[i] = b.index
        start_to_block = {b.start: b.index for b in self.blocks}
        for name, idx in fn.labels.items():
            if idx in start_to_block:
                self.blocks[start_to_block[idx]].labels.append(name)
        self.exit = len(self.blocks)
        for b in self.blocks:
            last = body[b.end - 1]
            fall = b.index + 1 if b.index + 1 < len(self.blocks) else self.exit
            succs: list[int] = []
            if last.opcode == "bra":
                target = branch_target(last)
                if target is None or target not in fn.labels:
                    raise CFGError(f"{fn.name}: line {last.line}: branch to unknown label {target!r}")
                tidx = fn.labels[target]
                succs.append(start_to_block[tidx] if tidx < n else self.exit)
                if last.guard is not None:
                    succs.append(fall)
            elif last.opcode in ("ret", "exit", "trap"):
                succs.append(self.exit)
                if last.guard is not None:
                    succs.append(fall)
            elif last.opcode == "brx":
                raise CFGError(f"{fn.name}: line {last.line}: indirect branches (brx.idx) are not supported")
            else:
                succs.append(fall)
            b.succs = list(dict.fromkeys(succs))
        self._fix_unreachable_exit()
        for b in self.blocks:
            for s in b.succs:
                if s != self.exit:
                    self.blocks[s].preds.append(b.index)

    def _fix_unreachable_exit(self) -> None:
        """Give blocks that cannot reach the exit (infinite loops) an edge to it.

        Reachability is a backward search from the exit over predecessor lists (linear in the edges); a
        block left out gets an edge to the exit, the last such block first, and the search continues from
        it."""
        preds: dict[int, list[int]] = {}
        for b in self.blocks:
            for s in b.succs:
                preds.setdefault(s, []).append(b.index)
        reach: set[int] = set()

        def search(start: int) -> None:
            todo = [start]
            reach.add(start)
            while todo:
                for p in preds.get(todo.pop(), ()):
                    if p not in reach:
                        reach.add(p)
                        todo.append(p)

        search(self.exit)
        for b in reversed(self.blocks):
            if b.index not in reach:
                b.succs.append(self.exit)
                search(b.index)

    # -- orders ---------------------------------------------------------------------------------
    def _postorder(self, entry: int, succ) -> list[int]:
        seen = set()
        order: list[int] = []
        stack = [(entry, iter(succ(entry)))]
        seen.add(entry)
        while stack:
            node, it = stack[-1]
            for s in it:
                if s not in seen:
                    seen.add(s)
                    stack.append((s, iter(succ(s))))
                    break
            else:
                order.append(node)
                stack.pop()
        return order

    def _succ(self, i: int) -> list[int]:
        return [] if i == self.exit else self.blocks[i].succs

    def _pred(self, i: int) -> list[int]:
        if i == self.exit:
            return [b.index for b in self.blocks if self.exit in b.succs]
        return self.blocks[i].preds

    @staticmethod
    def _idoms(entry: int, nodes_post: list[int], preds) -> dict[int, int]:
        """Cooper-Harvey-Kennedy iterative dominators over a postorder."""
        rpo = list(reversed(nodes_post))
        index = {node: k for k, node in enumerate(nodes_post)}
        idom = {entry: entry}

        def intersect(a: int, b: int) -> int:
            while a != b:
                while index[a] < index[b]:
                    a = idom[a]
                while index[b] < index[a]:
                    b = idom[b]
            return a

        changed = True
        while changed:
            changed = False
            for node in rpo:
                if node == entry:
                    continue
                ps = [p for p in preds(node) if p in idom]
                if not ps:
                    continue
                new = ps[0]
                for p in ps[1:]:
                    new = intersect(p, new)
                if idom.get(node) != new:
                    idom[node] = new
                    changed = True
        return idom

    @cached_property
    def idom(self) -> dict[int, int]:
        """Immediate dominator of each reachable block (the entry maps to itself)."""
        if not self.blocks:
            return {}
        post = self._postorder(0, self._succ)
        post = [p for p in post if p != self.exit]
        return self._idoms(0, post, lambda i: self.blocks[i].preds)

    @cached_property
    def ipdom(self) -> dict[int, int]:
        """Immediate post-dominator of each block (``self.exit`` for blocks that leave the function)."""
        post = self._postorder(self.exit, self._pred)
        ip = self._idoms(self.exit, post, self._succ)
        ip.pop(self.exit, None)
        return ip

    def dominates(self, a: int, b: int) -> bool:
        """True when block ``a`` dominates block ``b``."""
        idom = self.idom
        if b not in idom:
            return False
        while True:
            if a == b:
                return True
            if idom[b] == b:
                return False
            b = idom[b]

    def postdominates(self, a: int, b: int) -> bool:
        """True when block ``a`` (or the exit) post-dominates block ``b``."""
        ip = self.ipdom
        while True:
            if a == b:
                return True
            if b == self.exit or b not in ip:
                return False
            b = ip[b]

    def reconvergence_instr(self, block: int) -> int:
        """The instruction index where a branch ending ``block`` reconverges (``len(body)`` for the exit)."""
        p = self.ipdom.get(block, self.exit)
        return len(self.fn.body) if p == self.exit else self.blocks[p].start
