"""Analytic latencies and bandwidth bounds of a machine, from its spec values alone (docs/timing.md).

These are the answers the validation tests know in advance: the unloaded load-to-use latency of each
level of a pointer-chasing load, and the throughput bounds a streaming read cannot exceed (DRAM,
interconnect, and Little's law over the MSHRs). Nothing here runs the engine.

    lat = load_to_use(m)          # {"l1": 35.0, "l2": 136.0, "dram": 248.9} on gtx480 (core cycles)
    b = stream_bounds(m)          # {"dram": ..., "icnt": ..., "mshr": ..., "lowest": ...} in GB/s
"""

from __future__ import annotations

import math

from .spec import ATOM_BYTES, Machine


def flits(m: Machine, payload_bytes: int) -> int:
    """Flits of one packet carrying ``payload_bytes`` (header included, at least one)."""
    return max(1, math.ceil((m.icnt.header_bytes + payload_bytes) / m.icnt.flit_bytes))


def l1_fill_bytes(m: Machine, request_bytes: int = 8) -> int:
    """Bytes an L1 read miss of ``request_bytes`` (one lane, aligned) fetches: whole L1 sectors."""
    return max(m.l1d.sector_bytes, math.ceil(request_bytes / ATOM_BYTES) * ATOM_BYTES)


def dram_data_cycles(m: Machine, nbytes: int) -> int:
    """DRAM cycles from the first column command of a row-hit request of ``nbytes`` to its last data.

    ``n = ceil(nbytes / atom_bytes)`` bursts to one bank: ``(n - 1) x max(tCCD_L, burst_cycles)`` between
    column commands (same bank group), then ``tCL + burst_cycles`` for the last one.
    """
    d = m.dram
    n = max(1, math.ceil(nbytes / d.atom_bytes))
    return (n - 1) * max(d.timing.tCCD_L, d.burst_cycles) + d.timing.tCL + d.burst_cycles


def load_to_use(m: Machine, request_bytes: int = 8, row: str = "hit") -> dict[str, float]:
    """Unloaded load-to-use latency (core cycles) of one load served by L1, L2 and DRAM.

    Valid when the interconnect and L2 clocks equal the core clock (both presets); the DRAM part is
    converted by ``core_mhz / dram_mhz`` and excludes the alignment to clock edges at the two domain
    crossings (at most one DRAM cycle plus one L2 cycle, see docs/timing.md). ``row`` is the DRAM row
    state: ``hit`` (open row), ``closed`` (adds tRCD) or ``conflict`` (adds tRP + tRCD).
    """
    c, ic, l1 = m.clocks, m.icnt, m.l1d
    if not (c.icnt_mhz == c.core_mhz == c.l2_mhz):
        raise ValueError("load_to_use assumes core, interconnect and L2 clocks are equal")
    fill = l1_fill_bytes(m, request_bytes)
    l1_hit = float(l1.latency)
    net = (ic.latency + flits(m, 0) - 1) + (ic.latency + flits(m, fill) - 1)
    base = l1.miss_latency + net + m.core.fill_to_use
    rop = m.rop_latency  # every request waits in the memory partition's ROP queue, with or without an L2
    l2_hit = math.nan if m.l2 is None or not m.l2.enabled else float(base + rop + m.l2.latency)
    before_dram = base + rop + 1  # the partition replies one L2 cycle after the data returns (an L2 fills first)
    t = m.dram.timing
    row_cycles = {"hit": 0, "closed": t.tRCD, "conflict": t.tRP + t.tRCD}[row]
    d_cycles = m.dram.controller_latency + row_cycles + dram_data_cycles(m, fill)
    dram = before_dram + d_cycles * c.core_mhz / c.dram_mhz
    return {"l1": l1_hit, "l2": l2_hit, "dram": float(dram)}


def dram_bound_gbs(m: Machine) -> float:
    """Peak DRAM bandwidth of a read stream less refresh: channels x bus bytes x data rate x clock x
    (1 - tRFC / tREFI), times 32 / atom bytes where each 32-B sector read takes a whole burst
    (``dram.read_burst_per_sector``, GPGPU-Sim's model)."""
    d = m.dram
    peak = d.scheduling_channels * d.bus_bits / 8 * d.data_rate * m.clocks.dram_mhz * 1e6 / 1e9
    t = d.timing
    if d.refresh and t.tREFI > 0:
        peak *= 1 - t.tRFC / t.tREFI
    if d.read_burst_per_sector and d.atom_bytes > 32:
        peak *= 32 / d.atom_bytes
    return peak


def icnt_bound_gbs(m: Machine, request_bytes: int = 128) -> float:
    """Read data the crossbar can move: each port passes one flit per interconnect cycle.

    A read of ``request_bytes`` is a header-only request (``flits(0)``) and a reply of
    ``flits(request_bytes)``; the slices (and the SMs) share the traffic evenly, so the bound is the
    smaller of ``min(slices, SMs) x request_bytes / flits`` per cycle over the two networks.
    """
    ports = min(m.num_slices, m.core.num_sms)
    per_cycle = min(request_bytes / flits(m, request_bytes), request_bytes / flits(m, 0))
    return ports * per_cycle * m.clocks.icnt_mhz * 1e6 / 1e9


