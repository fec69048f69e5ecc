"""FWT: CUDA SDK fastWalshTransform, a dyadic convolution through three fast Walsh-Hadamard transforms."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec

ELEMENTARY_LOG2SIZE = 11
THREAD_N = 256
MODULATE_GRID = 128


def _radix4(x: np.ndarray, stride: int) -> np.ndarray:
    """One radix-4 butterfly stage with ``stride`` over every aligned group of ``4 * stride`` elements."""
    g = x.reshape(-1, 4, stride)
    d0, d1, d2, d3 = g[:, 0], g[:, 1], g[:, 2], g[:, 3]
    a0, a2 = d0 + d2, d0 - d2
    a1, a3 = d1 + d3, d1 - d3
    return np.stack([a0 + a1, a0 - a1, a2 + a3, a2 - a3], axis=1).reshape(-1)


def _radix2(x: np.ndarray, stride: int) -> np.ndarray:
    g = x.reshape(-1, 2, stride)
    return np.stack([g[:, 0] + g[:, 1], g[:, 0] - g[:, 1]], axis=1).reshape(-1)


def fwt(x: np.ndarray, log2n: int) -> np.ndarray:
    """The transform in float32 with the GPU's exact stage order (global radix-4 stages, then the shared
    kernel's optional radix-2 stage and radix-4 stages)."""
    x = x.astype(np.float32, copy=True)
    n = 1 << log2n
    while log2n > ELEMENTARY_LOG2SIZE:
        x = _radix4(x, n // 4)
        log2n -= 2
        n >>= 2
    stride = n
    if log2n & 1:
        stride >>= 1
        x = _radix2(x, stride)
    stride >>= 2
    while stride > 0:
        x = _radix4(x, stride)
        stride >>= 2
    return x


@register
class FastWalsh(Workload):
    name = "fastwalsh"
    suite = "tom"
    papers = ("TOM", "TELEPORT")
    description = (
        "CUDA SDK fastWalshTransform: dyadic convolution of a 2^log2_data signal with a 2^log2_kernel "
        "kernel; global radix-4 stages for large strides, a shared-memory kernel for the last 11 levels"
    )
    deviations = (
        "Kernels written fresh after the SDK sample's algorithm (same stage split and launch shapes: "
        "256-thread global stages, N/4-thread shared batches, modulate on 128x256 threads). The CPU "
        "check of the SDK sample is replaced by a NumPy transform with the same butterfly order."
    )
    sources = ("fastwalsh.cu",)
    scales = {
        "tiny": {"log2_data": 13, "log2_kernel": 7},
        "small": {"log2_data": 17, "log2_kernel": 7},
        "paper": {"log2_data": 23, "log2_kernel": 7},  # the SDK sample's defaults
    }
    # only additions, subtractions and products by a power of two: the reference is bit-exact

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {
            "data": rng.random(1 << p["log2_data"], dtype=np.float32),
            "kernel": rng.random(1 << p["log2_kernel"], dtype=np.float32),
        }

    def _transform(self, ctx: RunContext, d: Any, log2n: int) -> None:
        """The SDK's fwtBatchGPU on one signal (in place)."""
        batches, n = 1, 1 << log2n
        stage = ctx.module.get_function("fwt_global_radix4")
        while log2n > ELEMENTARY_LOG2SIZE:
            stage(((n // 4) // THREAD_N, batches), THREAD_N, (d, d, np.int32(n // 4)))
            log2n -= 2
            n >>= 2
            batches <<= 2
        ctx.module.get_function("fwt_shared")(batches, n // 4, (d, d, np.int32(log2n)), shared_mem=n * 4)

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        log2n = p["log2_data"]
        n = 1 << log2n
        padded = np.zeros(n, dtype=np.float32)
        padded[: inp["kernel"].size] = inp["kernel"]
        data = ndpgpu.asarray(inp["data"])
        kernel = ndpgpu.asarray(padded)
        self._transform(ctx, data, log2n)
        self._transform(ctx, kernel, log2n)
        ctx.module.get_function("fwt_modulate")(MODULATE_GRID, THREAD_N, (data, kernel, np.int32(n)))
        self._transform(ctx, data, log2n)
        return {"result": data.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        log2n = p["log2_data"]
        n = 1 << log2n
        padded = np.zeros(n, dtype=np.float32)
        padded[: inp["kernel"].size] = inp["kernel"]
        spectrum = fwt(inp["data"], log2n)
        kspec = fwt(padded, log2n)
        rcp = np.float32(1.0) / np.float32(n)
        return {"result": fwt(spectrum * (kspec * rcp), log2n)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"result": spec(1 << p["log2_data"], np.float32)}
