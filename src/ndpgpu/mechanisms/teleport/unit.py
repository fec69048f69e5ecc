"""TELEPORT, the Python side: the per-launch preload table and state vector, the hardware's statistics (the
configuration is :mod:`.config`, the compiled side :mod:`.hardware`), and the table as a
:class:`~ndpgpu.timing.Preloader` (the engine's L1 preload path)::

    plans = {k: KernelPlan.of(module.ir.functions[k]) for k in module.kernel_names}
    session.attach(TeleportHardware(plans, Teleport(machine="real", buffer_kb=48)))

Preload ranges come only from the analysis's coefficients and the launch (grid, block, the argument
buffer's pointer and scalar values): never from the trace's records.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ...analysis.affine import Launch
from ...frontend.ir import Function
from ...timing import engine as E
from ...timing import sampling
from ...timing.build import launch_occupancy
from ...timing.interfaces import Preloader
from ...timing.mechanism import MechanismHardware, Put, Ratio
from ...trace.format import OP_CLASSES
from ..state import StateLayout
from . import hardware as H
from .classify import ReadIndex, classify_reads
from .config import ARBITRATION, MACHINES, SETS, Teleport, TeleportError
from .regions import LINE_BYTES, PreloadTable, build_table

if TYPE_CHECKING:
    from ...timing.session import TimingSession
    from ...trace.format import KernelTrace

I64 = np.int64


# why the hardware declines sampling (said by the policy before a run, too)
STABLE_DECLINED = "TELEPORT: a block's preloads cover its whole tile, not the part of its warps timed"


@dataclasses.dataclass
class KernelPlan:
    """The compiler pass's result for one kernel: its function and classified reads."""

    fn: Function
    reads: list[ReadIndex]

    @staticmethod
    def of(fn: Function) -> KernelPlan:
        return KernelPlan(fn, classify_reads(fn))


def param_values(fn: Function, param_hex: str) -> dict[str, int]:
    """The integer value of each scalar/pointer parameter in a launch's argument buffer (PTX layout)."""
    raw = bytes.fromhex(param_hex)
    out: dict[str, int] = {}
    pos = 0
    for p in fn.params:
        al = max(1, p.alignment)
        pos += (-pos) % al
        size = p.size
        if not p.array and size in (1, 2, 4, 8) and p.type.kind in ("u", "s", "b"):
            if pos + size > len(raw):
                raise TeleportError(f"{fn.name}: the argument buffer ({len(raw)} B) is shorter than parameter "
                                    f"{p.name} at {pos}")
            out[p.name] = int.from_bytes(raw[pos:pos + size], "little", signed=p.type.kind == "s")
        pos += size
    return out


def launch_table(plan: KernelPlan, trace: KernelTrace, config: Teleport) -> tuple[PreloadTable, dict[str, int]]:
    """The preload table of one launch and its parameter values (the rows' bases)."""
    L = trace.launch
    if not L.param_bytes and plan.fn.params:
        raise TeleportError(f"{L.kernel}: the trace carries no launch arguments (recorded before they were kept); "
                            f"re-record it")
    params = param_values(plan.fn, L.param_bytes) if plan.fn.params else {}
    table = build_table(L.kernel, plan.reads, Launch.of(L.grid, L.block, params), split_rows=config.split_rows,
                        merge=config.merge, capacity=config.table_entries)
    return table, params


