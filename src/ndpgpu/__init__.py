"""ndpgpu: simulate GPUs whose computation moves closer to its data.

The public API follows CuPy's RawModule/RawKernel conventions; see :mod:`ndpgpu.api`.
"""

from . import _numba_cache  # noqa: F401  (first: stamps numba's cache with each engine's import closure)
from .api import (
    Device,
    DeviceArray,
    Function,
    LaunchConfigError,
    RawKernel,
    RawModule,
    SymbolLookupError,
    UnsupportedPTX,
    asarray,
    empty,
    get_device,
    zeros,
)
from .frontend.nvcc import CompileError, ToolchainError
from .frontend.parser import PTXParseError
from .functional.launch import (
    BarrierDeadlock,
    BoundsCheckError,
    IndependentThreadSchedulingRequired,
    InstructionBudgetExceeded,
    KernelError,
    KernelTrap,
    LaunchOptions,
    MemoryFault,
    MisalignedAccess,
)
from .functional.memory import DeviceMemoryError

__version__ = "0.1.0"

__all__ = [
    "Device", "DeviceArray", "LaunchConfigError", "LaunchOptions",
    "Function", "RawKernel", "RawModule", "UnsupportedPTX", "asarray", "empty",
    "get_device", "zeros", "CompileError", "ToolchainError", "PTXParseError", "BarrierDeadlock",
    "BoundsCheckError", "IndependentThreadSchedulingRequired", "InstructionBudgetExceeded", "KernelError",
    "KernelTrap", "MemoryFault", "MisalignedAccess", "DeviceMemoryError", "SymbolLookupError", "__version__",
]
