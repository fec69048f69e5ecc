"""MPU's processor, the Python side: the state vector of each launch (the per-PC placement table from the
compiler's annotation and the offload engine's operand rules, each memory record's near-bank unit, the
register track table and the per-core rows) and the statistics; the compiled side is :mod:`.hardware`::

    session = TimingSession("mpu")
    session.attach(MpuHardware(module, policy="annotation"))

The machine must be an MPU (``core.model: mpu``): its SMs are MPU cores with one near-bank unit per sub-core,
and its DRAM channels (and pass-through L2 slices) are the near-bank units, ``core x units + sub-core``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...timing import engine as E
from ...timing.mechanism import MechanismHardware, Put, Ratio
from ...trace.format import lane_address_table
from ..state import StateLayout
from . import hardware as H
from .energy import alu_class
from .locations import POLICIES, annotate
from .registers import FAR, NEAR, _placement

if TYPE_CHECKING:
    from ...timing.session import TimingSession
    from ...trace.format import KernelTrace

I64 = np.int64
REMOTE_CACHE_BYTES = 32 * 1024  # [A] niu_readonly_dcache_size: 32 KB per core, 1-cycle latency
PONB = "ponb"  # processing on the base die: MpuHardware's policy for the paper's PonB comparator
FULL_MASK = (1 << 32) - 1


class MpuMachineError(ValueError):
    """MPU's processor was asked to run on a machine that is not an MPU, or one it cannot map."""


def check_machine(machine: Any) -> None:
    """Raise :class:`MpuMachineError` unless ``machine`` is an MPU whose channels are its cores' units."""
    if machine.core.model != H.MECHANISM:
        raise MpuMachineError(f"{machine.name} is not an MPU (its core.model is {machine.core.model!r}, not "
                              f"'mpu'): use --machine mpu")
    nsub = machine.core.sub_cores
    nch = machine.dram.scheduling_channels
    if machine.num_stack_sms or nch != machine.num_sms * nsub or machine.num_slices != nch:
        raise MpuMachineError(f"{machine.name}: an MPU needs one DRAM channel and one L2 slice per sub-core "
                              f"({machine.num_sms} cores x {nsub}), not {nch} channels and {machine.num_slices} "
                              "slices")
    mp = machine.dram.mapping
    if mp.impl != "bitfields" or mp.channel_xor:
        raise MpuMachineError(f"{machine.name}: the near-bank unit of an address is read from its bits: the mapping "
                              "must be bitfields without channel_xor")


def placement_rows(fn: Any, hints: tuple[str | None, ...], npc: int, near_bank_smem: bool = True
                   ) -> tuple[np.ndarray, dict[str, int]]:
    """Per PC (``hardware.PM_*``): how the offload engine places it and which registers it reads and writes on
    which side (:func:`.registers._placement`, the replay's own rules), and the register ids used."""
    rows = np.zeros((max(npc, 1), H.NPM), I64)
    rows[:, H.PM_KIND] = H.PMK_SKIP
    ids: dict[str, int] = {}
    smem_side = NEAR if near_bank_smem else FAR
    body = fn.body

    def rid(name: str) -> int:
        return ids.setdefault(name, len(ids))

    for pc in range(min(npc, len(body))):
        p = _placement(body[pc], hints[pc], smem_side)
        row = rows[pc]
        if p.near_capable:
            row[H.PM_KIND] = H.PMK_ALU
            row[H.PM_HINT] = {"nb": NEAR, "fb": FAR}.get(p.hint, 0)
            reads = [(r, 0) for r in p.srcs]
            writes = [(r, 0) for r in p.dsts]
        else:
            row[H.PM_KIND] = H.PMK_FIXED
            reads, writes = list(p.reads), list(p.writes)
        row[H.PM_PLAIN] = int(p.plain_operands)
        if len(reads) > H.MAXS or len(writes) > H.MAXD:
            raise MpuMachineError(f"{fn.name} pc {pc}: {len(reads)} sources / {len(writes)} destinations exceed "
                                  f"the placement table's {H.MAXS} / {H.MAXD}")
        row[H.PM_NS] = len(reads)
        row[H.PM_ND] = len(writes)
        for j, (r, side) in enumerate(reads):
            row[H.PM_S0 + j] = rid(r)
            row[H.PM_SS0 + j] = side
        for j, (r, side) in enumerate(writes):
            row[H.PM_D0 + j] = rid(r)
            row[H.PM_DS0 + j] = side
    return rows, ids


