"""CuPy-style public API: RawModule, RawKernel, device arrays and devices.

Code written for ``cupy.RawModule`` / ``cupy.RawKernel`` ports by changing the import::

    mod = ndpgpu.RawModule(code=SRC, options=("-DN=256",))
    fn = mod.get_function("saxpy")
    x = ndpgpu.asarray(host_x)
    fn((blocks,), (256,), (np.float32(2.0), x, y, np.int32(n)))
    y.get()

A :class:`Device` owns simulated memory and settings; arrays belong to the device current when they are
created. ``ndpgpu.Device(machine="gtx480")`` also times every launch on that machine.
"""

from __future__ import annotations

import difflib
import itertools
import math
import operator
import re
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np

from .analysis.pointers import param_pointers
from .frontend import cparams, lineinfo, nvcc
from .frontend.demangle import demangle, name_key, qualified_name
from .frontend.ir import Module
from .frontend.parser import parse_ptx
from .functional.decode import Program, UnsupportedPTX
from .functional.launch import BoundsCheckError, LaunchOptions, LaunchResult, execute
from .functional.memory import DeviceMemory, DeviceMemoryError, MemoryLayout
from .host.arguments import dims, pack_arg, shared_mem_bytes
from .host.limits import (
    MAX_STATIC_SHARED,
    MAX_THREADS_PER_BLOCK,
    REGISTERS_PER_SM,
    LaunchConfigError,
    check_cooperative,
    check_dimensions,
    check_resources,
    check_shared_memory,
    ctas_per_sm,
    shared_limit,
    warp_registers,
)
from .host.modules import (
    NAME_EXPRESSION_PREFIX,
    LoadedModule,
    check_name_expressions,
    demangled_names,
    instantiations,
    ptx_target,
    var_dtype,
)

__all__ = [
    "Device", "DeviceArray", "RawModule", "RawKernel", "Function", "asarray", "zeros", "empty",
    "get_device", "UnsupportedPTX", "SymbolLookupError", "ones", "full", "empty_like", "zeros_like", "ones_like",
    "full_like", "arange", "array", "asnumpy", "LaunchConfigError", "ctas_per_sm",
]


class SymbolLookupError(KeyError):
    """A module has no kernel or variable of that name (or the name is ambiguous); the message lists what
    the module defines. A ``KeyError`` (so a ``LookupError``) whose text prints without KeyError's quotes."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

_device_ids = itertools.count()
_local = threading.local()


class Device:
    """A simulated GPU: memory, launch options, and optionally a timing machine.

    Use as a context manager to make it current::

        with ndpgpu.Device(trace=True) as dev:
            ...launches...
        dev.traces  # one KernelTrace per launch
    """

    def __init__(self, machine: str | None = None, *, overrides: dict | None = None, trace: bool | None = None,
                 bounds_check: bool = False, layout: MemoryLayout | None = None, num_sms: int | None = None,
                 echo_printf: bool = True, options: LaunchOptions | None = None):
        self.id = next(_device_ids)
        self.options = options or LaunchOptions()
        self.options.bounds_check = bounds_check or self.options.bounds_check
        # bounds checking separates allocations by guard zones, so overruns into a neighbour are seen
        self.memory = DeviceMemory(layout, guard_zones=self.options.bounds_check)
        self.machine_name = machine
        self.overrides = dict(overrides or {})
        self.trace = bool(trace) if trace is not None else machine is not None
        self.echo_printf = echo_printf
        self.launches: list[LaunchResult] = []
        self.traces: list = []
        self.trace_source_maps: list = []  # per trace: its module's PTX -> CUDA source map (per-PC views)
        self.copies: list[dict] = []  # host<->device copies in program order: direction, bytes, addr, before_launch
        self.printf_output: list[str] = []
        self.timing = None
        self.measurement = None  # the one measuring path (ndpgpu.timing.measure), fed as the program runs
        self.launch_stats: list = []
        if machine is not None:
            from .timing import TimingSession, load_machine  # imported lazily: timing is optional
            from .timing.measure import Measurement

            self.machine = load_machine(machine, overrides=self.overrides)
            self.timing = TimingSession(self.machine)
            self.measurement = Measurement(self.timing)
            self.num_sms = int(getattr(self.machine, "num_sms", None) or num_sms or 15)
        else:
            self.machine = None
            self.num_sms = num_sms or 80
        self.options.num_sms = self.num_sms
        self._stack_depth = 0

    # context management: a stack of current devices per thread
    def __enter__(self) -> Device:
        stack = _stack()
        stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        stack = _stack()
        if stack and stack[-1] is self:
            stack.pop()

    def record_copy(self, direction: str, nbytes: int, addr: int) -> None:
        """Log a host<->device copy (replayed by the experiment executor) and time it on the machine."""
        self.copies.append({"direction": direction, "bytes": int(nbytes), "addr": int(addr),
                            "before_launch": len(self.launches)})
        if self.measurement is not None:
            self.measurement.copy(direction, int(nbytes), int(addr))

    def totals(self):
        """Timing statistics over every launch (requires a machine)."""
        if self.timing is None:
            raise RuntimeError("this device has no timing machine: create it with Device(machine=...)")
        return self.timing.totals()

    def __repr__(self) -> str:
        return f"<ndpgpu.Device {self.id} machine={self.machine_name!r}>"


def _stack() -> list[Device]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


_default_device: Device | None = None


def get_device() -> Device:
    """The current device (the innermost ``with Device(...)``), else the default functional device."""
    stack = _stack()
    if stack:
        return stack[-1]
    global _default_device
    if _default_device is None:
        _default_device = Device()
    return _default_device


# ------------------------------------------------------------------------------------------------------
# Device arrays


def _caller_site() -> str:
    """``file.py:12``: the first frame on the stack outside the ndpgpu package (the user's call)."""
    package = str(Path(__file__).parent)
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame = frame.f_back
    return f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno}" if frame is not None else ""


