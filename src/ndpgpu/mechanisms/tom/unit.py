"""TOM's block offload, the Python side: offload plans, and the hardware that runs them in the engine.

A :class:`BlockOffload` policy decides, per launch, which code-block instances may run on an SM inside a
memory stack (an :class:`OffloadPlan`); :class:`BlockOffloadHardware` attaches it to a timing session,
lays the plan out as the state vector of the compiled hooks (:mod:`.hardware`) and reports its counters::

    session.attach(BlockOffloadHardware(policy))

The machine must have SMs in its memory stacks (``stacks.sms_per_stack``).
"""

from __future__ import annotations

import abc
import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ...timing import engine as E
from ...timing.mechanism import MechanismHardware, Put, Ratio
from . import hardware as H

if TYPE_CHECKING:
    from ...timing.session import TimingSession
    from ...timing.spec import Machine
    from ...timing.stats import LaunchStats
    from ...trace.format import KernelTrace

I64 = np.int64

# columns of ``OffloadPlan.instances``, in order (``hardware.OI_*`` columns up to ``OI_WL1``)
OFFLOAD_INSTANCE_FIELDS = (
    "warp",       # global warp id
    "seg0", "off0",  # where the stack SM's stretch of the warp's stream starts (segment index, offset in it):
                     # the decision point, since the GPU ran the block's part before it
    "dseg", "doff",  # decision point: the block's first memory instruction (the GPU runs the part before it)
    "seg1", "off1",  # where the warp continues after the block
    "rec0", "rec1",  # the memory records the stack SM runs [rec0, rec1) (from the decision point's)
    "line",       # line address of the first memory access (its stack is the destination), -1 if none
    "allowed",    # 1 when the block's condition holds for this instance (e.g. its trip count), else 0
    "adds_tx", "adds_rx",  # 1 when offloading this instance adds traffic on TX / RX (the 2-bit tag, negated)
    "req_flits", "ack_flits",  # offload request (live-ins) and acknowledgement (live-outs, written lines) sizes
    "wl0", "wl1",  # the lines it writes: ``written_lines[wl0:wl1]`` (invalidated in the GPU at the ack)
)


# why the hardware declines stopping a short launch once stable (said by the policy before a run, too)
STABLE_DECLINED = "TOM: warps wait for offloaded blocks, so issue cannot stop mid-launch"


@dataclasses.dataclass
class OffloadPlan:
    """Candidate-block instances of one launch, and how the offload controller treats them.

    ``mode``: ``always`` (offload every allowed instance; each stack SM queues what it cannot start),
    ``ctrl`` (dynamic control: skip when a channel the block adds traffic to is busy, or when the destination
    stack already has ``pending_limit`` blocks in flight) or ``ideal`` (free requests and acknowledgements,
    every stack-SM access local, no busy control: an upper bound). ``pending_limit`` applies to every
    mode (0: unlimited)."""

    instances: np.ndarray  # int64 (n, len(OFFLOAD_INSTANCE_FIELDS)), sorted by warp then stream position
    written_lines: np.ndarray  # int64 line addresses
    mode: str = "ctrl"
    busy_threshold: float = 0.8  # a channel is busy at this utilisation over the monitor's window
    busy_window_cycles: int = 1000  # core cycles
    pending_limit: int = 0  # blocks in flight per stack (0: unlimited)
    pipeline_cycles: int = 10  # offload pipeline latency before the request leaves (core cycles)
    # TOM's coherence (section 4.4.2): the warp's stores reach memory before its request leaves, the stack SM
    # invalidates its private cache before each block, the GPU invalidates the lines the block wrote; False
    # drops all three (and the written lines' addresses from the acknowledgement) to measure what they cost
    coherence: bool = True


class BlockOffload(abc.ABC):
    """Which code-block instances of a launch may run on an SM inside a memory stack (TOM).

    May not mutate the trace or the machine; the machine must have stack SMs (``stacks.sms_per_stack``)."""

    @abc.abstractmethod
    def plan(self, trace: KernelTrace, machine: Machine) -> OffloadPlan | None:
        """The launch's offload plan, or None to run it all on the GPU."""


_MODES = {"off": H.BO_OFF, "always": H.BO_ALWAYS, "ctrl": H.BO_CTRL, "ideal": H.BO_IDEAL}


