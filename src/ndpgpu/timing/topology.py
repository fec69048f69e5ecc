"""Router networks as data: the routing, link and injection tables of the mesh, the butterfly and the
hierarchical mesh.

The compiled router (``engine/mesh.py``) knows no geometry. Per subnet it reads three tables, built here:

* ``route[router, dest]``: the output port a packet for destination terminal ``dest`` takes at ``router``;
* ``link[router, port]``: ``(next router, its input port)``, ``(EJECT, 0)`` when the port ejects to the
  router's terminal, or ``(NO_LINK, 0)`` where no link leaves (a mesh edge);
* ``inject[terminal]``: ``(router, input port)`` where a terminal's packets enter;
* ``cost[router, port]``: ``(link latency in cycles, link bytes per cycle)`` of an output port; 0 bytes means
  one flit per cycle (the mesh and the butterfly; the hierarchical mesh gives its on-chip and off-chip links
  their own widths and latencies).

A *terminal* is where an SM or an L2 slice attaches: a mesh node (its router is the node's own, its port
the local one), one of the butterfly's k**n terminals, or one of the local ports of a hierarchical mesh's
router (several terminals per router, one port each). :class:`Topology` also walks the tables, so the
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
    cost: np.ndarray | None = None  # (nrouters, ports, 2): link latency, bytes per cycle (0: one flit)

    def link_cost(self, link_latency: int) -> np.ndarray:
        """``cost``, or (``link_latency``, one flit per cycle) on every port where the topology has none."""
        if self.cost is not None:
            return self.cost
        c = np.zeros((self.nrouters, self.ports, 2), I64)
        c[:, :, 0] = link_latency
        return c

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


HM_DIRS = 4  # an hmesh router's ports: on-chip N E S W, then its local ports, then off-chip N E S W


def hmesh_ports(local: int) -> tuple[int, int]:
    """(ports per router, first off-chip port) of a hierarchical mesh whose routers have ``local`` local ports."""
    return HM_DIRS + local + HM_DIRS, HM_DIRS + local


def hmesh_topology(hs, num_sms: int, num_slices: int) -> Topology:
    """An ``HMeshSpec``'s tables. Router id = chip * nodes_per_chip + node (chip = cy * chips_x + cx, node =
    y * nodes_x + x). Terminals: SM i is terminal i, slice j terminal ``num_sms + j``; each gets a local port
    of its router (in terminal order), where it injects and ejects. Only a chip's gateway router has off-chip
    links, to the gateway of the neighbouring chip in each direction (input port: the opposite side).

    Routing: a packet for the router's own chip goes dimension-order across the chip to the destination
    router and ejects on the terminal's port; a packet for another chip goes dimension-order to this chip's
    gateway, dimension-order over the chip grid (gateway to gateway) and then, in the destination chip, from
    its gateway to the destination router."""
    sm_r, sl_r = hs.placement(num_sms, num_slices)
    routers = list(sm_r) + list(sl_r)
    nt = len(routers)
    npc = hs.nodes_x * hs.nodes_y
    nr = hs.chips_x * hs.chips_y * npc
    local_port = np.empty(nt, I64)
    used = np.zeros(nr, I64)
    for t, r in enumerate(routers):
        local_port[t] = HM_DIRS + used[r]
        used[r] += 1
    nport, off0 = hmesh_ports(hs.local_ports(num_sms, num_slices))
    yx = hs.routing == "yx"
    gw = hs.gateway
    route = np.empty((nr, nt), I64)
    for r in range(nr):
        chip, node = divmod(r, npc)
        for t, dr in enumerate(routers):
            dchip, dnode = divmod(dr, npc)
            if dchip == chip:
                o = mesh_route_port(node, dnode, hs.nodes_x, yx)
                route[r, t] = local_port[t] if o == MESH_LOCAL else o
            elif node != gw:
                route[r, t] = mesh_route_port(node, gw, hs.nodes_x, yx)
            else:
                route[r, t] = off0 + mesh_route_port(chip, dchip, hs.chips_x, yx)
    link = np.full((nr, nport, 2), 0, I64)
    link[:, :, 0] = NO_LINK
    cost = np.zeros((nr, nport, 2), I64)
    step = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
    for r in range(nr):
        chip, node = divmod(r, npc)
        x, y = node % hs.nodes_x, node // hs.nodes_x
        cx, cy = chip % hs.chips_x, chip // hs.chips_x
        for o, (sx, sy) in step.items():
            nx, ny = x + sx, y + sy
            if 0 <= nx < hs.nodes_x and 0 <= ny < hs.nodes_y:
                link[r, o] = (chip * npc + ny * hs.nodes_x + nx, (o + 2) % 4)
            ncx, ncy = cx + sx, cy + sy
            if node == gw and 0 <= ncx < hs.chips_x and 0 <= ncy < hs.chips_y:
                link[r, off0 + o] = ((ncy * hs.chips_x + ncx) * npc + gw, off0 + (o + 2) % 4)
        for p in range(HM_DIRS, HM_DIRS + int(used[r])):
            link[r, p] = (EJECT, 0)
        cost[r, :off0] = (hs.link_latency, hs.link_bytes)
        cost[r, off0:] = (hs.offchip_link_latency, hs.offchip_link_bytes)
    inject = np.stack([np.asarray(routers, I64), local_port], axis=1)
    return Topology("hmesh", nr, nport, nt, route, link, inject, tuple(range(num_sms)),
                    tuple(range(num_sms, nt)), 0, cost)


def topology_of(machine) -> Topology | None:
    """The router network of ``machine`` (mesh, butterfly or hierarchical mesh), or None for the crossbar."""
    ic = machine.icnt
    if ic.impl == "mesh" and ic.mesh is not None:
        return mesh_topology(ic.mesh)
    if ic.impl == "butterfly" and ic.butterfly is not None:
        return butterfly_topology(ic.butterfly)
    if ic.impl == "hmesh" and ic.hmesh is not None:
        return hmesh_topology(ic.hmesh, machine.num_sms, machine.num_slices)
    return None