class DeviceArray:
    """A C-contiguous array in a device's simulated memory."""

    def __init__(self, shape, dtype, device: Device | None = None, *, ptr: int | None = None,
                 label: str = "", _owner: DeviceArray | None = None):
        self.device = device or get_device()
        self.dtype = np.dtype(dtype)
        dims = shape if isinstance(shape, (tuple, list)) else (shape,)
        try:
            self.shape = tuple(operator.index(s) for s in dims)
        except TypeError:
            bad = next(s for s in dims if not hasattr(s, "__index__"))
            raise TypeError(f"device array shape {shape!r}: {type(bad).__name__!r} object cannot be interpreted as "
                            "an integer (as in NumPy); pass whole numbers, e.g. int(n)") from None
        if any(s < 0 for s in self.shape):
            raise ValueError(f"negative dimension in shape {self.shape}")
        _check_c_layout(self.dtype)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        self.ptr = ptr if ptr is not None else self.device.memory.alloc(self.nbytes, label, self.dtype.alignment)
        self.label = label
        self._owner = _owner

    @property
    def freed(self) -> bool:
        """True once :meth:`free` returned this array's memory (or that of the array it views)."""
        return self.device.memory.freed_at(self.ptr) is not None

    def free(self) -> None:
        """Return the array's device memory now (cudaFree) instead of with its device. Afterwards ``get``,
        ``set`` and launches with the array raise :class:`DeviceMemoryError`; a second ``free`` says "already
        freed". The memory is unmapped: a kernel that reaches it through another pointer raises
        :class:`MemoryFault` naming the freed allocation and the line that freed it (under
        ``Device(bounds_check=True)`` it is reported as a bounds violation, "use after free")."""
        self.device.memory.free(self.ptr, _caller_site())

    def _check_live(self, what: str) -> None:
        alloc = self.device.memory.freed_at(self.ptr)
        if alloc is not None:
            raise DeviceMemoryError(f"{what} of a freed device array {self!r} ({alloc.describe()}): its memory was "
                                    "returned by free(); copy it to the host before freeing it, or allocate a new "
                                    "array")

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def data(self) -> _MemoryPointer:
        """CuPy-compatible ``.data.ptr``."""
        return _MemoryPointer(self.ptr)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def get(self) -> np.ndarray:
        """Copy to a new host array."""
        self._check_live("get()")
        self.device.record_copy("d2h", self.nbytes, self.ptr)
        raw = self.device.memory.read(self.ptr, self.nbytes)
        return raw.view(self.dtype).reshape(self.shape).copy()

    def set(self, host) -> None:
        """Copy ``host`` in; its total size in bytes must match (a dtype view is allowed)."""
        self._check_live("set()")
        arr = np.ascontiguousarray(host)
        if arr.dtype != self.dtype and arr.nbytes != self.nbytes:
            raise ValueError(f"cannot set a {self.dtype}{self.shape} device array from {arr.dtype}{arr.shape}")
        if arr.dtype == self.dtype and arr.size != self.size:
            raise ValueError(f"cannot set a device array of shape {self.shape} from shape {arr.shape}")
        self.device.memory.write(self.ptr, arr)
        self.device.record_copy("h2d", arr.nbytes, self.ptr)

    def view(self, dtype) -> DeviceArray:
        """The same memory seen with another dtype (last dimension rescaled)."""
        dtype = np.dtype(dtype)
        if self.nbytes % dtype.itemsize:
            raise ValueError(f"{self.nbytes} bytes do not divide into {dtype}")
        shape = (self.nbytes // dtype.itemsize,) if self.ndim <= 1 else \
            (*self.shape[:-1], self.shape[-1] * self.dtype.itemsize // dtype.itemsize)
        return DeviceArray(shape, dtype, self.device, ptr=self.ptr, _owner=self)

    def copy_to_host(self) -> np.ndarray:
        return self.get()

    # -- CuPy's ndarray surface beyond kernels -------------------------------------------------------------
    # Computed on the host from the simulated memory (a GPU would run small kernels for them). Results are new
    # arrays on this array's device, or views of it. Nothing here is a host<->device copy of the program, so
    # nothing is added to Device.copies and nothing is timed, except where data reaches host code: item(),
    # float(), int(), bool(), tolist() and np.asarray() copy to the host (recorded d2h, as get() is), and
    # assigning a host array into a selection copies it in (recorded h2d).

    itemsize = property(lambda self: self.dtype.itemsize)

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides of the C-contiguous layout."""
        return _c_strides(self.shape, self.dtype.itemsize)

    def _host(self) -> np.ndarray:
        """The contents as a new, writable host array, read without recording a copy."""
        self._check_live("reading")
        return self.device.memory.read(self.ptr, self.nbytes).view(self.dtype).reshape(self.shape)

    def _host_write(self, host) -> None:
        """Store ``host`` (this array's shape, cast to its dtype) without recording a copy."""
        self._check_live("writing")
        self.device.memory.write(self.ptr, np.asarray(host, dtype=self.dtype, order="C"))

    def _to_host_copy(self) -> np.ndarray:
        """The contents for host code: a recorded device-to-host copy, as :meth:`get`."""
        return self.get()

    def _same_device(self, other: DeviceArray, what: str) -> np.ndarray:
        if other.device is not self.device:
            raise ValueError(f"{what}: the operands are on different devices ({self.device} and {other.device}); "
                             "copy one with ndpgpu.asarray() under the other's device first")
        return other._host()

    def _operand(self, other: Any, what: str) -> Any:
        """``other`` as a host value for an elementwise operation; NotImplemented for types not handled."""
        if isinstance(other, DeviceArray):
            return self._same_device(other, what)
        if isinstance(other, np.ndarray) and other.ndim == 0:
            return other[()]
        if isinstance(other, (np.ndarray, list, tuple)):
            raise TypeError(f"{what}: a device array and a host {type(other).__name__} cannot be combined (CuPy "
                            "refuses this too: it would hide a host-to-device copy); copy it with ndpgpu.asarray() "
                            "first")
        if isinstance(other, (bool, int, float, complex, np.generic)):
            return other
        return NotImplemented

    def _binary(self, other: Any, ufunc: np.ufunc, reflected: bool) -> Any:
        b = self._operand(other, f"{ufunc.__name__}")
        if b is NotImplemented:
            return NotImplemented
        a = self._host()
        with np.errstate(all="ignore"):  # a GPU raises no floating-point warnings
            out = ufunc(b, a) if reflected else ufunc(a, b)
        return _from_host(out, self.device)

    def _inplace(self, other: Any, ufunc: np.ufunc) -> Any:
        b = self._operand(other, f"in-place {ufunc.__name__}")
        if b is NotImplemented:
            return NotImplemented
        a = self._host()
        with np.errstate(all="ignore"):
            ufunc(a, b, out=a)  # NumPy's same_kind casting: int += float is a TypeError, as in NumPy
        self._host_write(a)
        return self

    def _unary(self, ufunc: np.ufunc) -> DeviceArray:
        with np.errstate(all="ignore"):
            return _from_host(ufunc(self._host()), self.device)

    __array_ufunc__ = None  # NumPy defers to these operators (np_scalar * a works; np.add(a, 1) is refused)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """``np.asarray(a)``: a recorded device-to-host copy, as ``a.get()`` and ``ndpgpu.asnumpy(a)`` (CuPy raises
        a TypeError here instead; ndpgpu copies, so host code and NumPy functions take device arrays).
        ``copy=False`` raises ValueError: the data is not in host memory."""
        if copy is False:
            raise ValueError("a device array cannot become a NumPy array without a copy to the host; use a.get(), "
                             "ndpgpu.asnumpy(a) or np.asarray(a)")
        host = self._to_host_copy()
        return host if dtype is None else host.astype(dtype, copy=False)

    def _basic_view(self, key: Any) -> DeviceArray | None:
        """The view ``key`` selects when it is a basic index (integers, slices, ``...``, ``None``) whose result is
        contiguous; None otherwise. Computed on a memory-less stand-in with this array's strides."""
        parts = key if isinstance(key, tuple) else (key,)
        for p in parts:
            if not (p is None or p is Ellipsis or isinstance(p, slice) or
                    (isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_)))):
                return None
        if not any(p is Ellipsis for p in parts):
            parts = (*parts, Ellipsis)  # an array result (a 0-d one for a full integer index), never a scalar
        stand_in = np.lib.stride_tricks.as_strided(np.zeros(1, self.dtype), shape=self.shape,
                                                   strides=self.strides, writeable=False)
        sel = stand_in[parts]  # basic indexing computes the view and checks bounds; it reads nothing
        if not sel.flags.c_contiguous:
            return None
        offset = sel.__array_interface__["data"][0] - stand_in.__array_interface__["data"][0] if sel.size else 0
        return DeviceArray(sel.shape, self.dtype, self.device, ptr=self.ptr + offset, _owner=self)

    def _host_key(self, key: Any) -> Any:
        """``key`` with device arrays in it (masks, index arrays) read to the host."""
        if isinstance(key, DeviceArray):
            return self._same_device(key, "indexing")
        if isinstance(key, tuple):
            return tuple(self._host_key(k) for k in key)
        return key

    def __getitem__(self, key) -> DeviceArray:
        """``a[0]``, ``a[2:5]``, ``a[1, :]``, ``a[mask]`` as in CuPy: a device array, 0-d for a single element
        (``float(a[0])`` or ``a[0].item()`` gives the number). An index that selects a contiguous block
        (integers and step-1 slices over leading axes) returns a view sharing this array's memory, as CuPy's
        views do (``a[256:]`` passes a pointer into ``a`` to a kernel); any other index (a step, a column,
        an index array or mask) returns a new array holding a copy, where CuPy returns a strided view: writes
        into it do not reach ``a`` (ndpgpu arrays are C-contiguous)."""
        self._check_live("indexing")
        view = self._basic_view(key)
        if view is not None:
            return view
        return _from_host(self._host()[self._host_key(key)], self.device)

    def __setitem__(self, key, value) -> None:
        """``a[...] = host`` / ``a[2:5] = 0`` / ``a[mask] = b`` as in CuPy: the elements ``key`` selects take
        ``value`` (broadcast and cast as NumPy assigns). Done on the host; a host array or list as ``value`` is
        recorded as a host-to-device copy of the bytes it fills, a scalar or a device array is not (CuPy fills
        those with a kernel)."""
        host = self._host()
        key = self._host_key(key)
        from_host = isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value) > 0
        if isinstance(value, DeviceArray):
            value = self._same_device(value, "assignment")
        host[key] = value
        self._host_write(host)
        if from_host:
            view = self._basic_view(key)
            nbytes = np.asarray(host[key]).nbytes
            self.device.record_copy("h2d", nbytes, view.ptr if view is not None else self.ptr)

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d device array")
        return (self[i] for i in range(self.shape[0]))

    # numbers for host code: device-to-host copies, as in CuPy
    def item(self, *args) -> Any:
        """One element as a Python number (a recorded device-to-host copy of the array)."""
        return self._to_host_copy().item(*args)

    def tolist(self) -> Any:
        return self._to_host_copy().tolist()

    def _scalar(self, kind: type) -> Any:
        if self.size != 1:
            if kind is bool:
                raise ValueError(f"the truth value of a device array with {self.size} elements is ambiguous "
                                 "(as in NumPy); use (a != 0).sum() or a.get().any()")
            raise TypeError(f"only device arrays of one element convert to {kind.__name__}, not shape {self.shape}")
        return kind(self._to_host_copy().reshape(())[()])

    def __bool__(self) -> bool:
        return self._scalar(bool)

    def __float__(self) -> float:
        return self._scalar(float)

    def __int__(self) -> int:
        return self._scalar(int)

    def __complex__(self) -> complex:
        return self._scalar(complex)

    def __index__(self) -> int:
        if self.ndim or self.dtype.kind not in "iub":
            raise TypeError("only 0-d integer device arrays can be used as an index")
        return operator.index(self._to_host_copy()[()])

    # elementwise arithmetic and comparisons: NumPy's dtypes and broadcasting
    def __add__(self, o): return self._binary(o, np.add, False)  # noqa: E704
    def __radd__(self, o): return self._binary(o, np.add, True)  # noqa: E704
    def __iadd__(self, o): return self._inplace(o, np.add)  # noqa: E704
    def __sub__(self, o): return self._binary(o, np.subtract, False)  # noqa: E704
    def __rsub__(self, o): return self._binary(o, np.subtract, True)  # noqa: E704
    def __isub__(self, o): return self._inplace(o, np.subtract)  # noqa: E704
    def __mul__(self, o): return self._binary(o, np.multiply, False)  # noqa: E704
    def __rmul__(self, o): return self._binary(o, np.multiply, True)  # noqa: E704
    def __imul__(self, o): return self._inplace(o, np.multiply)  # noqa: E704
    def __truediv__(self, o): return self._binary(o, np.true_divide, False)  # noqa: E704
    def __rtruediv__(self, o): return self._binary(o, np.true_divide, True)  # noqa: E704
    def __itruediv__(self, o): return self._inplace(o, np.true_divide)  # noqa: E704
    def __floordiv__(self, o): return self._binary(o, np.floor_divide, False)  # noqa: E704
    def __rfloordiv__(self, o): return self._binary(o, np.floor_divide, True)  # noqa: E704
    def __ifloordiv__(self, o): return self._inplace(o, np.floor_divide)  # noqa: E704
    def __mod__(self, o): return self._binary(o, np.remainder, False)  # noqa: E704
    def __rmod__(self, o): return self._binary(o, np.remainder, True)  # noqa: E704
    def __imod__(self, o): return self._inplace(o, np.remainder)  # noqa: E704
    def __pow__(self, o): return self._binary(o, np.power, False)  # noqa: E704
    def __rpow__(self, o): return self._binary(o, np.power, True)  # noqa: E704
    def __ipow__(self, o): return self._inplace(o, np.power)  # noqa: E704
    def __matmul__(self, o): return self._binary(o, np.matmul, False)  # noqa: E704
    def __rmatmul__(self, o): return self._binary(o, np.matmul, True)  # noqa: E704
    def __and__(self, o): return self._binary(o, np.bitwise_and, False)  # noqa: E704
    def __rand__(self, o): return self._binary(o, np.bitwise_and, True)  # noqa: E704
    def __iand__(self, o): return self._inplace(o, np.bitwise_and)  # noqa: E704
    def __or__(self, o): return self._binary(o, np.bitwise_or, False)  # noqa: E704
    def __ror__(self, o): return self._binary(o, np.bitwise_or, True)  # noqa: E704
    def __ior__(self, o): return self._inplace(o, np.bitwise_or)  # noqa: E704
    def __xor__(self, o): return self._binary(o, np.bitwise_xor, False)  # noqa: E704
    def __rxor__(self, o): return self._binary(o, np.bitwise_xor, True)  # noqa: E704
    def __ixor__(self, o): return self._inplace(o, np.bitwise_xor)  # noqa: E704
    def __lshift__(self, o): return self._binary(o, np.left_shift, False)  # noqa: E704
    def __rlshift__(self, o): return self._binary(o, np.left_shift, True)  # noqa: E704
    def __ilshift__(self, o): return self._inplace(o, np.left_shift)  # noqa: E704
    def __rshift__(self, o): return self._binary(o, np.right_shift, False)  # noqa: E704
    def __rrshift__(self, o): return self._binary(o, np.right_shift, True)  # noqa: E704
    def __irshift__(self, o): return self._inplace(o, np.right_shift)  # noqa: E704
    def __lt__(self, o): return self._binary(o, np.less, False)  # noqa: E704
    def __le__(self, o): return self._binary(o, np.less_equal, False)  # noqa: E704
    def __gt__(self, o): return self._binary(o, np.greater, False)  # noqa: E704
    def __ge__(self, o): return self._binary(o, np.greater_equal, False)  # noqa: E704
    def __eq__(self, o): return self._binary(o, np.equal, False)  # type: ignore[override]  # noqa: E704
    def __ne__(self, o): return self._binary(o, np.not_equal, False)  # type: ignore[override]  # noqa: E704
    __hash__ = None  # type: ignore[assignment]  # elementwise ==, as NumPy and CuPy arrays
    def __neg__(self): return self._unary(np.negative)  # noqa: E301, E704
    def __pos__(self): return self._unary(np.positive)  # noqa: E704
    def __abs__(self): return self._unary(np.absolute)  # noqa: E704
    def __invert__(self): return self._unary(np.invert)  # noqa: E704

    # array methods: new device arrays (or views of this one), computed on the host
    def copy(self) -> DeviceArray:
        """A new array with the same contents (a device-to-device copy in CuPy; not a host copy)."""
        return _from_host(self._host(), self.device)

    def fill(self, value) -> None:
        """Set every element to ``value`` (cast as NumPy casts)."""
        self._host_write(np.full(self.shape, value, dtype=self.dtype))

    def astype(self, dtype, copy: bool = True) -> DeviceArray:
        """A new array converted to ``dtype`` as NumPy converts (this array itself for its own dtype and
        ``copy=False``)."""
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        with np.errstate(all="ignore"):
            return _from_host(self._host().astype(dtype), self.device)

    def reshape(self, *shape, order: str = "C") -> DeviceArray:
        """A view with another shape (one dimension may be -1), sharing this array's memory as CuPy's does."""
        if order not in ("C", "A"):
            raise ValueError(f"reshape: order={order!r} is not supported (device arrays are C-contiguous)")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        dims = [operator.index(s) for s in shape]
        if dims.count(-1) > 1 or any(d < -1 for d in dims):
            raise ValueError(f"reshape: invalid shape {tuple(shape)} (at most one -1, no other negative size)")
        known = math.prod(d for d in dims if d != -1)
        if -1 in dims and known and self.size % known == 0:
            dims[dims.index(-1)] = self.size // known
        if -1 in dims or math.prod(dims) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {tuple(shape)}")
        return DeviceArray(tuple(dims), self.dtype, self.device, ptr=self.ptr, _owner=self)

    def ravel(self, order: str = "C") -> DeviceArray:
        """A 1-D view (C order)."""
        return self.reshape(-1, order=order)

    def flatten(self) -> DeviceArray:
        """A 1-D copy."""
        return self.ravel().copy()

    def transpose(self, *axes) -> DeviceArray:
        """The axes reversed (or permuted as ``axes`` says): a new array holding a copy (CuPy returns a strided
        view; ndpgpu arrays are C-contiguous). A 0-d or 1-D array returns itself."""
        if self.ndim < 2 and not axes:
            return self
        return _from_host(self._host().transpose(*axes), self.device)

    T = property(transpose)

    def _reduce(self, name: str, axis, dtype, out, keepdims: bool, **extra) -> DeviceArray:
        if out is not None:
            raise TypeError(f"{name}: out= is not supported; use the returned device array")
        kwargs = {"axis": axis, "keepdims": keepdims, **extra}
        if dtype is not None:
            kwargs["dtype"] = dtype
        with np.errstate(all="ignore"):
            return _from_host(getattr(self._host(), name)(**kwargs), self.device)

    def sum(self, axis=None, dtype=None, out=None, keepdims: bool = False) -> DeviceArray:
        """The sum (NumPy's pairwise summation and result dtype) as a device array, 0-d without ``axis``."""
        return self._reduce("sum", axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims: bool = False) -> DeviceArray:
        return self._reduce("prod", axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims: bool = False) -> DeviceArray:
        return self._reduce("mean", axis, dtype, out, keepdims)

    def min(self, axis=None, out=None, keepdims: bool = False) -> DeviceArray:
        return self._reduce("min", axis, None, out, keepdims)

    def max(self, axis=None, out=None, keepdims: bool = False) -> DeviceArray:
        return self._reduce("max", axis, None, out, keepdims)

    def any(self, axis=None, out=None, keepdims: bool = False) -> DeviceArray:
        return self._reduce("any", axis, None, out, keepdims)

    def all(self, axis=None, out=None, keepdims: bool = False) -> DeviceArray:
        return self._reduce("all", axis, None, out, keepdims)

    def __repr__(self) -> str:
        label = f" label={self.label!r}" if self.label else ""
        return f"<ndpgpu.DeviceArray shape={self.shape} dtype={self.dtype} ptr={self.ptr:#x}{label}>"


