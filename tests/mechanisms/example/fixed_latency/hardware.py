"""The accelerator's compiled side: three hooks over one state vector per launch.

``mx`` layout: a header (``X_*``), the counters, then one row per warp (``XR_*``): where the stretch
starts (segment, offset), where the warp resumes (segment, offset, memory record).
"""

from ndpgpu.timing.engine.layout import D_CORE, W_MX, W_READY, W_REC, W_SEG, W_SEG_OFF, njit
from ndpgpu.timing.engine.queues import edge

MECHANISM = "fixed_latency"
HOOKS = ("warp_start", "decide", "divert")

X_LATENCY, X_ROWS, X_CTR0, X_HDR = range(4)
COUNTER_NAMES = ("FL_SENT", "FL_SKIPPED_INSTS")
FL_SENT, FL_SKIPPED_INSTS = range(2)
XR_SEG0, XR_OFF0, XR_SEG1, XR_OFF1, XR_REC1, XR_INSTS = range(6)
NXR = 6


@njit
def warp_start(gwarp, mx):
    """W_MX of a starting warp: its row when it has a stretch, else -1 (then ``decide`` is never asked)."""
    o = mx[X_ROWS] + gwarp * NXR
    return gwarp if mx[o + XR_SEG0] >= 0 else -1


@njit
def decide(slot, now, wt, chs, mx):
    """Divert (0) when the warp stands at its stretch's first instruction; else go on (-1)."""
    o = mx[X_ROWS] + wt[slot, W_MX] * NXR
    if wt[slot, W_SEG] == mx[o + XR_SEG0] and wt[slot, W_SEG_OFF] == mx[o + XR_OFF0]:
        return 0
    return -1


@njit
def divert(sm, slot, now, k, cfg, clk, wt, chs, wake, mx):
    """The stretch runs on the accelerator: the warp jumps past it and is ready ``latency`` cycles later."""
    o = mx[X_ROWS] + wt[slot, W_MX] * NXR
    wt[slot, W_SEG] = mx[o + XR_SEG1]
    wt[slot, W_SEG_OFF] = mx[o + XR_OFF1]
    wt[slot, W_REC] = mx[o + XR_REC1]
    wt[slot, W_READY] = edge(clk, D_CORE, k + mx[X_LATENCY])
    wt[slot, W_MX] = -1  # one stretch per warp
    mx[mx[X_CTR0] + FL_SENT] += 1
    mx[mx[X_CTR0] + FL_SKIPPED_INSTS] += mx[o + XR_INSTS]
