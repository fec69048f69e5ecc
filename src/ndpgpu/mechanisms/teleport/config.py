"""TELEPORT's configuration: the machine (real, or the paper's I/S/R machines), the buffer, the controller
and DRAM arbitration, and MTHWP's options."""

from __future__ import annotations

import dataclasses

from ...timing import engine as E
from . import hardware as H
from .regions import LINE_BYTES, TABLE_ENTRIES

MACHINES = {"real": H.MODE_REAL, "I": H.MODE_I, "S": H.MODE_S, "R": H.MODE_R, "off": H.MODE_OFF}
ARBITRATION = {"tpref": H.ARB_TPREF, "cpref": H.ARB_CPREF, "alt": H.ARB_ALT}
CONTROLLERS = ("shared", "core")
MTHWP_IDS = ("slot", "global")
SETS = 4


class TeleportError(ValueError):
    """A configuration or launch TELEPORT cannot run (a bad size, a trace without its launch arguments)."""


@dataclasses.dataclass(frozen=True)
class Teleport:
    """TELEPORT's hardware parameters (seed 002, Sec. 3.2, 5.2, 5.3).

    ``machine``: ``real`` (the set-associative buffer, gating), ``I`` (instant fill, no requests, no
    gating), ``S`` (requests issued, data at zero latency, no gating), ``R`` (requests, gating; ideal
    buffer). ``buffer_kb``: the realistic buffer (16/32/48/64 KB; 4 sets of 128-B lines, so 32..128 ways),
    less the kernel's own shared memory. ``arbitration``: ``tpref`` (the controller's requests first,
    default), ``cpref`` (the core's first), ``alt`` (TELEPORT on even cycles). ``priority``: the
    controller's class in the network's and FR-FCFS's class arbitration (0..3). ``table_entries``: the
    preload table (64). ``merge``/``split_rows``: the analysis's region options (see :mod:`.regions`).
    ``smem_latency``: core cycles of a buffer hit (None: the machine's shared-memory latency).
    ``max_outstanding``: an optional cap on the controller's requests in flight per core (0, the default: none;
    the paper gives no number, so only the network's injection queue and the request pool, less the entries
    kept for the L2's DRAM requests, bound them; the shared controller's cap is this many times the number
    of cores). ``controller``: ``shared`` (the paper's one unit in the block dispatcher, Sec. 3.2.2: it starts
    a block's preload when the block is dispatched and serves blocks in dispatch order, one line per cycle;
    the default) or ``core`` (one controller per core, each serving its own blocks).
    ``machine="off"``: no preloading (the Baseline, or MTHWP alone). ``mthwp``: the MTHWP prefetcher at each
    L1 (Sec. 5.4); ``mthwp_period``: its throttling period in L1 accesses per SM (an assumption);
    ``mthwp_ids``: the warp ids of its inter-warp table, ``slot`` (the warp's slot in its SM, the default) or
    ``global`` (the warp's id in the grid, whose next warp may run on another SM)."""

    machine: str = "real"
    buffer_kb: int = 48
    arbitration: str = "tpref"
    priority: int = 3
    table_entries: int = TABLE_ENTRIES
    merge: bool = True
    split_rows: bool = True
    smem_latency: int | None = None
    max_outstanding: int = 0
    controller: str = "shared"
    mthwp: bool = False
    mthwp_period: int = 1024
    mthwp_ids: str = "slot"

    def __post_init__(self) -> None:
        if self.machine not in MACHINES:
            raise TeleportError(f"teleport machine {self.machine!r}; valid: {', '.join(MACHINES)}")
        if self.arbitration not in ARBITRATION:
            raise TeleportError(f"teleport arbitration {self.arbitration!r}; valid: {', '.join(ARBITRATION)}")
        if not 1 <= self.buffer_kb <= 1024:
            raise TeleportError(f"teleport buffer_kb must be 1..1024, not {self.buffer_kb}")
        if not 0 <= self.priority < E.NPRIO:
            raise TeleportError(f"teleport priority must be 0..{E.NPRIO - 1}, not {self.priority}")
        if self.table_entries < 1:
            raise TeleportError(f"teleport table_entries must be >= 1, not {self.table_entries}")
        if self.controller not in CONTROLLERS:
            raise TeleportError(f"teleport controller {self.controller!r}; valid: {', '.join(CONTROLLERS)}")
        if self.max_outstanding < 0:
            raise TeleportError(f"teleport max_outstanding must be >= 0 (0: no cap), not {self.max_outstanding}")
        if self.mthwp_ids not in MTHWP_IDS:
            raise TeleportError(f"teleport mthwp_ids {self.mthwp_ids!r}; valid: {', '.join(MTHWP_IDS)}")
        if self.mthwp_period < 1:
            raise TeleportError(f"teleport mthwp_period must be >= 1, not {self.mthwp_period}")
        if self.smem_latency is not None and self.smem_latency < 1:
            raise TeleportError(f"teleport smem_latency must be >= 1, not {self.smem_latency}")

    @property
    def ways(self) -> int:
        """Ways of the whole buffer (4 sets of 128-B lines): 96 for 48 KB."""
        return self.buffer_kb * 1024 // (LINE_BYTES * SETS)
