"""Register liveness of a function: per block, per instruction, and for single-entry regions.

Classic backward dataflow over bit sets. A guarded definition is a may-definition: it does not kill, so
a register written under a guard stays live above it. Nothing is live after ``ret``/``exit``.

For a region (a set of blocks, or a contiguous range of instructions) entered at one point:

* ``live_out``: registers live after control leaves the region that the region may define (what an
  offloaded region must send back);
* ``live_in``: registers whose value on entry may be read: used in the region before any definition on
  some path, including live-outs that some path through the region (or a guarded definition) may leave
  unchanged (what an offloaded region must be sent).
"""

from __future__ import annotations

from collections.abc import Collection

from .cfg import CFG
from .defuse import DefUse


class RegionError(ValueError):
    """The region is empty or has more than one entry."""


def region_entries(cfg: CFG, region: Collection[int]) -> list[int]:
    """Blocks of ``region`` entered from outside it (or the function's entry block)."""
    reg = set(region)
    return sorted(b for b in reg if b == 0 or any(p not in reg for p in cfg.blocks[b].preds))


def region_is_single_entry(cfg: CFG, region: Collection[int]) -> bool:
    """True when control enters the set of blocks ``region`` only through one block."""
    return len(region_entries(cfg, region)) == 1


def range_is_single_entry(cfg: CFG, start: int, end: int) -> bool:
    """True when control enters the instructions ``[start, end)`` only at ``start``."""
    if not 0 <= start < end <= len(cfg.fn.body):
        return False
    for b in cfg.blocks:
        if start < b.start < end:
            if b.index == 0:
                return False
            for p in b.preds:
                last = cfg.blocks[p].end - 1
                if not start <= last < end:
                    return False
    return True