class _MemoryPointer:
    def __init__(self, ptr: int):
        self.ptr = ptr


def _check_c_layout(dtype: np.dtype) -> None:
    """Reject structured dtypes whose layout cannot match a C struct."""
    if dtype.fields is None:
        return
    if not dtype.isalignedstruct:
        # an unaligned structured dtype may still match C if every field is naturally aligned
        pass
    max_align = 1
    for name, (ftype, offset, *_) in dtype.fields.items():
        _check_c_layout(ftype)
        align = ftype.alignment
        if offset % align:
            raise TypeError(
                f"structured dtype field {name!r} at offset {offset} is not aligned to {align} bytes, "
                "so it cannot match the C struct layout (use np.dtype(..., align=True))"
            )
        max_align = max(max_align, align)
    if dtype.itemsize % max_align:
        raise TypeError(
            f"structured dtype itemsize {dtype.itemsize} is not a multiple of its alignment {max_align}; "
            "C pads structs to their alignment (use np.dtype(..., align=True))"
        )


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides = []
    step = itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _from_host(host, device: Device) -> DeviceArray:
    """A new array on ``device`` holding ``host``, written without recording a copy (a result computed on the
    host stands for one a GPU computes in place)."""
    arr = np.asarray(host, order="C")
    out = DeviceArray(arr.shape, arr.dtype, device)
    out._host_write(arr)
    return out


