"""Counting hooks: mx holds one counter per event (``COUNTER_NAMES``)."""

from ndpgpu.timing.engine.layout import INF, njit

MECHANISM = "hook_probe"
HOOKS = ("cta_start", "sm_tick", "l2_request", "dram_command", "prefetch")
COUNTER_NAMES = ("P_CTAS", "P_SM_TICKS", "P_L2_REQUESTS", "P_ACT", "P_PRE", "P_RD", "P_WR", "P_REF", "P_MISSES")


@njit
def cta_start(sm, cta, cslot, now, k, cfg, ctat, smt, mx):
    mx[0] += 1


@njit
def sm_tick(sm, now, k, cfg, clk, wt, regrdy, smt, subt, l1t, g, mx):
    mx[1] += 1
    return INF


@njit
def l2_request(slice, kind, line, now, mx):
    mx[2] += 1


@njit
def dram_command(channel, cmd, bank, row, k, mx):
    mx[2 + cmd] += 1  # CMD_ACT = 1 ... CMD_REF = 5


@njit
def prefetch(sm, pc, line, d, now, mx):
    """A next-line prefetcher of degree 1, as a mechanism: the same lines as the engine's ``next_line``."""
    if d == 0:
        mx[8] += 1
        return line + 128
    return -1
