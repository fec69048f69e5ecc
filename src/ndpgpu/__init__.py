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
             "UnsupportedPTX", "asarray", "empty", "get_device", "zeros"),
    ".frontend.nvcc": ("CompileError", "ToolchainError"),
    ".frontend.parser": ("PTXParseError",),
    ".functional.launch": ("BarrierDeadlock", "BoundsCheckError", "IndependentThreadSchedulingRequired",
                           "InstructionBudgetExceeded", "KernelError", "KernelTrap", "LaunchOptions", "MemoryFault",
                           "MisalignedAccess"),
    ".functional.memory": ("DeviceMemoryError",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [*_WHERE, "__version__"]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        if name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module 'ndpgpu' has no attribute {name!r}")
        return importlib.import_module(f".{name}", __name__)  # a subpackage, as `import ndpgpu.api` gives
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
