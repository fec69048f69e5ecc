"""IP-NDP's compiled hardware: the boundary-aware stride prefetcher and the PC-based per-warp stride
prefetcher it is compared with (PWS), both at the ``l1_access`` hook point.

The prefetch information table is filled at launch (one entry per image array: its address range, row pitch,
scan axis, region extent, base stride and modified stride, all from launch parameters: see ``tables.py``).
Per demand load transaction the datapath of the paper's Fig. 9 runs: offset = line - start (adder), position
in the region along the scan axis (divider), wrap = position + step >= region extent (adder, comparator),
stride = wrap ? modified : base (mux), target = line + stride (adder). It uses the demanded line and the table
only. PWS keeps, per warp slot and instruction (4 direct-mapped entries per slot), the last line and stride
and predicts line + stride once the same stride was seen twice: past demand addresses only.

The ``cta_start`` hook logs the SM each CTA was placed on. Both prefetchers also record, per warp slot and
instruction, the line they predicted, and compare it with that warp's next demand of the same instruction
(``PF_MATCH`` / ``PF_MISMATCH``), and keep per SM the last L1-capacity distinct predicted lines to count those
the SM demands later (``PF_USED`` of ``PF_TRACKED``: the prefetch accuracy): measurements, not inputs.

Warp progress (the paper's Fig. 8 plots each warp's instructions over time): per warp slot the demand load
transactions it has issued so far. Every fourth transaction of a warp samples its SM's spread, the most minus
the fewest among the SM's warps that have issued any (``PG_SPREAD_SUM`` / ``PG_SAMPLES``). The warps of a PACA
CTA all do the same loads per block step, so the spread is how far apart they are (with several CTAs per SM a
slot's count runs on over the CTAs it held, and the spread means nothing); the metrics divide its mean by the
transactions per warp (``PG_LOADS`` / ``PG_WARPS``; like every counter, both are summed over the launches of a
run)."""

from ndpgpu.timing.engine.layout import njit

MECHANISM = "ipndp"
HOOKS = ("l1_access", "cta_start")

# header of mx
(X_MODE, X_NENT, X_ENT0, X_SLOTS, X_TAB0, X_LB, X_CTR0, X_CTA0, X_NCTA, X_RING0, X_RINGN, X_PROG0, X_SPS,
 X_HDR) = range(14)
MODE_OFF, MODE_PF, MODE_PWS = 0, 1, 2
# one table entry
E_LO, E_HI, E_PITCH, E_AXIS, E_REGION, E_STEP, E_BASE, E_MOD = range(8)
NE = 8
AXIS_ROW, AXIS_COL = 0, 1
# per warp slot: NPC direct-mapped rows of (pc, last line, stride, predicted line)
NPC = 4
T_PC, T_LAST, T_STRIDE, T_PRED = range(4)
NT = 4

COUNTER_NAMES = ("PF_TRIGGERS", "PF_PREDICTED", "PF_WRAPS", "PF_OUTSIDE", "PF_MATCH", "PF_MISMATCH", "PF_UNTRAINED",
                 "PF_TRACKED", "PF_USED", "PG_LOADS", "PG_WARPS", "PG_SAMPLES", "PG_SPREAD_SUM")
(PF_TRIGGERS, PF_PREDICTED, PF_WRAPS, PF_OUTSIDE, PF_MATCH, PF_MISMATCH, PF_UNTRAINED, PF_TRACKED,
 PF_USED, PG_LOADS, PG_WARPS, PG_SAMPLES, PG_SPREAD_SUM) = range(13)
#: a warp samples its SM's progress spread every PG_EVERY demand transactions
PG_EVERY = 4


@njit
def cta_start(sm, cta, cslot, now, k, cfg, ctat, smt, mx):
    """Log where each CTA runs (a measurement: CTA -> SM, for the mapping and load-balance checks)."""
    if cta < mx[X_NCTA]:
        mx[mx[X_CTA0] + cta] = sm


@njit
def entry_of(line, mx):
    """Offset of the table entry whose array holds ``line``, or -1."""
    o = mx[X_ENT0]
    for i in range(mx[X_NENT]):
        e = o + i * NE
        if mx[e + E_LO] <= line < mx[e + E_HI] or (line < mx[e + E_LO] < line + mx[X_LB]):
            return e
    return -1


