"""Time and clock domains, bounded queues, and the request and load-operation pools.
"""

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

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
def slice_asleep(qm, qi):
    """Whether the L2 slice whose input queue is ``qi`` sleeps on a refusal only its own events lift (``Q_WAITK``:
    its head's, ``Q_WAITOUT``: waiting for room in its reply queue)."""
    return qm[qi, Q_WAITK] > 0 or qm[qi, Q_WAITOUT] != 0


@njit
def slice_reply_taken(q, now, cfg, qm, wake):
    """A network took a packet from source queue ``q``: if that is an L2 slice's reply queue and the slice sleeps
    until it has room (``Q_WAITOUT``), wake the slice at its first edge after ``now`` (the loop runs the L2
    domain before the network's: an L2 edge at ``now`` came before the room, as it did for a slice that polled)."""
    j = q - cfg[C_Q_L2OUT]
    if 0 <= j < cfg[C_NSL] and qm[cfg[C_Q_L2IN] + j, Q_WAITOUT] != 0 and now + 1 < wake[cfg[C_WK_SL] + j]:
        wake[cfg[C_WK_SL] + j] = now + 1


@njit
def wake_sleeping_slices(now, cfg, qm, wake):
    """Wake every L2 slice asleep on a refusal (``Q_WAITK``, ``Q_WAITOUT``): after something outside the slices
    changed their lines (a mechanism's ``guest_done``, in the core domain, which the loop runs after the L2's), a
    refusal may no longer hold: from their first edge after ``now``."""
    for j in range(cfg[C_NSL]):
        qi = cfg[C_Q_L2IN] + j
        if slice_asleep(qm, qi) and now + 1 < wake[cfg[C_WK_SL] + j]:
            wake[cfg[C_WK_SL] + j] = now + 1


@njit
def q_push(qb, qm, q, v):
    i = (qm[q, Q_HEAD] + qm[q, Q_COUNT]) % qm[q, Q_CAP]
    qb[q, i] = v
    if qm[q, Q_COUNT] == 0:
        qm[q >> 6, Q_NZ] |= np.int64(1) << (q & 63)
    qm[q, Q_COUNT] += 1


@njit
def q_push_by_ready(qb, qm, q, v, rq):
    """Push request ``v`` behind every entry of queue ``q`` ready no later than it; the entries ready later move
    back one (an SM's outbound queue under the L1D's latency pipeline: requests still in the pipeline are not yet
    at the port, so a request ready sooner, from the constant or instruction cache or a mechanism, passes them)."""
    cap = qm[q, Q_CAP]
    h = qm[q, Q_HEAD]
    n = qm[q, Q_COUNT]
    t = rq[v, R_READY]
    i = n
    while i > 0:
        prev = qb[q, (h + i - 1) % cap]
        if rq[prev, R_READY] <= t:
            break
        qb[q, (h + i) % cap] = prev
        i -= 1
    qb[q, (h + i) % cap] = v
    if n == 0:
        qm[q >> 6, Q_NZ] |= np.int64(1) << (q & 63)
    elif i == 0:
        qm[q, Q_BLOCK] = 0  # (a block recorded for the former head no longer describes the head)
    qm[q, Q_COUNT] += 1


@njit
def q_push_front(qb, qm, q, v):
    """Put ``v`` at the head of queue ``q`` (it is served before the entries already waiting). A block recorded
    for the former head (``Q_BLOCK``: its DRAM channel was full) no longer describes the head: it is cleared, and
    the former head is tried again when its turn comes."""
    qm[q, Q_BLOCK] = 0
    h = qm[q, Q_HEAD] - 1
    if h < 0:
        h += qm[q, Q_CAP]
    qm[q, Q_HEAD] = h
    qb[q, h] = v
    if qm[q, Q_COUNT] == 0:
        qm[q >> 6, Q_NZ] |= np.int64(1) << (q & 63)
    qm[q, Q_COUNT] += 1


@njit
def q_pop(qb, qm, q):
    h = qm[q, Q_HEAD]
    v = qb[q, h]
    qm[q, Q_HEAD] = (h + 1) % qm[q, Q_CAP]
    qm[q, Q_COUNT] -= 1
    if qm[q, Q_COUNT] == 0:
        qm[q >> 6, Q_NZ] &= ~(np.int64(1) << (q & 63))
    return v


@njit
def q_next_busy(qm, base, lo, hi):
    """The first ``s`` in ``[lo, hi)`` whose queue ``base + s`` is not empty, or -1 (a scan of the non-empty
    bits, 64 queues a word)."""
    q = base + lo
    end = base + hi
    while q < end:
        w = qm[q >> 6, Q_NZ] >> (q & 63)  # (an arithmetic shift: bits above 63 copy bit 63, which is then set)
        if w != 0:
            q += trailing_zeros(w)
            return q - base if q < end else -1
        q = (q | 63) + 1
    return -1


@njit
def q_head(qb, qm, q):
    return qb[q, qm[q, Q_HEAD]]


@njit
def q_space(qm, q):
    """Room for an ordinary push (at the tail, or a network's ejection): the slots kept for the head left out."""
    return qm[q, Q_CAP] - qm[q, Q_RESV] - qm[q, Q_COUNT]


@njit
def q_space_head(qm, q):
    """Room for a push at the head (``q_push_front``): every slot, the kept ones included."""
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


@njit
def sector_train(r, cfg, rq):
    """Flits of each piece when reply ``r`` travels the crossbar as one packet per 32-B sector
    (``l2.sector_replies``: a read or atomic's data, one piece a sector with its own header; a write's per-sector
    acknowledgements, header only); 0 when it travels whole."""
    if cfg[C_L2_SECT_REPLY] == 0:
        return 0
    kd = rq[r, R_KIND]
    if kd == PK_ACK:
        return 1 if cfg[C_L2_ACK_SECT] != 0 and popcount(rq[r, R_SECT]) > 1 else 0
    if (kd == PK_READ or kd == PK_ATOMIC or kd == PK_PREFETCH) and popcount(rq[r, R_SECT]) > 1:
        return (cfg[C_IC_HDR] + 32 + cfg[C_IC_FLIT] - 1) // cfg[C_IC_FLIT]
    return 0


@njit
def packet_flits(r, cfg, rq):
    """Flits of packet ``r`` on the on-chip network: its header and bytes in whole flits, at least one. A write's
    acknowledgement with ``C_L2_ACK_SECT`` is one header-only packet per 32-B sector the write carried, sent
    back to back (GPGPU-Sim 4.0's sector-split writes): as many flits as sectors."""
    if cfg[C_L2_ACK_SECT] != 0 and rq[r, R_KIND] == PK_ACK:
        n = popcount(rq[r, R_SECT])
        return n if n > 1 else 1
    fl = (cfg[C_IC_HDR] + rq[r, R_BYTES] + cfg[C_IC_FLIT] - 1) // cfg[C_IC_FLIT]
    return fl if fl > 1 else 1