def offload_state(session: TimingSession, nwarps: int, plan: OffloadPlan) -> np.ndarray:
    """The hooks' state vector ``mx`` (``hardware`` ``OF_*`` header, counters, ``OI_*`` rows) for one launch."""
    st = session.state
    m = st.m
    if plan.mode not in _MODES:
        raise ValueError(f"offload plan mode {plan.mode!r}; valid: {', '.join(_MODES)}")
    if m.num_stack_sms == 0:
        raise ValueError(f"{m.name}: an offload plan needs SMs in the memory stacks (stacks.sms_per_stack > 0)")
    inst = np.asarray(plan.instances, I64).reshape(-1, len(OFFLOAD_INSTANCE_FIELDS))
    n = len(inst)
    warps = inst[:, 0]
    if n > 1 and np.any(np.diff(warps) < 0):
        raise ValueError("offload plan: instances must be sorted by warp")
    wl = np.asarray(plan.written_lines, I64)
    nst = m.stacks.count
    nvps = m.stacks.vaults_per_stack
    ctr0 = H.OF_HDR
    stk0 = ctr0 + len(H.COUNTER_NAMES)
    q0 = stk0 + nst * H.NOFS
    wf0 = q0 + nst * n
    wl0 = wf0 + nwarps
    oi0 = wl0 + len(wl)
    mx = np.zeros(oi0 + n * H.NOI, I64)
    mx[H.OF_MODE] = _MODES[plan.mode]
    mx[H.OF_THR] = int(round(plan.busy_threshold * 1000))
    mx[H.OF_WINDOW_PS] = max(1, int(round(plan.busy_window_cycles * 1e6 / m.clocks.core_mhz)))
    mx[H.OF_PEND_LIMIT] = plan.pending_limit
    mx[H.OF_PIPE] = plan.pipeline_cycles
    mx[H.OF_COHERENT] = int(plan.coherence)
    mx[H.OF_NINST], mx[H.OF_STK0], mx[H.OF_Q0] = n, stk0, q0
    mx[H.OF_WF0], mx[H.OF_WL0], mx[H.OF_OI0], mx[H.OF_CTR0] = wf0, wl0, oi0, ctr0
    first = np.full(nwarps, -1, I64)
    w_ids, w_first = np.unique(warps, return_index=True)
    first[w_ids] = w_first
    mx[wf0:wf0 + nwarps] = first
    mx[wl0:wl0 + len(wl)] = wl
    oi = mx[oi0:].reshape(n, H.NOI)  # a view: the rows live in mx
    oi[:, :inst.shape[1]] = inst
    chan = np.empty(n, I64)
    E.map_channels(st.mapd, st.mrange, int(st.cfg[E.C_NRANGE]), inst[:, H.OI_LINE].copy(), chan)
    oi[:, H.OI_STACK] = chan // nvps  # the destination: the stack of the block's first access
    oi[:, H.OI_HOST] = -1
    return mx


class BlockOffloadHardware(MechanismHardware):
    """The stacks' SMs running the blocks a :class:`BlockOffload` policy offloads (TOM's NDP hardware)."""

    mechanism = H.MECHANISM
    counter_names = H.COUNTER_NAMES

    def __init__(self, policy: BlockOffload) -> None:
        self.policy = policy
        self._xl0 = 0

    def declines_stable_sampling(self, mx: np.ndarray) -> str | None:
        """A warp waits for an offloaded block to come back: ending its stream mid-launch would leave that open."""
        return STABLE_DECLINED

    def launch_state(self, session: TimingSession, trace: KernelTrace) -> np.ndarray | None:
        plan = self.policy.plan(trace, session.machine)
        if plan is None or plan.mode == "off" or len(plan.instances) == 0:
            return None
        return offload_state(session, trace.num_warps, plan)

    def launch_begin(self, session: TimingSession, mx: np.ndarray, start_ps: int) -> None:
        st = session.state
        for s in range(session.machine.stacks.count):  # the channel busy monitor's first window starts now
            b = int(mx[H.OF_STK0]) + s * H.NOFS
            mx[b + H.OFS_MARK_T] = start_ps
            mx[b + H.OFS_MARK_TX] = st.chs[s, E.H_LK_TX_BUSY]
            mx[b + H.OFS_MARK_RX] = st.chs[s, E.H_LK_RX_BUSY]
        self._xl0 = int(st.cfg[E.C_XL0])
        if mx[H.OF_MODE] == H.BO_IDEAL:
            st.cfg[E.C_XL0] = -1  # ideal offloading: every stack-SM access is local

    def launch_end(self, session: TimingSession, mx: np.ndarray) -> None:
        session.state.cfg[E.C_XL0] = self._xl0

    def counter_offset(self, mx: np.ndarray) -> int:
        return int(mx[H.OF_CTR0])

    @staticmethod
    def metrics(stats: LaunchStats, put: Put, ratio: Ratio) -> None:
        """Code blocks run by the stacks' SMs: instances seen, offloaded and declined, their traffic and time."""
        c = stats.c
        core_ps = 1e6 / stats.consts["core_mhz"]
        p = "offload.blocks"
        put(p, "instances", c("BO_SEEN"), "instances")
        put(p, "offloaded", c("BO_SENT"), "instances")
        put(p, "completed", c("BO_DONE"), "instances")
        for why, ctr_name in (("memory", "MEM"), ("condition", "COND"), ("busy", "BUSY"), ("pending", "PEND")):
            put(p, f"declined_{why}", c("BO_NO_" + ctr_name), "instances")
        put(p, "offload_rate", ratio(c("BO_SENT"), c("BO_SEEN")), "fraction")
        put(p, "warp_instructions", c("BO_WINSTS"), "warp-instr")
        put(p, "thread_instructions", c("BO_TINSTS"), "thread-instr")
        put(p, "instruction_share", ratio(c("BO_TINSTS"), c("THREAD_INSTS")), "fraction")
        put(p, "request_flits", c("BO_REQ_FLITS"), "flits")
        put(p, "ack_flits", c("BO_ACK_FLITS"), "flits")
        put(p, "invalidated_l1_lines", c("BO_INVAL_L1"), "lines")
        put(p, "invalidated_l2_lines", c("BO_INVAL_L2"), "lines")
        put(p, "round_trip", ratio(c("BO_RTT_PS"), c("BO_DONE")) / core_ps, "cycles")
        put(p, "stack_time", ratio(c("BO_WAIT_PS"), c("BO_DONE")) / core_ps, "cycles")

