"""Plain-Python references of the timing engine's component functions, written from their specifications.

Each function states the rule it implements (the spec's docstring or docs/timing.md), never the engine's
code path; tests compare the compiled functions and the statistics against these.
"""

from __future__ import annotations

import math

from ndpgpu.timing.spec import Machine

# ------------------------------------------------------------------------------------------------------
# address mapping (spec.MappingSpec)


def map_address(m: Machine, addr: int) -> dict[str, int]:
    """(channel, global slice, bank group, bank in channel, row) of a byte address.

    Channel = (addr >> channel_bit) mod channels, optionally plus an XOR fold of the group number
    (grp ^ grp>>5 ^ grp>>11 ^ grp>>17, docs/timing.md). Removing the channel leaves the compact address
    (grp << channel_bit | low bits) whose bits the ``fields`` string names from its right end (bit 0):
    R row, B bank, G bank group, P slice, C column, X byte; bits above the string are row bits.
    ``bank_xor`` XORs the low row bits into bank (then bank group).
    """
    d = m.dram
    mp = d.mapping
    nch = d.scheduling_channels
    sh = mp.channel_bit
    hi = addr >> sh
    grp, chan = divmod(hi, nch)
    if mp.channel_xor:
        f = grp ^ (grp >> 5) ^ (grp >> 11) ^ (grp >> 17)
        chan = (chan + f) % nch
    compact = (grp << sh) | (addr & ((1 << sh) - 1))
    letters = [c for c in mp.fields if c not in "._ "][::-1]  # letters[i] names bit i
    vals = {k: 0 for k in "RBGPCX"}
    width = {k: 0 for k in "RBGPCX"}
    for i, letter in enumerate(letters):
        bit = (compact >> i) & 1
        vals[letter] |= bit << width[letter]
        width[letter] += 1
    row = vals["R"] | ((compact >> len(letters)) << width["R"])
    bank, bg = vals["B"], vals["G"]
    if mp.bank_xor:
        bank ^= row & ((1 << width["B"]) - 1)
        bg ^= (row >> width["B"]) & ((1 << width["G"]) - 1)
    spc = m.l2.slices_per_channel if m.l2 is not None else 1
    return {"channel": chan, "slice": chan * spc + vals["P"], "bank_group": bg,
            "bank": bg * d.banks_per_group + bank, "row": row}


# ------------------------------------------------------------------------------------------------------
# caches


def fermi_set(addr: int, sets: int, line_bytes: int = 128) -> int:
    """Fermi's L1 set (Nugteren et al., HPCA 2014, as GPGPU-Sim 4.0 writes it), bit by bit: the five line-index
    bits above the offset, each XORed with address bit 13, 14, 15, 17, 19 in turn; with 64 sets, bit 12 on top."""
    line_log2 = line_bytes.bit_length() - 1
    upper = [13, 14, 15, 17, 19]
    s = 0
    for i in range(5):
        s |= (((addr >> (line_log2 + i)) & 1) ^ ((addr >> upper[i]) & 1)) << i
    if sets == 64:
        s |= ((addr >> 12) & 1) << 5
    return s


def cache_set(line_index: int, sets: int, set_index: str, xor_bits: int, line_bytes: int = 128) -> int:
    """Set of a line: ``linear`` takes line_index mod sets; ``xor`` XORs the line index's
    ``xor_bits``-wide chunks together first (xor_bits = bits of sets - 1); ``fermi`` Fermi's hash."""
    if set_index == "linear":
        return line_index % sets
    if set_index == "fermi":
        return fermi_set(line_index * line_bytes, sets, line_bytes)
    h = 0
    x = line_index
    while x:
        h ^= x & ((1 << xor_bits) - 1)
        x >>= xor_bits
    return h % sets


def l1_set(m: Machine, addr: int) -> int:
    c = m.l1d
    return cache_set(addr // c.line_bytes, c.num_sets, c.set_index, max(1, (c.num_sets - 1).bit_length()),
                     c.line_bytes)


