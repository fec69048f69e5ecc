"""CuPy-style public API: RawModule, RawKernel, device arrays and devices.

Code written for ``cupy.RawModule`` / ``cupy.RawKernel`` ports by changing the import::

    mod = ndpgpu.RawModule(code=SRC, options=("-DN=256",))
    fn = mod.get_function("saxpy")
    x = ndpgpu.asarray(host_x)
    fn((blocks,), (256,), (np.float32(2.0), x, y, np.int32(n)))
    y.get()

A :class:`Device` owns simulated memory and settings; arrays belong to the device current when they are
created. ``ndpgpu.Device(machine="gtx480")`` also times every launch on that machine.

This module gathers the names; each job lives in its own module under :mod:`ndpgpu.host`: the device and the
current-device stack (``device``), arrays and their constructors (``arrays``), modules and kernels with launch
validation and argument packing (``kernels``, using ``limits``, ``arguments`` and ``modules``).
"""

from __future__ import annotations

from .functional.decode import UnsupportedPTX
from .functional.launch import LaunchOptions
from .host.arrays import (
    DeviceArray,
    arange,
    array,
    asarray,
    asnumpy,
    empty,
    empty_like,
    full,
    full_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from .host.device import Device, get_device
from .host.kernels import Function, RawKernel, RawModule, SymbolLookupError
from .host.limits import LaunchConfigError, ctas_per_sm

__all__ = [
    "Device", "DeviceArray", "RawModule", "RawKernel", "Function", "asarray", "zeros", "empty",
    "get_device", "UnsupportedPTX", "SymbolLookupError", "ones", "full", "empty_like", "zeros_like", "ones_like",
    "full_like", "arange", "array", "asnumpy", "LaunchConfigError", "ctas_per_sm", "LaunchOptions",
]
