"""SIMD video instructions and their neighbours, as nvcc emits them and as inline PTX writes them: the CUDA
SIMD intrinsics (``__vabsdiffu4``, ``__vsadu4``, ``__vabsss4``...) for sm_75 (``vabsdiff4``/``vabsdiff2``
with the default selectors and mask) and for sm_90 (``add``/``min``/``max`` on ``.s16x2``/``.u16x2``), the
vadd/vsub/vavrg/vmin/vmax/vabsdiff/vset forms with ``.sat`` and ``.add``, ``max.relu.s16x2``, ``bmsk``,
``szext``, ``cvt.pack.sat`` and the sign extension of a signed narrow ``cvt`` into a wider register.

Every expected value is computed here element by element from the CUDA Math API's definitions of the
intrinsics and the PTX ISA's pseudo-code of the instructions, never from the simulator.
"""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

M32 = 0xFFFFFFFF
EDGES = [0, 1, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x80008000, 0x7FFF7FFF, 0x00FF00FF, 0xFF00FF00,
         0x01010101, 0xFEFEFEFE, 0x8000FFFF, 0x7F80817E, 0x0000FFFF, 0xFFFF0000, 0x12345678]


def _pairs(seed: int, n_random: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the edge values (256) and random pairs: about 300 (a, b)."""
    rng = np.random.default_rng(seed)
    a = [x for x in EDGES for _ in EDGES] + [int(v) for v in rng.integers(0, 1 << 32, n_random, dtype=np.uint64)]
    b = [y for _ in EDGES for y in EDGES] + [int(v) for v in rng.integers(0, 1 << 32, n_random, dtype=np.uint64)]
    return np.array(a, dtype=np.uint32), np.array(b, dtype=np.uint32)


def _elems(x: int, width: int, signed: bool) -> list[int]:
    """The 32 // width elements of ``x``, lowest first, sign- or zero-extended."""
    out = []
    for i in range(32 // width):
        v = (x >> (width * i)) & ((1 << width) - 1)
        if signed and v >> (width - 1):
            v -= 1 << width
        out.append(v)
    return out


def _merge(values: list[int], width: int) -> int:
    """Elements back into 32 bits, each truncated to ``width`` bits."""
    return sum((v & ((1 << width) - 1)) << (width * i) for i, v in enumerate(values))


def _launch(fn, a: np.ndarray, b: np.ndarray, c: np.ndarray | None, per: int, dtype=np.uint32) -> np.ndarray:
    n = len(a)
    out = ndpgpu.zeros(n * per, dtype)
    args = [ndpgpu.asarray(a), ndpgpu.asarray(b)]
    if c is not None:
        args.append(ndpgpu.asarray(c))
    fn(((n + 63) // 64,), (64,), (*args, out, np.int32(n)))
    return out.get().reshape(n, per)


def _check(got: np.ndarray, a: np.ndarray, b: np.ndarray, refs, names, c: np.ndarray | None = None) -> None:
    for i in range(len(a)):
        x, y = int(a[i]), int(b[i])
        for j, (ref, name) in enumerate(zip(refs, names, strict=True)):
            want = ref(x, y) if c is None else ref(x, y, int(c[i]))
            assert int(got[i, j]) == want, f"{name}(a={x:#010x}, b={y:#010x}): want {want:#x}, got {int(got[i, j]):#x}"


# ---- 1. the SIMD intrinsics, sm_75 ---------------------------------------------------------------------
INTRINSICS_SRC = r"""
extern "C" __global__ void simd(const unsigned* a, const unsigned* b, unsigned* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned* r = o + 9 * i;
  r[0] = __vabsdiffu4(x, y); r[1] = __vabsdiffs4(x, y); r[2] = __vsadu4(x, y); r[3] = __vsads4(x, y);
  r[4] = __vabs4(x); r[5] = __vabsss4(x); r[6] = __vsadu2(x, y); r[7] = __vabsdiffu2(x, y);
  r[8] = __vabsdiffs2(x, y);
}
"""


def _absdiff(x: int, y: int, width: int, signed: bool) -> list[int]:
    return [abs(p - q) for p, q in zip(_elems(x, width, signed), _elems(y, width, signed), strict=True)]


INTRINSIC_REFS = {
    "__vabsdiffu4": lambda x, y: _merge(_absdiff(x, y, 8, False), 8),
    "__vabsdiffs4": lambda x, y: _merge(_absdiff(x, y, 8, True), 8),
    "__vsadu4": lambda x, y: sum(_absdiff(x, y, 8, False)),
    "__vsads4": lambda x, y: sum(_absdiff(x, y, 8, True)),
    "__vabs4": lambda x, y: _merge([abs(v) for v in _elems(x, 8, True)], 8),  # |-128| = 128 wraps to 0x80
    "__vabsss4": lambda x, y: _merge([min(abs(v), 127) for v in _elems(x, 8, True)], 8),  # saturated
    "__vsadu2": lambda x, y: sum(_absdiff(x, y, 16, False)),
    "__vabsdiffu2": lambda x, y: _merge(_absdiff(x, y, 16, False), 16),
    "__vabsdiffs2": lambda x, y: _merge(_absdiff(x, y, 16, True), 16),
}


@needs_nvcc
def test_simd_intrinsics_for_sm_75():
    """nvcc's sm_75 code for the intrinsics (vabsdiff4/vabsdiff2, with .add for the sums) on ~300 pairs."""
    module = ndpgpu.RawModule(code=INTRINSICS_SRC, options=("-arch=sm_75",))
    assert "vabsdiff4.u32.u32.u32.add" in module.ptx and "vabsdiff2.u32.u32.u32" in module.ptx
    fn = module.get_function("simd")
    a, b = _pairs(75)
    got = _launch(fn, a, b, None, 9)
    _check(got, a, b, list(INTRINSIC_REFS.values()), list(INTRINSIC_REFS))


def test_intrinsic_references_on_documented_examples():
    """The references themselves, on values worked by hand."""
    assert INTRINSIC_REFS["__vabsdiffu4"](0x00FF10F0, 0xFF0020E0) == 0xFFFF1010
    assert INTRINSIC_REFS["__vabsdiffs4"](0x80, 0x7F) == 0xFF  # |-128 - 127| = 255
    assert INTRINSIC_REFS["__vsads4"](0x80808080, 0x7F7F7F7F) == 4 * 255
    assert INTRINSIC_REFS["__vabs4"](0x80FF0180, 0) == 0x80010180
    assert INTRINSIC_REFS["__vabsss4"](0x80FF0180, 0) == 0x7F01017F
    assert INTRINSIC_REFS["__vabsdiffs2"](0x80000001, 0x7FFFFFFF) == 0xFFFF0002


# ---- 2. inline PTX video forms -------------------------------------------------------------------------
VIDEO_FORMS = [
    "vadd4.u32.u32.u32.sat", "vsub2.s32.s32.s32.sat", "vavrg2.u32.u32.u32", "vavrg4.s32.s32.s32",
    "vmin4.s32.s32.s32", "vmax2.u32.u32.u32", "vabsdiff4.u32.u32.u32.add", "vset4.u32.u32.lt",
    "vset2.s32.s32.ge.add",
]
VIDEO_SRC = (
    "extern \"C\" __global__ void video(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* o, "
    "int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n"
    "  unsigned x = a[i], y = b[i], z = c[i], d;\n"
    + "".join(f"  asm volatile(\"{form} %0, %1, %2, %3;\" : \"=r\"(d) : \"r\"(x), \"r\"(y), \"r\"(z));\n"
              f"  o[{len(VIDEO_FORMS)} * i + {k}] = d;\n" for k, form in enumerate(VIDEO_FORMS))
    + "}\n")


def _avg(p: int, q: int) -> int:
    s = p + q
    return (s + 1) >> 1 if s >= 0 else s >> 1


def _sat(v: int, width: int, signed: bool) -> int:
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    return min(max(v, lo), hi)


def _zip(x: int, y: int, width: int, signed: bool):
    return zip(_elems(x, width, signed), _elems(y, width, signed), strict=True)


VIDEO_REFS = [
    # c is the merge source: the default mask (.b3210 / .h10) writes every element, so only .add reads it
    lambda x, y, c: _merge([_sat(p + q, 8, False) for p, q in _zip(x, y, 8, False)], 8),
    lambda x, y, c: _merge([_sat(p - q, 16, True) for p, q in _zip(x, y, 16, True)], 16),
    lambda x, y, c: _merge([_avg(p, q) for p, q in _zip(x, y, 16, False)], 16),
    lambda x, y, c: _merge([_avg(p, q) for p, q in _zip(x, y, 8, True)], 8),
    lambda x, y, c: _merge([min(p, q) for p, q in _zip(x, y, 8, True)], 8),
    lambda x, y, c: _merge([max(p, q) for p, q in _zip(x, y, 16, False)], 16),
    lambda x, y, c: (c + sum(abs(p - q) for p, q in _zip(x, y, 8, False))) & M32,
    lambda x, y, c: _merge([int(p < q) for p, q in _zip(x, y, 8, False)], 8),
    lambda x, y, c: (c + sum(int(p >= q) for p, q in _zip(x, y, 16, True))) & M32,
]


@needs_nvcc
def test_video_instructions_in_inline_ptx():
    fn = ndpgpu.RawModule(code=VIDEO_SRC, options=("-arch=sm_75",)).get_function("video")
    a, b = _pairs(2)
    rng = np.random.default_rng(3)
    c = rng.integers(0, 1 << 32, len(a), dtype=np.uint64).astype(np.uint32)
    c[:16] = [0, 1, 0xFFFFFFFF, 0xFFFFFFFC, 0xFFFFFF00, 0x80000000, 0x7FFFFFFF, 5] * 2  # .add wraps at 2^32
    got = _launch(fn, a, b, c, len(VIDEO_FORMS))
    _check(got, a, b, VIDEO_REFS, VIDEO_FORMS, c)


def test_video_references_on_worked_examples():
    vadd4_sat, vsub2_sat, vavrg2, vavrg4 = VIDEO_REFS[:4]
    assert vadd4_sat(0xFF01807F, 0x01FF8001, 0) == 0xFFFFFF80
    assert vsub2_sat(0x80007FFF, 0x0001FFFF, 0) == 0x80007FFF  # -32768-1 -> -32768, 32767-(-1) -> 32767
    assert vavrg2(0xFFFF0001, 0xFFFF0002, 0) == 0xFFFF0002  # (1+2+1)>>1 = 2
    assert vavrg4(0x000000FF, 0x000000FE, 0) == 0x000000FE  # (-1) + (-2) = -3 -> -3 >> 1 = -2
    assert VIDEO_REFS[6](0xFF000000, 0, 0xFFFFFF02) == 0x1  # 0xFFFFFF02 + 255 wraps


# ---- 3. sm_90 packed 16x2 integer arithmetic -----------------------------------------------------------
SM90_SRC = r"""
extern "C" __global__ void pair16(const unsigned* a, const unsigned* b, unsigned* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], d;
  unsigned* r = o + 7 * i;
  r[0] = __vadd2(x, y); r[1] = __vsub2(x, y); r[2] = __vmaxs2(x, y); r[3] = __vmins2(x, y);
  r[4] = __vmaxu2(x, y); r[5] = __vminu2(x, y);
  asm volatile("max.relu.s16x2 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y));
  r[6] = d;
}
"""
SM90_REFS = {
    "__vadd2": lambda x, y: _merge([p + q for p, q in _zip(x, y, 16, False)], 16),
    "__vsub2": lambda x, y: _merge([p - q for p, q in _zip(x, y, 16, False)], 16),
    "__vmaxs2": lambda x, y: _merge([max(p, q) for p, q in _zip(x, y, 16, True)], 16),
    "__vmins2": lambda x, y: _merge([min(p, q) for p, q in _zip(x, y, 16, True)], 16),
    "__vmaxu2": lambda x, y: _merge([max(p, q) for p, q in _zip(x, y, 16, False)], 16),
    "__vminu2": lambda x, y: _merge([min(p, q) for p, q in _zip(x, y, 16, False)], 16),
    "max.relu.s16x2": lambda x, y: _merge([max(p, q, 0) for p, q in _zip(x, y, 16, True)], 16),
}


@needs_nvcc
def test_packed_16x2_integer_ops_for_sm_90():
    module = ndpgpu.RawModule(code=SM90_SRC, options=("-arch=sm_90",))
    assert "16x2" in module.ptx  # nvcc's sm_90 code for the intrinsics, not the sm_75 bit tricks
    a, b = _pairs(90)
    got = _launch(module.get_function("pair16"), a, b, None, 7)
    _check(got, a, b, list(SM90_REFS.values()), list(SM90_REFS))


# ---- 4. bmsk and szext -------------------------------------------------------------------------------------
BITS_SRC = r"""
extern "C" __global__ void bits(const unsigned* a, const unsigned* b, unsigned* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], d;
  unsigned* r = o + 6 * i;
  asm volatile("bmsk.wrap.b32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y)); r[0] = d;
  asm volatile("bmsk.clamp.b32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y)); r[1] = d;
  asm volatile("szext.wrap.s32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y)); r[2] = d;
  asm volatile("szext.clamp.s32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y)); r[3] = d;
  asm volatile("szext.wrap.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y)); r[4] = d;
  asm volatile("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y)); r[5] = d;
}
"""


def _bmsk(a: int, b: int, clamp: bool) -> int:
    """PTX ISA, bmsk: a mask of ``b`` one-bits starting at bit ``a``."""
    a1 = a & 31
    mask0 = (M32 << a1) & M32
    b1 = b & 31
    s = a1 + b1
    mask1 = (M32 << s) & M32 if s < 32 else 0
    overflow = s >= 32
    if clamp:
        if a >= 32:
            overflow, mask0 = True, 0
        if b >= 32:
            overflow = True
    if overflow:
        mask1 = 0
    elif b1 == 0:
        mask1 = M32
    return mask0 & ~mask1 & M32


def _szext(a: int, b: int, clamp: bool, signed: bool) -> int:
    """PTX ISA, szext: the low ``b`` bits of ``a``, sign- (.s32) or zero- (.u32) extended."""
    b1 = b & 31
    too = clamp and b >= 32
    mask = 0 if too else (M32 << b1) & M32
    sign = 0 if (b1 == 0 or too or not signed) else (a >> ((b1 - 1) & 31)) & 1
    return (a & ~mask & M32) | (mask if sign else 0)


BITS_REFS = [
    lambda a, b: _bmsk(a, b, False), lambda a, b: _bmsk(a, b, True),
    lambda a, b: _szext(a, b, False, True), lambda a, b: _szext(a, b, True, True),
    lambda a, b: _szext(a, b, False, False), lambda a, b: _szext(a, b, True, False),
]
BITS_NAMES = ["bmsk.wrap", "bmsk.clamp", "szext.wrap.s32", "szext.clamp.s32", "szext.wrap.u32", "szext.clamp.u32"]


def test_bmsk_and_szext_references_on_worked_examples():
    assert _bmsk(4, 8, False) == 0xFF0 and _bmsk(4, 8, True) == 0xFF0
    assert _bmsk(0, 32, False) == 0 and _bmsk(0, 32, True) == M32  # wrap: 32 -> 0 bits; clamp: all 32
    assert _bmsk(24, 16, False) == 0xFF000000 and _bmsk(33, 1, False) == 0x2 and _bmsk(33, 1, True) == 0
    assert _szext(0x80, 8, False, True) == 0xFFFFFF80 and _szext(0x80, 8, False, False) == 0x80
    assert _szext(0xFFFFFFFF, 0, False, True) == 0 and _szext(0xFFFFFFFF, 32, True, True) == M32
    assert _szext(0x1FF, 33, False, True) == M32 and _szext(0x1FF, 33, True, True) == 0x1FF


@needs_nvcc
def test_bmsk_and_szext_on_edge_positions_and_widths():
    fn = ndpgpu.RawModule(code=BITS_SRC, options=("-arch=sm_75",)).get_function("bits")
    positions = [0, 1, 7, 8, 16, 24, 31, 32, 33, 63, 0xFFFFFFFF]
    values = [0, 1, 0x80, 0xFF, 0x8000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x12345678, 0xDEADBEEF]
    a = np.array([p for p in positions for _ in positions] + [v for v in values for _ in positions], np.uint32)
    b = np.array([q for _ in positions for q in positions] + [q for _ in values for q in positions], np.uint32)
    got = _launch(fn, a, b, None, 6)
    # bmsk's operands are (position, width); szext's (value, width): the second block of pairs is for szext,
    # the first exercises both
    _check(got, a, b, BITS_REFS, BITS_NAMES)


# ---- 5. cvt.pack.sat ------------------------------------------------------------------------------------
PACK_SRC = r"""
extern "C" __global__ void pack(const int* a, const int* b, const unsigned* c, unsigned* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  unsigned z = c[i], d;
  unsigned* r = o + 4 * i;
  asm volatile("cvt.pack.sat.u16.s32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y)); r[0] = d;
  asm volatile("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y)); r[1] = d;
  asm volatile("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z)); r[2] = d;
  asm volatile("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z)); r[3] = d;
}
"""
PACK_EDGES = [-(2**31), -70000, -32769, -32768, -129, -128, -1, 0, 1, 127, 128, 255, 256, 32767, 32768, 65535,
              65536, 70000, 2**31 - 1]


def _pack(a: int, b: int, c: int, width: int, signed: bool) -> int:
    """PTX ISA, cvt.pack.sat: sat(a) above sat(b); for 8-bit types c's low 16 bits fill bits 31..16."""
    m = (1 << width) - 1
    d = ((_sat(a, width, signed) & m) << width) | (_sat(b, width, signed) & m)
    if width == 8:
        d |= (c & 0xFFFF) << 16
    return d


@needs_nvcc
def test_cvt_pack_sat_on_edge_values():
    fn = ndpgpu.RawModule(code=PACK_SRC, options=("-arch=sm_75",)).get_function("pack")
    a = np.array([x for x in PACK_EDGES for _ in PACK_EDGES], np.int32)
    b = np.array([y for _ in PACK_EDGES for y in PACK_EDGES], np.int32)
    c = np.random.default_rng(5).integers(0, 1 << 32, len(a), dtype=np.uint64).astype(np.uint32)
    got = _launch(fn, a, b, c, 4)
    refs = [lambda x, y, z: _pack(x, y, z, 16, False), lambda x, y, z: _pack(x, y, z, 16, True),
            lambda x, y, z: _pack(x, y, z, 8, False), lambda x, y, z: _pack(x, y, z, 8, True)]
    _check(got, a, b, refs, ["cvt.pack.sat.u16", "cvt.pack.sat.s16", "cvt.pack.sat.u8", "cvt.pack.sat.s8"], c)
    assert _pack(-1, 300, 0xABCD1234, 8, True) == 0x1234FF7F  # a worked example of the reference


# ---- 6. a signed narrow cvt into a wider register is sign-extended ------------------------------------------
CVT_SRC = r"""
extern "C" __global__ void narrow(const int* a, const float* f, const long long* w, unsigned* o32,
                                  unsigned long long* o64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i];
  float y = f[i];
  long long z = w[i];
  unsigned d;
  unsigned long long e;
  asm volatile("cvt.s8.s32 %0, %1;" : "=r"(d) : "r"(x)); o32[4 * i + 0] = d;
  asm volatile("cvt.u8.s32 %0, %1;" : "=r"(d) : "r"(x)); o32[4 * i + 1] = d;
  asm volatile("cvt.rzi.s16.f32 %0, %1;" : "=r"(d) : "f"(y)); o32[4 * i + 2] = d;
  asm volatile("cvt.s16.s32 %0, %1;" : "=r"(d) : "r"(x)); o32[4 * i + 3] = d;
  asm volatile("cvt.s32.s64 %0, %1;" : "=l"(e) : "l"(z)); o64[2 * i + 0] = e;
  asm volatile("cvt.u32.s64 %0, %1;" : "=l"(e) : "l"(z)); o64[2 * i + 1] = e;
}
"""


@needs_nvcc
def test_signed_narrow_cvt_sign_extends_into_the_wider_register():
    """PTX: the destination register may be wider than the type; for a signed type the result is
    sign-extended to its width, for an unsigned one zero-extended."""
    ints = [0, 1, 0x7F, 0x80, 0xFF, 0x1FF, 0x7FFF, 0x8000, 0x12345680, -1, -128, -129, -(2**31), 2**31 - 1]
    floats = [0.0, -0.0, 1.9, -1.9, -3.7, 127.5, 32767.9, 32768.0, -32768.9, -40000.0, 1e9, float("nan"),
              float("-inf"), -1.0]
    wides = [0, 1, -1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x1_8000_0000, -(2**63), 2**63 - 1, 0x1234_5678_9ABC,
             -0x8000_0001, 0x7FFF_FFFF_FFFF_FFFF, 0x100000000, 0x180]
    n = len(ints)
    fn = ndpgpu.RawModule(code=CVT_SRC, options=("-arch=sm_75",)).get_function("narrow")
    o32 = ndpgpu.zeros(4 * n, np.uint32)
    o64 = ndpgpu.zeros(2 * n, np.uint64)
    fn((1,), (32,), (ndpgpu.asarray(np.array(ints, np.int32)), ndpgpu.asarray(np.array(floats, np.float32)),
                     ndpgpu.asarray(np.array(wides, np.int64)), o32, o64, np.int32(n)))
    g32 = o32.get().reshape(n, 4)
    g64 = o64.get().reshape(n, 2)

    def sext(v: int, width: int, into: int) -> int:
        v &= (1 << width) - 1
        if v >> (width - 1):
            v -= 1 << width
        return v & ((1 << into) - 1)

    def f2s16(v: float) -> int:  # cvt.rzi.s16.f32: truncate, clamp to s16 (PTX saturates float -> int), NaN -> 0
        if v != v:
            return 0
        v = float(np.float32(v))
        t = max(min(v, 32767.0), -32768.0)
        return int(t)

    for k in range(n):
        x, y, z = ints[k], floats[k], wides[k]
        assert int(g32[k, 0]) == sext(x, 8, 32), f"cvt.s8.s32 {x:#x}"
        assert int(g32[k, 1]) == x & 0xFF, f"cvt.u8.s32 {x:#x}"
        assert int(g32[k, 2]) == f2s16(y) & M32, f"cvt.rzi.s16.f32 {y!r}"
        assert int(g32[k, 3]) == sext(x, 16, 32), f"cvt.s16.s32 {x:#x}"
        assert int(g64[k, 0]) == sext(z, 32, 64), f"cvt.s32.s64 {z:#x}"
        assert int(g64[k, 1]) == z & M32, f"cvt.u32.s64 {z:#x}"
    assert sext(0x1FF, 8, 32) == 0xFFFFFFFF and sext(0x1_8000_0000, 32, 64) == 0xFFFFFFFF_80000000
