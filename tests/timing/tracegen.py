"""Synthetic KernelTraces for timing tests: a small builder and a few kernels with known behaviour."""

from __future__ import annotations

import numpy as np

from ndpgpu.timing.interfaces import Preloader
from ndpgpu.trace.format import (
    MEM_ATOMIC,
    MEM_DTYPE,
    MEM_LOAD,
    MEM_STORE,
    OP_CLASS,
    SEGMENT_DTYPE,
    SPACE,
    STATIC_DTYPE,
    KernelTrace,
    LaunchInfo,
)

FULL = 0xFFFFFFFF


class TraceBuilder:
    """Declare static instructions, then append what each warp executed; ``build()`` gives a trace."""

    def __init__(self, kernel: str, grid: int | tuple, block: int | tuple, shared_bytes: int = 0,
                 regs: int = 0) -> None:
        g = grid if isinstance(grid, tuple) else (grid, 1, 1)
        b = block if isinstance(block, tuple) else (block, 1, 1)
        self.launch = LaunchInfo(kernel, g, b, shared_bytes, regs, 0, 1 << 40)
        self.static: list[tuple] = []
        self.names: list[str] = []
        self.warps: dict[int, list[tuple[int, int, dict | None]]] = {}

    def op(self, opcode: str, op_class: str, dst: tuple = (), src: tuple = (), space: str = "none",
           width: int = 0) -> int:
        """A static instruction; returns its PC."""
        if opcode not in self.names:
            self.names.append(opcode)
        d = list(dst) + [-1] * (4 - len(dst))
        s = list(src) + [-1] * (4 - len(src))
        self.static.append((OP_CLASS[op_class], SPACE[space], width, self.names.index(opcode), d, s,
                            len(self.static) + 1))
        return len(self.static) - 1

    def run(self, warp: int, pc: int, mask: int = FULL, *, addrs=None, base: int | None = None,
            stride: int = 4, size: int | None = None) -> None:
        """Warp ``warp`` executes ``pc``; memory instructions take ``addrs`` (32) or ``base``/``stride``."""
        mem = None
        row = self.static[pc]
        cls = row[0]
        if cls in (OP_CLASS["load"], OP_CLASS["store"], OP_CLASS["atomic"]) and row[1] != SPACE["param"]:
            flags = {OP_CLASS["load"]: MEM_LOAD, OP_CLASS["store"]: MEM_STORE, OP_CLASS["atomic"]: MEM_ATOMIC}[cls]
            mem = {"space": row[1], "flags": flags, "size": size or row[2] or 4, "mask": mask,
                   "addrs": None if addrs is None else [int(a) for a in addrs],
                   "base": base if base is not None else 0, "stride": stride}
        self.warps.setdefault(warp, []).append((pc, mask, mem))

    def build(self) -> KernelTrace:
        static = np.zeros(len(self.static), STATIC_DTYPE)
        for i, (cls, sp, w, opc, d, s, line) in enumerate(self.static):
            static[i] = (cls, sp, w, opc, d, s, line, -1)
        nw = self.launch.num_ctas * self.launch.warps_per_cta
        segs: list[tuple[int, int, int, int]] = []
        mems: list[tuple] = []
        lane_addrs: list[int] = []
        wseg = [0]
        wmem = [0]
        for w in range(nw):
            cur = None
            for pc, mask, mem in self.warps.get(w, []):
                if cur is not None and cur[1] + cur[2] == pc and cur[3] == mask:
                    cur[2] += 1
                else:
                    if cur is not None:
                        segs.append(tuple(cur))
                    cur = [w, pc, 1, mask]
                if mem is not None:
                    if mem["addrs"] is not None:
                        idx = len(lane_addrs)
                        lane_addrs.extend(mem["addrs"])
                        mems.append((w, pc, mem["mask"], mem["space"], mem["flags"], mem["size"], 0, 0, idx, 0, 0))
                    else:
                        mems.append((w, pc, mem["mask"], mem["space"], mem["flags"], mem["size"], mem["base"],
                                     mem["stride"], -1, 0, 0))
            if cur is not None:
                segs.append(tuple(cur))
            wseg.append(len(segs))
            wmem.append(len(mems))
        seg = np.array(segs, dtype=SEGMENT_DTYPE) if segs else np.zeros(0, SEGMENT_DTYPE)
        mem = np.array(mems, dtype=MEM_DTYPE) if mems else np.zeros(0, MEM_DTYPE)
        return KernelTrace(self.launch, list(self.names), static, seg, np.array(wseg, np.int64), mem,
                           np.array(wmem, np.int64), np.array(lane_addrs, np.uint64))


# ------------------------------------------------------------------------------------------------------
# kernels