def mshr_bound_gbs(m: Machine, request_bytes: int = 128) -> float:
    """Little's law: outstanding misses x bytes each / unloaded latency, for the L1 and L2 MSHRs.

    L1: ``num_sms x l1d.mshr_entries`` lines of ``request_bytes`` over the DRAM load-to-use latency;
    L2: ``slices x l2.mshr_entries`` over the DRAM part alone (controller latency + row hit service).
    """
    lat = load_to_use(m, request_bytes)
    ns_core = 1e3 / m.clocks.core_mhz
    l1 = m.core.num_sms * m.l1d.mshr_entries * request_bytes / (lat["dram"] * ns_core)
    bound = l1
    if m.l2 is not None and m.l2.enabled:
        d_ns = (m.dram.controller_latency + dram_data_cycles(m, request_bytes)) * 1e3 / m.clocks.dram_mhz
        bound = min(bound, m.num_slices * m.l2.mshr_entries * request_bytes / d_ns)
    return bound


def stream_bounds(m: Machine, request_bytes: int = 128) -> dict[str, float]:
    """The three bounds of a streaming read (GB/s) and the lowest of them."""
    b = {"dram": dram_bound_gbs(m), "icnt": icnt_bound_gbs(m, request_bytes), "mshr": mshr_bound_gbs(m, request_bytes)}
    b["lowest"] = min(b.values())
    return b


# ------------------------------------------------------------------------------------------------------
# memory stacks and serial links (docs/timing.md, "Memory stacks and serial links")


def link_packet_bytes(m: Machine, nbytes: int = 128) -> dict[str, int]:
    """Bytes on the link of each packet kind moving ``nbytes`` of data: flits x flit_bytes."""
    lk = m.links
    if lk is None:
        raise ValueError(f"{m.name} has no serial links")
    f = lk.flit_bytes
    data = math.ceil(nbytes / f)
    return {"read_request": lk.request_flits * f, "read_response": (lk.response_header_flits + data) * f,
            "write": (lk.write_header_flits + data) * f, "write_ack": lk.ack_flits * f}


def link_bounds(m: Machine, reads: float = 1.0, writes: float = 0.0, nbytes: int = 128) -> dict[str, float]:
    """Data bandwidth (GB/s, reads + writes) the links allow for a stream spread evenly over the stacks.

    A stream of ``reads`` reads and ``writes`` writes of ``nbytes`` each (per unit of work) puts
    ``TX = reads x read_request + writes x write`` bytes on each stack's TX channel and
    ``RX = reads x read_response + writes x write_ack`` on its RX channel while moving
    ``D = (reads + writes) x nbytes`` bytes of data. Each channel bounds the data rate at
    ``stacks x D x bandwidth / bytes``; the lower of TX and RX binds."""
    p = link_packet_bytes(m, nbytes)
    n = m.stacks.count
    data = (reads + writes) * nbytes
    tx = reads * p["read_request"] + writes * p["write"]
    rx = reads * p["read_response"] + writes * p["write_ack"]
    b = {"tx": n * data * m.links.tx_gbs / tx if tx else math.inf,
         "rx": n * data * m.links.rx_gbs / rx if rx else math.inf}
    b["lowest"] = min(b.values())
    b["binding"] = 0.0 if b["tx"] <= b["rx"] else 1.0  # 0: TX binds, 1: RX binds
    return b


def vault_bound_gbs(m: Machine, stacks: int = 1) -> float:
    """Aggregate vault bandwidth of ``stacks`` stacks: vaults x TSVs x rate / 8 x (1 - tRFC / tREFI)."""
    st = m.stacks
    if st is None:
        raise ValueError(f"{m.name} has no memory stacks")
    peak = stacks * st.vaults_per_stack * st.vault_gbs()
    t = m.dram.timing
    if m.dram.refresh and t.tREFI > 0:
        peak *= 1 - t.tRFC / t.tREFI
    return peak


def cross_link_packet_bytes(m: Machine, nbytes: int = 128) -> dict[str, int]:
    """Bytes on a logic die's cross-stack link of each packet kind moving ``nbytes``: flits x flit_bytes."""
    xl = m.logic_die.cross_stack if m.logic_die is not None else None
    if xl is None:
        raise ValueError(f"{m.name} has no timed cross-stack links (logic_die.cross_stack)")
    f = xl.flit_bytes
    data = math.ceil(nbytes / f)
    return {"read_request": xl.request_flits * f, "read_response": (xl.response_header_flits + data) * f,
            "write": (xl.write_header_flits + data) * f, "write_ack": xl.ack_flits * f}


def cross_link_bound(m: Machine, reads: float = 1.0, writes: float = 0.0, nbytes: int = 128) -> dict[str, float]:
    """Data bandwidth (GB/s) one cross-stack link pair allows a logic die's SMs for a stream confined to one
    other stack: ``D x gbs / bytes`` on the outbound link (requests, writes) and the return link (read
    responses, acknowledgements), with ``D = (reads + writes) x nbytes``; the lower binds (0: out, 1: back)."""
    p = cross_link_packet_bytes(m, nbytes)
    gbs = m.logic_die.cross_stack.gbs
    data = (reads + writes) * nbytes
    out = reads * p["read_request"] + writes * p["write"]
    back = reads * p["read_response"] + writes * p["write_ack"]
    b = {"out": data * gbs / out if out else math.inf, "back": data * gbs / back if back else math.inf}
    b["lowest"] = min(b.values())
    b["binding"] = 0.0 if b["out"] <= b["back"] else 1.0
    return b
