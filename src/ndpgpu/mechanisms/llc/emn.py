"""The Earliest Meet Node (EMN) of a chain's two operands on a 2D mesh (Algorithm 1 of the paper).

A chain issued by a core needs two lines homed at two LLC slices. Its ComputePacket goes to the first
node that both operands' network paths share, seen from the core: there the loads meet, the chain runs,
and only the reply travels back. Algorithm 1 intersects the core's XY and YX paths to each LLC, skips the
core itself (a meet at the source saves nothing), and keeps the shared node closest to both LLCs (the
first in path order on a tie). The same LLC twice meets at that LLC. The table of every (core, LLC, LLC)
is what each core's 64-entry EMN lookup table holds, filled offline.

Every EMN lies on a minimal path from the core to both LLCs, so the requests' hop counts are unchanged;
the saving is on the data legs (5-flit replies) that now end at the EMN.
"""

from __future__ import annotations

import dataclasses

import numpy as np

NO_EMN = -1


def _xy(node: int, width: int) -> tuple[int, int]:
    return node % width, node // width


def manhattan(a: int, b: int, width: int) -> int:
    """Hops between nodes ``a`` and ``b`` under dimension-order routing."""
    (ax, ay), (bx, by) = _xy(a, width), _xy(b, width)
    return abs(ax - bx) + abs(ay - by)


def path(a: int, b: int, width: int, order: str) -> list[int]:
    """The nodes from ``a`` to ``b`` inclusive, routing ``order`` = ``"xy"`` (X first) or ``"yx"``."""
    (x, y), (bx, by) = _xy(a, width), _xy(b, width)
    nodes = [a]
    for dim in order:
        if dim == "x":
            while x != bx:
                x += 1 if bx > x else -1
                nodes.append(y * width + x)
        else:
            while y != by:
                y += 1 if by > y else -1
                nodes.append(y * width + x)
    return nodes


def emn(core: int, l0: int, l1: int, width: int) -> int:
    """Algorithm 1: the EMN node of a chain issued at node ``core`` with operands at nodes ``l0`` and ``l1``,
    or :data:`NO_EMN` when the paths share no node but the core."""
    if l0 == l1:
        return l0
    to0 = [path(core, l0, width, "xy"), path(core, l0, width, "yx")]
    to1 = [path(core, l1, width, "xy"), path(core, l1, width, "yx")]
    best, dmin = NO_EMN, None
    for p in to0:
        for q in to1:
            shared = set(q)
            for n in p:  # path order
                if n == core or n not in shared:
                    continue
                d = manhattan(n, l0, width) + manhattan(n, l1, width)
                if dmin is None or d < dmin:
                    best, dmin = n, d
    return best


@dataclasses.dataclass(frozen=True)
class MeshLayout:
    """Where the cores and the LLC slices sit on a W x H mesh (node id = y * width + x)."""

    width: int
    height: int
    core_nodes: tuple[int, ...]
    llc_nodes: tuple[int, ...]

    @classmethod
    def of(cls, machine) -> MeshLayout:
        """The layout of a machine whose interconnect is the mesh (``icnt.impl: mesh``)."""
        mesh = machine.icnt.mesh
        if machine.icnt.impl != "mesh" or mesh is None:
            raise ValueError(f"{machine.name}: EMNs need a mesh interconnect (icnt.impl: mesh)")
        return cls(mesh.width, mesh.height, tuple(mesh.sm_nodes), tuple(mesh.llc_nodes))

    def hops(self, core: int, llc: int) -> int:
        """Hops from core ``core`` to LLC slice ``llc`` (indices, not nodes)."""
        return manhattan(self.core_nodes[core], self.llc_nodes[llc], self.width)

    def emn(self, core: int, llc0: int, llc1: int) -> int:
        """The EMN node of core ``core``'s chain on LLC slices ``llc0`` and ``llc1`` (indices), or NO_EMN."""
        return emn(self.core_nodes[core], self.llc_nodes[llc0], self.llc_nodes[llc1], self.width)

    def table(self) -> np.ndarray:
        """``t[core, llc0, llc1]``: every EMN node (NO_EMN where there is none), as the lookup tables hold."""
        nc, nl = len(self.core_nodes), len(self.llc_nodes)
        t = np.empty((nc, nl, nl), np.int64)
        for c in range(nc):
            for a in range(nl):
                for b in range(nl):
                    t[c, a, b] = self.emn(c, a, b)
        return t

    def kind(self, node: int) -> str:
        """``core``, ``llc`` or ``none`` (NO_EMN)."""
        if node == NO_EMN:
            return "none"
        return "llc" if node in self.llc_nodes else "core"

    def breakdown(self) -> dict[str, float]:
        """Shares of EMNs that are cores, LLC nodes or none, over every core and ordered pair of distinct LLCs."""
        t = self.table()
        nl = len(self.llc_nodes)
        distinct = t[:, ~np.eye(nl, dtype=bool)]
        kinds = [self.kind(int(n)) for n in distinct.ravel()]
        return {k: kinds.count(k) / len(kinds) for k in ("core", "llc", "none")}


REQUEST_FLITS, DATA_FLITS, ACK_FLITS, PACKET_FLITS = 1, 5, 1, 1  # read request, data, ack, ComputePacket


def chain_hops(layout: MeshLayout, core: int, a: int, b: int, c: int) -> dict[str, tuple[int, int] | None]:
    """Hops and flit-weighted hops of one ``c = f(a, b)`` chain (pattern 1) from core ``core`` whose lines
    are homed at LLC slices ``a``, ``b`` and ``c`` (indices): ``baseline`` (two reads and a store from the
    core) and ``offloaded`` (the ComputePacket to the EMN of ``a`` and ``b``, the loads between the EMN
    and their LLCs, the store from the EMN to ``c`` and its ack, the offload ack back; None without an EMN).
    The legs are the paper's worked example (Fig. 3): request and ack 1 flit, data 5 flits."""
    w = layout.width
    cn, an, bn, ccn = layout.core_nodes[core], layout.llc_nodes[a], layout.llc_nodes[b], layout.llc_nodes[c]
    legs = [(manhattan(cn, x, w), flits) for x in (an, bn) for flits in (REQUEST_FLITS, DATA_FLITS)]
    legs += [(manhattan(cn, ccn, w), DATA_FLITS), (manhattan(cn, ccn, w), ACK_FLITS)]
    out: dict[str, tuple[int, int] | None] = {"baseline": (sum(h for h, _ in legs), sum(h * f for h, f in legs))}
    e = emn(cn, an, bn, w)
    if e == NO_EMN:
        out["offloaded"] = None
        return out
    legs = [(manhattan(cn, e, w), PACKET_FLITS)]
    legs += [(manhattan(e, x, w), flits) for x in (an, bn) for flits in (REQUEST_FLITS, DATA_FLITS)]
    legs += [(manhattan(e, ccn, w), DATA_FLITS), (manhattan(e, ccn, w), ACK_FLITS), (manhattan(e, cn, w), ACK_FLITS)]
    out["offloaded"] = (sum(h for h, _ in legs), sum(h * f for h, f in legs))
    return out