class Liveness:
    """Liveness of ``cfg``'s function (``du`` is computed when not given)."""

    def __init__(self, cfg: CFG, du: DefUse | None = None):
        self.cfg = cfg
        self.du = du or DefUse(cfg.fn)
        du = self.du
        body = cfg.fn.body
        n = len(body)
        self._use = [du.reg_bits(du.uses[i]) for i in range(n)]
        self._def = [du.reg_bits(du.defs[i]) for i in range(n)]
        self._kill = [self._def[i] if du.must[i] else 0 for i in range(n)]
        nb = len(cfg.blocks)
        self._buse = [0] * nb
        self._bkill = [0] * nb
        for b in cfg.blocks:
            use = 0
            kill = 0
            for i in range(b.end - 1, b.start - 1, -1):
                use = self._use[i] | (use & ~self._kill[i])
                kill |= self._kill[i]
            self._buse[b.index] = use
            self._bkill[b.index] = kill
        self.live_in_bits = [0] * nb
        self.live_out_bits = [0] * nb
        order = self._postorder()
        changed = True
        while changed:
            changed = False
            for b in order:
                out = 0
                for s in cfg.blocks[b].succs:
                    if s != cfg.exit:
                        out |= self.live_in_bits[s]
                inn = self._buse[b] | (out & ~self._bkill[b])
                if out != self.live_out_bits[b] or inn != self.live_in_bits[b]:
                    self.live_out_bits[b] = out
                    self.live_in_bits[b] = inn
                    changed = True
        self._before_cache: dict[int, list[int]] = {}

    def _postorder(self) -> list[int]:
        """Blocks in post-order from the entry, then any block not reached from it."""
        cfg = self.cfg
        seen: set[int] = set()
        order: list[int] = []
        for root in [0, *range(len(cfg.blocks))] if cfg.blocks else []:
            if root in seen:
                continue
            seen.add(root)
            stack = [(root, iter(cfg.blocks[root].succs))]
            while stack:
                node, it = stack[-1]
                for s in it:
                    if s != cfg.exit and s not in seen:
                        seen.add(s)
                        stack.append((s, iter(cfg.blocks[s].succs)))
                        break
                else:
                    order.append(node)
                    stack.pop()
        return order

    # -- blocks and instructions ----------------------------------------------------------------
    def block_live_in(self, b: int) -> set[str]:
        """Registers live on entry to block ``b``."""
        return self.du.reg_names(self.live_in_bits[b])

    def block_live_out(self, b: int) -> set[str]:
        """Registers live on exit from block ``b``."""
        return self.du.reg_names(self.live_out_bits[b])

    def _before_bits(self, i: int) -> int:
        b = self.cfg.block_of_instr[i]
        rows = self._before_cache.get(b)
        if rows is None:
            blk = self.cfg.blocks[b]
            rows = [0] * len(blk)
            live = self.live_out_bits[b]
            for k in range(blk.end - 1, blk.start - 1, -1):
                live = self._use[k] | (live & ~self._kill[k])
                rows[k - blk.start] = live
            self._before_cache[b] = rows
        return rows[i - self.cfg.blocks[b].start]

    def _after_bits(self, i: int) -> int:
        b = self.cfg.blocks[self.cfg.block_of_instr[i]]
        if i + 1 < b.end:
            return self._before_bits(i + 1)
        return self.live_out_bits[b.index]

    def live_before(self, i: int) -> set[str]:
        """Registers live just before instruction ``i``."""
        return self.du.reg_names(self._before_bits(i))

    def live_after(self, i: int) -> set[str]:
        """Registers live just after instruction ``i``."""
        return self.du.reg_names(self._after_bits(i))

    def max_live(self) -> int:
        """The largest number of registers live at one point (before some instruction)."""
        return max((self._before_bits(i).bit_count() for i in range(len(self.cfg.fn.body))), default=0)

    # -- regions --------------------------------------------------------------------------------
    def _may_def_range(self, lo: int, hi: int) -> int:
        bits = 0
        for i in range(lo, hi):
            bits |= self._def[i]
        return bits

    def _pieces_of_blocks(self, region: Collection[int]) -> tuple[list, int]:
        reg = set(region)
        entries = region_entries(self.cfg, reg)
        if len(entries) != 1:
            raise RegionError(f"region {sorted(reg)} has entries {entries}, not exactly one")
        index = {b: k for k, b in enumerate(sorted(reg))}
        pieces = []
        for b in sorted(reg):
            blk = self.cfg.blocks[b]
            succs: list[tuple[str, int]] = []
            for s in blk.succs:
                if s == self.cfg.exit:
                    succs.append(("out", 0))
                elif s in reg:
                    succs.append(("piece", index[s]))
                else:
                    succs.append(("out", self.live_in_bits[s]))
            pieces.append((blk.start, blk.end, succs))
        return pieces, index[entries[0]]

    def _pieces_of_range(self, start: int, end: int) -> tuple[list, int]:
        cfg = self.cfg
        if not range_is_single_entry(cfg, start, end):
            raise RegionError(f"instructions [{start}, {end}) are not a single-entry region")
        blocks = [b for b in cfg.blocks if b.start < end and b.end > start]
        index = {b.index: k for k, b in enumerate(blocks)}
        pieces = []
        for b in blocks:
            lo, hi = max(b.start, start), min(b.end, end)
            succs: list[tuple[str, int]] = []
            if hi < b.end:
                succs.append(("out", self._before_bits(hi)))
            else:
                for s in b.succs:
                    if s == cfg.exit:
                        succs.append(("out", 0))
                    elif start <= cfg.blocks[s].start < end:
                        succs.append(("piece", index[s]))
                    else:
                        succs.append(("out", self.live_in_bits[s]))
            pieces.append((lo, hi, succs))
        return pieces, 0

    def _region(self, pieces: list, entry: int) -> tuple[int, int]:
        """(live-in bits, live-out bits) of a region made of ``pieces``."""
        maydef = 0
        for lo, hi, _ in pieces:
            maydef |= self._may_def_range(lo, hi)
        live_out = 0
        for _, _, succs in pieces:
            for kind, v in succs:
                if kind == "out":
                    live_out |= v
        live_out &= maydef
        use = []
        kill = []
        for lo, hi, _ in pieces:
            u = 0
            kl = 0
            for i in range(hi - 1, lo - 1, -1):
                u = self._use[i] | (u & ~self._kill[i])
                kl |= self._kill[i]
            use.append(u)
            kill.append(kl)
        inn = [0] * len(pieces)
        changed = True
        while changed:
            changed = False
            for k in range(len(pieces) - 1, -1, -1):
                out = 0
                for kind, v in pieces[k][2]:
                    out |= inn[v] if kind == "piece" else (v & maydef)
                new = use[k] | (out & ~kill[k])
                if new != inn[k]:
                    inn[k] = new
                    changed = True
        return inn[entry], live_out

    def live_in(self, region: Collection[int]) -> set[str]:
        """Live-in registers of the single-entry set of blocks ``region`` (raises :class:`RegionError`)."""
        return self.du.reg_names(self._region(*self._pieces_of_blocks(region))[0])

    def live_out(self, region: Collection[int]) -> set[str]:
        """Live-out registers of the single-entry set of blocks ``region``."""
        return self.du.reg_names(self._region(*self._pieces_of_blocks(region))[1])

    def range_live_in(self, start: int, end: int) -> set[str]:
        """Live-in registers of the instructions ``[start, end)``, entered at ``start``."""
        return self.du.reg_names(self._region(*self._pieces_of_range(start, end))[0])

    def range_live_out(self, start: int, end: int) -> set[str]:
        """Live-out registers of the instructions ``[start, end)``, entered at ``start``."""
        return self.du.reg_names(self._region(*self._pieces_of_range(start, end))[1])
