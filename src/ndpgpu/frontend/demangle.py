"""C++ symbol demangling with the C++ runtime's own demangler (libstdc++'s ``abi::__cxa_demangle``).

nvcc mangles device symbols with the Itanium C++ ABI, as g++ does; g++ (nvcc's host compiler, which ndpgpu
requires) ships libstdc++, whose demangler is the reference implementation of that ABI (binutils' ``c++filt``
and CUDA's ``cu++filt`` decode the same scheme). :func:`name_key` reduces a demangled name or a CuPy-style
name expression (``"scale<float>"``, ``"ns::f<int, 3>"``) to one comparable form.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import re


class DemanglerUnavailable(RuntimeError):
    """No C++ runtime with ``__cxa_demangle`` could be loaded."""


@functools.cache
def _runtime() -> tuple[ctypes._CFuncPtr, ctypes._CFuncPtr]:
    names = ["libstdc++.so.6", ctypes.util.find_library("stdc++"), "libc++.so.1", "libc++abi.so.1"]
    for name in filter(None, names):
        try:
            lib = ctypes.CDLL(name)
            fn = lib.__cxa_demangle
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_int)]
        free = ctypes.CDLL(None).free
        free.argtypes = [ctypes.c_void_p]
        return fn, free
    raise DemanglerUnavailable("no C++ runtime (libstdc++) with __cxa_demangle found: install g++ (nvcc needs it "
                               "anyway) to use name_expressions")


@functools.cache
def demangle(symbol: str) -> str | None:
    """The C++ declaration ``symbol`` names (``void scale<float>(float*, int)``), or None when it is not a
    mangled C++ name (an ``extern "C"`` kernel, a PTX label)."""
    if not symbol.startswith("_Z"):
        return None
    fn, free = _runtime()
    status = ctypes.c_int(0)
    ptr = fn(symbol.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode()
    finally:
        free(ptr)


def qualified_name(declaration: str) -> str:
    """The function's qualified name with its template arguments, without return type and parameters:
    ``void ns::scale<float, 3>(float*, int)`` -> ``ns::scale<float, 3>``."""
    depth = 0
    end = len(declaration)
    for i in range(len(declaration) - 1, -1, -1):  # the parameter list is the last top-level (...)
        ch = declaration[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                end = i
                break
    head = declaration[:end]
    depth = 0
    for i in range(len(head) - 1, -1, -1):  # the return type ends at the last top-level space
        ch = head[i]
        if ch in ">)":
            depth += 1
        elif ch in "<(":
            depth -= 1
        elif ch == " " and depth == 0:
            return head[i + 1:]
    return head


def name_key(text: str) -> str:
    """A name expression or qualified name in a comparable form: no spaces, no leading ``::`` or ``&``,
    integer template arguments without a cast or suffix (``(int)3``, ``3u`` -> ``3``)."""
    s = re.sub(r"\s+", "", text).lstrip("&")
    s = s.removeprefix("::")
    s = re.sub(r"\((?:unsigned|int|long|short|char|bool|unsignedint|unsignedlong)+\)(-?\d+)", r"\1", s)
    s = re.sub(r"(?<=[<,])(-?\d+)(?:u|l|ul|lu|ll|ull)\b", r"\1", s, flags=re.I)
    return s
