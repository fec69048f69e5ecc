"""The SM's instruction cache (GPGPU-Sim's L1I): read-only lines allocated on fill, LRU, linear set index.

The fetch stage (``core.ibuffer`` > 0) looks up the line holding the warp's next instruction: instruction
``pc`` of the launch sits at byte ``IC_BASE + pc * IC_ISIZE``. A hit decodes as before; a miss takes one of
the SM's instruction MSHRs (a second warp missing on a pending line merges into it, up to ``l1i.mshr_merge``)
and reads the line from the L2 as an ordinary read through the SM's request queue, like an L1D miss; the warp
fetches nothing until the fill (``ic_fill``) comes back. No MSHR, merge slot, queue entry or request free: a
reservation failure, and the warp tries again on a later turn.

The lines live in rows ``C_IC_T0`` onwards of the L1's line table and the MSHRs in rows ``C_IC_M0`` onwards
of the L1's MSHR table (entries marked ``MA_INST``, waiting entries in ``l1w`` are warp slots). Unlike the L1D
and the constant cache, the launch does not invalidate them (GPGPU-Sim never invalidates its L1I).
"""

from .caches import mshr_find
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .queues import q_space
from .rocache import ro_hit, ro_install, ro_send


@njit
def ic_base(sm, iline, cfg):
    """First row (in ``l1t``) of the set of code line ``iline`` (a byte address) in SM ``sm``'s L1I."""
    sets = cfg[C_IC_SETS]
    s = (iline >> cfg[C_IC_LINE_SHIFT]) % sets
    return cfg[C_IC_T0] + (sm * sets + s) * cfg[C_IC_ASSOC]


@njit
def ic_access(sm, slot, pc, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, mapd, mrange):
    """Warp ``slot`` fetches instruction ``pc``: 1 a hit, 2 a miss sent or merged (the warp waits for the
    fill), 0 a reservation failure (nothing changed)."""
    addr = cfg[C_IC_BASE] + pc * cfg[C_IC_ISIZE]
    ishift = cfg[C_IC_LINE_SHIFT]
    iline = (addr >> ishift) << ishift
    if ro_hit(l1t, ic_base(sm, iline, cfg), cfg[C_IC_ASSOC], iline, g):
        ctr[T_IC_ACC] += 1
        ctr[T_IC_HIT] += 1
        return 1
    nm = cfg[C_IC_MSHR]
    ent, free_e = mshr_find(l1m, cfg[C_IC_M0] + sm * nm, nm, iline)
    if ent >= 0:
        if l1m[ent, M_NWAIT] >= cfg[C_IC_MERGE]:
            ctr[T_IC_FAIL] += 1
            return 0
        l1w[ent, l1m[ent, M_NWAIT]] = slot
        l1m[ent, M_NWAIT] += 1
        ctr[T_IC_ACC] += 1
        ctr[T_IC_MISS] += 1
        ctr[T_IC_MERGE] += 1
        return 2
    qo = cfg[C_Q_SMOUT] + sm
    # (a code line asks for no per-PC miss counts: not a load)
    if free_e < 0 or q_space(qm, qo) <= 0 or not ro_send(sm, iline, ishift, -1, slot, MA_INST, free_e, qo, now, k,
                                                         cfg, clk, rq, rq_free, l1m, l1w, qb, qm, wake, g, mapd,
                                                         mrange):
        ctr[T_IC_FAIL] += 1
        return 0
    ctr[T_IC_ACC] += 1
    ctr[T_IC_MISS] += 1
    return 2


@njit
def ic_fill(sm, m, cfg, l1t, l1m, l1w, wt, smt, g):
    """The reply to instruction MSHR ``m`` of SM ``sm``: install its line (the LRU way of its set) and release
    the warps waiting on it, to fetch again (``l1i.fill_to_fetch`` false) or to take the line ahead of new
    fetches, without a second access (true)."""
    iline = l1m[m, M_LINE]
    ro_install(l1t, ic_base(sm, iline, cfg), cfg[C_IC_ASSOC], iline, g)
    for w in range(l1m[m, M_NWAIT]):
        s = l1w[m, w]
        if cfg[C_IC_DELIVER] != 0:
            wt[s, W_IMISS] = 2
            smt[sm, S_IC_READY] += 1
        else:
            wt[s, W_IMISS] = 0
    smt[sm, S_FETCH_WANT] = 1
    l1m[m, M_NWAIT] = 0
    l1m[m, M_NREQ] = 0
    l1m[m, M_LINE] = -1


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


def metrics(st, put, ratio) -> None:
    """The instruction caches: accesses (one per fetch that looks a line up), hits, misses."""
    c = st.c
    acc, hit = c("IC_ACC"), c("IC_HIT")
    put("l1i", "accesses", acc, "accesses")
    put("l1i", "hits", hit, "accesses")
    put("l1i", "misses", c("IC_MISS"), "accesses")
    put("l1i", "hit_rate", ratio(hit, acc), "fraction")
    put("l1i", "mshr_merges", c("IC_MERGE"), "accesses")
    put("l1i", "reservation_fails", c("IC_FAIL"), "events")