def record_units(trace: KernelTrace, channel_bit: int, nunits: int) -> np.ndarray:
    """Per memory record: the near-bank unit holding all of a full-warp, perfectly coalesced global load or store
    (one contiguous run of ``size``-byte lanes, :func:`.lsu.offloadable`'s rule), else -1."""
    mem = trace.mem
    n = len(mem)
    out = np.full(max(n, 1), -1, I64)
    if n == 0:
        return out
    from ...trace.format import OP_CLASS, SPACE

    cls = trace.static["op_class"][mem["pc"].astype(I64)]
    ldst = (cls == OP_CLASS["load"]) | (cls == OP_CLASS["store"])
    space = mem["space"]
    glob = (space == SPACE["global"]) | (space == SPACE["generic"])
    size = mem["size"].astype(I64)
    base = mem["base"].astype(I64)
    stride = mem["stride"].astype(I64)
    first = base.copy()
    last = base + 31 * stride + size - 1
    contiguous = stride == size
    other = np.nonzero((mem["addr_index"] >= 0) | (mem["row_lanes"] > 0))[0]  # listed, or affine by rows
    if len(other):
        a = lane_address_table(mem[other], trace.lane_addrs)
        first[other] = a[:, 0]
        last[other] = a[:, -1] + size[other] - 1
        contiguous[other] = np.all(np.diff(a, axis=1) == size[other, None], axis=1)
    unit_first = (first >> channel_bit) % nunits
    unit_last = (last >> channel_bit) % nunits
    ok = ldst & glob & (mem["mask"].astype(I64) == FULL_MASK) & contiguous & (unit_first == unit_last)
    out[:n] = np.where(ok, unit_first, -1)
    return out


def alu_classes(trace: KernelTrace) -> np.ndarray:
    """Per PC: the index in ``hardware.ALU_COUNTERS`` of its ALU energy class (:func:`.energy.alu_class`), or -1
    for an instruction that uses no ALU."""
    from ...trace.format import OP_CLASSES

    index = {name: i for i, name in enumerate(H.ALU_COUNTERS)}
    out = np.full(len(trace.static), -1, I64)
    for pc, row in enumerate(trace.static):
        op = int(row["opcode"])
        name = trace.opcode_names[op] if 0 <= op < len(trace.opcode_names) else ""
        cls = alu_class(name, OP_CLASSES[int(row["op_class"])])
        if cls is not None:
            out[pc] = index[cls]
    return out


