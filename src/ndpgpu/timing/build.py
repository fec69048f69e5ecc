"""Build the compiled engine's arrays from a Machine (persistent state) and from a trace (per launch).

Names become integers here: units, policies, op classes and packet types are encoded into the int64 tables of
:mod:`.engine`; the compiled loop sees only arrays and integers, never a string.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..trace.coalesce import coalesce_atomics, coalesce_trace
from ..trace.format import MEM_ATOMIC, OP_CLASS, OP_CLASSES, SPACE, KernelTrace
from . import engine as E
from . import registry
from .interfaces import DispatchPlan
from .occupancy import Occupancy, occupancy
from .spec import UNIT_NAMES, Machine
from .topology import topology_of

SET_INDEX_CODES = {"linear": 0, "xor": 1, "fermi": 2}  # CacheSpec.set_index -> caches.c_set's code

I64 = np.int64
UNIT_CODE = {name: i for i, name in enumerate(UNIT_NAMES)}
MAX_REG_ID = 1 << 16


def _period_ps(mhz: float) -> int:
    return int(round(1e6 / mhz))


class EngineState:
    """All arrays of one machine's compiled model; caches, DRAM and queues persist across launches."""

    def __init__(self, machine: Machine) -> None:
        self.m = m = machine
        core, l1, l2, ic, dr = m.core, m.l1d, m.l2, m.icnt, m.dram
        for err in registry.lookup("dram", dr.impl)().check(dr):
            raise ValueError(err)
        ngpu = core.num_sms
        nsm = ngpu + m.num_stack_sms  # SMs inside memory stacks follow the GPU's
        nsub = core.sub_cores
        max_warps = max(core.max_warps, m.stacks.sm_max_warps if m.num_stack_sms else 0)
        nslot = math.ceil(max_warps / nsub) * nsub
        if nslot // nsub > 128:
            raise ValueError(f"{nslot // nsub} warps per sub-core exceed the engine's limit of 128")
        nch = dr.scheduling_channels
        nsl = m.num_slices
        self.nsm, self.nsub, self.nslot, self.nch, self.nsl = nsm, nsub, nslot, nch, nsl
        cfg = np.zeros(E.NCFG, I64)
        self.cfg = cfg
        cfg[E.C_NSM] = nsm
        cfg[E.C_NGPU] = ngpu
        cfg[E.C_NSUB] = nsub
        cfg[E.C_XL0] = -1
        if m.stacks is not None:
            cfg[E.C_NSTK] = m.stacks.count
            cfg[E.C_VPS] = m.stacks.vaults_per_stack
            cfg[E.C_SPS] = max(m.stacks.sms_per_stack, 1)
            cfg[E.C_SWARPS] = m.stacks.sm_max_warps
        # a stack SM's own path to its stack's vaults (crossbar machines): its port's bandwidth, its MSHRs
        cfg[E.C_L1_MSHR_STRIDE] = m.l1d.mshr_entries
        if m.num_stack_sms:
            cfg[E.C_SSM_MBPS] = int(round(m.stacks.sm_port_gbs() * 1000))
            cfg[E.C_SSM_MSHR] = m.stacks.sm_mshr_entries or m.l1d.mshr_entries
            cfg[E.C_L1_MSHR_STRIDE] = max(m.l1d.mshr_entries, int(cfg[E.C_SSM_MSHR]))
        cfg[E.C_NSLOT] = nslot
        cfg[E.C_NCTA_SLOTS] = core.max_ctas
        cfg[E.C_MAXW_SUB] = nslot // nsub
        cfg[E.C_ISSUE_W] = core.issue_width
        cfg[E.C_SCHED] = registry.lookup("warp_scheduler", core.scheduler.impl).code
        cfg[E.C_ACTIVE_POOL] = core.scheduler.active_warps
        cfg[E.C_DISPATCH_PER_CYCLE] = core.cta_dispatch.per_cycle
        cfg[E.C_CTA_LAUNCH_LAT] = core.cta_dispatch.launch_latency
        cfg[E.C_KERNEL_LAUNCH_LAT] = core.cta_dispatch.kernel_launch_latency
        cfg[E.C_BATCH_REFILL] = int(core.cta_dispatch.refill == "batch")
        cfg[E.C_SUB_UNITS] = int(core.sub_core_units)
        cfg[E.C_WAIT_ACKS] = int(core.wait_store_acks)
        # core.pipeline_depth_mem: a memory instruction reaches its LD/ST unit that many cycles after issue, so
        # each of its results (hits, fills, shared memory, ld.param) is usable that much later
        dmem = core.pipeline_depth_mem
        cfg[E.C_FILL_TO_USE] = core.fill_to_use + dmem
        cfg[E.C_WB_PORT] = int(core.mem_writeback_port)
        cfg[E.C_ATOM_WAIT] = int(core.atomic_wait)
        cfg[E.C_IBUF] = core.ibuffer
        cfg[E.C_FETCH_BAR] = int(core.fetch_at_barrier)
        cfg[E.C_BR_HAZ] = int(core.branch_refetch and core.ibuffer > 0)  # (a fetch stage's rule)
        cfg[E.C_SCHED_ROT] = int(core.scheduler_rotation)
        cfg[E.C_MEMQ] = core.mem_queue if core.model == "gpu" else 0  # (a mechanism's core has its own LD/ST)
        cfg[E.C_PARAM_LAT] = core.param_latency + dmem
        cfg[E.C_SMEM_LAT] = core.smem.latency + dmem
        cfg[E.C_MAX_THREADS] = core.max_threads
        cfg[E.C_REGFILE] = core.registers
        cfg[E.C_SMEM_SIZE] = core.shared_mem_bytes
        self.unit_count = {u: core.units.get(u, 0) for u in UNIT_NAMES}
        maxu = 1
        for u, n in self.unit_count.items():
            cfg[E.C_UCNT_SP + UNIT_CODE[u]] = max(n, 1)
            maxu = max(maxu, n)
        # core.result_buses: each unit row also holds the writeback hazards' state (layout.py, RB_RING)
        cfg[E.C_RBUS] = core.result_buses
        cfg[E.C_UF_BASE] = maxu
        self.ufree_width = maxu
        if core.result_buses:
            self.ufree_width = maxu + 2 * E.MAXU + (maxu + core.result_buses) * E.RB_RING
        # L1
        line_shift = l1.line_bytes.bit_length() - 1
        self.line_bytes = l1.line_bytes
        self.line_atoms = l1.line_bytes // 32
        cfg[E.C_L1_EN] = int(l1.enabled)
        cfg[E.C_L1_SETS] = l1.num_sets
        cfg[E.C_L1_ASSOC] = l1.assoc
        cfg[E.C_L1_LINE_SHIFT] = line_shift
        cfg[E.C_L1_SECT_ATOMS] = l1.sector_bytes // 32
        cfg[E.C_L1_LAT] = l1.latency + dmem
        cfg[E.C_L1_ALLOC_MISS] = int(l1.allocate == "miss")
        cfg[E.C_L1_WPOL] = {"write_back": E.WP_BACK, "write_through": E.WP_THROUGH, "write_evict": E.WP_EVICT}[
            l1.write_policy]
        cfg[E.C_L1_WALLOC] = int(l1.write_allocate)
        cfg[E.C_L1_REPL] = 0 if l1.replacement == "lru" else 1
        cfg[E.C_L1_SETIDX] = SET_INDEX_CODES[l1.set_index]
        cfg[E.C_L1_XOR_BITS] = max(1, (l1.num_sets - 1).bit_length())
        cfg[E.C_L1_MSHR] = l1.mshr_entries
        cfg[E.C_L1_MERGE] = l1.mshr_merge
        cfg[E.C_L1_PORTS] = l1.ports
        cfg[E.C_L1_MISSQ] = l1.miss_queue
        cfg[E.C_L1_MQ_SLACK] = l1.read_miss_slack
        cfg[E.C_L1_CACHE_GLOBAL] = int(l1.cache_global)
        cfg[E.C_L1_FILL_PORTS] = l1.fill_ports
        cfg[E.C_L1_MISS_LAT] = l1.miss_latency
        cfg[E.C_L1_QLAT] = l1.latency if l1.miss_after_hit_latency else 0
        # the constant cache: its lines and MSHRs follow every SM's L1 rows in l1t and l1m (engine/ccache.py)
        cc = m.l1c
        self.cc_on = m.const_cache_on
        cfg[E.C_CC_EN] = int(self.cc_on)
        cfg[E.C_CC_SETS] = cc.num_sets
        cfg[E.C_CC_ASSOC] = cc.assoc
        cfg[E.C_CC_LINE_SHIFT] = cc.line_bytes.bit_length() - 1
        cfg[E.C_CC_LAT] = cc.latency + dmem
        cfg[E.C_CC_MSHR] = cc.mshr_entries
        cfg[E.C_CC_MERGE] = cc.mshr_merge
        cfg[E.C_CC_PORTS] = cc.ports
        cfg[E.C_CC_T0] = nsm * l1.num_sets * l1.assoc
        # the instruction cache: its lines and MSHRs follow the constant cache's (engine/icache.py)
        l1i = m.l1i
        self.ic_on = m.inst_cache_on
        cfg[E.C_IC_EN] = int(self.ic_on)
        cfg[E.C_IC_SETS] = l1i.num_sets
        cfg[E.C_IC_ASSOC] = l1i.assoc
        cfg[E.C_IC_LINE_SHIFT] = l1i.line_bytes.bit_length() - 1
        cfg[E.C_IC_MSHR] = l1i.mshr_entries
        cfg[E.C_IC_MERGE] = l1i.mshr_merge
        cfg[E.C_IC_ISIZE] = l1i.inst_bytes
        cfg[E.C_IC_DELIVER] = int(l1i.fill_to_fetch)
        cfg[E.C_IC_BASE] = l1i.code_base
        ic_lines = nsm * l1i.num_sets * l1i.assoc if self.ic_on else 0
        cfg[E.C_IC_T0] = cfg[E.C_CC_T0] + nsm * cc.num_sets * cc.assoc
        self.params_cc = m.params_in_const_cache
        cfg[E.C_PARAM_CC] = int(self.params_cc)
        pf = l1.prefetch
        cfg[E.C_PF_KIND] = registry.lookup("prefetcher", pf.impl).code
        cfg[E.C_PF_DEGREE] = pf.degree
        cfg[E.C_PF_PRIO] = pf.priority
        # L2
        l2on = l2 is not None and l2.enabled
        cfg[E.C_L2_EN] = int(l2on)
        if l2 is not None:
            cfg[E.C_L2_SETS] = l2.num_sets
            cfg[E.C_L2_ASSOC] = l2.assoc
            cfg[E.C_L2_SECT_ATOMS] = l2.sector_bytes // 32
            cfg[E.C_L2_LAT] = l2.latency
            cfg[E.C_L2_WPOL] = {"write_back": E.WP_BACK, "write_through": E.WP_THROUGH,
                                "write_evict": E.WP_THROUGH}[l2.write_policy]
            cfg[E.C_L2_WALLOC] = int(l2.write_allocate)
            cfg[E.C_L2_WFETCH] = int(l2.write_miss_fetch)
            cfg[E.C_L2_LAZY] = int(l2on and l2.lazy_fetch_on_read and l2.write_allocate and not l2.write_miss_fetch)
            cfg[E.C_L2_REPL] = 0 if l2.replacement == "lru" else 1
            cfg[E.C_L2_SETIDX] = SET_INDEX_CODES[l2.set_index]
            cfg[E.C_L2_XOR_BITS] = max(1, (l2.num_sets - 1).bit_length())
            cfg[E.C_L2_MSHR] = l2.mshr_entries
            cfg[E.C_L2_MERGE] = l2.mshr_merge
            cfg[E.C_L2_ROP] = m.rop_latency
            cfg[E.C_L2_ATOM_LAT] = l2.atomic_latency
            cfg[E.C_L2_RETQ] = l2.return_queue
            cfg[E.C_L2_RESPQ] = l2.response_queue
            cfg[E.C_L2_PORTS] = l2.ports
            cfg[E.C_L2_SECT_REQ] = int(l2.sector_requests)
            cfg[E.C_L2_PORT_BYTES] = l2.data_port_bytes
            cfg[E.C_L2_SECT_MSHR] = int(l2.sector_mshrs)
            cfg[E.C_L2_SECT_REPLY] = int(l2.sector_replies)
            # a slice stops taking requests once this many have passed the ROP delay (0: never; at least 1, as
            # L2Spec refuses a room larger than the queue)
            cfg[E.C_L2_INQ] = l2.input_queue - l2.input_queue_room + 1 if l2.input_queue else 0
            cfg[E.C_L2_ACK_SECT] = int(l2.sector_acks and l2on)
            cfg[E.C_SLICES_PER_CH] = l2.slices_per_channel
            l2_sets, l2_assoc, l2_mshr = l2.num_sets, l2.assoc, l2.mshr_entries
            l2_lat, rop, retq, respq = l2.latency, m.rop_latency, l2.return_queue, l2.response_queue
        else:
            cfg[E.C_L2_SETS] = 1
            cfg[E.C_L2_ASSOC] = 1
            cfg[E.C_L2_MSHR] = 1
            cfg[E.C_L2_MERGE] = 1
            cfg[E.C_L2_LAT] = 1
            cfg[E.C_L2_PORTS] = 1
            cfg[E.C_SLICES_PER_CH] = 1
            cfg[E.C_L2_RETQ] = 32
            cfg[E.C_L2_RESPQ] = 32
            # no L2: the partition still delays every request by its ROP latency (partition.rop_latency)
            cfg[E.C_L2_ROP] = m.rop_latency
            l2_sets, l2_assoc, l2_mshr, l2_lat, rop, retq, respq = 1, 1, 1, 1, m.rop_latency, 32, 32
        cfg[E.C_NSL] = nsl
        # perfect memory: the request network serves every request at a fixed latency (xbar.perfect_serve)
        pl = m.partition.perfect_latency
        if pl is not None:
            if ic.impl != "crossbar" or m.num_stack_sms:
                raise ValueError("partition.perfect_latency: perfect memory needs the crossbar and no stack SMs")
            cfg[E.C_PERFECT_LAT] = pl
        # interconnect
        cfg[E.C_IC_FLIT] = ic.flit_bytes
        cfg[E.C_IC_HDR] = ic.header_bytes
        cfg[E.C_IC_LAT] = ic.latency
        cfg[E.C_IC_INBUF] = ic.input_buffer
        cfg[E.C_IC_EJBUF] = ic.eject_buffer
        cfg[E.C_IC_PRIO] = int(ic.priority_arbitration)
        cfg[E.C_IC_ISLIP] = int(ic.allocator == "islip")
        cfg[E.C_IC_OBUF] = ic.output_buffer
        # DRAM
        t = dr.timing
        cfg[E.C_NCH] = nch
        cfg[E.C_NBANK] = dr.banks
        cfg[E.C_NSA] = dr.subarrays_per_bank
        cfg[E.C_MAXOPEN] = dr.max_open_subarrays
        cfg[E.C_NBG] = dr.bank_groups
        cfg[E.C_BANKS_PER_BG] = dr.banks_per_group
        cfg[E.C_ATOM_BYTES] = dr.atom_bytes
        cfg[E.C_BURST_CYC] = dr.burst_cycles
        cfg[E.C_SECTOR_BURSTS] = int(dr.read_burst_per_sector)
        cfg[E.C_DUAL_CMD] = int(dr.dual_command_bus)
        cfg[E.C_PAGE_POLICY] = 0 if dr.page_policy == "open" else 1
        cfg[E.C_REFRESH] = int(dr.refresh and t.tREFI > 0 and t.tRFC > 0)
        cfg[E.C_CTRL_LAT] = dr.controller_latency
        cfg[E.C_DRAM_SCHED] = registry.lookup("dram_scheduler", dr.scheduler.impl).code
        cfg[E.C_DQ_SIZE] = dr.scheduler.queue_size
        cfg[E.C_DQ_SLOTS] = dr.scheduler.queue_size + max(1, nsl // nch)  # + a fill write-back per slice
        if cfg[E.C_DRAM_SCHED] == E.DS_FRFCFS_BANK:
            cfg[E.C_DQ_SLOTS] += dr.banks  # the requests the banks serve leave the queue but keep their entry
        if dr.partition_queue and m.l2 is not None and m.stacks is None:
            # the memory-partition front end: its L2-to-DRAM entries and a latency queue that takes one request a
            # DRAM cycle for controller_latency cycles (a fill's write-back skips both: the scheduler's spare slots)
            cfg[E.C_PQ_CAP] = dr.partition_queue * max(1, nsl // nch)
            cfg[E.C_PQ_RING] = cfg[E.C_PQ_CAP] + dr.controller_latency + 2
        for name in ("tRCD", "tRP", "tRAS", "tRC", "tCL", "tCWL", "tCCD_S", "tCCD_L", "tRRD_S", "tRRD_L", "tFAW",
                     "tWR", "tWTR", "tRTW", "tRTP", "tREFI", "tRFC"):
            cfg[getattr(E, "C_" + name)] = getattr(t, name)
        # run control
        core_ps = 1e6 / m.clocks.core_mhz
        cfg[E.C_WATCHDOG_PS] = int(m.sim.watchdog_cycles * core_ps)
        cfg[E.C_DRAIN] = int(m.sim.drain_memory)
        cfg[E.C_TS_INTERVAL_PS] = int(m.sim.time_series_interval * core_ps)
        cfg[E.C_RECORD_DLOG] = int(m.sim.record_dram_commands)
        # queues
        self.q_smout, self.q_smin = 0, nsm
        self.q_l2in, self.q_l2out, self.q_l2ret = 2 * nsm, 2 * nsm + nsl, 2 * nsm + 2 * nsl
        self.q_l2vin = 2 * nsm + 3 * nsl  # stack SMs' requests to the vault beside each slice
        # a slice's own requests to other slices (mesh request network) and what the mesh's reply network
        # delivers to it (a sink: kept apart from l2_in, whose requests wait on the reply network)
        self.q_l2req, self.q_l2rin = 2 * nsm + 4 * nsl, 2 * nsm + 5 * nsl
        # the vault's read data for stack SMs: a return queue of its own, so that it never waits behind the
        # GPU's data, which crosses the serial link first
        self.q_l2vret = 2 * nsm + 6 * nsl
        # an SM's own sends on the reply network (a mechanism's answers from a core: mesh networks only), the
        # mirror of a slice's q_l2req on the request network
        self.q_smrep = 2 * nsm + 7 * nsl
        nq = 3 * nsm + 7 * nsl
        caps = np.zeros(nq, I64)
        # (l1d.miss_after_hit_latency: the accesses in the L1D's latency pipeline wait in this queue too, one
        # entering a cycle, so it holds that many more)
        caps[self.q_smout:self.q_smout + nsm] = l1.miss_queue + (l1.latency if l1.miss_after_hit_latency else 0)
        caps[self.q_smin:self.q_smin + nsm] = ic.eject_buffer
        if m.partition.perfect_latency is not None:
            # perfect memory: room for every reply the SM's port can start in one latency (one an icnt cycle), so
            # that a reply never waits for the ejection queue
            caps[self.q_smin:self.q_smin + nsm] += math.ceil(m.partition.perfect_latency * m.clocks.icnt_mhz
                                                             / m.clocks.core_mhz) + 1
        caps[self.q_l2in:self.q_l2in + nsl] = ic.eject_buffer + rop + E.L2_HEAD_SLOTS
        caps[self.q_l2out:self.q_l2out + nsl] = respq + l2_lat
        caps[self.q_l2ret:self.q_l2ret + nsl] = retq
        caps[self.q_l2vret:self.q_l2vret + nsl] = retq
        caps[self.q_l2vin:self.q_l2vin + nsl] = ic.eject_buffer
        caps[self.q_l2req:self.q_l2req + nsl] = respq + l2_lat
        caps[self.q_l2rin:self.q_l2rin + nsl] = ic.eject_buffer
        caps[self.q_smrep:self.q_smrep + nsm] = l1.miss_queue
        cfg[E.C_Q_SMOUT], cfg[E.C_Q_SMIN] = self.q_smout, self.q_smin
        cfg[E.C_Q_L2IN], cfg[E.C_Q_L2OUT], cfg[E.C_Q_L2RET] = self.q_l2in, self.q_l2out, self.q_l2ret
        cfg[E.C_Q_L2VIN] = self.q_l2vin
        cfg[E.C_Q_L2VRET] = self.q_l2vret
        cfg[E.C_Q_L2REQ], cfg[E.C_Q_L2RIN] = self.q_l2req, self.q_l2rin
        cfg[E.C_Q_SMREP] = self.q_smrep
        self.qb = np.zeros((nq, int(caps.max())), I64)
        self.qm = np.zeros((nq, E.NQM), I64)
        self.qm[:, E.Q_CAP] = caps
        self.qm[self.q_l2in:self.q_l2in + nsl, E.Q_RESV] = E.L2_HEAD_SLOTS
        # components' wake slots
        cfg[E.C_WK_SL] = nsm
        cfg[E.C_WK_CH] = nsm + nsl
        cfg[E.C_WK_NET] = nsm + nsl + nch
        cfg[E.C_WK_DISP] = nsm + nsl + nch + 2
        cfg[E.C_NCOMP] = nsm + nsl + nch + 3
        self.wake = np.full(int(cfg[E.C_NCOMP]), E.INF, I64)
        # clocks
        self.clk = np.zeros((E.NDOM, 3), I64)
        for d, mhz in enumerate((m.clocks.core_mhz, m.clocks.icnt_mhz, m.clocks.l2_mhz, m.clocks.dram_mhz)):
            self.clk[d, E.K_FKHZ] = int(round(mhz * 1000))
            self.clk[d, E.K_PERIOD] = _period_ps(mhz)
        self.g = np.zeros(E.NG, I64)
        # request pool: bounded by every queue, MSHR and DRAM queue together
        l1m_entries = nsm * int(cfg[E.C_L1_MSHR_STRIDE])
        cfg[E.C_CC_M0] = l1m_entries
        cc_mshrs = nsm * cc.mshr_entries
        cfg[E.C_IC_M0] = l1m_entries + cc_mshrs
        ic_mshrs = nsm * m.l1i.mshr_entries if self.ic_on else 0
        npool = int(caps.sum() + nsl * l2_mshr * (cfg[E.C_L2_MERGE] + 1) + nch * dr.scheduler.queue_size
                    + l1m_entries * 4 + cc_mshrs + ic_mshrs + nch * int(cfg[E.C_PQ_RING]) + 1024)
        self.rq = np.zeros((npool, E.NRQ), I64)
        self.rq_free = np.arange(npool, dtype=I64)[::-1].copy()
        self.g[E.G_RQ_TOP] = npool
        cfg[E.C_NRQP] = npool
        nldo = nsm * nslot * 8
        self.ldo = np.zeros((nldo, E.NLD), I64)
        self.ld_free = np.arange(nldo, dtype=I64)[::-1].copy()
        self.g[E.G_LD_TOP] = nldo
        # SM state
        self.wt = np.zeros((nsm * nslot, E.NWT), I64)
        self.ufree = np.zeros((nsm, E.NUNITS, self.ufree_width), I64)
        self.ufree[:, :, maxu:] = -1
        self.smt = np.zeros((nsm, E.NSMT), I64)
        self.subt = np.zeros((nsm * nsub, E.NSUBT), I64)
        self.subt[:, E.SB_LAST] = -1
        self.ctat = np.zeros((nsm * core.max_ctas, E.NCTAT), I64)
        self.ctat[:, E.CT_CTA] = -1
        self.l1t = np.zeros((nsm * (l1.num_sets * l1.assoc + cc.num_sets * cc.assoc) + ic_lines, E.NLN), I64)
        self.l1m = np.zeros((l1m_entries + cc_mshrs + ic_mshrs, E.NMSHR), I64)
        self.l1m[:, E.M_LINE] = -1
        merge = max(l1.mshr_merge, cc.mshr_merge, m.l1i.mshr_merge if self.ic_on else 1)
        self.l1w = np.zeros((l1m_entries + cc_mshrs + ic_mshrs, merge), I64)
        self.l2t = np.zeros((nsl * l2_sets * l2_assoc, E.NLN), I64)
        self.l2m = np.zeros((nsl * l2_mshr, E.NMSHR), I64)
        self.l2m[:, E.M_LINE] = -1
        self.l2m[:, E.M_HEAD] = -1
        # DRAM state
        self.dq = np.zeros((nch, int(cfg[E.C_DQ_SLOTS] + cfg[E.C_PQ_RING]), E.NDQF), I64)
        self.dq[:, :, E.DQ_RID] = -1
        self.bank = np.zeros((nch * dr.banks * dr.subarrays_per_bank, E.NBANKT), I64)  # a row per subarray
        self.bank[:, E.B_ROW] = -1
        self.bank[:, E.B_SVC] = -1
        self.bgt = np.full((nch * dr.bank_groups, 2), E.NEG, I64)
        nstk = m.stacks.count if m.stacks is not None else 0
        self.chs = np.zeros((max(nch, nstk + nstk * (nstk - 1) // 2), E.NCHT), I64)  # links may use extra rows
        for col in (E.H_LAST_ACT, E.H_LAST_COL, E.H_LAST_RD, E.H_LAST_WR_END):
            self.chs[:, col] = E.NEG
        self.chs[:, E.H_NEXT_REF] = t.tREFI
        self.faw = np.full((nch, 4), E.NEG, I64)
        self.hitpend = np.zeros(3 * dr.banks * dr.subarrays_per_bank, I64)
        self._init_links()
        # networks
        self.netd = np.zeros((2, E.NNETT), I64)
        self.netd[E.NET_REQ, [E.N_NSRC, E.N_NDST, E.N_SRCQ, E.N_DSTQ]] = [nsm, nsl, self.q_smout, self.q_l2in]
        self.netd[E.NET_REQ, E.N_DST_DELAY] = rop  # L2 cycles
        self.netd[E.NET_REP, [E.N_NSRC, E.N_NDST, E.N_SRCQ, E.N_DSTQ]] = [nsl, nsm, self.q_l2out, self.q_smin]
        self.netd[E.NET_REQ, [E.N_NSRC2, E.N_SRCQ2, E.N_SRC2_NODE, E.N_SRC2_WAKE]] = [
            nsl, self.q_l2req, E.MC_HDR + nsm, cfg[E.C_WK_SL]]  # the slices (router networks only)
        self.netd[E.NET_REP, [E.N_NSRC2, E.N_SRCQ2, E.N_SRC2_NODE, E.N_SRC2_WAKE]] = [
            nsm, self.q_smrep, E.MC_HDR, 0]  # the SMs (meshes only: a butterfly's SMs have no reply-side input)
        # crossbar ports: SMs' and slices' own, then each slice's port to the stack SMs' path (its vault side)
        cfg[E.C_PB_VAULT] = max(nsm, nsl)
        self.pbusy = np.zeros((2, 5, max(nsm, nsl) + nsl), I64)  # rows: layout.py, PB_SRC .. PB_KX
        self._init_mesh()
        # address mapping: descriptor 0 is the machine's; ranges may select others
        self.mappings: list[np.ndarray] = [registry.lookup("address_mapping", dr.mapping.impl)().descriptor(m)]
        self.ranges: list[tuple[int, int, int]] = []
        self._sync_mapping()
        # packet types: service latency (L2 cycles) of offload and user packets
        self.ptype = np.zeros((E.NPK, 2), I64)
        self.ptype[E.PK_OFFLOAD, 0] = 4
        # statistics
        self.ctr = np.zeros(E.NCTR, I64)
        self.smst = np.zeros((nsm, E.NSMS), I64)
        self.slst = np.zeros((nsl, E.NSLS), I64)
        self.chst = np.zeros((nch, E.NCHS), I64)
        self.bkst = np.zeros((nch * dr.banks, E.NBKS), I64)
        self.clst = np.zeros(32, I64)
        self.prst = np.zeros((E.NPRIO, E.NPRS), I64)
        self.nst = np.zeros((2, 2, max(nsm, nsl)), I64)
        self.kst = np.zeros((E.NPK, 4), I64)
        self.ts = np.zeros((0, E.NTS), I64)
        self.dlog = np.zeros((1 << 16 if m.sim.record_dram_commands else 1, 5), I64)
        self.pcst = np.zeros((1, E.NPCS), I64)

    # the named state groups the compiled loop takes (engine.loop)
    def core_state(self) -> E.CoreState:
        return E.CoreState(self.wt, self.ufree, self.smt, self.subt, self.ctat, self.ldo, self.ld_free, self.l1t,
                           self.l1m, self.l1w)

    def memory_state(self) -> E.MemoryState:
        return E.MemoryState(self.rq, self.rq_free, self.qb, self.qm, self.l2t, self.l2m, self.dq, self.bank,
                             self.bgt, self.chs, self.faw, self.mapd, self.mrange, self.ptype, self.dlog, self.hitpend)

    def network_state(self) -> E.NetworkState:
        return E.NetworkState(self.netd, self.pbusy, self.mcfg, self.mvc, self.mvq, self.mport, self.msw, self.mst,
                              self.mkst)

    def stats_tables(self) -> E.StatsTables:
        return E.StatsTables(self.ctr, self.smst, self.slst, self.chst, self.pcst, self.clst, self.prst, self.nst,
                             self.kst, self.ts, self.bkst)

    # ------------------------------------------------------------------ router networks (mesh, butterfly)
    def _init_mesh(self) -> None:
        """Router-network tables (``engine.mesh.mesh_tick``; mesh or butterfly, from ``timing.topology``);
        one-row placeholders when the machine uses the crossbar."""
        topo = topology_of(self.m)
        on = topo is not None
        ic = self.m.icnt
        rs = {"mesh": ic.mesh, "butterfly": ic.butterfly, "hmesh": ic.hmesh}.get(ic.impl)  # the router fields
        self.topology = topo
        nnode = topo.nrouters if on else 1
        nport = topo.ports if on else 5
        nvc = rs.vcs if on else 1
        ends = E.MC_HDR + 2 * self.nsm + 2 * self.nsl
        if on:
            # header, terminals of the endpoints, then per subnet (both the same) routing, link and
            # injection tables
            nterm = topo.nterminals
            rt0 = ends
            lk0 = rt0 + 2 * nnode * nterm
            inj0 = lk0 + 2 * nnode * nport * 2
            lc0 = inj0 + 2 * nterm * 2
            self.mcfg = np.zeros(lc0 + nnode * nport * 2, I64)
            c = self.mcfg
            ms = self.m.icnt.mesh
            c[E.MC_ON], c[E.MC_NNODE] = 1, nnode
            if topo.kind == "mesh":
                c[E.MC_W], c[E.MC_H] = ms.width, ms.height
                c[E.MC_YX] = int(ms.routing == "yx")
            c[E.MC_NVC], c[E.MC_VCBUF], c[E.MC_RLAT], c[E.MC_LLAT] = nvc, rs.vc_buffers, rs.router_latency, \
                rs.link_latency
            c[E.MC_CDEL] = rs.credit_delay
            c[E.MC_ISLIP] = int(rs.allocator == "islip")
            c[E.MC_PRIO] = int(rs.priority_arbitration)
            c[E.MC_NPORT], c[E.MC_TLAT], c[E.MC_NTERM] = nport, topo.terminal_link_latency, nterm
            c[E.MC_RT0], c[E.MC_LK0], c[E.MC_INJ0], c[E.MC_LC0] = rt0, lk0, inj0, lc0
            c[lc0:] = topo.link_cost(rs.link_latency).ravel()  # one table for both subnets
            c[E.MC_TOPO] = registry.lookup("interconnect", self.m.icnt.impl).code
            c[E.MC_HDR:E.MC_HDR + self.nsm] = topo.sm_terminals
            c[E.MC_HDR + self.nsm:E.MC_HDR + self.nsm + self.nsl] = topo.llc_terminals
            c[E.MC_HDR + self.nsm + self.nsl:E.MC_HDR + 2 * self.nsm + self.nsl] = topo.sm_terminals
            c[E.MC_HDR + 2 * self.nsm + self.nsl:ends] = topo.llc_terminals  # (a mechanism's unit at a slice)
            for net in range(2):
                c[rt0 + net * nnode * nterm:rt0 + (net + 1) * nnode * nterm] = topo.route.ravel()
                c[lk0 + net * nnode * nport * 2:lk0 + (net + 1) * nnode * nport * 2] = topo.link.ravel()
                c[inj0 + net * nterm * 2:inj0 + (net + 1) * nterm * 2] = topo.inject.ravel()
        else:
            self.mcfg = np.zeros(ends, I64)
        vcbuf = rs.vc_buffers if on else 1
        self.mvc = np.zeros((2, nnode * nport * nvc * vcbuf, E.NMV), I64)
        self.mvc[:, :, E.MV_PKT] = -1
        self.mvq = np.zeros((2, nnode * nport * nvc, E.NVQ), I64)
        self.mport = np.zeros((2, nnode * nport, E.NMP), I64)
        self.msw = np.zeros((2, nnode * nport, E.SW_REQ + nport + 1), I64)  # iSLIP pointers, requests, grants
        self.mst = np.zeros((2, E.NMS), I64)
        self.mkst = np.zeros((2, E.NPK, 3), I64)

    def mesh_reset_counters(self) -> None:
        """Zero the mesh's per-launch counters (router contents and busy times persist)."""
        for col in (E.MP_FLITS, E.MP_PKTS, E.MP_WAIT, E.MP_WAKE):  # (a router wakes at once in a new launch)
            self.mport[:, :, col] = 0
        self.mst[...] = 0
        self.mkst[...] = 0

    def mesh_snapshot(self) -> dict | None:
        """The mesh's counters of the launch: per-link flits/packets/credit waits, per-kind hops, totals."""
        if not self.mcfg[E.MC_ON]:
            return None
        snap = {"width": int(self.mcfg[E.MC_W]), "ports": self.mport[:, :, [E.MP_FLITS, E.MP_PKTS, E.MP_WAIT]].copy(),
                "totals": self.mst.copy(), "kinds": self.mkst.copy()}
        if self.topology.kind == "butterfly":  # (the mesh's keys stay as they were: golden statistics)
            bs = self.m.icnt.butterfly
            snap.update(topology="butterfly", radix=bs.radix, stages=bs.stages)
        elif self.topology.kind == "hmesh":
            hs = self.m.icnt.hmesh
            nport = int(self.mcfg[E.MC_NPORT])
            offchip = np.zeros((self.topology.nrouters, nport), bool)
            offchip[:, nport - 4:] = True  # the off-chip ports (topology.hmesh_ports)
            snap.update(topology="hmesh", nport=nport, chips_x=hs.chips_x, nodes_x=hs.nodes_x, nodes_y=hs.nodes_y,
                        link_bytes=self.topology.cost[:, :, 1].ravel().copy(), offchip=offchip.ravel())
        return snap

    # ------------------------------------------------------------------ serial links (memory stacks)
    def _init_links(self) -> None:
        """Link parameters into ``chs`` (see ``engine.links.link_send``): stack s's links live in row s."""
        m = self.m
        self.nstacks_linked = 0
        self.xl_pairs: list[tuple[int, int]] = []  # stack SMs' cross-stack link pairs (a < b), see below
        self.cross_home = -1  # a logic die's stack when its cross-stack links are timed (below), else -1
        ld = m.logic_die
        if ld is not None and ld.cross_stack is not None and m.stacks is not None:
            self._init_cross_links(ld.stack, ld.cross_stack, m.stacks)
            return
        if m.links is None or m.stacks is None:
            return
        lk, stk = m.links, m.stacks
        self.nstacks_linked = stk.count
        vps = self.nch // stk.count
        for c in range(self.nch):
            self.chs[c, E.H_LK_STACK] = c // vps + 1
        for s in range(stk.count):
            self._set_link_row(s, lk.tx_gbs, lk.rx_gbs, lk.tx_latency_ns, lk.rx_latency_ns, lk)
        if stk.sms_per_stack > 0 and lk.cross_stack is not None:
            # SMs inside the stacks reach each other's vaults over the cross-stack links: pair (a < b) is row
            # count + pair_index(a, b), its TX the link a -> b and its RX b -> a
            xl = lk.cross_stack
            self.cfg[E.C_XL0] = stk.count
            for a in range(stk.count):
                for b in range(a + 1, stk.count):
                    row = stk.count + int(E.pair_index(a, b, stk.count))
                    self._set_link_row(row, xl.gbs, xl.gbs, xl.latency_ns, xl.latency_ns, xl)
                    self.xl_pairs.append((a, b))

    def _set_link_row(self, row: int, tx_gbs: float, rx_gbs: float, tx_ns: float, rx_ns: float, pk) -> None:
        """Bandwidth, latency and packet sizes (flits, from ``pk``) of the link pair in ``chs`` row ``row``."""
        r = self.chs[row]
        r[E.H_LK_TX_MBPS] = int(round(tx_gbs * 1000))
        r[E.H_LK_RX_MBPS] = int(round(rx_gbs * 1000))
        r[E.H_LK_TX_LAT] = int(round(tx_ns * 1000))
        r[E.H_LK_RX_LAT] = int(round(rx_ns * 1000))
        r[E.H_LK_FLIT] = pk.flit_bytes
        r[E.H_LK_REQ_FL] = pk.request_flits
        r[E.H_LK_RESP_HDR] = pk.response_header_flits
        r[E.H_LK_WR_HDR] = pk.write_header_flits
        r[E.H_LK_ACK_FL] = pk.ack_flits

    def _init_cross_links(self, home: int, xl, stk) -> None:
        """A logic die's cross-stack links on the same ``chs`` rows: the SMs sit on stack ``home``; channels of
        stack t != home are behind row t, whose TX is the link home -> t and RX the link t -> home (fully
        connected: one hop each way). The home stack's vaults use no link (H_LK_STACK stays 0)."""
        self.nstacks_linked = stk.count
        self.cross_home = home
        vps = self.nch // stk.count
        for c in range(self.nch):
            if c // vps != home:
                self.chs[c, E.H_LK_STACK] = c // vps + 1
        for s in range(stk.count):
            if s != home:
                self._set_link_row(s, xl.gbs, xl.gbs, xl.latency_ns, xl.latency_ns, xl)

    def xl_counters(self, t: int) -> np.ndarray:
        """Like :meth:`link_counters` for the stack SMs' cross-stack link pairs: shape (pairs, 2, 3)."""
        rows = [int(self.cfg[E.C_XL0]) + i for i in range(len(self.xl_pairs))]
        out = np.zeros((len(rows), 2, 3), I64)
        for d in range(2):
            ahead = np.maximum(0, self.chs[rows, E.H_LK_TX_FREE + d] - t)
            out[:, d, 0] = self.chs[rows, E.H_LK_TX_BUSY + d] - ahead
            out[:, d, 1] = self.chs[rows, E.H_LK_TX_BYTES + d]
            out[:, d, 2] = self.chs[rows, E.H_LK_TX_PKTS + d]
        return out

    def link_counters(self, t: int) -> np.ndarray:
        """Cumulative (busy ps up to time ``t``, bytes, packets) per stack and direction: shape (stacks, 2, 3).

        Packets are counted when sent; a channel's FIFO reservations past ``t`` are not busy time yet."""
        n = self.nstacks_linked
        out = np.zeros((n, 2, 3), I64)
        for d in range(2):
            ahead = np.maximum(0, self.chs[:n, E.H_LK_TX_FREE + d] - t)
            out[:, d, 0] = self.chs[:n, E.H_LK_TX_BUSY + d] - ahead
            out[:, d, 1] = self.chs[:n, E.H_LK_TX_BYTES + d]
            out[:, d, 2] = self.chs[:n, E.H_LK_TX_PKTS + d]
        return out

    # ------------------------------------------------------------------ mapping
    def _sync_mapping(self) -> None:
        self.mapd = np.stack(self.mappings).astype(I64)
        self.mrange = np.array(self.ranges, dtype=I64).reshape(-1, 3) if self.ranges else np.zeros((1, 3), I64)
        self.cfg[E.C_NMAP] = len(self.mappings)
        self.cfg[E.C_NRANGE] = len(self.ranges)

    def map_range(self, lo: int, hi: int, descriptor: np.ndarray) -> None:
        """Addresses in [lo, hi) use ``descriptor`` (first matching range wins)."""
        self.mappings.append(np.asarray(descriptor, I64))
        self.ranges.append((int(lo), int(hi), len(self.mappings) - 1))
        self._sync_mapping()

    def map_address(self, addr: int) -> dict[str, int]:
        """Where ``addr`` lives: channel, slice, bank group, bank, row."""
        ch, sl, bg, bk, row, key = E.map_addr(self.mapd, self.mrange, int(self.cfg[E.C_NRANGE]), int(addr))
        return {"channel": int(ch), "slice": int(sl), "bank_group": int(bg), "bank": int(bk), "row": int(row),
                "key": int(key)}


class LaunchArrays:
    """The per-launch arrays built from one trace."""

    def __init__(self, st: EngineState, trace: KernelTrace, plan: DispatchPlan, occ: Occupancy,
                 placement: np.ndarray | None = None, preload: tuple[np.ndarray, np.ndarray] | None = None,
                 packet_kind: int = E.PK_OFFLOAD) -> None:
        m = st.m
        core = m.core
        launch = trace.launch
        static = trace.static
        npc = len(static)
        pct = np.zeros((max(npc, 1), E.NPCT), I64)
        pct[:, E.P_D0:E.P_S3 + 1] = -1
        pct[:, E.P_GUARD] = -1
        names = trace.opcode_names
        load_c, store_c, atomic_c = OP_CLASS["load"], OP_CLASS["store"], OP_CLASS["atomic"]
        for pc in range(npc):
            row = static[pc]
            cls = int(row["op_class"])
            op = names[int(row["opcode"])] if 0 <= int(row["opcode"]) < len(names) else ""
            timing = core.op_timing(OP_CLASSES[cls], op)
            unit = timing.unit
            if st.unit_count.get(unit, 0) == 0:
                unit = "sp"
            kind = E.IK_ALU
            space = int(row["space"])
            if cls in (load_c, store_c, atomic_c):
                if space == SPACE["param"]:
                    kind = E.IK_PARAM
                else:
                    kind = {load_c: E.IK_LOAD, store_c: E.IK_STORE, atomic_c: E.IK_ATOMIC}[cls]
            elif cls == OP_CLASS["barrier"]:
                kind = E.IK_BARRIER
            elif cls in (OP_CLASS["nop"],):
                kind = E.IK_NOP
            pct[pc, E.P_CLASS] = cls
            pct[pc, E.P_KIND] = kind
            pct[pc, E.P_UNIT] = UNIT_CODE[unit]
            # the pipeline around the unit (core.pipeline_depth, or the memory path's depth: a memory instruction
            # without a record, predicated off, completes through the ALU path)
            mem_kind = kind in (E.IK_LOAD, E.IK_STORE, E.IK_ATOMIC, E.IK_PARAM)
            pct[pc, E.P_LAT] = timing.latency + (core.pipeline_depth_mem if mem_kind else core.pipeline_depth)
            pct[pc, E.P_II] = timing.interval
            pct[pc, E.P_SPACE] = space
            pct[pc, E.P_D0:E.P_D0 + 4] = row["dst"]
            pct[pc, E.P_S0:E.P_S0 + 4] = row["src"]
            pct[pc, E.P_GUARD] = row["guard"]
        pct[:, E.P_PLACE] = -1 if placement is None else np.asarray(placement, I64)[: len(pct)]
        pct[:, E.P_PKIND] = packet_kind  # the packet type placed instructions travel as
        pct[:, E.P_PREC] = -1
        regs = np.concatenate([pct[:, E.P_D0:E.P_S3 + 1], pct[:, E.P_GUARD:E.P_GUARD + 1]], axis=1)
        nreg = int(regs.max()) + 1 if regs.size and regs.max() >= 0 else 1
        if nreg > MAX_REG_ID:
            raise ValueError(f"register id {nreg - 1} exceeds the engine's limit")
        self.pct = pct
        self.nreg = nreg
        seg = trace.segments
        self.seg = np.empty((len(seg), 3), I64)
        self.seg[:, 0] = seg["pc"]
        self.seg[:, 1] = seg["count"]
        self.seg[:, 2] = seg["mask"]
        self.wseg = np.asarray(trace.warp_seg_start, I64)
        self.wrec = np.asarray(trace.warp_mem_start, I64)
        lazy = st.cfg[E.C_L2_LAZY] != 0  # (the one condition the engine reads: the L2 on, write-validating, lazy)
        co = coalesce_trace(trace, st.line_bytes, core.smem.banks, core.smem.bank_bytes, partial=lazy)
        mem = trace.mem
        rec = np.zeros((max(len(mem), 1), E.NREC), I64)
        tx_line, tx_sect = co.tx_line, co.tx_sectors
        if len(mem):
            rec[:, E.RC_PC] = mem["pc"]
            sp = mem["space"].astype(I64)
            is_const = sp == SPACE["const"]
            sp[sp == SPACE["generic"]] = SPACE["global"]
            if not st.cc_on:  # constant loads are global loads through the L1D
                sp[is_const] = SPACE["global"]
            rec[:, E.RC_SPACE] = sp
            rec[:, E.RC_FLAGS] = mem["flags"]
            rec[:, E.RC_TXS] = co.rec_tx_start
            rec[:, E.RC_NTX] = co.rec_ntx
            rec[:, E.RC_CONF] = co.rec_conflict
            rec[:, E.RC_BYTES] = co.rec_bytes
            atomic = ((mem["flags"] & MEM_ATOMIC) != 0) & (sp == SPACE["global"])
            if core.atomic_segment_bytes and atomic.any():
                # GPGPU-Sim's atomics: transactions by segment, lanes to one word apart (coalesce_atomics), placed
                # after the others
                at = np.flatnonzero(atomic)
                ca = coalesce_atomics(trace, at, core.atomic_segment_bytes, core.atomic_warp_parts, st.line_bytes)
                rec[at, E.RC_TXS] = ca.rec_tx_start + len(tx_line)
                rec[at, E.RC_NTX] = ca.rec_ntx
                tx_line = np.concatenate([tx_line, ca.tx_line])
                tx_sect = np.concatenate([tx_sect, ca.tx_sectors])
            if st.cc_on and is_const.any():
                # a constant load is one access per distinct constant-cache line its lanes read: its records
                # take their transactions from the trace coalesced at that line size, placed after the others
                const = np.flatnonzero(is_const)
                cc = coalesce_trace(trace, m.l1c.line_bytes, core.smem.banks, core.smem.bank_bytes, records=const)
                rec[const, E.RC_TXS] = cc.rec_tx_start + len(tx_line)
                rec[const, E.RC_NTX] = cc.rec_ntx
                tx_line = np.concatenate([tx_line, cc.tx_line])
                tx_sect = np.concatenate([tx_sect, cc.tx_sectors])
        else:
            rec[:, E.RC_PC] = -1
        if st.params_cc:
            rec, tx_line, tx_sect = _param_records(pct, static, launch, m, rec, tx_line, tx_sect)
        self.rec = rec
        self.txl = tx_line if tx_line.size else np.zeros(1, I64)
        self.txs = tx_sect if tx_sect.size else np.zeros(1, I64)
        # each transaction's sectors it covers only in part (l2.lazy_fetch_on_read's writes; the atomics' and
        # constant and parameter loads' transactions after the others: none); read only under the rule
        self.txp = np.zeros(1, I64)
        if co.tx_partial is not None:
            self.txp = np.zeros(max(len(self.txs), 1), I64)
            self.txp[:len(co.tx_partial)] = co.tx_partial
        self.cta_order = np.asarray(plan.order, I64)
        self.cta_sm = np.array(plan.target_sm, I64)  # a copy: block dispatch writes partners in
        self.mode = int(plan.mode)
        if preload is None:
            self.pre_start = np.zeros(launch.num_ctas + 1, I64)
            self.pre_lines = np.zeros(1, I64)
        else:
            self.pre_start = np.asarray(preload[0], I64)
            self.pre_lines = np.asarray(preload[1], I64) if len(preload[1]) else np.zeros(1, I64)
        self.occ = occ
        self.regrdy = np.zeros((st.nsm * st.nslot, nreg), I64)

    def tables(self) -> E.LaunchTables:
        """The launch's tables as the compiled loop takes them."""
        return E.LaunchTables(self.seg, self.wseg, self.rec, self.wrec, self.txl, self.txs, self.txp, self.pct,
                              self.cta_order, self.cta_sm, self.pre_start, self.pre_lines, self.regrdy)


def param_offsets(static: np.ndarray, param_bytes: int) -> dict[int, int]:
    """Byte offset in the kernel's parameter buffer of each ``ld.param`` PC: the trace does not record parameter
    addresses, so the loads are taken to read the parameters in order, one each, in PC order (as nvcc emits
    them at a kernel's entry), each at the next offset aligned to its width, kept inside the buffer."""
    out: dict[int, int] = {}
    off = 0
    load_c = OP_CLASS["load"]
    for pc in range(len(static)):
        row = static[pc]
        if int(row["op_class"]) != load_c or int(row["space"]) != SPACE["param"]:
            continue
        w = max(int(row["width"]), 1)
        off = (off + w - 1) // w * w
        at = off
        if param_bytes and at + w > param_bytes:
            at = max(0, (param_bytes - w) // w * w)
        out[pc] = at
        off += w
    return out


def _param_records(pct: np.ndarray, static: np.ndarray, launch: Any, m: Machine, rec: np.ndarray,
                   tx_line: np.ndarray, tx_sect: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Records for the kernel-parameter loads (``l1c.kernel_params``): one per ``ld.param`` PC, after the
    trace's, each one constant-cache access to the line at ``l1c.param_base`` + its parameter's offset."""
    offs = param_offsets(static, len(launch.param_bytes) // 2)
    if not offs:
        return rec, tx_line, tx_sect
    lb = m.l1c.line_bytes
    pcs = np.fromiter(offs, I64, len(offs))
    lines = np.array([(m.l1c.param_base + offs[int(p)]) // lb * lb for p in pcs], I64)
    extra = np.zeros((len(pcs), E.NREC), I64)
    extra[:, E.RC_PC] = pcs
    extra[:, E.RC_SPACE] = E.SP_CONST
    extra[:, E.RC_FLAGS] = 1  # a load
    extra[:, E.RC_TXS] = len(tx_line) + np.arange(len(pcs))
    extra[:, E.RC_NTX] = 1
    extra[:, E.RC_BYTES] = 4
    pct[pcs, E.P_PREC] = len(rec) + np.arange(len(pcs))
    return (np.concatenate([rec, extra]), np.concatenate([np.asarray(tx_line, I64), lines]),
            np.concatenate([np.asarray(tx_sect, I64), np.ones(len(pcs), I64)]))


def launch_occupancy(m: Machine, trace: KernelTrace) -> Occupancy:
    L = trace.launch
    return occupancy(m.core, L.threads_per_cta, L.regs_per_thread, L.shared_bytes, cap_registers=True)
