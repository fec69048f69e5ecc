"""What the SM's read-only caches share (the constant cache, ``ccache``, and the instruction cache,
``icache``): an LRU hit, a miss sent to the L2 as an ordinary read of the line's atoms, and the install on
fill (their MSHR search, the L1D's too, is ``caches.mshr_find``). Their lines and MSHRs are rows of the L1's
tables (``l1t``, ``l1m``, ``l1w``); each cache keeps its own set index, counters and waiters.
"""

from .caches import c_find, c_victim
from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .mapping import rq_map
from .queues import edge, rq_alloc
from .xbar import net_push


@njit
def ro_hit(l1t, row, assoc, tag, g):
    """True when line ``tag`` is in the set starting at ``row`` (its LRU stamp renewed)."""
    idx = c_find(l1t, row, assoc, tag)
    if idx < 0:
        return False
    g[G_STAMP] += 1
    l1t[idx, LN_STAMP] = g[G_STAMP]
    return True


@njit
def ro_send(sm, tag, tag_shift, pc, waiter, alloc, free_e, qo, now, k, cfg, clk, rq, rq_free, l1m, l1w, qb, qm,
            wake, g, mapd, mrange):
    """Send the miss of line ``tag`` (``2**tag_shift`` bytes) to the L2 through queue ``qo``: a read of its
    atoms within the L2's (the L1D's) line, held by free MSHR ``free_e`` (kind ``alloc``) with ``waiter`` its
    first waiting entry. False when the request pool is empty (nothing changed)."""
    r = rq_alloc(rq, rq_free, g)
    if r < 0:
        return False
    shift = cfg[C_L1_LINE_SHIFT]
    line = (tag >> shift) << shift
    natoms = 1 << (tag_shift - 5)
    sect = ((1 << natoms) - 1) << ((tag - line) >> 5)
    rq[r, R_KIND] = PK_READ
    rq[r, R_LINE] = line
    rq[r, R_SECT] = sect
    rq[r, R_BYTES] = 0
    rq[r, R_SRC] = sm
    rq[r, R_PRIO] = 0
    rq[r, R_PC] = pc
    rq[r, R_SLOT] = -1
    rq[r, R_T0] = now
    rq[r, R_READY] = edge(clk, D_CORE, k + cfg[C_L1_MISS_LAT])
    rq_map(rq, r, mapd, mrange, cfg[C_NRANGE], line)
    rq[r, R_MSHR] = free_e
    l1m[free_e, M_LINE] = tag
    l1m[free_e, M_SECT] = sect
    l1m[free_e, M_NWAIT] = 1
    l1m[free_e, M_NREQ] = 1
    l1m[free_e, M_ALLOC] = alloc
    l1m[free_e, M_KIND] = PK_READ
    l1w[free_e, 0] = waiter
    net_push(qo, r, cfg, qb, qm, wake, NET_REQ, rq)
    return True


@njit
def ro_install(l1t, row, assoc, tag, g):
    """Install line ``tag`` in the set starting at ``row`` (the LRU way unless present) and stamp it."""
    idx = c_find(l1t, row, assoc, tag)
    if idx < 0:
        idx = c_victim(l1t, row, assoc)
        l1t[idx, LN_TAG] = tag
        l1t[idx, LN_VALID] = 1
        l1t[idx, LN_DIRTY] = 0
    g[G_STAMP] += 1
    l1t[idx, LN_STAMP] = g[G_STAMP]
