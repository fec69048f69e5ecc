"""The SM's constant cache (GPGPU-Sim's L1C): read-only lines allocated on fill, LRU, linear set index.

A warp's constant load arrives as one transaction per distinct constant-cache line its lanes read (the
trace is coalesced at ``l1c.line_bytes`` for constant records: lanes of one line are one access, broadcast to
the warp); the LD/ST unit hands them here ``l1c.ports`` a cycle. A hit's value is usable ``l1c.latency``
cycles later. A miss takes one of the SM's constant MSHRs (a merge when the line is already pending, up to
``l1c.mshr_merge`` accesses) and reads the line from the L2 as an ordinary read, through the SM's request
queue; the reply fills the line (``cc_fill``) and completes the waiting loads like an L1 fill.

The lines live in rows ``C_CC_T0`` onwards of the L1's line table and the MSHRs in rows ``C_CC_M0`` onwards
of the L1's MSHR table (entries marked ``MA_CONST``), so the LD/ST unit, the fill path and the launch's
invalidation of the L1 reach them without tables of their own.
"""

from .caches import mshr_find
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .queues import q_space
from .rocache import ro_hit, ro_install, ro_send


@njit
def cc_base(sm, cline, cfg):
    """First row (in ``l1t``) of the set of constant line ``cline`` in SM ``sm``'s constant cache."""
    sets = cfg[C_CC_SETS]
    s = (cline >> cfg[C_CC_LINE_SHIFT]) % sets
    return cfg[C_CC_T0] + (sm * sets + s) * cfg[C_CC_ASSOC]


@njit
def cc_access(sm, cline, ldop, pc, now, k, cfg, clk, rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smt, mapd,
              mrange):
    """One access of load ``ldop`` to constant line ``cline``: 1 a hit, 2 a miss sent or merged, 0 blocked
    (nothing changed; ``S_LDST_BLOCK`` says why)."""
    if ro_hit(l1t, cc_base(sm, cline, cfg), cfg[C_CC_ASSOC], cline, g):
        ctr[T_CC_ACC] += 1
        ctr[T_CC_HIT] += 1
        return 1
    nm = cfg[C_CC_MSHR]
    ent, free_e = mshr_find(l1m, cfg[C_CC_M0] + sm * nm, nm, cline)
    if ent >= 0:
        if l1m[ent, M_NWAIT] >= cfg[C_CC_MERGE]:
            smt[sm, S_LDST_BLOCK] = 5
            ctr[T_CC_MSHR_FULL] += 1
            return 0
        l1w[ent, l1m[ent, M_NWAIT]] = ldop
        l1m[ent, M_NWAIT] += 1
        ctr[T_CC_ACC] += 1
        ctr[T_CC_MISS] += 1
        ctr[T_CC_MERGE] += 1
        return 2
    if free_e < 0:
        smt[sm, S_LDST_BLOCK] = 5
        ctr[T_CC_MSHR_FULL] += 1
        return 0
    qo = cfg[C_Q_SMOUT] + sm
    if q_space(qm, qo) <= 0:
        smt[sm, S_LDST_BLOCK] = 2
        return 0
    if not ro_send(sm, cline, cfg[C_CC_LINE_SHIFT], pc, ldop, MA_CONST, free_e, qo, now, k, cfg, clk, rq, rq_free,
                   l1m, l1w, qb, qm, wake, g, mapd, mrange):
        smt[sm, S_LDST_BLOCK] = 3
        return 0
    ctr[T_CC_ACC] += 1
    ctr[T_CC_MISS] += 1
    return 2


@njit
def cc_fill(sm, cline, cfg, l1t, g):
    """Install constant line ``cline`` in SM ``sm``'s constant cache (the LRU way of its set)."""
    ro_install(l1t, cc_base(sm, cline, cfg), cfg[C_CC_ASSOC], cline, g)


# ------------------------------------------------------------------------------------------------------
# statistics (Python): the rows this component's counters and tables give, for ``LaunchStats.metrics``


def metrics(st, put, ratio) -> None:
    """The constant caches: accesses (one per distinct line a warp's constant load reads), hits, misses."""
    c = st.c
    acc, hit = c("CC_ACC"), c("CC_HIT")
    put("const", "accesses", acc, "accesses")
    put("const", "hits", hit, "accesses")
    put("const", "misses", c("CC_MISS"), "accesses")
    put("const", "hit_rate", ratio(hit, acc), "fraction")
    put("const", "mshr_merges", c("CC_MERGE"), "accesses")
    put("const", "reservation_fails", c("CC_MSHR_FULL"), "events")
