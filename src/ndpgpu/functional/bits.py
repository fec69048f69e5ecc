"""Bit-level helpers for the compiled interpreter: IEEE bit casts, fused multiply-add, half precision.

Registers hold raw 64-bit patterns; these helpers reinterpret them without going through memory.
"""

from __future__ import annotations

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _bitcast_u32_f32(typingctx, x):
    sig = types.float32(types.uint32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return sig, codegen


@intrinsic
def _bitcast_f32_u32(typingctx, x):
    sig = types.uint32(types.float32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return sig, codegen


@intrinsic
def _bitcast_u64_f64(typingctx, x):
    sig = types.float64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@intrinsic
def _bitcast_f64_u64(typingctx, x):
    sig = types.uint64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return sig, codegen


@intrinsic
def fma32(typingctx, a, b, c):
    """Single-rounding fused multiply-add in float32 (llvm.fma)."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        return builder.fma(args[0], args[1], args[2])

    return sig, codegen


@intrinsic
def fma64(typingctx, a, b, c):
    """Single-rounding fused multiply-add in float64 (llvm.fma)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(args[0], args[1], args[2])

    return sig, codegen


@njit(inline="always", cache=True)
def f32(bits):
    """The float32 held in the low 32 bits of ``bits``."""
    return _bitcast_u32_f32(np.uint32(np.uint64(bits) & np.uint64(0xFFFFFFFF)))


@njit(inline="always", cache=True)
def b32f(x):
    """The bits of float32 ``x`` as uint64."""
    return np.uint64(_bitcast_f32_u32(np.float32(x)))


@njit(inline="always", cache=True)
def f64(bits):
    return _bitcast_u64_f64(np.uint64(bits))


@njit(inline="always", cache=True)
def b64f(x):
    return _bitcast_f64_u64(np.float64(x))


@njit(cache=True)
def half_to_f32(h):
    """IEEE binary16 bits (low 16 of ``h``) to float32, exactly."""
    h = np.uint32(np.uint64(h) & np.uint64(0xFFFF))
    sign = (h >> np.uint32(15)) & np.uint32(1)
    exp = (h >> np.uint32(10)) & np.uint32(0x1F)
    man = h & np.uint32(0x3FF)
    if exp == 0:
        if man == 0:
            bits = sign << np.uint32(31)
        else:
            # subnormal: normalise
            e = np.int32(-14)
            m = man
            while (m & np.uint32(0x400)) == 0:
                m <<= np.uint32(1)
                e -= np.int32(1)
            m &= np.uint32(0x3FF)
            bits = (sign << np.uint32(31)) | (np.uint32(e + 127) << np.uint32(23)) | (m << np.uint32(13))
    elif exp == 31:
        bits = (sign << np.uint32(31)) | np.uint32(0x7F800000) | (man << np.uint32(13))
        if man != 0:
            bits |= np.uint32(0x400000)
    else:
        bits = (sign << np.uint32(31)) | ((exp + np.uint32(112)) << np.uint32(23)) | (man << np.uint32(13))
    return _bitcast_u32_f32(bits)


@njit(cache=True)
def f64_to_half(x, mode):
    """Round float64 ``x`` to binary16 bits with rounding ``mode`` (0/1 nearest-even, 2 zero, 3 down, 4 up)."""
    bits = _bitcast_f64_u64(x)
    sign = np.uint32((bits >> np.uint64(63)) & np.uint64(1))
    if x != x:
        return np.uint64(0x7FFF)
    ax = abs(x)
    if ax == np.inf:
        return np.uint64((sign << np.uint32(15)) | np.uint32(0x7C00))
    # scale so that the result's unit in the last place is 1
    if ax == 0.0:
        return np.uint64(sign << np.uint32(15))
    e = np.int32(np.floor(np.log2(ax)))
    # guard against log2 rounding
    if 2.0 ** e > ax:
        e -= 1
    elif 2.0 ** (e + 1) <= ax:
        e += 1
    if e < -14:
        e = np.int32(-14)
    ulp = 2.0 ** (e - 10)
    q = ax / ulp  # exact: power-of-two scaling
    fl = np.floor(q)
    frac = q - fl
    neg = sign == 1
    if mode == 2:
        r = fl
    elif mode == 3:
        r = fl + 1.0 if (neg and frac > 0.0) else fl
    elif mode == 4:
        r = fl + 1.0 if ((not neg) and frac > 0.0) else fl
    else:
        if frac > 0.5 or (frac == 0.5 and (np.int64(fl) & 1) == 1):
            r = fl + 1.0
        else:
            r = fl
    mag = r * ulp
    if mag >= 65520.0 or (mag > 65504.0):
        # overflow: nearest/away directions give inf, toward-zero directions give max finite
        if mode == 2 or (mode == 3 and not neg) or (mode == 4 and neg):
            return np.uint64((sign << np.uint32(15)) | np.uint32(0x7BFF))
        return np.uint64((sign << np.uint32(15)) | np.uint32(0x7C00))
    if mag == 0.0:
        return np.uint64(sign << np.uint32(15))
    ri = np.int64(r)
    if e == -14 and ri < 1024:
        return np.uint64((sign << np.uint32(15)) | np.uint32(ri))  # subnormal
    if ri >= 2048:
        ri //= 2
        e += 1
    hexp = np.uint32(e + 15)
    if hexp >= 31:
        return np.uint64((sign << np.uint32(15)) | np.uint32(0x7C00))
    return np.uint64((sign << np.uint32(15)) | (hexp << np.uint32(10)) | np.uint32(ri & 0x3FF))


@njit(inline="always", cache=True)
def bf16_to_f32(h):
    return _bitcast_u32_f32(np.uint32((np.uint64(h) & np.uint64(0xFFFF)) << np.uint64(16)))


@njit(cache=True)
def f32_to_bf16(x, mode):
    """Round float32 ``x`` to bfloat16 bits (nearest-even by default, 2 zero, 3 down, 4 up)."""
    b = _bitcast_f32_u32(np.float32(x))
    if x != x:
        return np.uint64(0x7FFF)
    lower = b & np.uint32(0xFFFF)
    upper = b >> np.uint32(16)
    neg = (b >> np.uint32(31)) == 1
    if mode == 2:
        return np.uint64(upper)
    if mode == 3:
        return np.uint64(upper + np.uint32(1) if (neg and lower != 0) else upper)
    if mode == 4:
        return np.uint64(upper + np.uint32(1) if ((not neg) and lower != 0) else upper)
    if lower > np.uint32(0x8000) or (lower == np.uint32(0x8000) and (upper & np.uint32(1)) == 1):
        upper += np.uint32(1)
    return np.uint64(upper & np.uint32(0xFFFF))