@njit
def boundary_target(line, e, mx):
    """The boundary-aware prediction for a demand of ``line`` in entry ``e``: (target byte address, wrapped)."""
    off = line - mx[e + E_LO]
    if off < 0:
        off = 0
    pitch = mx[e + E_PITCH]
    if mx[e + E_AXIS] == AXIS_ROW:
        pos = (off % pitch) % mx[e + E_REGION]  # column (bytes) inside the region
    else:
        pos = (off // pitch) % mx[e + E_REGION]  # row inside the region
    wrap = pos + mx[e + E_STEP] >= mx[e + E_REGION]
    return line + (mx[e + E_MOD] if wrap else mx[e + E_BASE]), wrap


@njit
def ring_track(sm, line, target, mx):
    """Accuracy bookkeeping: a demand of a tracked predicted line counts it used; a new prediction is tracked."""
    n = mx[X_RINGN]
    if n <= 0:
        return
    o = mx[X_RING0] + sm * (n + 1)
    c = mx[X_CTR0]
    seen = False
    for i in range(n):
        v = mx[o + 1 + i]
        if v == line:
            mx[c + PF_USED] += 1
            mx[o + 1 + i] = -1
        elif v == target:
            seen = True
    if target >= 0 and not seen:
        h = mx[o]
        mx[o + 1 + h] = target
        mx[o] = (h + 1) % n
        mx[c + PF_TRACKED] += 1


@njit
def progress(sm, slot, mx):
    """Count warp ``slot``'s demand transaction; every PG_EVERY-th, sample its SM's spread of warp progress."""
    if slot >= mx[X_SLOTS]:
        return
    p0 = mx[X_PROG0]
    c = mx[X_CTR0]
    mx[p0 + slot] += 1
    mx[c + PG_LOADS] += 1
    if mx[p0 + slot] % PG_EVERY != 0:
        return
    lo = mx[p0 + slot]
    hi = lo
    b = p0 + sm * mx[X_SPS]
    for i in range(mx[X_SPS]):
        v = mx[b + i]
        if v > 0:
            lo = min(lo, v)
            hi = max(hi, v)
    mx[c + PG_SAMPLES] += 1
    mx[c + PG_SPREAD_SUM] += hi - lo


@njit
def l1_access(sm, slot, pc, line, hit, d, now, mx):
    mode = mx[X_MODE]
    if d == 0:
        progress(sm, slot, mx)
    if d != 0 or mode == MODE_OFF:
        return -1
    target = predict(sm, slot, pc, line, mode, mx)
    ring_track(sm, line, target, mx)
    return target


@njit
def predict(sm, slot, pc, line, mode, mx):
    c = mx[X_CTR0]
    lb = mx[X_LB]
    row = -1
    if slot < mx[X_SLOTS]:
        row = mx[X_TAB0] + (slot * NPC + pc % NPC) * NT
        if mx[row + T_PC] == pc and mx[row + T_PRED] >= 0:
            if mx[row + T_PRED] == line:
                mx[c + PF_MATCH] += 1
            else:
                mx[c + PF_MISMATCH] += 1
    target = -1
    if mode == MODE_PF:
        e = entry_of(line, mx)
        if e < 0:
            return -1
        mx[c + PF_TRIGGERS] += 1
        t, wrap = boundary_target(line, e, mx)
        if wrap:
            mx[c + PF_WRAPS] += 1
        t -= t % lb
        if t < mx[e + E_LO] - mx[e + E_LO] % lb or t >= mx[e + E_HI]:
            mx[c + PF_OUTSIDE] += 1
        else:
            target = t
        if row >= 0:
            mx[row + T_PC] = pc
            mx[row + T_PRED] = target
    elif row >= 0:  # PWS
        mx[c + PF_TRIGGERS] += 1
        if mx[row + T_PC] != pc:
            mx[row + T_PC] = pc
            mx[row + T_LAST] = line
            mx[row + T_STRIDE] = 0
            mx[row + T_PRED] = -1
            mx[c + PF_UNTRAINED] += 1
            return -1
        delta = line - mx[row + T_LAST]
        if delta == 0:  # a second transaction on the same line: nothing learnt
            return -1
        if delta == mx[row + T_STRIDE]:
            target = line + delta
        else:
            mx[c + PF_UNTRAINED] += 1
        mx[row + T_STRIDE] = delta
        mx[row + T_LAST] = line
        mx[row + T_PRED] = target
    if target >= 0:
        mx[c + PF_PREDICTED] += 1
    return target