def mpu_state(session: TimingSession, fn: Any | None, policy: str, trace: KernelTrace, near_bank_smem: bool = True,
              tsv_beat_ps: int = 500, tsv_beat_bytes: int = 8, notice_cycles: int = 1, lsu_ports: int = 4,
              max_loads: int = 8, ponb: bool = False, remote_cache_bytes: int = REMOTE_CACHE_BYTES,
              remote_cache_ways: int = 8) -> np.ndarray:
    """The hooks' state vector for one launch of ``fn`` under location ``policy`` (``ponb``: processing on the
    base die, which implies far-bank shared memory); ``remote_cache_bytes`` is each core's read-only cache of
    remote data at its network interface (0: none), of 32-B lines, ``remote_cache_ways``-way, LRU, 1 core cycle."""
    m = session.machine
    check_machine(m)
    st = session.state
    cfg = st.cfg
    nsm, nslot, nsub = int(cfg[E.C_NSM]), int(cfg[E.C_NSLOT]), int(cfg[E.C_NSUB])
    npc = len(trace.static)
    if fn is None:  # a trace without its PTX (a synthetic one): no placement, so no registers are tracked
        rows, ids = np.zeros((max(npc, 1), H.NPM), I64), {}
        rows[:, H.PM_KIND] = H.PMK_SKIP
    else:
        table = annotate(fn, near_bank_smem)
        rows, ids = placement_rows(fn, table.hints_for(policy), npc, near_bank_smem)
    nreg = max(len(ids), 1)
    units = record_units(trace, m.dram.mapping.channel_bit, nsm * nsub)
    nldo = int(st.ldo.shape[0])
    ringcap = nslot * max_loads
    sizes = {"ctr": len(H.COUNTER_NAMES), "pct": rows.size, "rec": units.size, "rtt": nsm * nslot * nreg,
             "core": nsm * H.NCR, "sub": nsm * nsub * H.NSR, "ldx": nldo * H.NLX, "ring": nsm * ringcap}
    lines = remote_cache_bytes // 32
    ways = max(1, min(remote_cache_ways, lines))
    sets = max(1, lines // ways)
    sizes["roc"] = 2 * nsm * sets * ways if lines else 0  # (tag, last use) per entry
    off = StateLayout(H.X_HDR, sizes)
    mx = off.allocate()
    hdr = {H.X_NSM: nsm, H.X_NSLOT: nslot, H.X_NSUB: nsub, H.X_NBU: nsub, H.X_NREG: nreg, H.X_NPC: npc,
           H.X_BEAT_PS: tsv_beat_ps, H.X_BEAT_B: tsv_beat_bytes, H.X_REG_B: 32 * 4, H.X_PKT_B: 8,
           H.X_NOTICE: notice_cycles, H.X_LSU_PORTS: lsu_ports, H.X_MAXLD: max_loads, H.X_CTR0: off["ctr"],
           H.X_PCT0: off["pct"], H.X_REC0: off["rec"], H.X_NREC: len(trace.mem), H.X_RTT0: off["rtt"],
           H.X_CORE0: off["core"], H.X_SUB0: off["sub"], H.X_LDX0: off["ldx"], H.X_NLDO: nldo,
           H.X_RING0: off["ring"], H.X_RINGCAP: ringcap,
           H.X_FLAGS: (0 if near_bank_smem else H.FL_FAR_SMEM) | (H.FL_PONB if ponb else 0)
           | (H.FL_ROCACHE if lines else 0),
           H.X_ROC0: off["roc"], H.X_ROC_SETS: sets, H.X_ROC_WAYS: ways,
           H.X_ROC_LAT: int(st.clk[E.D_CORE, E.K_PERIOD])}
    for k, v in hdr.items():
        mx[k] = v
    off.view(mx, "roc")[::2] = -1  # every line invalid: a launch starts cold
    off.view(mx, "pct")[:] = rows.ravel()
    off.view(mx, "rec")[:] = units
    return mx


class MpuHardware(MechanismHardware):
    """MPU's cores, TSV buses and near-bank units (seed 003) for the launches of one module."""

    mechanism = H.MECHANISM
    counter_names = H.COUNTER_NAMES

    def __init__(self, module: Any | None, policy: str = "annotation", near_bank_smem: bool = True,
                 remote_cache: bool = True) -> None:
        """``module``: the compiled module whose kernels the launches run (None: traces without PTX, timed
        with every instruction far bank and no register tracked); ``policy``: a location policy, or ``ponb``
        (processing on the base die: no near-bank register file, ALUs or LSU extension, shared memory on the
        base die; the paper's Fig. 13 comparator); ``near_bank_smem`` False puts shared memory on the base die
        (the paper's Fig. 11 comparator); ``remote_cache`` False removes each core's 32 KB read-only cache of
        remote data (the authors' simulator has it; the paper does not mention it)."""
        if policy not in (*POLICIES, PONB):
            raise ValueError(f"unknown MPU location policy {policy!r}; policies: {', '.join((*POLICIES, PONB))}")
        self.module = module
        self.ponb = policy == PONB
        self.policy = "all-far" if self.ponb else policy  # (PonB: the placement rows' operand lists only)
        self.near_bank_smem = near_bank_smem and not self.ponb
        self.remote_cache = remote_cache
        self._alu = np.zeros(0, I64)  # the current launch's per-PC ALU energy class

    def _function(self, kernel: str) -> Any:
        if self.module is None:
            return None
        fns = self.module.ir.functions
        if kernel in fns:
            return fns[kernel]
        return fns[self.module.get_function(kernel).name]

    def launch_state(self, session: TimingSession, trace: KernelTrace) -> np.ndarray:
        self._alu = alu_classes(trace)
        return mpu_state(session, self._function(trace.launch.kernel), self.policy, trace, self.near_bank_smem,
                         ponb=self.ponb, remote_cache_bytes=REMOTE_CACHE_BYTES if self.remote_cache else 0)

    def launch_end(self, session: TimingSession, mx: np.ndarray) -> None:
        self._complete_counters(session, mx)

    def counters_now(self, session: TimingSession, mx: np.ndarray) -> dict[str, int]:
        done = mx.copy()
        self._complete_counters(session, done)
        return self.counters(done)

    def _complete_counters(self, session: TimingSession, mx: np.ndarray) -> None:
        """The counters read from the cores' rows and the engine's per-PC issue counts: the busiest core's TSV
        time, moves and bytes, and the ALU warp-instructions per energy class."""
        nsm = int(mx[H.X_NSM])
        core = mx[int(mx[H.X_CORE0]):int(mx[H.X_CORE0]) + nsm * H.NCR].reshape(nsm, H.NCR)
        c0 = int(mx[H.X_CTR0])
        busy = core[:, H.CR_TSV_BUSY:H.CR_TSV_UP_BUSY + 1]
        mx[c0 + H.TSV_BUSY_MAX_PS] = int(busy.sum(axis=1).max(initial=0))
        mx[c0 + H.TSV_DIR_BUSY_MAX_PS] = int(busy.max(initial=0))
        mx[c0 + H.MOVES_MAX_CORE] = int(core[:, H.CR_MOVES].max(initial=0))
        mx[c0 + H.TSV_BYTES_MAX_CORE] = int(core[:, H.CR_TSV_BYTES].max(initial=0))
        issued = session.state.pcst[:, E.PCS_ISSUED]
        n = min(len(issued), len(self._alu))
        for i in range(len(H.ALU_COUNTERS)):  # ALU warp-instructions per energy class, near and far bank
            mx[c0 + H.ALU0 + i] = int(issued[:n][self._alu[:n] == i].sum())

    def counter_offset(self, mx: np.ndarray) -> int:
        return int(mx[H.X_CTR0])

    @staticmethod
    def metrics(stats, put: Put, ratio: Ratio) -> None:
        """Where instructions ran, the register moves, the TSV buses, the hybrid LSU and the row buffers."""
        c = stats.c
        near, far_alu, other = c("NEAR_INSTS"), c("FAR_ALU_INSTS"), c("FAR_OTHER_INSTS")
        p = "mpu.instructions"
        put(p, "near_bank", near, "warp-instr")
        put(p, "far_bank_alu", far_alu, "warp-instr")
        put(p, "far_bank_other", other, "warp-instr")
        put(p, "near_share_of_alu", ratio(near, near + far_alu), "fraction")
        p = "mpu.registers"
        put(p, "moves_down", c("MOVES_DOWN"), "warp-registers")
        put(p, "moves_up", c("MOVES_UP"), "warp-registers")
        put(p, "moves", c("MOVES_DOWN") + c("MOVES_UP"), "warp-registers")
        put(p, "moves_max_core", c("MOVES_MAX_CORE"), "warp-registers")
        p = "mpu.tsv"
        put(p, "bytes", c("TSV_BYTES"), "bytes")
        put(p, "register_move_bytes", c("TSV_MOVE_BYTES"), "bytes")
        put(p, "packet_bytes", c("TSV_PKT_BYTES"), "bytes")
        put(p, "data_bytes", c("TSV_DATA_BYTES"), "bytes")
        put(p, "busy_time", c("TSV_BUSY_PS") / 1000.0, "ns")
        put(p, "busy_time_max_core", c("TSV_BUSY_MAX_PS") / 1000.0, "ns")
        put(p, "busy_time_max_direction", c("TSV_DIR_BUSY_MAX_PS") / 1000.0, "ns")
        put(p, "bytes_max_core", c("TSV_BYTES_MAX_CORE"), "bytes")
        nsm = stats.consts.get("num_sms", 0) if isinstance(stats.consts, dict) else 0
        put(p, "utilisation", ratio(c("TSV_BUSY_PS"), 2 * stats.time_ps * nsm) if nsm else 0.0, "fraction")
        p = "mpu.regfile"
        put(p, "near_bank_accesses", c("NB_RF_ACC"), "warp-registers")
        put(p, "far_bank_accesses", c("FB_RF_ACC"), "warp-registers")
        put(p, "operand_collector_accesses", c("NB_OPC_ACC"), "warp-registers")
        p = "mpu.lsu"
        put(p, "loads_offloaded", c("LD_OFFLOADED"), "warp-instr")
        put(p, "stores_offloaded", c("ST_OFFLOADED"), "warp-instr")
        put(p, "loads_per_transaction", c("LD_TX_PATH"), "warp-instr")
        put(p, "stores_per_transaction", c("ST_TX_PATH"), "warp-instr")
        put(p, "transactions_local", c("TX_LOCAL"), "transactions")
        put(p, "transactions_remote", c("TX_REMOTE"), "transactions")
        put(p, "extension_accesses", c("LSU_EXT_ACC"), "transactions")
        put(p, "smem_accesses", c("SMEM_ACCESSES"), "warp-instr")  # near or far bank, as configured
        p = "mpu.remote_cache"
        put(p, "hits", c("ROC_HITS"), "transactions")
        put(p, "misses", c("ROC_MISSES"), "transactions")
        put(p, "hit_rate", ratio(c("ROC_HITS"), c("ROC_HITS") + c("ROC_MISSES")), "fraction")
        hit, miss, conf = c("DR_ROWHIT"), c("DR_ROWMISS"), c("DR_ROWCONF")
        put("mpu.dram", "row_buffer_miss_rate", ratio(miss + conf, hit + miss + conf), "fraction")
