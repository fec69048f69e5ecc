"""The Python side of IP-NDP's hardware: the prefetch information table of each launch, the prefetcher's mode
(the paper's boundary-aware prefetcher ``pf``, the per-warp stride prefetcher ``pws``, or none) and the
perfect-L2 switch (every allocation installed in the L2 before each launch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...timing import MechanismHardware
from ...timing import engine as E
from . import hardware as H
from .tables import ImageArray, Traversal, table

#: launch -> (image arrays, traversal) of its prefetch table, or None (no entries: the prefetcher idles)
TableSource = Callable[[Any], "tuple[list[ImageArray], Traversal] | None"]

PREFETCHERS = ("none", "pf", "pws")


class IpndpHardware(MechanismHardware):
    """IP-NDP's units attached to a session: ``prefetcher`` none | pf | pws; ``literal``: the paper's modified
    stride instead of the exact one; ``perfect_l2``: the byte ranges in ``ranges`` are installed in the L2 before
    each launch (the PL configurations, on a machine whose L2 can hold them)."""

    mechanism = H.MECHANISM
    counter_names = H.COUNTER_NAMES

    def __init__(self, prefetcher: str = "pf", tables: TableSource | None = None, literal: bool = False,
                 perfect_l2: bool = False, ranges: list[tuple[int, int]] | None = None) -> None:
        if prefetcher not in PREFETCHERS:
            raise ValueError(f"prefetcher must be one of {PREFETCHERS}, not {prefetcher!r}")
        self.prefetcher = prefetcher
        self.tables = tables
        self.literal = literal
        self.perfect_l2 = perfect_l2
        self.ranges = list(ranges or [])
        self.last_table: np.ndarray = np.zeros(0, np.int64)
        self.cta_sm: list[np.ndarray] = []  # per launch: the SM each CTA ran on

    def launch_state(self, session: Any, trace: Any) -> np.ndarray | None:
        ent = np.zeros(0, np.int64)
        if self.prefetcher == "pf" and self.tables is not None:
            got = self.tables(trace.launch)
            if got is not None:
                ent = table(got[0], got[1], self.literal)
        self.last_table = ent
        st = session.state
        slots = int(st.nsm) * int(st.cfg[E.C_NSLOT])
        mode = {"none": H.MODE_OFF, "pf": H.MODE_PF, "pws": H.MODE_PWS}[self.prefetcher]
        ent0 = H.X_HDR
        tab0 = ent0 + len(ent)
        ctr0 = tab0 + slots * H.NPC * H.NT
        cta0 = ctr0 + len(H.COUNTER_NAMES)
        ncta = int(trace.launch.num_ctas)
        prog0 = cta0 + ncta
        ring0 = prog0 + slots
        l1 = session.machine.l1d
        ringn = int(l1.num_lines) if self.prefetcher != "none" else 0
        mx = np.zeros(ring0 + int(st.nsm) * (ringn + 1), np.int64)
        mx[H.X_CTA0], mx[H.X_NCTA], mx[H.X_RING0], mx[H.X_RINGN] = cta0, ncta, ring0, ringn
        mx[H.X_PROG0], mx[H.X_SPS] = prog0, int(st.cfg[E.C_NSLOT])
        mx[cta0:prog0] = -1
        if ringn:
            ring = mx[ring0:].reshape(int(st.nsm), ringn + 1)
            ring[:, 1:] = -1
        mx[H.X_MODE], mx[H.X_NENT], mx[H.X_ENT0] = mode, len(ent) // H.NE, ent0
        mx[H.X_SLOTS], mx[H.X_TAB0], mx[H.X_CTR0] = slots, tab0, ctr0
        mx[H.X_LB] = 1 << int(st.cfg[E.C_L1_LINE_SHIFT])
        mx[ent0:tab0] = ent
        tab = mx[tab0:ctr0].reshape(slots * H.NPC, H.NT)
        tab[:, H.T_PC] = -1
        tab[:, H.T_PRED] = -1
        return mx

    def launch_begin(self, session: Any, mx: np.ndarray, start_ps: int) -> None:
        st = session.state
        if self.perfect_l2:
            if not st.cfg[E.C_L2_EN]:
                raise ValueError("perfect L2 asked for on a machine without an L2")
            for lo, hi in self.ranges:
                E.l2_install_range(int(lo), int(hi), st.cfg, st.l2t, st.mapd, st.mrange, st.g)

    def launch_end(self, session: Any, mx: np.ndarray) -> None:
        cta0, prog0, ring0 = int(mx[H.X_CTA0]), int(mx[H.X_PROG0]), int(mx[H.X_RING0])
        self.cta_sm.append(mx[cta0:prog0].copy())
        mx[int(mx[H.X_CTR0]) + H.PG_WARPS] = int((mx[prog0:ring0] > 0).sum())

    def counter_offset(self, mx: np.ndarray) -> int:
        return int(mx[H.X_CTR0])

    @staticmethod
    def metrics(stats: Any, put: Any, ratio: Any) -> None:
        c = stats.c
        put("ipndp.prefetcher", "triggers", c("PF_TRIGGERS"), "accesses")
        put("ipndp.prefetcher", "predicted", c("PF_PREDICTED"), "lines")
        put("ipndp.prefetcher", "wraps", c("PF_WRAPS"), "accesses")
        put("ipndp.prefetcher", "outside", c("PF_OUTSIDE"), "accesses")
        put("ipndp.prefetcher", "untrained", c("PF_UNTRAINED"), "accesses")
        put("ipndp.prefetcher", "next_demand_match", c("PF_MATCH"), "predictions")
        put("ipndp.prefetcher", "next_demand_mismatch", c("PF_MISMATCH"), "predictions")
        put("ipndp.prefetcher", "next_demand_accuracy",
            ratio(c("PF_MATCH"), c("PF_MATCH") + c("PF_MISMATCH")), "fraction")
        put("ipndp.prefetcher", "tracked", c("PF_TRACKED"), "lines")
        put("ipndp.prefetcher", "used", c("PF_USED"), "lines")
        put("ipndp.prefetcher", "accuracy", ratio(c("PF_USED"), c("PF_TRACKED")), "fraction")
        per_warp = ratio(c("PG_LOADS"), c("PG_WARPS"))
        spread = ratio(c("PG_SPREAD_SUM"), c("PG_SAMPLES"))
        put("ipndp.progress", "loads_per_warp", per_warp, "transactions")
        put("ipndp.progress", "spread_mean", spread, "transactions")
        put("ipndp.progress", "spread_mean_fraction", ratio(spread, per_warp), "fraction")
