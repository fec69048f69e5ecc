"""The accelerator's Python side: the state vector of each launch, its counters and its statistics."""

from __future__ import annotations

import numpy as np

from ndpgpu.timing import MechanismHardware

from . import hardware as H


def stream_positions(trace, warp: int):
    """Warp ``warp``'s stream in order: ``(segment, offset, pc, memory record index before it)``."""
    rec = int(trace.warp_mem_start[warp])
    rec_end = int(trace.warp_mem_start[warp + 1])
    for s in range(int(trace.warp_seg_start[warp]), int(trace.warp_seg_start[warp + 1])):
        pc0, count = int(trace.segments["pc"][s]), int(trace.segments["count"][s])
        for off in range(count):
            yield s, off, pc0 + off, rec
            if rec < rec_end and int(trace.mem["pc"][rec]) == pc0 + off:
                rec += 1


class FixedLatencyAccelerator(MechanismHardware):
    """Runs the stretch [start_pc, end_pc) of every warp in ``latency`` core cycles."""

    mechanism = H.MECHANISM
    counter_names = H.COUNTER_NAMES

    def __init__(self, start_pc: int, end_pc: int, latency: int) -> None:
        self.start_pc, self.end_pc, self.latency = start_pc, end_pc, latency

    def launch_state(self, session, trace) -> np.ndarray | None:
        nw = trace.num_warps
        rows = np.full((nw, H.NXR), -1, np.int64)
        for w in range(nw):
            start = None
            for s, off, pc, rec in stream_positions(trace, w):
                if start is None and pc == self.start_pc:
                    start, n = (s, off), 0
                elif start is not None and pc == self.end_pc:
                    rows[w] = (*start, s, off, rec, n)
                    break
                if start is not None:
                    n += 1
        if (rows[:, H.XR_SEG0] < 0).all():
            return None  # no warp has the stretch: the launch runs without the accelerator
        mx = np.zeros(H.X_HDR + len(H.COUNTER_NAMES) + rows.size, np.int64)
        mx[H.X_LATENCY] = self.latency
        mx[H.X_CTR0] = H.X_HDR
        mx[H.X_ROWS] = H.X_HDR + len(H.COUNTER_NAMES)
        mx[mx[H.X_ROWS]:] = rows.ravel()
        return mx

    def counter_offset(self, mx: np.ndarray) -> int:
        return int(mx[H.X_CTR0])

    @staticmethod
    def metrics(stats, put, ratio) -> None:
        put("accelerator", "stretches", stats.c("FL_SENT"), "stretches")
        put("accelerator", "skipped_instructions", stats.c("FL_SKIPPED_INSTS"), "warp-instr")
        put("accelerator", "share", ratio(stats.c("FL_SKIPPED_INSTS"),
                                          stats.c("FL_SKIPPED_INSTS") + stats.c("WARP_INSTS")), "fraction")
