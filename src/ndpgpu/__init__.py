"""ndpgpu: simulate GPUs whose computation moves closer to its data.

The public API follows CuPy's RawModule/RawKernel conventions; see :mod:`ndpgpu.api`. Its names load on first
use (PEP 562), so ``import ndpgpu`` and ``ndpgpu --version`` load no engine; every module that compiles with
numba imports :mod:`ndpgpu._numba_cache` first, whichever way it is reached.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    ".api": ("Device", "DeviceArray", "Function", "LaunchConfigError", "RawKernel", "RawModule", "SymbolLookupError",
             "UnsupportedPTX", "arange", "array", "asarray", "asnumpy", "empty", "empty_like", "full", "full_like",
             "get_device", "ones", "ones_like", "zeros", "zeros_like"),
    ".frontend.nvcc": ("CompileError", "ToolchainError"),
    ".frontend.parser": ("PTXParseError",),
    ".functional.launch": ("BarrierDeadlock", "BoundsCheckError", "IndependentThreadSchedulingRequired",
                           "InstructionBudgetExceeded", "KernelError", "KernelTrap", "LaunchOptions", "MemoryFault",
                           "MisalignedAccess"),
    ".functional.memory": ("DeviceMemoryError",),
    ".experiments.explore": ("explore",),  # ndpgpu.explore("k.yaml"): every mechanism on one kernel
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

# NumPy's scalar types and constants, re-exported as CuPy re-exports them (``ndpgpu.float32 is np.float32``)
_NUMPY_NAMES = frozenset((
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
    "float64", "complex64", "complex128", "intp", "uintp", "byte", "ubyte", "short", "ushort", "intc", "uintc",
    "int_", "uint", "longlong", "ulonglong", "half", "single", "double", "csingle", "cdouble", "dtype", "finfo",
    "iinfo", "generic", "number", "integer", "signedinteger", "unsignedinteger", "floating", "complexfloating",
    "inexact", "result_type", "promote_types", "can_cast", "newaxis", "pi", "e", "inf", "nan",
))

__all__ = [*_WHERE, "__version__"]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None and name in _NUMPY_NAMES:
        import numpy

        value = getattr(numpy, name)
        globals()[name] = value
        return value
    if module is None:
        if name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module 'ndpgpu' has no attribute {name!r}")
        return importlib.import_module(f".{name}", __name__)  # a subpackage, as `import ndpgpu.api` gives
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, *_NUMPY_NAMES})
