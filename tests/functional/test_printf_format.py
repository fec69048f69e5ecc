"""Device printf's formatting of CUDA's vprintf argument buffer (``format_printf``): length modifiers
``hh``/``h`` (the int argument converted to char/short as C does), ``*`` widths and precisions read from the
buffer, and ``%a``/``%A`` hexadecimal floating point; and one kernel's printf end to end.

References: the C library's own ``snprintf`` (called through ctypes, glibc's documented output) and Python's
``%`` formatting where it produces the same text; the argument buffers are built here with vprintf's layout
(every argument aligned to its own size: ints 4 bytes, long long/double/pointers 8).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import struct

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available
from ndpgpu.functional.launch import format_printf

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

_LIBC_NAME = ctypes.util.find_library("c")
_LIBC = ctypes.CDLL(_LIBC_NAME) if _LIBC_NAME else None
needs_libc = pytest.mark.skipif(_LIBC is None, reason="no C library to compare snprintf with")


def argbuf(*args: tuple[str, object]) -> bytes:
    """vprintf's buffer: ``("i", v)`` a 4-byte int, ``("q", v)`` a long long, ``("d", v)`` a double."""
    out = bytearray()
    for kind, value in args:
        size = struct.calcsize("<" + kind)
        out += b"\0" * (-len(out) % size)
        out += struct.pack("<" + kind, value)
    return bytes(out)


def pyfmt(fmt: str, *args) -> str:
    """Python's printf-style formatting, which follows C's for these conversions."""
    return fmt % args


def libc(fmt: str, *args: tuple[str, object]) -> str:
    """What the C library's snprintf writes for the same format and arguments."""
    conv = {"i": ctypes.c_int, "q": ctypes.c_longlong, "d": ctypes.c_double}
    buf = ctypes.create_string_buffer(256)
    _LIBC.snprintf(buf, 256, fmt.encode(), *(conv[k](v) for k, v in args))
    return buf.value.decode()


def test_argument_buffer_alignment():
    """An int then a double: the double starts at offset 8, as vprintf lays it out."""
    assert argbuf(("i", 1), ("d", 1.0)) == struct.pack("<i4xd", 1, 1.0)
    assert format_printf("%d %f %d", argbuf(("i", 7), ("d", 0.5), ("i", -2)), None) == "7 0.500000 -2"


@pytest.mark.parametrize("fmt, value, want", [
    ("%hhd", -3, "-3"),
    ("%hhd", 0x1FF, "-1"),
    ("%hhd", 0x7F, "127"),
    ("%hhd", 0x80, "-128"),
    ("%hd", -3, "-3"),
    ("%hd", 0x18000, "-32768"),
    ("%hd", 70000, "4464"),
    ("%hhu", 300, "44"),
    ("%hhu", -1, "255"),
    ("%hu", 70000, "4464"),
    ("%hu", -1, "65535"),
    ("%hx", 0x12345, "2345"),
    ("%hhx", 0x12345, "45"),
    ("%hho", 0x1FF, "377"),
    ("%5hhd|", 0x1FF, "   -1|"),
])
def test_char_and_short_length_modifiers(fmt, value, want):
    assert format_printf(fmt, argbuf(("i", value)), None) == want


@needs_libc
@pytest.mark.parametrize("fmt, value", [("%hhd", 0x1FF), ("%hhd", -3), ("%hd", 70000), ("%hhu", 300),
                                        ("%hu", 70000), ("%hx", 0x12345), ("%hhX", 0xABC), ("%-6hd|", -40000)])
def test_length_modifiers_match_the_c_library(fmt, value):
    assert format_printf(fmt, argbuf(("i", value)), None) == libc(fmt, ("i", value))


@pytest.mark.parametrize("fmt, args, python", [
    ("%*d", (6, 42), pyfmt("%*d", 6, 42)),
    ("%*d", (-6, 42), pyfmt("%-6d", 42)),  # a negative * width: left-justified in its magnitude
    ("%-*d|", (-6, 42), pyfmt("%-6d|", 42)),
    ("%*d", (0, -7), pyfmt("%d", -7)),
    ("%0*d", (5, 42), pyfmt("%05d", 42)),
])
def test_star_width(fmt, args, python):
    width, value = args
    assert format_printf(fmt, argbuf(("i", width), ("i", value)), None) == python


@pytest.mark.parametrize("fmt, prec, value, want", [
    ("%.*f", 2, 3.14159, pyfmt("%.2f", 3.14159)),
    ("%.*f", 0, 2.5, pyfmt("%.0f", 2.5)),
    ("%.*f", -1, 3.14159, pyfmt("%f", 3.14159)),  # a negative * precision: as if none were given
    ("%.*e", 3, 12345.678, pyfmt("%.3e", 12345.678)),
    ("%.*d", 5, 42, pyfmt("%.5d", 42)),
])
def test_star_precision(fmt, prec, value, want):
    kind = "i" if fmt.endswith("d") else "d"
    assert format_printf(fmt, argbuf(("i", prec), (kind, value)), None) == want


def test_star_width_and_precision_come_before_the_value():
    """``%*.*f``: width, then precision, then the double (aligned to 8 after the two ints)."""
    buf = argbuf(("i", 10), ("i", 3), ("d", 3.14159), ("i", 99))
    assert format_printf("%*.*f|%d", buf, None) == pyfmt("%10.3f|%d", 3.14159, 99)
    buf = argbuf(("i", 7), ("i", -8), ("i", 5))  # the width of one conversion, then the next's value
    assert format_printf("%d %*d", buf, None) == "7 5       "


