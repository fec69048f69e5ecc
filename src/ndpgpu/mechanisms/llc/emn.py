"""The Earliest Meet Node (EMN) of a chain's two operands on a 2D mesh (Algorithm 1 of the paper), and the
hop accounting of a chain on any router network (mesh or butterfly).

A chain issued by a core needs two lines homed at two LLC slices. Its ComputePacket goes to the first
node that both operands' network paths share, seen from the core: there the loads meet, the chain runs,
and only the reply travels back. Algorithm 1 intersects the core's XY and YX paths to each LLC, skips the
core itself (a meet at the source saves nothing), and keeps the shared node closest to both LLCs (the
first in path order on a tie). The same LLC twice meets at that LLC. The table of every (core, LLC, LLC)
is what each core's 64-entry EMN lookup table holds, filled offline.

Every EMN lies on a minimal path from the core to both LLCs, so the requests' hop counts are unchanged;
the saving is on the data legs (5-flit replies) that now end at the EMN.

On other router networks (:class:`NetworkLayout`, e.g. the butterfly) only LLC-Compute's rule applies: a
chain whose operands are all in one slice meets there; hops come from the network's routing tables.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...timing.topology import Topology, topology_of

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

    def node_hops(self, a: int, b: int) -> int:
        """Hops from node ``a`` to node ``b``."""
        return manhattan(a, b, self.width)

    def meet_node(self, core: int, l0: int, l1: int) -> int:
        """Algorithm 1 on nodes (:func:`emn`)."""
        return emn(core, l0, l1, self.width)

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


@dataclasses.dataclass(frozen=True)
class NetworkLayout:
    """Where the cores and the LLC slices attach to any router network (mesh, butterfly, hmesh), with hops read
    from its routing tables (:mod:`ndpgpu.timing.topology`). Its meet node is LLC-Compute's: the slice when
    both operands are in it, else none (Algorithm 1's core EMNs are a mesh's, :class:`MeshLayout`)."""

    topology: Topology

    @classmethod
    def of(cls, machine) -> NetworkLayout:
        """The layout of a machine with a router network (``icnt.impl: mesh``, ``butterfly`` or ``hmesh``)."""
        topo = topology_of(machine)
        if topo is None:
            raise ValueError(f"{machine.name}: hop counts need a router network (icnt.impl: mesh, butterfly or hmesh)")
        return cls(topo)

    @property
    def core_nodes(self) -> tuple[int, ...]:
        return self.topology.sm_terminals

    @property
    def llc_nodes(self) -> tuple[int, ...]:
        return self.topology.llc_terminals

    def hops(self, core: int, llc: int) -> int:
        """Hops from core ``core`` to LLC slice ``llc`` (indices, not terminals)."""
        return self.topology.sm_slice_hops(core, llc)

    def node_hops(self, a: int, b: int) -> int:
        """Hops (router-to-router links) from terminal ``a`` to terminal ``b``; 0 from a terminal to itself
        (an LLC reading its own banks does not use the network; a butterfly would route it through every
        stage)."""
        return 0 if a == b else self.topology.hops(a, b)

    def meet_node(self, core: int, l0: int, l1: int) -> int:
        """LLC-Compute's meet node: the LLC when both operands are there, else :data:`NO_EMN`."""
        return l0 if l0 == l1 else NO_EMN


REQUEST_FLITS, DATA_FLITS, ACK_FLITS, PACKET_FLITS = 1, 5, 1, 1  # read request, data, ack, ComputePacket


def chain_hops(layout: MeshLayout | NetworkLayout, core: int, a: int, b: int,
               c: int) -> dict[str, tuple[int, int] | None]:
    """Hops and flit-weighted hops of one ``c = f(a, b)`` chain (pattern 1) from core ``core`` whose lines
    are homed at LLC slices ``a``, ``b`` and ``c`` (indices): ``baseline`` (two reads and a store from the
    core) and ``offloaded`` (the ComputePacket to the meet node of ``a`` and ``b``, the loads between it
    and their LLCs, the store from it to ``c`` and its ack, the offload ack back; None without one). The
    legs are the paper's worked example (Fig. 3): request and ack 1 flit, data 5 flits; each leg's hops
    are counted in its own direction. On the mesh the meet node is Algorithm 1's EMN; on other networks
    LLC-Compute's (:class:`NetworkLayout`)."""
    h = layout.node_hops
    cn, an, bn, ccn = layout.core_nodes[core], layout.llc_nodes[a], layout.llc_nodes[b], layout.llc_nodes[c]
    legs = [(h(cn, x), REQUEST_FLITS) for x in (an, bn)] + [(h(x, cn), DATA_FLITS) for x in (an, bn)]
    legs += [(h(cn, ccn), DATA_FLITS), (h(ccn, cn), ACK_FLITS)]
    out: dict[str, tuple[int, int] | None] = {"baseline": (sum(n for n, _ in legs), sum(n * f for n, f in legs))}
    e = layout.meet_node(cn, an, bn)
    if e == NO_EMN:
        out["offloaded"] = None
        return out
    legs = [(h(cn, e), PACKET_FLITS)]
    legs += [(h(e, x), REQUEST_FLITS) for x in (an, bn)] + [(h(x, e), DATA_FLITS) for x in (an, bn)]
    legs += [(h(e, ccn), DATA_FLITS), (h(ccn, e), ACK_FLITS), (h(e, cn), ACK_FLITS)]
    out["offloaded"] = (sum(n for n, _ in legs), sum(n * f for n, f in legs))
    return out