def cta_ids(grid: tuple[int, int, int]) -> np.ndarray:
    """``(n, 3)`` blockIdx of every block in linear order (x fastest)."""
    n = grid[0] * grid[1] * grid[2]
    c = np.arange(n, dtype=I64)
    return np.stack([c % grid[0], (c // grid[0]) % grid[1], c // (grid[0] * grid[1])], axis=1)


def table_rows(table: PreloadTable, params: dict[str, int]) -> np.ndarray:
    rows = np.zeros((len(table.regions), H.NRW), I64)
    for i, r in enumerate(table.regions):
        rows[i] = (params[r.array], r.typesize, *r.minp, r.minoff, *r.maxp, r.maxoff)
    return rows


def row_lines(rows: np.ndarray, grid: tuple[int, int, int]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per table row, every block's first and last line (Eqs. 2/3, vectorised over the grid)."""
    ids = cta_ids(grid)
    out = []
    for row in rows:
        ts = row[H.RW_TS]
        lo = row[H.RW_BASE] + ts * (ids @ row[H.RW_MINX:H.RW_MINZ + 1] + row[H.RW_MINOFF])
        hi = row[H.RW_BASE] + ts * (ids @ row[H.RW_MAXX:H.RW_MAXZ + 1] + row[H.RW_MAXOFF]) + ts - 1
        out.append((lo // LINE_BYTES * LINE_BYTES, hi // LINE_BYTES * LINE_BYTES))
    return out


def unique_lines(rows: np.ndarray, grid: tuple[int, int, int]) -> np.ndarray:
    """Every line some block of the launch preloads, sorted (the ideal buffer's index)."""
    parts = []
    for lo, hi in row_lines(rows, grid):
        n = (hi - lo) // LINE_BYTES + 1
        n = np.maximum(n, 0)
        if n.sum() == 0:
            continue
        starts = np.repeat(lo, n)
        offs = np.arange(int(n.sum()), dtype=I64) - np.repeat(np.cumsum(n) - n, n)
        parts.append(np.unique(starts + offs * LINE_BYTES))
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, I64)


MT_GAP_CYCLES = 16  # core cycles within which one warp's accesses of one PC are one instruction's transactions


def mt_words(ringn: int) -> int:
    """Words of one SM's MTHWP state (header, PWS, GS, IP, an accounting ring of ``ringn`` lines)."""
    return H.NMS + H.PWS_N * H.NPW + H.GS_N * H.NGS + H.IP_N * H.NIP + 2 * ringn


def mt_init(block: np.ndarray, nsm: int, ringn: int) -> None:
    """Empty MTHWP state of ``nsm`` SMs in ``block`` (a view of mx): no last access, an empty ring."""
    mt = block.reshape(nsm, mt_words(ringn))
    mt[:, H.MS_LSLOT] = -1
    mt[:, mt_words(0)::2] = -1  # the ring's lines


def teleport_state(session: TimingSession, plan: KernelPlan | None, trace: KernelTrace,
                   config: Teleport) -> np.ndarray:
    """The hooks' state vector ``mx`` for one launch (``plan`` None, or machine ``off``: no preloading)."""
    st = session.state
    cfg = st.cfg
    L = trace.launch
    mode = MACHINES[config.machine] if plan is not None else H.MODE_OFF
    if mode == H.MODE_OFF:
        rows = np.zeros((0, H.NRW), I64)
    else:
        table, params = launch_table(plan, trace, config)
        rows = table_rows(table, params)
    nsm = int(cfg[E.C_NSM])
    nslot = int(cfg[E.C_NSLOT])
    nctas = L.num_ctas
    ideal = mode != H.MODE_REAL
    ul = unique_lines(rows, L.grid) if ideal else np.zeros(0, I64)
    nw = (len(ul) + 31) // 32
    occ = launch_occupancy(session.machine, trace)
    smem_used = L.shared_bytes * max(1, occ.ctas_per_sm)
    ways = 0 if ideal else max(0, (config.buffer_kb * 1024 - smem_used) // (LINE_BYTES * SETS))
    npc = len(trace.static)
    qcap = nctas + 1
    sizes = {"row": rows.size, "cta": nctas * H.NCT, "q": nsm * qcap, "sms": nsm * H.NSS,
             "tag": nsm * SETS * ways * H.NTG, "ul": len(ul), "bm": nsm * nw * 2, "pc": npc, "wk": nsm * nslot * 2,
             "ctr": len(H.COUNTER_NAMES), "mt": 0, "gw": nsm * nslot}
    ringn = int(session.machine.l1d.num_lines) if config.mthwp else 0
    if config.mthwp:
        sizes["mt"] = nsm * mt_words(ringn)
    off = StateLayout(H.F_HDR, sizes)
    mx = off.allocate()
    smem_lat = config.smem_latency if config.smem_latency is not None else int(cfg[E.C_SMEM_LAT])
    core_ps = 1e6 / session.machine.clocks.core_mhz
    hdr = {H.F_MODE: mode, H.F_NSM: nsm, H.F_NSLOT: nslot, H.F_WPC: L.warps_per_cta,
           H.F_GX: L.grid[0], H.F_GY: L.grid[1], H.F_NCTA: nctas, H.F_NROW: len(rows), H.F_ROW0: off["row"],
           H.F_CTA0: off["cta"], H.F_Q0: off["q"], H.F_QCAP: qcap, H.F_SMS0: off["sms"], H.F_TAG0: off["tag"],
           H.F_SETS: SETS, H.F_WAYS: ways, H.F_UL0: off["ul"], H.F_NUL: len(ul), H.F_BM0: off["bm"], H.F_NW: nw,
           H.F_PC0: off["pc"], H.F_NPC: npc, H.F_WK0: off["wk"], H.F_WKCAP: nslot, H.F_SMEM_LAT: smem_lat,
           H.F_PRIO: config.priority, H.F_ARB: ARBITRATION[config.arbitration],
           H.F_LSHIFT: LINE_BYTES.bit_length() - 1, H.F_STAMP: 0, H.F_MAXOUT: config.max_outstanding,
           H.F_CTR0: off["ctr"], H.F_MT: int(config.mthwp), H.F_MT0: off["mt"], H.F_MT_RINGN: ringn,
           H.F_MT_GAP: int(MT_GAP_CYCLES * core_ps), H.F_MT_PERIOD: config.mthwp_period,
           H.F_SHARED: int(config.controller == "shared"),
           H.F_MT_GID: int(config.mthwp and config.mthwp_ids == "global"), H.F_GW0: off["gw"],
           H.F_TLAST: -1, H.F_TBLK: -1}
    for k, v in hdr.items():
        mx[k] = v
    off.view(mx, "row")[:] = rows.ravel()
    off.view(mx, "ul")[:] = ul
    tags = off.view(mx, "tag", H.NTG) if ways else None
    if tags is not None:
        tags[:, H.TG_TAG] = -1
    if config.mthwp:
        mt_init(off.view(mx, "mt"), nsm, ringn)
    load = OP_CLASSES.index("load")
    off.view(mx, "pc")[:] = (trace.static["op_class"] == load).astype(I64)
    return mx


def _popcount(a: np.ndarray) -> int:
    return int(np.bitwise_count(a.astype(np.uint64)).sum())


class TeleportHardware(MechanismHardware):
    """TELEPORT's preload table, controller, buffer and gating (seed 002)."""

    mechanism = H.MECHANISM
    counter_names = H.COUNTER_NAMES

    def __init__(self, plans: dict[str, KernelPlan], config: Teleport | None = None) -> None:
        self.plans = plans
        self.config = config or Teleport()
        self.tables: list[PreloadTable] = []

    def launch_state(self, session: TimingSession, trace: KernelTrace) -> np.ndarray | None:
        plan = self.plans.get(trace.launch.kernel)
        if plan is None and not self.config.mthwp:
            return None
        return teleport_state(session, plan, trace, self.config)

    def serial_work(self, session: TimingSession, mx: np.ndarray, ctas: int,
                    timed: np.ndarray) -> sampling.SerialWork | None:
        """The S-machine's launch lasts until its controller has requested every block's lines, and its blocks are
        never gated, so they run ahead of it: its requests, one at a time, are work the waves timed do not
        scale (the table gives every block's lines, timed or not)."""
        if int(mx[H.F_MODE]) != H.MODE_S or int(mx[H.F_NROW]) == 0 or int(mx[H.F_TLAST]) < 0:
            return None
        every = H.table_lines(np.arange(ctas, dtype=np.int64), mx)
        return sampling.SerialWork(every, H.table_lines(np.asarray(timed, np.int64), mx), "TP_REQS",
                                   int(mx[H.F_TBLK]), int(mx[H.F_UBLK]), int(mx[H.F_TLAST]))

    def declines_stable_sampling(self, mx: np.ndarray) -> str | None:
        """A block's preload covers its whole tile at dispatch, whatever share of its warps' instructions runs."""
        if int(mx[H.F_NROW]) > 0:
            return STABLE_DECLINED
        return None

    def launch_begin(self, session: TimingSession, mx: np.ndarray, start_ps: int) -> None:
        for code, name in H.PACKET_NAMES.items():
            session.packet_names[code] = name

    def launch_end(self, session: TimingSession, mx: np.ndarray) -> None:
        """Lines still in the buffers: read ones are used, the others wasted."""
        c0 = int(mx[H.F_CTR0])
        nsm = int(mx[H.F_NSM])
        if int(mx[H.F_MT]):  # prefetched lines still unread in the accounting ring
            ringn = int(mx[H.F_MT_RINGN])
            words = mt_words(ringn)
            mt = mx[int(mx[H.F_MT0]):int(mx[H.F_MT0]) + nsm * words].reshape(nsm, words)
            flags = mt[:, words - 2 * ringn + 1::2]
            mx[c0 + H.MC_UNUSED_END] += int((flags != 0).sum())
        if int(mx[H.F_MODE]) == H.MODE_REAL:
            ways = int(mx[H.F_WAYS])
            if ways:
                t0 = int(mx[H.F_TAG0])
                tags = mx[t0:t0 + nsm * SETS * ways * H.NTG].reshape(-1, H.NTG)
                live = tags[:, H.TG_TAG] >= 0
                used = int((live & (tags[:, H.TG_USED] != 0)).sum())
                mx[c0 + H.TC_USED] += used
                mx[c0 + H.TC_WASTED] += int(live.sum()) - used
        else:
            b0 = int(mx[H.F_BM0])
            bm = mx[b0:b0 + nsm * int(mx[H.F_NW]) * 2].reshape(-1, 2)
            present, used = bm[:, 0], bm[:, 1]
            u = _popcount(present & used)
            mx[c0 + H.TC_USED] += u
            mx[c0 + H.TC_WASTED] += _popcount(present) - u

    def counter_offset(self, mx: np.ndarray) -> int:
        return int(mx[H.F_CTR0])

    @staticmethod
    def metrics(stats, put: Put, ratio: Ratio) -> None:
        """Preload requests, buffer fills/hits/waste, coverage and gating time."""
        c = stats.c
        core_ps = 1e6 / stats.consts["core_mhz"]
        p = "teleport"
        put(p, "ctas", c("TP_CTAS"), "ctas")
        put(p, "gated_ctas", c("TP_GATED_CTAS"), "ctas")
        put(p, "preload_lines", c("TP_LINES"), "lines")
        put(p, "requests", c("TP_REQS"), "requests")
        put(p, "skipped_resident", c("TP_SKIPPED"), "lines")
        put(p, "arrived", c("TP_ARRIVED"), "lines")
        put(p, "filled", c("TP_FILLED"), "lines")
        put(p, "evicted", c("TP_EVICTED"), "lines")
        put(p, "used", c("TP_USED"), "lines")
        put(p, "wasted", c("TP_WASTED"), "lines")
        put(p, "hit_loads", c("TP_HIT_LD"), "warp-instr")
        put(p, "miss_loads", c("TP_MISS_LD"), "warp-instr")
        put(p, "hit_transactions", c("TP_HIT_TX"), "transactions")
        put(p, "miss_transactions", c("TP_MISS_TX"), "transactions")
        put(p, "coverage", ratio(c("TP_HIT_TX"), c("TP_HIT_TX") + c("TP_MISS_TX")), "fraction")
        put(p, "gate_cycles_per_cta", ratio(c("TP_GATE_PS"), c("TP_GATED_CTAS")) / core_ps, "cycles")
        put(p, "max_lines_per_cta", c("TP_MAX_LINES"), "lines")
        put(p, "start_cycles_per_cta", ratio(c("TP_START_PS"), c("TP_STARTED")) / core_ps, "cycles")
        put(p, "hit_line_reads", c("TP_HIT_READS"), "passes")
        mthwp_metrics(stats, put, ratio)


def mthwp_metrics(stats, put: Put, ratio: Ratio) -> None:
    """MTHWP's rows (``teleport.mthwp``): candidates per table, throttling, prefetches and their fate.

    ``issued`` and ``l1_used`` are the L1's own counts (prefetch misses sent; prefetches used, once each, by
    a demand that merged into them in flight or hit their filled line); ``useful`` (first demand hit a
    prefetched line), ``late_or_evicted`` (its first demand missed) and ``wasted`` (never demanded: pushed out
    of the accounting ring, or still unread at the end) follow the lines MTHWP asked for; accuracy = useful /
    tracked, coverage = useful / (useful + L1 demand misses)."""
    c = stats.c
    p = "teleport.mthwp"
    put(p, "accesses", c("MT_ACCESSES"), "transactions")
    put(p, "trained", c("MT_TRAIN"), "warp-instr")
    put(p, "candidates_gs", c("MT_GS"), "transactions")
    put(p, "candidates_ip", c("MT_IP"), "transactions")
    put(p, "candidates_pws", c("MT_PWS"), "transactions")
    put(p, "promoted", c("MT_PROMOTED"), "entries")
    put(p, "throttled", c("MT_THROTTLED"), "candidates")
    put(p, "mean_throttle_level", ratio(c("MT_LEVEL_SUM"), c("MT_PERIODS")), "level")
    put(p, "requested", c("MT_REQUESTED"), "lines")
    put(p, "issued", c("PF_ISSUED"), "lines")
    put(p, "tracked", c("MT_TRACKED"), "lines")
    put(p, "useful", c("MT_USEFUL"), "lines")
    put(p, "late_or_evicted", c("MT_MISSED"), "lines")
    put(p, "l1_used", c("PF_USEFUL"), "lines")
    put(p, "wasted", c("MT_EXPIRED") + c("MT_UNUSED_END"), "lines")
    put(p, "accuracy", ratio(c("MT_USEFUL"), c("MT_TRACKED")), "fraction")
    put(p, "coverage", ratio(c("MT_USEFUL"), c("MT_USEFUL") + c("L1_MISS")), "fraction")


class TeleportPreloader(Preloader):
    """The preload table as the engine's :class:`~ndpgpu.timing.Preloader`: each block's lines (Eqs. 2/3 of
    every row, from the launch only) fetched into L1 at dispatch, at the controller's priority. The
    compiled controller (:class:`TeleportHardware`) issues the same lines into its own buffer instead."""

    def __init__(self, plans: dict[str, KernelPlan], config: Teleport | None = None) -> None:
        self.plans = plans
        self.config = config or Teleport()
        self.priority = self.config.priority

    def lines(self, trace: KernelTrace, machine) -> tuple[np.ndarray, np.ndarray]:
        n = trace.launch.num_ctas
        plan = self.plans.get(trace.launch.kernel)
        if plan is None:
            return np.zeros(n + 1, I64), np.zeros(0, I64)
        table, params = launch_table(plan, trace, self.config)
        per = row_lines(table_rows(table, params), trace.launch.grid)
        chunks: list[np.ndarray] = []
        start = np.zeros(n + 1, I64)
        for c in range(n):
            ls = [np.arange(lo[c], hi[c] + 1, LINE_BYTES, dtype=I64) for lo, hi in per]
            v = np.unique(np.concatenate(ls)) if ls else np.zeros(0, I64)
            chunks.append(v)
            start[c + 1] = start[c] + len(v)
        return start, (np.concatenate(chunks) if chunks else np.zeros(0, I64))
