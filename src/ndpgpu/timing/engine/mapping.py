"""Address mapping: a line address to (channel, slice, bank group, bank, row, key), by bit fields,
pinned ranges or parity functions (``mapd`` descriptors, ``mrange`` address ranges).
"""

from .layout import *  # noqa: F403  (columns and codes: see layout.py)
from .queues import popcount


@njit
def gather_bits(x, mask):
    """Bits of ``x`` selected by ``mask``, packed to the right (PEXT)."""
    r = 0
    k = 0
    m = mask
    while m != 0:
        low = m & (-m)
        if x & low:
            r |= 1 << k
        k += 1
        m ^= low
    return r


@njit
def map_addr(mapd, mrange, nrange, addr):
    """(channel, global slice, bank group, bank in channel, row, slice-local line key) of a byte address."""
    mid = 0
    for i in range(nrange):
        if addr >= mrange[i, 0] and addr < mrange[i, 1]:
            mid = mrange[i, 2]
            break
    sh = mapd[mid, MD_CHAN_SHIFT]
    if mapd[mid, MD_KIND] == MAPK_PARITY:
        # each channel and bank bit is the parity of the address bits under its mask (XOR mappings)
        chan = 0
        for i in range(mapd[mid, MD_NPCH]):
            chan |= (popcount(addr & mapd[mid, MD_PCH0 + i]) & 1) << i
        bank = 0
        for i in range(mapd[mid, MD_NPBK]):
            bank |= (popcount(addr & mapd[mid, MD_PBK0 + i]) & 1) << i
        row = gather_bits(addr, mapd[mid, MD_MROW]) | ((addr >> mapd[mid, MD_TOP]) << mapd[mid, MD_NROWL])
        sl = gather_bits(addr, mapd[mid, MD_MSLICE])
        # the line within its channel: the address without the line offset and without each channel mask's
        # lowest bit (the channel determines those), so the slice's sets see the varying bits
        key = gather_bits(addr, mapd[mid, MD_KEEP]) | ((addr >> 62) << mapd[mid, MD_NKEEP])
        return chan, chan * mapd[mid, MD_SPC] + sl, 0, bank, row, key
    if mapd[mid, MD_KIND] == MAPK_PINNED:
        chan = mapd[mid, MD_FIXED_CHAN]
        compact = addr
    else:
        nch = mapd[mid, MD_NCHAN]
        hi = addr >> sh
        grp = hi // nch
        chan = hi - grp * nch
        if mapd[mid, MD_CHAN_XOR] != 0:
            f = grp ^ (grp >> 5) ^ (grp >> 11) ^ (grp >> 17)
            chan = (chan + f) % nch
        compact = (grp << sh) | (addr & ((1 << sh) - 1))
    top = mapd[mid, MD_TOP]
    row = gather_bits(compact, mapd[mid, MD_MROW]) | ((compact >> top) << mapd[mid, MD_NROWL])
    bank = gather_bits(compact, mapd[mid, MD_MBANK])
    bg = gather_bits(compact, mapd[mid, MD_MBG])
    sl = gather_bits(compact, mapd[mid, MD_MSLICE])
    if mapd[mid, MD_BANK_XOR] != 0:
        lb = mapd[mid, MD_LOGBPG]
        lg = mapd[mid, MD_LOGNBG]
        bank ^= row & ((1 << lb) - 1)
        bg ^= (row >> lb) & ((1 << lg) - 1)
    key = gather_bits(compact, mapd[mid, MD_KEEP]) | ((compact >> top) << mapd[mid, MD_NKEEP])
    bpg = 1 << mapd[mid, MD_LOGBPG]
    return chan, chan * mapd[mid, MD_SPC] + sl, bg, bg * bpg + bank, row, key


@njit
def rq_map(rq, r, mapd, mrange, nrange, line):
    chan, sl, bg, bank, row, key = map_addr(mapd, mrange, nrange, line)
    rq[r, R_CHAN] = chan
    rq[r, R_SLICE] = sl
    rq[r, R_BG] = bg
    rq[r, R_BANK] = bank
    rq[r, R_ROW] = row
    rq[r, R_KEY] = key


@njit
def map_channels(mapd, mrange, nrange, addrs, out):
    """``out[i]``: the channel of ``addrs[i]`` (-1 where the address is negative)."""
    for i in range(len(addrs)):
        out[i] = map_addr(mapd, mrange, nrange, addrs[i])[0] if addrs[i] >= 0 else -1