def asarray(host, dtype=None) -> DeviceArray:
    """Copy a host array (or anything numpy accepts) to the current device. A device array of the current
    device with no other ``dtype`` requested is returned as it is (as CuPy does); another device's array, or
    one converted to another ``dtype``, is copied through the host (recorded as host copies)."""
    if isinstance(host, DeviceArray):
        if host.device is get_device() and (dtype is None or np.dtype(dtype) == host.dtype):
            return host
        host = host.get()
    arr = np.asarray(host, dtype=dtype, order="C")  # a 0-d array stays 0-d, as in CuPy
    dev = get_device()
    d = DeviceArray(arr.shape, arr.dtype, dev)
    d.set(arr)
    return d


def zeros(shape, dtype=np.float32) -> DeviceArray:
    """A zero-filled device array (fresh device memory is zero)."""
    return DeviceArray(shape, dtype)


def empty(shape, dtype=np.float32) -> DeviceArray:
    """An uninitialised device array (in the simulator its contents are zeros)."""
    return DeviceArray(shape, dtype)


# Array creation beyond zeros/empty, as CuPy names it. A GPU fills these with a kernel, so they are not host
# copies: computed on the host, nothing is recorded in Device.copies. zeros, empty and ones default to float32
# (CuPy's default is float64; kernels mostly take float*), full and arange take NumPy's dtype of their values.


