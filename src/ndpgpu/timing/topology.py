"""Router networks as data: the routing, link and injection tables of the mesh and the butterfly.

The compiled router (``engine/mesh.py``) knows no geometry. Per subnet it reads three tables, built here:

* ``route[router, dest]``: the output port a packet for destination terminal ``dest`` takes at ``router``;
* ``link[router, port]``: ``(next router, its input port)``, ``(EJECT, 0)`` when the port ejects to the
  router's terminal, or ``(NO_LINK, 0)`` where no link leaves (a mesh edge);
* ``inject[terminal]``: ``(router, input port)`` where a terminal's packets enter.

A *terminal* is where an SM or an L2 slice attaches: a mesh node (its router is the node's own, its port
the local one) or one of the butterfly's k**n terminals. :class:`Topology` also walks the tables, so the
hops between two terminals and the routers a packet crosses come from the same data the engine routes by.
"""

from __future__ import annotations

import dataclasses

import numpy as np

I64 = np.int64
EJECT, NO_LINK = -1, -2
MESH_PORTS = 5  # north, east, south, west, local (injection and ejection)
MESH_LOCAL = 4


@dataclasses.dataclass(frozen=True)
class Topology:
    """The tables of one router network (identical on both subnets) and the placement of its endpoints.

    ``terminal_link_latency`` is charged on the injection and ejection links (0 on the mesh, whose local port
    is in the node; the butterfly's terminals sit a link away from the first and last stage)."""

    kind: str
    nrouters: int
    ports: int
    nterminals: int
    route: np.ndarray  # (nrouters, nterminals)
    link: np.ndarray  # (nrouters, ports, 2)
    inject: np.ndarray  # (nterminals, 2)
    sm_terminals: tuple[int, ...]
    llc_terminals: tuple[int, ...]
    terminal_link_latency: int = 0

    def path(self, src: int, dst: int) -> list[tuple[int, int]]:
        """The (router, output port) pairs a packet from terminal ``src`` to terminal ``dst`` crosses, the
        ejection last."""
        r = int(self.inject[src, 0])
        out = []
        for _ in range(self.nrouters + 1):
            o = int(self.route[r, dst])
            out.append((r, o))
            nxt = int(self.link[r, o, 0])
            if nxt == EJECT:
                return out
            if nxt == NO_LINK:
                raise ValueError(f"{self.kind}: the route from terminal {src} to {dst} leaves router {r} by "
                                 f"port {o}, which has no link")
            r = nxt
        raise ValueError(f"{self.kind}: the route from terminal {src} to {dst} does not end")

    def hops(self, src: int, dst: int) -> int:
        """Router-to-router links crossed from terminal ``src`` to terminal ``dst`` (the engine's hops)."""
        return len(self.path(src, dst)) - 1

    def sm_slice_hops(self, sm: int, sl: int) -> int:
        """Hops from SM ``sm`` to L2 slice ``sl`` (indices, not terminals)."""
        return self.hops(self.sm_terminals[sm], self.llc_terminals[sl])


def mesh_route_port(node: int, dnode: int, width: int, yx: bool) -> int:
    """Dimension-order routing's output port at ``node`` for ``dnode``: 0 N (y-1), 1 E (x+1), 2 S (y+1),
    3 W (x-1), 4 eject. With ``yx`` the Y offset is corrected first."""
    x, y = node % width, node // width
    dx, dy = dnode % width, dnode // width
    if yx and dy != y:
        return 0 if dy < y else 2
    if dx != x:
        return 1 if dx > x else 3
    if dy != y:
        return 0 if dy < y else 2
    return MESH_LOCAL


def mesh_topology(ms) -> Topology:
    """A ``MeshSpec``'s tables: router = node, ports N E S W local; input port of a link = the opposite side."""
    w, h = ms.width, ms.height
    n = w * h
    yx = ms.routing == "yx"
    route = np.empty((n, n), I64)
    for a in range(n):
        for b in range(n):
            route[a, b] = mesh_route_port(a, b, w, yx)
    link = np.full((n, MESH_PORTS, 2), 0, I64)
    step = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
    for a in range(n):
        x, y = a % w, a // w
        for o, (sx, sy) in step.items():
            nx, ny = x + sx, y + sy
            link[a, o] = (ny * w + nx, (o + 2) % 4) if 0 <= nx < w and 0 <= ny < h else (NO_LINK, 0)
        link[a, MESH_LOCAL] = (EJECT, 0)
    inject = np.stack([np.arange(n, dtype=I64), np.full(n, MESH_LOCAL, I64)], axis=1)
    return Topology("mesh", n, MESH_PORTS, n, route, link, inject, tuple(ms.sm_nodes), tuple(ms.llc_nodes), 0)


def _digits(v: int, k: int, n: int) -> list[int]:
    """Base-``k`` digits of ``v``, least significant first, ``n`` of them."""
    return [(v // k ** i) % k for i in range(n)]


def _undigits(d: list[int], k: int) -> int:
    return sum(x * k ** i for i, x in enumerate(d))


def butterfly_topology(bs) -> Topology:
    """A k-ary n-fly (``ButterflySpec``): n stages of k**(n-1) routers with k inputs and k outputs each;
    router id = stage * k**(n-1) + index. Destination-tag routing: at stage i the output port is the i-th
    most significant base-k digit of the destination terminal; the last stage's router d // k ejects on
    port d % k to terminal d; terminal t injects at stage-0 router t // k, input port t % k.

    The wiring follows from the routing: a packet's position is an n-digit address whose digit n-1-i the
    stage-i router sets to the destination's digit (its input port is the old digit, its output port the
    new one); a router of stage i holds the addresses that differ only in that digit, and its index is the
    address without it. Terminal t enters as address (t % k) * k**(n-1) + t // k, so stage 0's routers are
    t // k; after the last stage the address is the destination itself."""
    k, n = bs.radix, bs.stages
    per = k ** (n - 1)
    nr = n * per
    nt = k ** n

    def router_of(stage: int, addr: list[int]) -> tuple[int, int]:
        j = n - 1 - stage  # the digit this stage sets
        rest = addr[:j] + addr[j + 1:]
        return stage * per + _undigits(rest, k), addr[j]

    def addr_of(stage: int, index: int, port: int) -> list[int]:
        j = n - 1 - stage
        rest = _digits(index, k, n - 1)
        return rest[:j] + [port] + rest[j:]

    route = np.empty((nr, nt), I64)
    link = np.empty((nr, k, 2), I64)
    for s in range(n):
        j = n - 1 - s
        for i in range(per):
            r = s * per + i
            for d in range(nt):
                route[r, d] = _digits(d, k, n)[j]
            for o in range(k):
                if s == n - 1:
                    link[r, o] = (EJECT, 0)
                else:
                    link[r, o] = router_of(s + 1, addr_of(s, i, o))
    inject = np.empty((nt, 2), I64)
    for t in range(nt):
        addr = _digits((t % k) * per + t // k, k, n)
        inject[t] = router_of(0, addr)
    return Topology("butterfly", nr, k, nt, route, link, inject, tuple(bs.sm_nodes), tuple(bs.llc_nodes),
                    bs.link_latency)


def topology_of(machine) -> Topology | None:
    """The router network of ``machine`` (mesh or butterfly), or None for the crossbar."""
    ic = machine.icnt
    if ic.impl == "mesh" and ic.mesh is not None:
        return mesh_topology(ic.mesh)
    if ic.impl == "butterfly" and ic.butterfly is not None:
        return butterfly_topology(ic.butterfly)
    return None
