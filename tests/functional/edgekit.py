"""Harness of the edge-value differential suite: run one PTX instruction over many operand tuples.

``apply("add.rz.f32", "f32", ["f32", "f32"], [xs, ys])`` builds a kernel that loads each lane's operands
(raw bit patterns, one uint64 per operand per lane), executes the instruction once and stores the
destination's bits; the whole column runs as one launch through the real decoder and interpreter (fast
paths included). Destination ``pred`` is read back as 0/1. Operand type ``pred`` is loaded as an integer
and turned into a predicate with ``setp.ne``. Extra text (a second instruction, an immediate operand) can
be passed through ``template``.

Edge operand sets are listed here once, as bit patterns, so every family draws from the same edges.
"""

from __future__ import annotations

import functools
import itertools
import struct
from collections.abc import Iterable, Sequence

import numpy as np

import ndpgpu

HEADER = ".version 9.0\n.target sm_80\n.address_size 64\n"
BLOCK = 256

# ---- bit patterns ------------------------------------------------------------------------------------


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def bits_f32(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def bits_f64(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b & 0xFFFFFFFFFFFFFFFF))[0]


def width(t: str) -> int:
    """Bits of a PTX type name (``pred`` is 1)."""
    if t == "pred":
        return 1
    if t in ("f16x2", "bf16x2"):
        return 32
    return int("".join(c for c in t if c.isdigit()))


# Edge sets per width (raw bits). Floats: +-0, +-inf, quiet/signalling NaNs with payloads, smallest and
# largest subnormals and normals, +-1, values just above/below integers and rounding ties, the largest
# integers' neighbourhood (2^23, 2^31, 2^52, 2^63, 2^64).
EDGE_F32 = sorted({
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FA00001, 0xFF812345,
    0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF,
    0x3F800000, 0xBF800000, 0x3F7FFFFF, 0x3F800001, 0x3FC00000, 0xBFC00000, 0x40200000, 0xC0200000,
    0x3F000000, 0xBF000000, 0x3EFFFFFF, 0x3F000001, 0x4B000000, 0x4B000001, 0x4AFFFFFF, 0x4B7FFFFF,
    0x4F000000, 0xCF000000, 0x4EFFFFFF, 0x4F800000, 0x5F000000, 0xDF000000, 0x5EFFFFFF, 0x5F800000,
    0x7149F2CA, 0xF149F2CA, 0x40490FDB, 0x34000000, 0x33800000, 0x01000000, 0x00400000,
})
EDGE_F64 = sorted({
    0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
    0xFFF8000000000000, 0x7FF8000000000001, 0x7FF4000000000001, 0x0000000000000001, 0x8000000000000001,
    0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x8010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
    0x3FF0000000000000, 0xBFF0000000000000, 0x3FEFFFFFFFFFFFFF, 0x3FF0000000000001, 0x3FF8000000000000,
    0xBFF8000000000000, 0x4004000000000000, 0xC004000000000000, 0x3FE0000000000000, 0x4330000000000000,
    0x4330000000000001, 0x432FFFFFFFFFFFFF, 0x41E0000000000000, 0xC1E0000000000000, 0x41DFFFFFFFC00000,
    0x41F0000000000000, 0x43E0000000000000, 0xC3E0000000000000, 0x43DFFFFFFFFFFFFF, 0x43F0000000000000,
    0x47EFFFFFE0000000, 0x47EFFFFFF0000000, 0x36A0000000000000, 0x3690000000000000, 0x400921FB54442D18,
    0x3CA0000000000000, 0x3E70000000000000,
})
EDGE_F16 = sorted({
    0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E01, 0x7D01, 0x0001, 0x8001, 0x03FF, 0x0400, 0x8400,
    0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3BFF, 0x3C01, 0x3E00, 0xBE00, 0x4100, 0x3800, 0x6400, 0x6401, 0x1400,
})
EDGE_BF16 = sorted({
    0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FC1, 0x7FA1, 0x0001, 0x8001, 0x007F, 0x0080, 0x8080,
    0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3F7F, 0x3F81, 0x3FC0, 0xBFC0, 0x4020, 0x3F00, 0x4B00, 0x4F00,
})


def edge_ints(bits: int) -> list[int]:
    """Integer edges of a width: 0, +-1, 2, the signed and unsigned extremes and their neighbours,
    powers of two around the middle, and alternating patterns."""
    m = (1 << bits) - 1
    smin = 1 << (bits - 1)
    vals = {0, 1, 2, 3, 7, m, m - 1, smin, smin - 1, smin + 1, (smin >> 1), m ^ (smin >> 1),
            0x5555555555555555 & m, 0xAAAAAAAAAAAAAAAA & m, 0x0123456789ABCDEF & m}
    for k in (8, 16, 24, 31, 32, 63):
        if k < bits:
            vals |= {1 << k, (1 << k) - 1, m & -(1 << k)}
    return sorted(v & m for v in vals)