def ones(shape, dtype=np.float32) -> DeviceArray:
    """A device array of ones."""
    return full(shape, 1, dtype)


def full(shape, fill_value, dtype=None) -> DeviceArray:
    """A device array filled with ``fill_value`` (of its NumPy dtype unless ``dtype`` is given)."""
    out = DeviceArray(shape, np.dtype(dtype) if dtype is not None else np.asarray(fill_value).dtype)
    out.fill(fill_value)
    return out


def _like(a) -> tuple[tuple[int, ...], np.dtype]:
    if isinstance(a, DeviceArray):
        return a.shape, a.dtype
    host = np.asarray(a)
    return host.shape, host.dtype


def empty_like(a, dtype=None, shape=None) -> DeviceArray:
    """An uninitialised array (zeros here) of ``a``'s shape and dtype (a device or host array)."""
    s, d = _like(a)
    return DeviceArray(s if shape is None else shape, d if dtype is None else dtype)


def zeros_like(a, dtype=None, shape=None) -> DeviceArray:
    """Zeros of ``a``'s shape and dtype."""
    return empty_like(a, dtype, shape)


def ones_like(a, dtype=None, shape=None) -> DeviceArray:
    """Ones of ``a``'s shape and dtype."""
    return full_like(a, 1, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None) -> DeviceArray:
    """``fill_value`` in ``a``'s shape and dtype."""
    out = empty_like(a, dtype, shape)
    out.fill(fill_value)
    return out


def arange(start, stop=None, step=1, dtype=None) -> DeviceArray:
    """``np.arange`` on the current device (NumPy's values and dtype)."""
    return _from_host(np.arange(start, stop, step, dtype=dtype), get_device())


def array(obj, dtype=None, copy: bool = True, ndmin: int = 0) -> DeviceArray:
    """A new device array from ``obj``: a host value is copied to the current device (a recorded host copy, as
    :func:`asarray`); a device array is copied on its device (no host copy)."""
    if isinstance(obj, DeviceArray):
        out = obj.astype(obj.dtype if dtype is None else dtype, copy=copy)
        while out.ndim < ndmin:
            out = out.reshape((1, *out.shape))
        return out
    return asarray(np.array(obj, dtype=dtype, ndmin=ndmin))


def asnumpy(a, stream=None, order: str = "C", out: np.ndarray | None = None) -> np.ndarray:
    """A host copy of a device array (recorded as a device-to-host copy, as :meth:`DeviceArray.get`); anything
    else as ``np.asarray`` makes it. With ``out``, the values are written into it and it is returned."""
    host = a.get() if isinstance(a, DeviceArray) else np.asarray(a, order=order)
    if out is None:
        return host
    out[...] = host
    return out


# ------------------------------------------------------------------------------------------------------
# Modules and kernels