def streaming_read(num_ctas: int, threads: int, loads_per_thread: int, base: int = 1 << 32,
                   store: bool = False) -> KernelTrace:
    """Each warp loads ``loads_per_thread`` coalesced 128-B lines, independent (8 registers in rotation).

    Warp ``w``'s k-th load reads line ``k * num_warps + w`` (a grid-stride loop), so the whole grid streams
    ``num_ctas * threads / 32 * loads_per_thread`` consecutive lines. With ``store`` every load is followed
    by a store to a second array.
    """
    b = TraceBuilder("stream", num_ctas, threads)
    ld = [b.op("ld.global.f32", "load", dst=(10 + r,), src=(1,), space="global", width=4) for r in range(8)]
    st = [b.op("st.global.f32", "store", src=(2, 10 + r), space="global", width=4) for r in range(8)] if store else []
    ex = b.op("exit", "branch")
    nw = num_ctas * ((threads + 31) // 32)
    out = base + nw * loads_per_thread * 128 + (1 << 24)
    for w in range(nw):
        for k in range(loads_per_thread):
            line = k * nw + w
            b.run(w, ld[k % 8], base=base + line * 128, stride=4)
            if store:
                b.run(w, st[k % 8], base=out + line * 128, stride=4)
        b.run(w, ex)
    return b.build()


def one_line_per_cta(ctas: int, line_addr: int, kernel: str = "one_load") -> KernelTrace:
    """``ctas`` one-warp CTAs (one per SM on a machine with as many, so their L1s cannot merge them), each
    loading the 128-B line at ``line_addr`` once, coalesced, then exiting."""
    b = TraceBuilder(kernel, ctas, 32)
    ld = b.op("ld.global.f32", "load", dst=(10,), src=(1,), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(ctas):
        b.run(w, ld, base=line_addr, stride=4)
        b.run(w, ex)
    return b.build()


def pointer_chase(addrs: list[int], lane_mask: int = 1) -> KernelTrace:
    """One warp follows a chain: load i's address register is load i-1's destination (so each waits)."""
    b = TraceBuilder("chase", 1, 32)
    ld = b.op("ld.global.u64", "load", dst=(1,), src=(1,), space="global", width=8)
    ex = b.op("exit", "branch")
    for a in addrs:
        lanes = [a if (lane_mask >> i) & 1 else 0 for i in range(32)]
        b.run(0, ld, lane_mask, addrs=lanes)
    b.run(0, ex)
    return b.build()


def shared_strided(stride_words: int, repeats: int = 4, size: int = 4) -> KernelTrace:
    """One warp: ``repeats`` independent shared loads, lane l at word ``l * stride_words``."""
    b = TraceBuilder("smem", 1, 32, shared_bytes=32 * 4 * max(stride_words, 1) * 2)
    ld = [b.op("ld.shared.f32", "load", dst=(10 + r,), src=(1,), space="shared", width=size) for r in range(4)]
    ex = b.op("exit", "branch")
    for k in range(repeats):
        b.run(0, ld[k % 4], base=0, stride=4 * stride_words, size=size)
    b.run(0, ex)
    return b.build()


def alu_chain(n: int, opcode: str = "add.s32", op_class: str = "int", dependent: bool = True,
              warps: int = 1) -> KernelTrace:
    """``n`` ALU instructions per warp, each reading the previous result (or all independent)."""
    b = TraceBuilder("alu", 1, 32 * warps)
    ops = [b.op(opcode, op_class, dst=(1,), src=(1,))] if dependent else [
        b.op(opcode, op_class, dst=(10 + r,), src=(1,)) for r in range(8)]
    ex = b.op("exit", "branch")
    for w in range(warps):
        for k in range(n):
            b.run(w, ops[k % len(ops)])
        b.run(w, ex)
    return b.build()


def empty_kernel(num_ctas: int, threads: int, shared_bytes: int = 0, regs: int = 0, body: int = 1) -> KernelTrace:
    """Every warp executes ``body`` independent adds then exits (for occupancy and dispatch tests)."""
    b = TraceBuilder("empty", num_ctas, threads, shared_bytes=shared_bytes, regs=regs)
    op = b.op("add.s32", "int", dst=(2,), src=(1,))
    ex = b.op("exit", "branch")
    for w in range(num_ctas * ((threads + 31) // 32)):
        for _ in range(body):
            b.run(w, op)
        b.run(w, ex)
    return b.build()


class PreloadLines(Preloader):
    """Each CTA preloads ``per_cta`` lines above 2^36 at class ``priority``."""

    def __init__(self, priority: int, per_cta: int) -> None:
        self.priority, self.per_cta = priority, per_cta

    def lines(self, trace, machine):
        c = trace.launch.num_ctas
        start = np.arange(c + 1, dtype=np.int64) * self.per_cta
        return start, (1 << 36) + 128 * np.arange(c * self.per_cta, dtype=np.int64)


def queue_dram_request(st, r: int, bank: int, row: int, *, write: bool = False, bg: int = 0, prio: int = 0,
                       seq: int | None = None) -> None:
    """Put request ``r`` (a one-burst read or write of ``bank``/``row``, priority class ``prio``, age ``seq``,
    default ``r``) ready in slot ``r`` of channel 0's scheduler queue of engine state ``st``, as the L2 would."""
    from ndpgpu.timing import engine as E

    st.rq[r, E.R_KIND] = E.PK_DWRITE if write else E.PK_READ
    st.rq[r, E.R_BANK] = bank
    st.rq[r, E.R_ROW] = row
    st.rq[r, E.R_BG] = bg
    st.rq[r, E.R_BURSTS] = 1
    st.rq[r, E.R_SECT] = 0xF
    st.rq[r, E.R_SLICE] = 0
    st.rq[r, E.R_TDS] = -1
    st.rq[r, E.R_LROW] = -1
    st.rq[r, E.R_XSTK] = -1
    st.rq[r, E.R_PRIO] = prio
    st.dq[0, r] = 0
    st.dq[0, r, E.DQ_RID] = r
    st.dq[0, r, E.DQ_BANK] = bank
    st.dq[0, r, E.DQ_ROW] = row
    st.dq[0, r, E.DQ_KEY] = (E.NPRIO - 1 - prio) * (1 << 48) + (r if seq is None else seq)
    st.dq[0, r, E.DQ_WR] = int(write)
    st.dq[0, r, E.DQ_BG] = bg
    st.dq[0, r, E.DQ_SLICE] = 0
