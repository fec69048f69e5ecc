"""LLC-Compute / Omni-Compute, the Python side: the hardware's state vector per launch and its statistics
(its configuration is :mod:`.config`, the compiled side :mod:`.hardware`)::

    session.attach(ChainOffloadHardware(tables, ChainOffload(scheme="omni")))

``tables`` holds the compiler pass's result (:func:`.chains.find_chains`) per kernel; a launch of a kernel
without chains, or (Omni-Compute) whose shared memory leaves no room for the service queue, runs without
offloading. Omni-Compute needs a mesh (its EMNs are mesh nodes; on a butterfly, whose routers would compute,
it is refused); LLC-Compute runs on any interconnect (crossbar, mesh, butterfly): its meet node is a slice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...timing import engine as E
from ...timing.mechanism import MechanismHardware, Put, Ratio
from ..state import StateLayout
from . import hardware as H
from .chains import ChainTable
from .config import ChainOffload, ChainOffloadError
from .emn import NO_EMN, MeshLayout

if TYPE_CHECKING:
    from ...timing.session import TimingSession
    from ...trace.format import KernelTrace

I64 = np.int64
TAG_CODES = {"01": 1, "10": 2, "11": 3}


def chain_rows(table: ChainTable) -> tuple[np.ndarray, dict[int, tuple[int, int]]]:
    """The per-chain rows (``hardware.CI_*``) and the PC -> (chain, tag code) map of one kernel."""
    rows = np.zeros((len(table.chains), H.NCI), I64)
    pcs: dict[int, tuple[int, int]] = {}
    for c, ch in enumerate(table.chains):
        mem = [(pc, i) for i, pc in zip(ch.instrs, ch.pcs, strict=True) if i in ch.loads or i == ch.store]
        if len(mem) > 3 or len(ch.loads) > 2:
            raise ChainOffloadError(f"{table.kernel}: a chain with {len(ch.loads)} loads and "
                                    f"{len(mem) - len(ch.loads)} stores is not a Table 1 pattern")
        rows[c, H.CI_PATTERN] = ch.pattern
        rows[c, H.CI_NINST] = len(ch.pcs)
        rows[c, H.CI_NOPS] = len(ch.pcs) - len(mem)
        rows[c, H.CI_REPLY_FL] = ch.reply_flits
        rows[c, H.CI_NMEM] = len(mem)
        nload = 0
        for m, (pc, i) in enumerate(mem):
            rows[c, H.CI_PC0 + m] = pc
            if i == ch.store:
                rows[c, H.CI_ROLE0 + m] = H.ROLE_ST
            else:
                rows[c, H.CI_ROLE0 + m] = H.ROLE_A if nload == 0 else H.ROLE_B
                nload += 1
        for pc, tag in zip(ch.pcs, ch.tags, strict=True):
            pcs[int(pc)] = (c, TAG_CODES[tag])
    return rows, pcs


def emn_endpoints(layout: MeshLayout) -> np.ndarray:
    """``t[sm, slice_a, slice_b]``: the EMN as a mechanism endpoint (slice id, or nsl + SM id; -1 none)."""
    nodes = layout.table()
    nsl = len(layout.llc_nodes)
    code = {int(n): i for i, n in enumerate(layout.llc_nodes)}
    code.update({int(n): nsl + i for i, n in enumerate(layout.core_nodes)})
    code[NO_EMN] = -1
    return np.vectorize(lambda n: code[int(n)], otypes=[I64])(nodes)


def chain_state(session: TimingSession, table: ChainTable, config: ChainOffload, npc: int) -> np.ndarray:
    """The hooks' state vector ``mx`` for one launch of ``table``'s kernel."""
    st = session.state
    m = session.machine
    cfg = st.cfg
    nsm = int(cfg[E.C_NSM])
    nsl = int(cfg[E.C_NSL])
    nslots = int(st.wt.shape[0])
    rows, pcmap = chain_rows(table)
    nchain = len(rows)
    if config.scheme == "omni":
        if m.icnt.impl != "mesh":
            why = " (routers that compute are not modelled)" if m.icnt.impl == "butterfly" else ""
            raise ChainOffloadError(f"{m.name}: Omni-Compute offloads to mesh nodes; the machine's interconnect "
                                    f"is {m.icnt.impl!r}{why} (use the llc scheme, or a mesh machine)")
        emn = emn_endpoints(MeshLayout.of(m))
        if emn.shape != (nsm, nsl, nsl):
            raise ChainOffloadError(f"{m.name}: the mesh places {emn.shape[0]} cores and {emn.shape[1]} LLC "
                                    f"nodes; the machine has {nsm} SMs and {nsl} L2 slices")
    else:
        emn = np.full((nsm, nsl, nsl), -1, I64)
    nsites = nsl + nsm
    nrow = nsm * config.oq
    rdy_cap = config.sq + config.oq
    snd_cap = 2 * nrow + 3 * (config.sq + config.oq) + 8
    inj_cap = config.oq
    sizes = {"pt": npc * H.NPT, "ci": nchain * H.NCI, "emn": emn.size, "ws": nslots * H.NWS, "rw": nrow * H.NRW,
             "free": nrow, "si": nsites * H.NSI, "rdy": nsites * rdy_cap, "snd": nsites * snd_cap,
             "inj": nsites * inj_cap, "bufs": nsites * config.buffer, "ctr": len(H.COUNTER_NAMES)}
    off = StateLayout(H.F_HDR, sizes)
    mx = off.allocate()
    hdr = {H.F_MODE: H.MODE_LLC if config.scheme == "llc" else H.MODE_OMNI, H.F_NSM: nsm, H.F_NSL: nsl,
           H.F_NSLOT: int(cfg[E.C_NSLOT]), H.F_OQ_CAP: config.oq, H.F_SQ_CAP: config.sq, H.F_BUF: config.buffer,
           H.F_ALU_LAT: config.alu_latency, H.F_LLC_RD: config.llc_read_cycles,
           H.F_DED_CYC: 0 if config.dedicated_alu_width == 0 else 32 // config.dedicated_alu_width,
           H.F_PT0: off["pt"], H.F_CI0: off["ci"], H.F_EMN0: off["emn"], H.F_WS0: off["ws"], H.F_RW0: off["rw"],
           H.F_NROW: nrow, H.F_FREE0: off["free"], H.F_FREE_TOP: nrow, H.F_SI0: off["si"], H.F_RDY0: off["rdy"],
           H.F_RDY_CAP: rdy_cap, H.F_SND0: off["snd"], H.F_SND_CAP: snd_cap, H.F_INJ0: off["inj"],
           H.F_INJ_CAP: inj_cap, H.F_BUFS0: off["bufs"], H.F_CTR0: off["ctr"], H.F_SMEM_LAT: config.smem_latency,
           H.F_NPC: npc, H.F_ACK_STORE: config.ack_after_store}
    for k, v in hdr.items():
        mx[k] = v
    pt = off.view(mx, "pt", H.NPT)
    pt[:, H.PT_CHAIN] = -1
    for pc, (c, tag) in pcmap.items():
        if pc >= npc:
            raise ChainOffloadError(f"{table.kernel}: chain PC {pc} is past the trace's {npc} PCs")
        pt[pc] = (c, tag)
    off.view(mx, "ci")[:] = rows.ravel()
    off.view(mx, "emn")[:] = emn.ravel()
    ws = off.view(mx, "ws", H.NWS)
    ws[:, H.WS_CHAIN] = -1
    off.view(mx, "free")[:] = np.arange(nrow, dtype=I64)
    off.view(mx, "bufs")[:] = -1
    return mx


# why the hardware declines stopping a short launch once stable (said by the policy before a run, too)
STABLE_DECLINED = "LLC-Compute: warps wait for offloaded chains, so issue cannot stop mid-launch"


class ChainOffloadHardware(MechanismHardware):
    """Offload queues, service queues and ALUs of LLC-Compute / Omni-Compute (seed 001)."""

    mechanism = H.MECHANISM
    counter_names = H.COUNTER_NAMES

    def __init__(self, tables: dict[str, ChainTable], config: ChainOffload | None = None) -> None:
        self.tables = tables
        self.config = config or ChainOffload()

    def declines_stable_sampling(self, mx: np.ndarray) -> str | None:
        """A warp waits for an offloaded chain to come back: ending its stream mid-launch would leave that open."""
        return STABLE_DECLINED

    def launch_state(self, session: TimingSession, trace: KernelTrace) -> np.ndarray | None:
        table = self.tables.get(trace.launch.kernel)
        if table is None or not table.chains:
            return None
        if self.config.scheme == "omni" and not table.omni_allowed:
            return None  # the kernel's shared memory leaves no room for the service queue
        return chain_state(session, table, self.config, len(trace.static))

    def launch_begin(self, session: TimingSession, mx: np.ndarray, start_ps: int) -> None:
        for code, name in H.PACKET_NAMES.items():
            session.packet_names[code] = name

    def launch_end(self, session: TimingSession, mx: np.ndarray) -> None:
        nsites = int(mx[H.F_NSL] + mx[H.F_NSM])
        si = mx[int(mx[H.F_SI0]):int(mx[H.F_SI0]) + nsites * H.NSI].reshape(nsites, H.NSI)
        c0 = int(mx[H.F_CTR0])
        mx[c0 + H.CC_OQ_MAX] = int(si[:, H.SI_OQ_MAX].max(initial=0))
        mx[c0 + H.CC_SQ_MAX] = int(si[:, H.SI_SQ_MAX].max(initial=0))

    def counter_offset(self, mx: np.ndarray) -> int:
        return int(mx[H.F_CTR0])

    @staticmethod
    def metrics(stats, put: Put, ratio: Ratio) -> None:
        """Chains seen, offloaded and declined (by reason), where they ran, their packets and service."""
        c = stats.c
        core_ps = 1e6 / stats.consts["core_mhz"]
        p = "offload.chains"
        seen = c("CH_SEEN")
        put(p, "instances", seen, "instances")
        put(p, "offloaded", c("CH_OFFLOADED"), "instances")
        put(p, "offload_rate", ratio(c("CH_OFFLOADED"), seen), "fraction")
        for why, name in (("l1_hit", "L1"), ("oq_full", "OQ"), ("no_emn", "EMN"), ("not_one_llc", "LLC"),
                          ("trace", "TRACE")):
            put(p, f"declined_{why}", c("CH_NO_" + name), "instances")
        put(p, "absorbed_instructions", c("CH_ABSORBED"), "warp-instr")
        put(p, "packets", c("CH_PACKETS"), "packets")
        put(p, "mask_flits", c("CH_MASK_FLITS"), "flits")
        put(p, "at_llc", c("CH_AT_LLC"), "packets")
        put(p, "at_core", c("CH_AT_CORE"), "packets")
        put(p, "emn_llc", c("CH_EMN_LLC"), "packets")
        put(p, "emn_core", c("CH_EMN_CORE"), "packets")
        put(p, "sq_full_fallback", c("CH_FALLBACK"), "packets")
        put(p, "alu_ops", c("CH_ALU_OPS"), "warp-ops")
        put(p, "alu_contention", c("CH_ALU_WAIT"), "cycles")
        put(p, "llc_buffer_reads", c("CH_LLC_READS"), "accesses")
        put(p, "network_operands", c("CH_NET_OPERANDS"), "operands")  # held at a slice site, not read from it
        put(p, "smem_accesses", c("CH_SMEM"), "accesses")
        put(p, "stores", c("CH_STORES"), "requests")
        put(p, "replies", c("CH_REPLIES"), "packets")
        put(p, "reply_flits", c("CH_REPLY_FLITS"), "flits")
        put(p, "completed", c("CH_DONE"), "packets")
        put(p, "round_trip", ratio(c("CH_RTT_PS"), c("CH_DONE")) / core_ps, "cycles")
        put(p, "oq_max", c("CH_OQ_MAX"), "entries")
        put(p, "sq_max", c("CH_SQ_MAX"), "entries")
        # where a completed packet's round trip went, by where it was computed (hardware.PHASES)
        for cls in H.SITE_CLASSES:
            n = c(f"CH_PH_{cls.upper()}_N")
            put(f"{p}.steps.{cls}", "packets", n, "packets")
            for ph in H.PHASES[:7]:
                put(f"{p}.steps.{cls}", ph, ratio(c(f"CH_PH_{cls.upper()}_{ph.upper()}"), n) / core_ps, "cycles")
            put(f"{p}.steps.{cls}", "store_rt",
                ratio(c(f"CH_PH_{cls.upper()}_STORE_RT"), c(f"CH_PH_{cls.upper()}_N_STORE")) / core_ps, "cycles")
