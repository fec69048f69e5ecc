"""Device arrays (CuPy's ``ndarray`` subset) and the constructors that make them on the current device."""

from __future__ import annotations

import math
import operator
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..functional.memory import DeviceMemoryError

__all__ = ["DeviceArray", "asarray", "zeros", "empty", "ones", "full", "empty_like", "zeros_like", "ones_like",
           "full_like", "arange", "array", "asnumpy"]


from .device import Device, get_device


def _caller_site() -> str:
    """``file.py:12``: the first frame on the stack outside the ndpgpu package (the user's call)."""
    package = str(Path(__file__).parent.parent)  # ndpgpu/, not ndpgpu/host/
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


