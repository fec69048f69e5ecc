"""Kernel arguments packed as the launch's parameter buffer: each value checked against its PTX parameter's
type and size (device arrays as pointers, structs, integers in range, floats without silent overflow), grid and
block dimensions and the dynamic shared-memory size validated."""

from __future__ import annotations

import math
import operator
import struct
from typing import TYPE_CHECKING, Any

import numpy as np

from ..frontend.ir import Param
from .limits import LaunchConfigError

if TYPE_CHECKING:
    pass

def shared_mem_bytes(kernel: str, shared_mem: Any) -> int:
    """``shared_mem`` as a byte count: an int (a float or a string is a TypeError, never truncated)."""
    if isinstance(shared_mem, bool) or not hasattr(shared_mem, "__index__"):
        raise TypeError(f"{kernel}: shared_mem must be an int number of bytes of dynamic shared memory, got "
                        f"{shared_mem!r} ({type(shared_mem).__name__}); pass e.g. shared_mem=256 * 4")
    return operator.index(shared_mem)


def dims(x, what: str) -> tuple[int, int, int]:
    if isinstance(x, (int, np.integer)):
        x = (int(x),)
    try:
        if isinstance(x, str) or not all(isinstance(v, (int, np.integer)) for v in x):
            raise TypeError
        dims = tuple(int(v) for v in x)
    except TypeError:
        raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints, got {x!r}") from None
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise LaunchConfigError(f"{what} must be 1 to 3 positive ints, got {x!r}")
    return (dims + (1, 1))[:3]  # type: ignore[return-value]


INT_RANGES = {1: (-(1 << 7), 1 << 8), 2: (-(1 << 15), 1 << 16), 4: (-(1 << 31), 1 << 32),
               8: (-(1 << 63), 1 << 64)}


def pack_arg(param: Param, value, index: int, kernel: str, cpp_name: str | None = None) -> bytes:
    """Bytes of one kernel argument; raise TypeError/OverflowError naming the parameter: by its C++ name when
    the CUDA source gave it (``k: argument 3 'n' (PTX k_param_3, .u32)``), else by its PTX name."""
    kind = param.type.kind
    size = param.size
    dims = f"[{param.array[0]}]" if param.array else ""
    if cpp_name:
        where = f"{kernel}: argument {index} '{cpp_name}' (PTX {param.name}, .{param.type.name}{dims})"
    else:
        where = f"argument {index} ({param.name}, PTX .{param.type.name}{dims}) of {kernel}"
    if _is_device_array(value):
        if size != 8 or param.array:
            raise TypeError(f"{where}: a device array (pointer) was passed to a {size}-byte parameter")
        value._check_live(where + ": passing")
        return struct.pack("<Q", value.ptr)
    if value is None:
        if size != 8:
            raise TypeError(f"{where}: None (null pointer) was passed to a {size}-byte parameter")
        return struct.pack("<Q", 0)
    is_struct_array = isinstance(value, np.ndarray) and value.dtype.fields is not None and value.ndim == 0
    if isinstance(value, np.void) or is_struct_array:
        raw = np.asarray(value).tobytes()
        if len(raw) != size:
            raise TypeError(f"{where}: structured value of {len(raw)} bytes for a {size}-byte parameter")
        return raw
    if isinstance(value, np.generic):
        dt = value.dtype
        if dt.itemsize != size:
            raise TypeError(f"{where}: numpy {dt} ({dt.itemsize} bytes) does not match the {size}-byte parameter")
        if kind == "f" and dt.kind != "f":
            raise TypeError(f"{where}: numpy {dt} passed to a floating-point parameter")
        if kind in ("u", "s", "b") and not param.array and dt.kind == "f":
            raise TypeError(f"{where}: numpy {dt} passed to an integer parameter")
        return value.tobytes()
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if isinstance(value, int):
        if kind == "f":
            try:
                as_float = float(value)
            except OverflowError:  # beyond even a double: overflows every float type
                as_float = math.inf if value > 0 else -math.inf
            return pack_float(as_float, size, where, value)
        if param.array or size not in INT_RANGES:
            raise TypeError(f"{where}: a Python int cannot fill an aggregate parameter")
        lo, hi = INT_RANGES[size]
        if not lo <= value < hi:
            raise OverflowError(f"{where}: {value} does not fit in {size * 8} bits")
        return (value % (1 << (8 * size))).to_bytes(size, "little")
    if isinstance(value, float):
        if kind != "f":
            raise TypeError(f"{where}: a Python float passed to an integer parameter")
        return pack_float(value, size, where, value)
    raise TypeError(f"{where}: cannot pass a {type(value).__name__}")


FLOAT_TYPES = {2: np.float16, 4: np.float32, 8: np.float64}


def pack_float(value: float, size: int, where: str, given: Any) -> bytes:
    """A Python number as a ``size``-byte float; a finite value beyond the type's range is an OverflowError
    (NumPy would make it inf with only a warning). inf and NaN pass as they are."""
    ftype = FLOAT_TYPES.get(size)
    if ftype is None:
        raise TypeError(f"{where}: a Python number cannot fill a {size}-byte floating-point parameter")
    with np.errstate(over="ignore"):
        packed = np.array(value, dtype=ftype)
    if not np.isfinite(packed) and (isinstance(given, int) or math.isfinite(given)):
        shown = repr(given) if len(repr(given)) <= 24 else f"{repr(given)[:12]}... ({len(repr(given))} digits)"
        raise OverflowError(f"{where}: {shown} is beyond the range of a {size * 8}-bit float (largest "
                            f"{float(np.finfo(ftype).max):g}); pass a value in range, or math.inf if inf is meant")
    return packed.tobytes()


def _is_device_array(value: Any) -> bool:
    """Whether ``value`` is an :class:`ndpgpu.DeviceArray` (imported late: the arrays module imports this one)."""
    from .arrays import DeviceArray

    return isinstance(value, DeviceArray)