EDGE_FLOATS = {"f32": EDGE_F32, "f64": EDGE_F64, "f16": EDGE_F16, "bf16": EDGE_BF16}


def edges(t: str) -> list[int]:
    """The edge set of PTX type ``t``."""
    if t in EDGE_FLOATS:
        return EDGE_FLOATS[t]
    if t == "pred":
        return [0, 1]
    return edge_ints(width(t))


def random_bits(t: str, n: int, seed: int) -> list[int]:
    """``n`` seeded random operands of type ``t``: uniform bit patterns, plus (for floats) values of moderate
    magnitude so that arithmetic results are not all overflow or NaN."""
    rng = np.random.default_rng(seed)
    w = width(t)
    raw = [int(v) & ((1 << w) - 1) for v in rng.integers(0, 1 << 62, n, dtype=np.int64) * 4 + rng.integers(0, 4, n)]
    if t == "f32":
        mid = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32).view(np.uint32)
        raw = raw[: n // 2] + [int(v) for v in mid[n // 2:]]
    elif t == "f64":
        mid = (rng.standard_normal(n) * 2.0 ** rng.integers(-200, 200, n)).view(np.uint64)
        raw = raw[: n // 2] + [int(v) for v in mid[n // 2:]]
    elif t == "f16":
        mid = (rng.standard_normal(n) * 2.0 ** rng.integers(-10, 10, n)).astype(np.float16).view(np.uint16)
        raw = raw[: n // 2] + [int(v) for v in mid[n // 2:]]
    return raw


def operand_tuples(types: Sequence[str], n_random: int = 256, seed: int = 1,
                   edge_sets: Sequence[Sequence[int]] | None = None, max_edge_tuples: int = 20000) -> list[tuple]:
    """Every combination of edge values for ``types`` (capped: a sample of at most ``max_edge_tuples``
    when the product is larger), followed by ``n_random`` seeded random tuples."""
    sets = [list(s) for s in edge_sets] if edge_sets is not None else [edges(t) for t in types]
    combos = list(itertools.product(*sets))
    if len(combos) > max_edge_tuples:
        rng = np.random.default_rng(seed + 7)
        pick = sorted(rng.choice(len(combos), max_edge_tuples, replace=False))
        combos = [combos[i] for i in pick]
    cols = [random_bits(t, n_random, seed + 13 * k) for k, t in enumerate(types)]
    return combos + list(zip(*cols, strict=True))


# ---- running one instruction -------------------------------------------------------------------------


def _reg_type(t: str) -> str:
    if t in ("f16", "bf16"):
        return "b16"
    if t in ("f16x2", "bf16x2"):
        return "b32"
    if t in ("s8", "u8", "b8"):
        return {"s8": "s16", "u8": "u16", "b8": "b16"}[t]
    return t


def _ld_type(t: str) -> str:
    if t == "pred":
        return "u32"
    w = width(t)
    if t[0] in "fb":
        return f"b{w}"
    return t if w >= 16 or t[0] in "us" else f"b{w}"


@functools.cache
def _kernel(instr: str, dtype: str, src_types: tuple[str, ...], template: str | None):
    n = len(src_types)
    lines = [HEADER, ".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{",
             "  .reg .b64 %rd<12>;", "  .reg .b32 %r<6>;", "  .reg .pred %q<2>;", "  .reg .b32 %pin<4>;"]
    for k, t in enumerate(src_types):
        lines.append(f"  .reg .{'pred' if t == 'pred' else _reg_type(t)} %a{k};")
    lines.append(f"  .reg .{'pred' if dtype == 'pred' else _reg_type(dtype)} %d;")
    if dtype == "pred":
        lines.append("  .reg .u32 %dv;")
    lines += [
        "  ld.param.u64 %rd1, [pin];", "  ld.param.u64 %rd2, [pout];", "  ld.param.u32 %r5, [pn];",
        "  mov.u32 %r1, %ctaid.x;", "  mov.u32 %r2, %ntid.x;", "  mov.u32 %r3, %tid.x;",
        "  mad.lo.u32 %r4, %r1, %r2, %r3;", "  setp.ge.u32 %q1, %r4, %r5;", "  @%q1 bra DONE;",
        f"  mul.wide.u32 %rd3, %r4, {8 * n};", "  add.s64 %rd4, %rd1, %rd3;",
        "  mul.wide.u32 %rd5, %r4, 8;", "  add.s64 %rd6, %rd2, %rd5;",
    ]
    for k, t in enumerate(src_types):
        if t == "pred":
            lines.append(f"  ld.global.u32 %pin{k}, [%rd4+{8 * k}];")
            lines.append(f"  setp.ne.u32 %a{k}, %pin{k}, 0;")
        elif t in ("s8", "u8", "b8"):
            lines.append(f"  ld.global.{t.replace('b', 'u')} %a{k}, [%rd4+{8 * k}];")
        else:
            lines.append(f"  ld.global.{_ld_type(t)} %a{k}, [%rd4+{8 * k}];")
    operands = ", ".join(f"%a{k}" for k in range(n))
    body = template.format(d="%d", a=[f"%a{k}" for k in range(n)]) if template else f"{instr} %d, {operands};"
    lines.append("  " + body)
    if dtype == "pred":
        lines += ["  selp.u32 %dv, 1, 0, %d;", "  st.global.u32 [%rd6], %dv;"]
    elif dtype in ("s8", "u8", "b8"):
        lines.append(f"  st.global.{dtype.replace('b', 'u')} [%rd6], %d;")
    else:
        lines.append(f"  st.global.{_ld_type(dtype)} [%rd6], %d;")
    lines += ["DONE:", "  ret;", "}"]
    return ndpgpu.RawModule(ptx="\n".join(lines)).get_function("k")


def apply(instr: str, dtype: str, src_types: Sequence[str], tuples: Iterable[Sequence[int]],
          template: str | None = None) -> list[int]:
    """Execute ``instr d, a0, a1, ...`` once per operand tuple (raw bits) and return each lane's result bits.

    ``template``, when given, replaces the instruction line; it is formatted with ``d`` (the destination
    register) and ``a`` (the list of operand registers), e.g. ``"mad.lo.s32 {d}, {a[0]}, 7, {a[1]};"``.
    """
    rows = [tuple(int(v) for v in t) for t in tuples]
    n_src = len(src_types)
    data = np.zeros((max(1, len(rows)), n_src), dtype=np.uint64)
    for i, row in enumerate(rows):
        for k in range(n_src):
            data[i, k] = row[k] & ((1 << width(src_types[k])) - 1) if src_types[k] != "pred" else row[k] & 1
    fn = _kernel(instr, dtype, tuple(src_types), template)
    din = ndpgpu.asarray(data.reshape(-1))
    dout = ndpgpu.zeros(max(1, len(rows)), np.uint64)
    blocks = (len(rows) + BLOCK - 1) // BLOCK
    fn((max(1, blocks),), (BLOCK,), (din, dout, np.uint32(len(rows))))
    mask = (1 << width(dtype)) - 1
    return [int(v) & mask for v in dout.get()[: len(rows)]]


class Mismatches:
    """Collects differences between the engine and the reference; ``check()`` fails listing the first few."""

    def __init__(self, what: str):
        self.what = what
        self.count = 0
        self.total = 0
        self.examples: list[str] = []

    def compare(self, operands: Sequence[int], got: int, want: int | set[int] | None, note: str = "") -> None:
        """``want`` is the exact bits, a set of acceptable bits, or None (nothing to check for this tuple)."""
        if want is None:
            return
        self.total += 1
        ok = got in want if isinstance(want, set) else got == want
        if not ok:
            self.count += 1
            if len(self.examples) < 12:
                ops = ", ".join(hex(v) for v in operands)
                exp = "{" + ", ".join(hex(w) for w in sorted(want)) + "}" if isinstance(want, set) else hex(want)
                self.examples.append(f"({ops}) -> {hex(got)}, expected {exp} {note}".rstrip())

    def check(self) -> None:
        assert self.total > 0, f"{self.what}: nothing was compared"
        assert self.count == 0, (f"{self.what}: {self.count} of {self.total} operand tuples differ:\n  "
                                 + "\n  ".join(self.examples))


def differential(instr: str, dtype: str, src_types: Sequence[str], reference, tuples: Sequence[Sequence[int]],
                 template: str | None = None) -> Mismatches:
    """Run ``instr`` over ``tuples`` and compare each result with ``reference(*operands)`` (bits, a set of
    acceptable bits, or None); returns the filled :class:`Mismatches` (call ``check()``)."""
    got = apply(instr, dtype, src_types, tuples, template)
    mm = Mismatches(instr if template is None else template)
    for ops, g in zip(tuples, got, strict=True):
        mm.compare(ops, g, reference(*ops))
    return mm
