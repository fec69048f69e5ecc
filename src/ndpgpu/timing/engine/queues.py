"""Time and clock domains, bounded queues, and the request and load-operation pools.
"""

from .layout import *  # noqa: F403  (columns and codes: see layout.py)


@njit
def edge(clk, d, k):
    """Time (ps) of edge ``k`` of domain ``d``."""
    return k * 1000000000 // clk[d, K_FKHZ]


@njit
def cyc_at(clk, d, t):
    """Index of the first edge of domain ``d`` at or after time ``t``."""
    return (t * clk[d, K_FKHZ] + 999999999) // 1000000000


@njit
def q_push(qb, qm, q, v):
    i = (qm[q, Q_HEAD] + qm[q, Q_COUNT]) % qm[q, Q_CAP]
    qb[q, i] = v
    qm[q, Q_COUNT] += 1


@njit
def q_pop(qb, qm, q):
    h = qm[q, Q_HEAD]
    v = qb[q, h]
    qm[q, Q_HEAD] = (h + 1) % qm[q, Q_CAP]
    qm[q, Q_COUNT] -= 1
    return v


@njit
def q_head(qb, qm, q):
    return qb[q, qm[q, Q_HEAD]]


@njit
def q_space(qm, q):
    return qm[q, Q_CAP] - qm[q, Q_COUNT]


@njit
def rq_alloc(rq, rq_free, g):
    t = g[G_RQ_TOP]
    if t == 0:
        return -1
    t -= 1
    g[G_RQ_TOP] = t
    r = rq_free[t]
    for f in range(NRQ):
        rq[r, f] = 0
    rq[r, R_MSHR] = -1
    rq[r, R_LDOP] = -1
    rq[r, R_SLOT] = -1
    rq[r, R_NEXT] = -1
    rq[r, R_ORIG] = -1
    rq[r, R_T1] = -1
    rq[r, R_TDS] = -1
    rq[r, R_XSTK] = -1
    rq[r, R_LROW] = -1
    rq[r, R_DEST] = -1
    rq[r, R_MXD] = -1
    return r


@njit
def rq_release(rq_free, g, r):
    rq_free[g[G_RQ_TOP]] = r
    g[G_RQ_TOP] += 1


@njit
def ld_alloc(ldo, ld_free, g):
    t = g[G_LD_TOP]
    if t == 0:
        return -1
    t -= 1
    g[G_LD_TOP] = t
    return ld_free[t]


@njit
def ld_release(ld_free, g, i):
    ld_free[g[G_LD_TOP]] = i
    g[G_LD_TOP] += 1


@njit
def popcount(x):
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n