@pytest.mark.parametrize("fmt, value, want", [
    ("%a", 1.0, "0x1p+0"),
    ("%a", 1.5, "0x1.8p+0"),
    ("%a", 0.1, "0x1.999999999999ap-4"),
    ("%a", -0.0, "-0x0p+0"),
    ("%a", 0.0, "0x0p+0"),
    ("%a", 2.0**-1074, "0x0.0000000000001p-1022"),  # the smallest subnormal, as glibc writes it
    ("%a", -1024.0, "-0x1p+10"),
    ("%.2a", 0.1, "0x1.9ap-4"),
    ("%.0a", 1.5, "0x2p+0"),  # a tie: rounded to an even last digit
    ("%.0a", 1.25, "0x1p+0"),
    ("%.1a", 1.03125, "0x1.0p+0"),  # 0x1.08: a tie, 0 is even
    ("%.1a", 1.09375, "0x1.2p+0"),  # 0x1.18: a tie, 1 is odd
    ("%.1a", 1.99999, "0x2.0p+0"),  # rounding carries into the leading digit
    ("%.3a", 1.0, "0x1.000p+0"),
    ("%a", float("inf"), "inf"),
    ("%a", float("-inf"), "-inf"),
    ("%A", 1.5, "0X1.8P+0"),
    ("%A", float("inf"), "INF"),
    ("%#.0a", 1.0, "0x1.p+0"),
    ("%+a", 1.0, "+0x1p+0"),
    ("%12a|", 1.5, "    0x1.8p+0|"),
    ("%-12a|", 1.5, "0x1.8p+0    |"),
])
def test_hexadecimal_floating_point(fmt, value, want):
    assert format_printf(fmt, argbuf(("d", value)), None) == want


def test_hexadecimal_floating_point_without_precision_is_pythons_float_hex():
    """Without a precision ``%a`` is exact and shortest: Python's float.hex with trailing zeros dropped."""
    rng = np.random.default_rng(11)
    for v in [3.14159, 1e300, 1e-300, 123456.789, 2.0**52 + 1] + list(rng.standard_normal(50) * 1e5):
        mant, exp = float.hex(float(v)).split("p")
        mant = mant.rstrip("0").rstrip(".")
        assert format_printf("%a", argbuf(("d", float(v))), None) == f"{mant}p{int(exp):+d}", v


@needs_libc
@pytest.mark.parametrize("fmt", ["%a", "%A", "%.0a", "%.1a", "%.2a", "%.5a", "%.13a", "%.15a", "%#a", "%+.3a",
                                 "%20.4a|", "%-20a|"])
def test_hexadecimal_floating_point_matches_the_c_library(fmt):
    rng = np.random.default_rng(12)
    values = [1.0, 1.5, 0.1, -0.0, 1.03125, 1.09375, 1.99999, 2.0**-1074, 2.0**-1022, 1.7976931348623157e308,
              float("inf"), -2.5] + [float(v) for v in rng.standard_normal(20) * 1000]
    for v in values:
        assert format_printf(fmt, argbuf(("d", v)), None) == libc(fmt, ("d", v)), (fmt, v)


@needs_libc
def test_star_forms_match_the_c_library():
    for w in (-9, -1, 0, 3, 12):
        for p in (-3, 0, 2, 7):
            buf = argbuf(("i", w), ("i", p), ("d", 3.14159))
            assert format_printf("%*.*f|", buf, None) == libc("%*.*f|", ("i", w), ("i", p), ("d", 3.14159))
            buf = argbuf(("i", w), ("i", p), ("i", -42))
            assert format_printf("%*.*d|", buf, None) == libc("%*.*d|", ("i", w), ("i", p), ("i", -42))


PRINTF_SRC = r"""
#include <cstdio>
extern "C" __global__ void fmt(int big) {
  printf("%hhd|%hu|%*d|%.*f|%a\n", (signed char)-3, (unsigned short)65535, 5, 42, 2, 3.14159, 1.0);
  printf("%hhd %hx %-*d| %.*f %.2a %A\n", big, 0x12345, -4, 7, -1, 0.5, 0.1, 1.5);
}
"""


@needs_nvcc
def test_device_printf_end_to_end():
    fn = ndpgpu.RawModule(code=PRINTF_SRC).get_function("fmt")
    with ndpgpu.Device(echo_printf=False) as dev:
        fn((1,), (1,), (np.int32(0x1FF),))
    assert dev.printf_output == ["-3|65535|   42|3.14|0x1p+0\n", "-1 2345 7   | 0.500000 0x1.9ap-4 0X1.8P+0\n"]


MANY_SRC = r"""
#include <cstdio>
extern "C" __global__ void lines() { printf("%d\n", blockIdx.x * blockDim.x + threadIdx.x); }
extern "C" __global__ void wide() {
  printf("%d %d %d %d %d %d %d %d %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\n",
         1, 2, 3, 4, 5, 6, 7, 8, 9ll, 10ll, 11ll, 12ll, 13ll, 14ll, 15ll, 16ll, 17ll, 18ll, 19ll, 20ll, 21ll, 22ll,
         23ll, 24ll);
}
"""


@needs_nvcc
def test_ten_thousand_lines_and_a_call_with_many_arguments():
    module = ndpgpu.RawModule(code=MANY_SRC)
    with ndpgpu.Device(echo_printf=False) as dev:
        module.get_function("lines")((40,), (256,), ())
        module.get_function("wide")((1,), (1,), ())
    assert sorted(int(x) for x in dev.printf_output[:-1]) == list(range(10240))
    assert dev.printf_output[-1] == " ".join(str(v) for v in range(1, 25)) + "\n"  # 160 bytes of arguments
