"""Set-associative line tables shared by L1 and L2: set index, lookup, victim choice, sector masks.
"""

from .layout import *  # noqa: F403  (columns and codes: see layout.py)


@njit
def c_set(key, sets, setidx, xbits, shift):
    """The set of line ``key`` (its address >> ``shift``): linear (0), XOR-folded (1), or Fermi's hash (2:
    address bits 7-11 XOR bits 13, 14, 15, 17, 19; with 64 sets bit 12 above them, as GPGPU-Sim 4.0's
    FERMI_HASH_SET_FUNCTION after Nugteren et al., HPCA 2014)."""
    if setidx == 2:
        a = key << shift
        s = (key & 31) ^ (((a >> 13) & 7) | (((a >> 17) & 1) << 3) | (((a >> 19) & 1) << 4))
        if sets == 64:
            s |= ((a >> 12) & 1) << 5
        return s
    if setidx == 1:
        h = key
        y = key >> xbits
        while y != 0:
            h ^= y
            y >>= xbits
        return h % sets
    return key % sets


@njit
def c_find(lt, base, assoc, tag):
    for w in range(assoc):
        i = base + w
        if lt[i, LN_VALID] != 0 and lt[i, LN_TAG] == tag:
            return i
    return -1


@njit
def c_find_rsv(lt, base, assoc, tag):
    """The line of the set reserved for ``tag``'s outstanding miss, or -1."""
    for w in range(assoc):
        i = base + w
        if lt[i, LN_RSV] != 0 and lt[i, LN_TAG] == tag:
            return i
    return -1


@njit
def mshr_find(mt, mb, nm, line):
    """Among MSHRs ``mb`` .. ``mb + nm - 1`` of table ``mt``: the one pending for ``line`` (or -1) and the first
    free one (or -1)."""
    ent = -1
    free_e = -1
    for m in range(mb, mb + nm):
        if mt[m, M_NREQ] > 0:
            if mt[m, M_LINE] == line:
                ent = m
                break
        elif free_e < 0:
            free_e = m
    return ent, free_e


@njit
def c_victim_free(lt, base, assoc):
    """The set's replacement choice among its unreserved lines (an invalid one first, else the oldest
    stamp); -1 when every line is reserved."""
    best = -1
    bs = INF
    for w in range(assoc):
        i = base + w
        if lt[i, LN_RSV] != 0:
            continue
        if lt[i, LN_VALID] == 0:
            return i
        if lt[i, LN_STAMP] < bs:
            bs = lt[i, LN_STAMP]
            best = i
    return best


@njit
def c_victim(lt, base, assoc):
    """The set's replacement choice; a reserved line only when every line is (its fill then allocates anew)."""
    v = c_victim_free(lt, base, assoc)
    return v if v >= 0 else base


@njit
def expand(mask, sect_atoms, line_atoms):
    """Widen an atom mask to whole sectors of ``sect_atoms`` atoms."""
    if sect_atoms <= 1:
        return mask
    full = (1 << sect_atoms) - 1
    r = 0
    for i in range(0, line_atoms, sect_atoms):
        if mask & (full << i):
            r |= full << i
    return r
