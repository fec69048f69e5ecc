"""TOM's offload hardware as a timing-engine plan: which instances may go, with which packets (section 3.3).

The block-offload hardware (:mod:`.hardware`, attached by :mod:`.unit`) holds the compiled parts: the
decision at the block's first memory instruction, the channel busy monitor, the per-stack pending counters,
the stack SMs and the coherence actions. This module turns a launch's candidate instances into its plan:

* **condition** (section 3.2, G10): a conditional candidate is allowed when the instance's trip count (its
  loop header's executions, what the hardware reads at loop entry) reaches ``tmin``; instances of the
  learning phase (section 4.3) are never offloaded;
* **tag** (2 bits, G7): evaluated at the instance's own trip count: the block *adds* TX (RX) traffic when
  its BW_TX (BW_RX) is not negative, and a busy TX (RX) channel then stops it;
* **packets** (G3, 16-B flits): request = 1 + live-in registers x 32 lanes x 4 B; acknowledgement = 1 +
  live-outs likewise + 4-B addresses of the written lines (none when ``coherence`` is off, section 4.4.2).
  With ``cost.uniform_live_ins`` (not the paper's model, off by default) the warp-uniform live-ins travel
  once per packet: 4 B per 32-bit unit instead of 32 x 4 B.
"""

from __future__ import annotations

import numpy as np

from ...trace.format import KernelTrace
from .candidates import Candidate, CandidateTable
from .config import TomConfig
from .instances import (
    I_DOFF,
    I_DREC,
    I_DSEG,
    I_OFF0,
    I_OFF1,
    I_REC0,
    I_REC1,
    I_SEG0,
    I_SEG1,
    I_TRIPS,
    I_WARP,
    BlockInstances,
    find_instances,
)
from .unit import OFFLOAD_INSTANCE_FIELDS, BlockOffload, OffloadPlan


class TomOffload(BlockOffload):
    """Plans a launch's offloads from its kernel's candidate table (``find_candidates``)."""

    def __init__(self, tables: dict[str, CandidateTable], config: TomConfig | None = None,
                 learning: dict[int, np.ndarray] | None = None) -> None:
        self.tables = tables
        self.config = config if config is not None else TomConfig()
        self.learning = learning or {}  # launch id -> instance indices that run on the GPU (learning phase)
        self._instances: dict[int, tuple[list[Candidate], BlockInstances]] = {}

    def instances(self, trace: KernelTrace) -> tuple[list[Candidate], BlockInstances]:
        """The launch's candidates and instances (cached per launch id)."""
        key = trace.launch.launch_id
        if key not in self._instances:
            table = self.tables.get(trace.launch.kernel)
            cands = table.candidates if table is not None else []
            self._instances[key] = (cands, find_instances(trace, cands))
        return self._instances[key]

    def plan(self, trace: KernelTrace, machine) -> OffloadPlan | None:
        cands, inst = self.instances(trace)
        if not len(inst):
            return None
        cfg = self.config
        t = inst.table
        n = len(t)
        allowed = np.ones(n, np.int64)
        adds_tx = np.zeros(n, np.int64)
        adds_rx = np.zeros(n, np.int64)
        req = np.zeros(n, np.int64)
        ack_regs = np.zeros(n, np.int64)
        cand_of = t[:, 1]
        for ci, c in enumerate(cands):
            rows = np.nonzero(cand_of == ci)[0]
            if not len(rows):
                continue
            req[rows] = cfg.header_flits + cfg.register_flits(c.reg_tx, c.reg_tx_uniform)
            ack_regs[rows] = cfg.header_flits + cfg.register_flits(c.reg_rx)
            trips = t[rows, I_TRIPS]
            for tv in np.unique(trips):
                sel = rows[trips == tv]
                at = int(tv) if c.trip == "entry" else None
                bw_tx, bw_rx = c.bandwidth(at, cfg.cost)
                adds_tx[sel] = int(bw_tx >= 0)
                adds_rx[sel] = int(bw_rx >= 0)
                if c.conditional:
                    allowed[sel] = int(tv >= c.tmin)
        skip = self.learning.get(trace.launch.launch_id)
        if skip is not None and len(skip):
            allowed[skip] = 0
        nw = np.diff(inst.written_start)
        if not cfg.coherence:  # the acknowledgement carries no written lines
            nw = np.zeros_like(nw)
        ack = ack_regs + np.ceil(nw * cfg.address_bytes / cfg.flit_bytes).astype(np.int64)
        no_mem = t[:, I_DSEG] < 0
        # the GPU runs the block up to its decision point (G6); the stack SM runs the rest, from the decision
        # point on, so no instruction of the block is issued twice (the timing engine's instruction counts equal
        # the functional run's)
        dseg = np.where(no_mem, t[:, I_SEG0], t[:, I_DSEG])
        doff = np.where(no_mem, t[:, I_OFF0], t[:, I_DOFF])
        drec = np.where(no_mem, t[:, I_REC0], t[:, I_DREC])
        cols = {
            "warp": t[:, I_WARP], "seg0": dseg, "off0": doff, "dseg": dseg, "doff": doff,
            "seg1": t[:, I_SEG1], "off1": t[:, I_OFF1], "rec0": drec, "rec1": t[:, I_REC1],
            "line": inst.first_line, "allowed": allowed, "adds_tx": adds_tx, "adds_rx": adds_rx,
            "req_flits": req, "ack_flits": ack, "wl0": inst.written_start[:-1], "wl1": inst.written_start[1:],
        }
        rows = np.stack([np.asarray(cols[f], np.int64) for f in OFFLOAD_INSTANCE_FIELDS], axis=1)
        capacity = machine.stacks.sm_max_warps * machine.stacks.sms_per_stack
        unlimited = cfg.control in ("always", "ideal")
        return OffloadPlan(rows, inst.written, mode="ideal" if cfg.control == "ideal-limited" else cfg.control,
                           busy_threshold=cfg.busy_threshold, busy_window_cycles=cfg.busy_window_cycles,
                           pending_limit=0 if unlimited else max(1, round(cfg.pending_factor * capacity)),
                           pipeline_cycles=cfg.pipeline_cycles, coherence=cfg.coherence)