class RawModule:
    """A CUDA C++ source, a .cu/.ptx file, or PTX text, compiled (nvcc, cached) and parsed.

    ``options`` are nvcc options (``-I``, ``-D``, ``-std=``, ``--use_fast_math``...); ``arch`` defaults to
    ``sm_75``. The compiled module is loaded into each device (its globals allocated) on first use.
    ``name_expressions`` (CuPy's): C++ names such as ``"scale<float>"`` or ``"ns::f<3>"``; templates among
    them are instantiated, and ``get_function``/``get_global`` accept them: the compiler resolves each one to
    its symbol (enum and typedef arguments included, as NVRTC does), and for PTX text they are matched by
    demangling the module's symbols (``frontend.demangle``). CuPy's ``backend``, ``translate_cucomplex``,
    ``enable_cooperative_groups`` and ``jitify`` are accepted and have no effect here (nvcc always compiles);
    any other keyword is a ``TypeError``.
    """

    def __init__(self, code: str | None = None, options: tuple[str, ...] | list[str] = (), *, path: str | None = None,
                 ptx: str | None = None, arch: str | None = None, name_expressions=None, backend: str = "nvcc",
                 translate_cucomplex: bool = False, enable_cooperative_groups: bool = False, jitify: bool = False):
        if sum(x is not None for x in (code, path, ptx)) != 1:
            raise ValueError("RawModule needs exactly one of code=, path= or ptx=")
        self.options = tuple(options)
        self.name_expressions = check_name_expressions(name_expressions)
        source_dir = None
        source_path = None
        filename = "kernel.cu"
        if path is not None:
            p = Path(path)
            if not p.exists():
                raise FileNotFoundError(f"RawModule: no such file {path}")
            if p.suffix == ".ptx":
                ptx = p.read_text()
            else:
                code = p.read_text()
                source_dir = p.parent
                source_path = p
                filename = p.name
        if ptx is not None:
            self.ptx = ptx
            self.nvcc_version = ""
            self.arch = arch or ptx_target(ptx) or ""
            self.registers_error: str | None = None
            try:
                self.registers = nvcc.ptx_registers(ptx, self.arch or None) if nvcc.nvcc_available() else {}
            except nvcc.ToolchainError:
                self.registers = {}
            except nvcc.CompileError as exc:  # runs functionally; timing needs the counts and says why not
                self.registers = {}
                self.registers_error = str(exc)
            self.source = None
        else:
            source = (code or "") + instantiations(self.name_expressions)
            if self.name_expressions and source_path is not None:  # the file, included where it is
                source = f'#include "{source_path.resolve()}"' + instantiations(self.name_expressions)
                source_path = None
            compiled = nvcc.compile_cuda(source, self.options, arch, filename, source_dir, source_path)
            self.ptx = compiled.ptx
            self.nvcc_version = compiled.nvcc_version
            self.arch = compiled.arch
            self.registers = compiled.registers
            self.registers_error = None
            self.source = code
        if ptx is not None:  # the .file entries name what they name
            self._source_map = lineinfo.SourceMap(self.ptx)
        elif source_path is not None:  # compiled where it is
            self._source_map = lineinfo.SourceMap(self.ptx, str(Path(source_path).resolve()), code)
        else:  # code= (or a file with name expressions, included by a temporary file): no file of its own
            self._source_map = lineinfo.SourceMap(self.ptx, nvcc.SOURCE_NAME, source, lineinfo.CODE_NAME)
        self.ir: Module = parse_ptx(self.ptx, source=filename if ptx is None else "<ptx>")
        self._ptx_lines = self.ptx.splitlines()
        self._loaded: dict[int, LoadedModule] = {}
        self._functions: dict[str, Function] = {}
        self._expressions = self._map_name_expressions()
        self._cpp_kernels: dict | None = None  # the source's kernel parameter names, read when first needed

    def _param_names(self, kernel: str, count: int) -> tuple[str | None, ...] | None:
        """The C++ names of ``kernel``'s parameters from the CUDA source (``frontend.cparams``); None for PTX
        given as text, or where the source does not tell them unambiguously."""
        if getattr(self, "source", None) is None:
            return None
        if getattr(self, "_cpp_kernels", None) is None:
            try:
                self._cpp_kernels = cparams.source_kernels(self.source)
            except Exception:  # a name is a nicety: an unreadable source leaves the PTX names
                self._cpp_kernels = {}
        return cparams.kernel_param_names(self._cpp_kernels, kernel, count)

    @property
    def kernel_names(self) -> list[str]:
        return list(self.ir.kernels)

    @property
    def source_map(self) -> lineinfo.SourceMap:
        """PTX line -> CUDA source line for this module (``.lookup(n)``; false when its PTX has no line info:
        PTX given without ``.loc`` directives, or ``NDPGPU_LINEINFO=0``)."""
        return self._source_map

    def source_line(self, ptx_line: int) -> lineinfo.SourceLine | None:
        """The CUDA file, line, column and text the instruction on ``ptx_line`` of :attr:`ptx` comes from
        (``str()`` gives ``k.cu:12 `text```; a ``code=`` source is named ``<code>``); None where the PTX has no
        line info. PTX line numbers are those errors, traces (``Program.line_of_pc``) and per-PC tables
        name."""
        return self._source_map.lookup(ptx_line)

    def _symbols(self) -> list[str]:
        return [*self.ir.kernels, *(n for n, v in self.ir.variables.items()
                                    if v.space in ("global", "const") and not n.startswith(NAME_EXPRESSION_PREFIX))]

    def _compiled_name(self, index: int) -> str | None:
        """The symbol nvcc put in name expression ``index``'s pointer (None for PTX given as text)."""
        if self.source is None:  # PTX text: its pointers (if any) belong to another list of expressions
            return None
        var = self.ir.variables.get(f"{NAME_EXPRESSION_PREFIX}{index}")
        items = [x for x in (var.init or []) if isinstance(x, tuple)] if var is not None else []
        return items[0][1] if len(items) == 1 and items[0][1] in self._symbols() else None

    def _map_name_expressions(self) -> dict[str, str]:
        """Each name expression -> the mangled symbol it names (by the demangled qualified name)."""
        if not self.name_expressions:
            return {}
        keys: dict[str, list[str]] = {}
        for sym in self._symbols():
            decl = demangle(sym)
            keys.setdefault(name_key(qualified_name(decl) if decl else sym), []).append(sym)
        out: dict[str, str] = {}
        for i, expr in enumerate(self.name_expressions):
            compiled = self._compiled_name(i)
            if compiled is not None:
                out[expr] = compiled
                continue
            found = keys.get(name_key(expr), [])
            if len(found) != 1:
                what = "matches no kernel or variable" if not found else f"matches {', '.join(found)}"
                raise ValueError(f"RawModule: name expression {expr!r} {what}; {self._closest(expr)} (template "
                                 "arguments are matched as the demangler spells them, e.g. an enum value as "
                                 "(Alg)1)")
            out[expr] = found[0]
        return out

    def _closest(self, expr: str, most: int = 8) -> str:
        """The module's symbols whose demangled names are most like ``expr`` (a long module, such as one
        including CUB, defines thousands)."""
        symbols = self._symbols()
        if not symbols:
            return "the module defines nothing"
        names = {s: qualified_name(demangle(s)) if demangle(s) else s for s in symbols}
        near = difflib.get_close_matches(expr, list(names.values()), n=most, cutoff=0.0)
        shown = [next(s for s, n in names.items() if n == name) for name in near]
        more = f" (of {len(symbols)})" if len(symbols) > len(shown) else ""
        return f"the closest it defines{more}: {', '.join(self._describe(s) for s in shown)}"

    @staticmethod
    def _describe(sym: str) -> str:
        decl = demangle(sym)
        return f"{sym} ({decl})" if decl else sym

    def _resolve(self, name: str, kinds, what: str = "kernel") -> str:
        table = kinds
        if name in table:
            return name
        expr = self._expressions.get(name) if hasattr(self, "_expressions") else None
        if expr is not None and expr in table:
            return expr
        matches = [k for k in table if name in demangled_names(k)]
        if not matches and "<" in name:  # a template instance by its C++ name
            key = name_key(name)
            matches = [k for k in table if (d := demangle(k)) and name_key(qualified_name(d)) == key]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise SymbolLookupError(f"{name!r} is ambiguous: it names {', '.join(matches)}; pass the mangled name")
        if not table:
            decl = "`.entry`" if what == "kernel" else "`.global` or `.const` variable"
            raise SymbolLookupError(f"no {what} {name!r} in the module: its PTX defines no {what} (no {decl}); check "
                                    "that the source or PTX given to RawModule is the intended one and not empty")
        raise SymbolLookupError(f"no kernel or variable {name!r} in the module; it defines "
                                f"{', '.join(self._describe(k) for k in table)} (pass one of these names, a "
                                "name expression given to RawModule, or a unique plain C++ name)")

    def get_function(self, name: str) -> Function:
        """A kernel by mangled name, by a name expression, or by plain C++ name when that is unique."""
        mangled = self._resolve(name, self.ir.kernels)
        if mangled not in self._functions:
            self._functions[mangled] = Function(self, mangled)
        return self._functions[mangled]

    def get_global(self, name: str) -> DeviceArray:
        """A ``__device__`` or ``__constant__`` variable of the current device, readable and writable."""
        variables = {n: v for n, v in self.ir.variables.items() if v.space in ("global", "const")}
        vname = self._resolve(name, variables, "variable")
        dev = get_device()
        loaded = self._load(dev)
        var = variables[vname]
        dtype = var_dtype(var.type.name)
        count = max(1, var.size // dtype.itemsize)
        return DeviceArray((count,), dtype, dev, ptr=loaded.symbols[vname])

    def _load(self, dev: Device) -> LoadedModule:
        loaded = self._loaded.get(dev.id)
        if loaded is None:
            loaded = LoadedModule(self, dev)
            self._loaded[dev.id] = loaded
        return loaded


class Function:
    """A kernel handle; call it as ``fn(grid, block, args, shared_mem=0)``."""

    def __init__(self, module: RawModule, name: str):
        self.module = module
        self.name = name
        self.kernel = module.ir.functions[name]

    @property
    def num_regs(self) -> int:
        """Registers per thread from ptxas (0 when no ptxas is installed).

        Raises :class:`CompileError` when ptxas rejected the module's PTX: timing a kernel whose register
        count is unknown would silently assume unbounded occupancy."""
        error = getattr(self.module, "registers_error", None)
        if error is not None:
            raise nvcc.CompileError(f"{self.name}: {error}")
        return int(self.module.registers.get(self.name, 0))

    @property
    def attributes(self) -> dict[str, int]:
        """CuPy's attribute dictionary (cudaFuncAttributes)."""
        return {name: getattr(self, name) for name in (
            "binary_version", "cache_mode_ca", "const_size_bytes", "local_size_bytes", "max_dynamic_shared_size_bytes",
            "max_threads_per_block", "num_regs", "preferred_shared_memory_carveout", "ptx_version",
            "shared_size_bytes")}

    @property
    def max_threads_per_block(self) -> int:
        """The largest block this kernel launches with: 1024, its ``__launch_bounds__``, and what the register
        file holds at its register count (as :func:`check_resources` enforces)."""
        limit = MAX_THREADS_PER_BLOCK
        bounds = self.kernel.directives.get("maxntid") or self.kernel.directives.get("reqntid")
        if bounds:
            limit = min(limit, math.prod(bounds))
        regs = self.module.registers.get(self.name)
        if regs:
            limit = min(limit, REGISTERS_PER_SM // warp_registers(regs) * 32)
        return limit

    @property
    def shared_size_bytes(self) -> int:
        """Static ``__shared__`` bytes."""
        return int(self.module._load(get_device()).program(self.name)[1])

    @property
    def local_size_bytes(self) -> int:
        return int(self.module._load(get_device()).program(self.name)[0].local_bytes)

    @property
    def const_size_bytes(self) -> int:
        """Bytes of the module's ``__constant__`` variables."""
        return sum(v.size for v in self.module.ir.variables.values() if v.space == "const")

    @property
    def ptx_version(self) -> int:
        """The PTX ISA version of the module, as CUDA reports it (9.0 -> 90)."""
        m = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", self.module.ptx, re.M)
        return int(m.group(1)) * 10 + int(m.group(2)) if m else 0

    @property
    def binary_version(self) -> int:
        """The target architecture (sm_80 -> 80)."""
        return int(re.sub(r"\D", "", self.module.arch or "") or 0)

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        """CUDA's default, 48 KiB less the static shared memory, until set (as CuPy code does before launching
        with more, CUDA's cudaFuncSetAttribute): a launch with more dynamic shared memory is refused."""
        return getattr(self, "_max_dynamic_shared", MAX_STATIC_SHARED - self.shared_size_bytes)

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise TypeError(f"{self.name}: max_dynamic_shared_size_bytes must be an int number of bytes, got "
                            f"{value!r}")
        top = shared_limit(self.module.arch) - self.shared_size_bytes
        if not 0 <= operator.index(value) <= top:
            raise ValueError(f"{self.name}: max_dynamic_shared_size_bytes = {value} is outside 0 to {top} "
                             f"({self.module.arch or 'sm_75'}'s per-block limit less the kernel's static "
                             "shared memory)")
        self._max_dynamic_shared = operator.index(value)

    cache_mode_ca = 0
    preferred_shared_memory_carveout = -1  # settable as in CuPy; a hint without effect here

    def program(self, device: Device | None = None) -> Program:
        """The decoded program of this kernel for ``device`` (the current one by default)."""
        return self.module._load(device or get_device()).program(self.name)[0]

    def source_map(self, device: Device | None = None) -> dict[int, lineinfo.SourceLine]:
        """PC -> CUDA source line of each instruction of the decoded program (:meth:`program`) that has one:
        the PCs of traces and of ``LaunchStats.per_pc`` (``ndpgpu.frontend.lineinfo.pc_table_with_source``
        prints the per-PC table with this column)."""
        lines = self.program(device).line_of_pc
        out = {}
        for pc, ln in enumerate(lines):
            loc = self.module.source_line(int(ln)) if ln else None
            if loc is not None:
                out[pc] = loc
        return out

    def _pointers(self, prog: Program, dev: Device, raws: list[bytes]) -> dict[int, tuple[Any, str]]:
        """PC -> (allocation, parameter) for each global access whose address comes from one pointer parameter
        that points into a live allocation (bounds checking: an access outside it is reported)."""
        if not hasattr(self, "_pointer_lines"):
            self._pointer_lines = param_pointers(self.kernel)
        index = {p.name: i for i, p in enumerate(self.kernel.params)}
        allocs = {}
        for name in set(self._pointer_lines.values()):
            raw = raws[index[name]]
            value = int.from_bytes(raw[:8], "little") if len(raw) == 8 else -1
            alloc = dev.memory.nearest_below(value)
            if alloc is not None and alloc.address <= value < alloc.end:
                allocs[name] = alloc
        out = {}
        for pc, line in enumerate(prog.line_of_pc):
            name = self._pointer_lines.get(int(line))
            if name in allocs:
                out[pc] = (allocs[name], name)
        return out

    def __call__(self, grid, block, args, shared_mem: int = 0, stream=None, *, trace: bool | None = None,
                 record_regs: dict[int, int] | None = None) -> None:
        """Launch on the current device; returns None like CuPy (the launch's :class:`LaunchResult`, with its
        trace, is ``Device.launches[-1]``; its timing statistics, with a machine, ``Device.launch_stats[-1]``)."""
        dev = get_device()
        grid3 = dims(grid, "grid")
        block3 = dims(block, "block")
        check_dimensions(self.name, grid3, block3)  # before the kernel is decoded
        if not isinstance(args, (tuple, list)):
            raise TypeError("kernel arguments must be a tuple or list")
        params = self.kernel.params
        if len(args) != len(params):
            raise TypeError(f"{self.name} takes {len(params)} arguments, {len(args)} were given")
        for a in args:
            if isinstance(a, DeviceArray) and a.device is not dev:
                raise ValueError(f"{self.name}: an argument belongs to {a.device}, not the current {dev}")
        buf = bytearray()
        names = self.module._param_names(self.name, len(params)) or (None,) * len(params)
        raws = []
        for i, (p, a) in enumerate(zip(params, args, strict=True)):
            raw = pack_arg(p, a, i, self.name, names[i])
            raws.append(raw)
            al = p.alignment
            buf += b"\0" * ((-len(buf)) % al)
            buf += raw
        loaded = self.module._load(dev)
        prog, static = loaded.program(self.name)
        check_shared_memory(self.name, int(static), shared_mem_bytes(self.name, shared_mem),
                            self.module.arch or "sm_75",
                            getattr(self, "_max_dynamic_shared", MAX_STATIC_SHARED - int(static)))
        check_resources(self.name, block3, self.kernel.directives, self.module.registers.get(self.name))
        if prog.grid_sync:
            check_cooperative(self.name, grid3, block3, self.module.arch or "sm_75", dev.num_sms,
                              self.module.registers.get(self.name))
        if shared_mem and not _uses_dynamic_shared(self.module.ir, self.name):
            pass  # allowed: CUDA accepts unused dynamic shared memory
        options = dev.options
        do_trace = dev.trace if trace is None else trace
        regs_per_thread = self.num_regs if do_trace else 0  # a trace is for timing: its count must be known
        opts = LaunchOptions(**{**options.__dict__, "trace": do_trace, "record_regs": record_regs or {}})
        per_sm = ctas_per_sm(self.module.arch or "sm_75", block3, self.module.registers.get(self.name),
                             int(static) + operator.index(shared_mem))  # the device's residency, by default
        pointers = self._pointers(prog, dev, raws) if opts.bounds_check else None
        result = execute(prog, dev.memory, grid3, block3, bytes(buf), operator.index(shared_mem), static, opts,
                         launch_id=len(dev.launches), source_lines=self.module._ptx_lines,
                         source_map=self.module.source_map, pc_pointers=pointers,
                         residency=(dev.num_sms, per_sm))
        if result.trace is not None:
            result.trace.launch.regs_per_thread = regs_per_thread
            result.trace.launch.nvcc_version = self.module.nvcc_version
            result.trace.launch.arch = self.module.arch
            dev.traces.append(result.trace)
            dev.trace_source_maps.append(self.module.source_map)
        dev.launches.append(result)
        if result.printf:
            dev.printf_output.extend(result.printf)
            if dev.echo_printf:
                sys.stdout.write("".join(result.printf))
        if result.bounds_violations:
            v = result.bounds_violations
            first = v[0]
            at = f"{first['source']} (PTX line {first['line']})" if first.get("source") else \
                f"PTX line {first['line']}"
            raise BoundsCheckError(
                f"{self.name}: {len(v)} access(es) outside their allocation; first at {at}, "
                f"block {first['block']}, thread {first['thread']}, address {first['address']:#x}"
                f" ({first['where']})", v)
        if dev.measurement is not None and result.trace is not None:
            dev.launch_stats.append(dev.measurement.launch(result.trace))


def _uses_dynamic_shared(ir: Module, kernel: str) -> bool:
    return any(v.space == "shared" and (v.extern or (v.array and v.array[0] == 0)) for v in ir.variables.values())


class RawKernel(Function):
    """Single-kernel shorthand: ``RawKernel(code, name, options=())``."""

    def __init__(self, code: str, name: str, options: tuple[str, ...] | list[str] = (), **kwargs: Any):
        module = RawModule(code=code, options=options, **kwargs)
        mangled = module._resolve(name, module.ir.kernels)
        super().__init__(module, mangled)