def lru_hits(accesses: list[int], sets_of: dict[int, int], assoc: int) -> int:
    """Hits of an LRU cache of ``assoc`` ways per set for a sequence of line addresses."""
    state: dict[int, list[int]] = {}
    hits = 0
    for a in accesses:
        s = state.setdefault(sets_of[a], [])
        if a in s:
            hits += 1
            s.remove(a)
        elif len(s) == assoc:
            s.pop(0)
        s.append(a)
    return hits


# ------------------------------------------------------------------------------------------------------
# shared memory


def bank_conflict_degree(addrs: list[int], size: int = 4, banks: int = 32, bank_bytes: int = 4) -> int:
    """Passes a shared access needs: the most distinct words any bank serves (same word: broadcast)."""
    words: dict[int, set[int]] = {}
    for a in addrs:
        for w in range(a // bank_bytes, (a + size - 1) // bank_bytes + 1):
            words.setdefault(w % banks, set()).add(w)
    return max(len(s) for s in words.values())


def strided_degree(stride_words: int, banks: int = 32) -> int:
    """Closed form for 32 lanes at word stride s (4-B words): gcd(s, banks); broadcast (s = 0) is 1."""
    return 1 if stride_words == 0 else math.gcd(stride_words, banks)


# ------------------------------------------------------------------------------------------------------
# DRAM


def open_page(seq: list[tuple[int, int, int]], subarrays: int = 1, max_open: int = 0,
              commands: bool = False) -> dict[str, int]:
    """Row hits / misses (closed bank) / conflicts (other row open) of (channel, bank, row) in order.

    ``subarrays`` > 1: a row buffer per subarray (row mod subarrays) of each bank. ``max_open`` > 0: at
    most that many subarrays of a bank open; an access to a closed subarray of a bank at the cap first
    closes the bank's least-recently-used open subarray (last access) and counts as a conflict (PRE + ACT).
    ``commands``: the ACT and PRE counts too."""
    open_row: dict[tuple[int, int, int], int] = {}
    used: dict[tuple[int, int, int], int] = {}
    out = {"hits": 0, "misses": 0, "conflicts": 0, "activates": 0, "precharges": 0}
    for t, (ch, bank, row) in enumerate(seq):
        key = (ch, bank, row % subarrays)
        cur = open_row.get(key)
        if cur == row:
            out["hits"] += 1
        elif cur is not None:
            out["conflicts"] += 1
            out["precharges"] += 1
            out["activates"] += 1
        else:
            mine = [u for u in open_row if u[:2] == (ch, bank)]
            if max_open and len(mine) >= max_open:
                del open_row[min(mine, key=lambda u: (used[u], u[2]))]
                out["conflicts"] += 1
                out["precharges"] += 1
            else:
                out["misses"] += 1
            out["activates"] += 1
        open_row[key] = row
        used[key] = t
    if not commands:
        del out["activates"], out["precharges"]
    return out


CMD_ACT, CMD_PRE, CMD_RD, CMD_WR, CMD_REF = 1, 2, 3, 4, 5


def check_dram_log(m: Machine, log) -> list[str]:
    """Timing violations in a DRAM command log (rows: cycle, channel, cmd, bank, row); [] when legal.

    With ``dram.subarrays_per_bank`` S > 1 each subarray of a bank has its own row buffer: the row of an
    ACT/RD/WR lies in subarray row mod S, a PRE logs -1 - subarray as its row, and the per-bank rules below
    apply per (bank, subarray) (tRRD, tFAW and the column rules stay per channel / bank group). With
    ``dram.max_open_subarrays`` K > 0 an ACT needs fewer than K subarrays of its bank holding a row latch:
    open, or precharged less than tRP before.

    The JEDEC-style constraints of ``dram.timing``: tRCD (ACT->column), tRP (PRE->ACT), tRAS (ACT->PRE),
    tRC (ACT->ACT same bank), tRRD_S/L, tFAW, tCCD_S/L, tRTW (RD->WR), tCWL+burst+tWTR (WR->RD),
    tRTP (RD->PRE), tCWL+burst+tWR (WR->PRE), tRFC (REF->ACT), and columns only to the open row.
    """
    d = m.dram
    t = d.timing
    bl = d.burst_cycles
    bpg = d.banks_per_group
    nsa = d.subarrays_per_bank
    cap = d.max_open_subarrays
    errs: list[str] = []
    chans: dict[int, dict] = {}
    for k, ch, cmd, bank, row in (tuple(int(v) for v in r) for r in log):
        s = chans.setdefault(ch, {"act": {}, "pre": {}, "col": {}, "open": {}, "rd": {}, "wrend": {},
                                  "acts": [], "bg_act": {}, "bg_col": {}, "last_col": None, "last_rd": None,
                                  "last_wr_end": None, "ref": None})

        def need(cond: bool, what: str, where: str = f"cycle {k} ch {ch} cmd {cmd} bank {bank}") -> None:
            if not cond:
                errs.append(f"{where}: {what}")

        u = (bank, (-1 - row) if cmd == CMD_PRE else row % nsa)  # the row-buffer unit (bank, subarray)

        if cmd == CMD_ACT:
            bg = bank // bpg
            need(u not in s["open"], "ACT to an open bank")
            if u in s["pre"]:
                need(k - s["pre"][u] >= t.tRP, "tRP")
            if u in s["act"]:
                need(k - s["act"][u] >= t.tRC, "tRC")
            if s["acts"]:
                need(k - s["acts"][-1] >= t.tRRD_S, "tRRD_S")
            if bg in s["bg_act"]:
                need(k - s["bg_act"][bg] >= t.tRRD_L, "tRRD_L")
            if len(s["acts"]) >= 4 and t.tFAW:
                need(k - s["acts"][-4] >= t.tFAW, "tFAW")
            if s["ref"] is not None:
                need(k - s["ref"] >= t.tRFC, "tRFC")
            if cap:
                held = [sa for sa in range(nsa) if (bank, sa) in s["open"]
                        or k - s["pre"].get((bank, sa), -10**9) < t.tRP]
                need(len(held) < cap, f"open-subarray cap {cap} (held: {held})")
            s["act"][u] = k
            s["acts"].append(k)
            s["bg_act"][bg] = k
            s["open"][u] = row
        elif cmd == CMD_PRE:
            need(u in s["open"], "PRE of a closed bank")
            need(k - s["act"].get(u, -10**9) >= t.tRAS, "tRAS")
            if u in s["rd"]:
                need(k - s["rd"][u] >= t.tRTP, "tRTP")
            if u in s["wrend"]:
                need(k - s["wrend"][u] >= t.tWR, "tWR")
            s["open"].pop(u, None)
            s["pre"][u] = k
        elif cmd in (CMD_RD, CMD_WR):
            bg = bank // bpg
            need(s["open"].get(u) == row, "column command to a row that is not open")
            need(k - s["act"].get(u, -10**9) >= t.tRCD, "tRCD")
            if s["last_col"] is not None:
                need(k - s["last_col"] >= t.tCCD_S, "tCCD_S")
            if bg in s["bg_col"]:
                need(k - s["bg_col"][bg] >= t.tCCD_L, "tCCD_L")
            if cmd == CMD_WR:
                if s["last_rd"] is not None:
                    need(k - s["last_rd"] >= t.tRTW, "tRTW")
                end = k + t.tCWL + bl
                s["wrend"][u] = end
                s["last_wr_end"] = end
            else:
                if s["last_wr_end"] is not None:
                    need(k - s["last_wr_end"] >= t.tWTR, "tWTR")
                s["rd"][u] = k
                s["last_rd"] = k
            s["last_col"] = k
            s["bg_col"][bg] = k
        elif cmd == CMD_REF:
            need(not s["open"], "REF with open banks")
            s["ref"] = k
    return errs
