"""Helpers shared by the built-in and corpus workloads (host-side only; no simulator state)."""

from __future__ import annotations

from typing import Any

import numpy as np

OutputSpecs = dict[str, tuple[tuple[int, ...], np.dtype]]


def ceil_div(a: int, b: int) -> int:
    """Ceiling of ``a / b`` for positive integers."""
    return -(-a // b)


def spec(shape: tuple[int, ...] | int, dtype: Any) -> tuple[tuple[int, ...], np.dtype]:
    """One entry of a workload's ``output_specs``: the shape and dtype an output has."""
    if isinstance(shape, int):
        shape = (shape,)
    return tuple(int(s) for s in shape), np.dtype(dtype)


def set_global(module: Any, name: str, host: np.ndarray) -> None:
    """Copy ``host`` into the ``__constant__``/``__device__`` variable ``name`` of ``module``.

    The device array ``get_global`` returns may be typed as PTX declares it (often ``.b8`` bytes), so the
    host bytes are reinterpreted as its dtype and shape before the copy.
    """
    g = module.get_global(name)
    raw = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
    dtype = np.dtype(getattr(g, "dtype", np.uint8))
    shape = tuple(getattr(g, "shape", (raw.size // dtype.itemsize,)))
    g.set(raw.view(dtype).reshape(shape))


def device_view(host: np.ndarray, dtype: Any) -> np.ndarray:
    """Reinterpret an array copied back from the device as ``dtype`` (e.g. bytes as a struct array)."""
    arr = np.ascontiguousarray(host)
    dtype = np.dtype(dtype)
    if arr.dtype == dtype:
        return arr
    return arr.reshape(-1).view(np.uint8).view(dtype)


def wrap_int32(x: np.ndarray | int) -> np.ndarray:
    """Reduce integers modulo 2**32 into int32, as 32-bit two's-complement hardware does."""
    return np.asarray(x, dtype=np.int64).astype(np.int32)


def launch_matmul_16x16(ctx, kernel: str, inp: dict, n: int) -> dict:
    """Run ``kernel(A, B, C, n)`` over 16x16 blocks covering an n x n output; return ``{"C": C}``."""
    import ndpgpu

    a = ndpgpu.asarray(inp["A"])
    b = ndpgpu.asarray(inp["B"])
    c = ndpgpu.zeros((n, n), np.float32)
    grid = (ceil_div(n, 16), ceil_div(n, 16))
    ctx.module.get_function(kernel)(grid, (16, 16), (a, b, c, np.int32(n)))
    return {"C": c.get()}
