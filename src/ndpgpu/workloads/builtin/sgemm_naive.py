"""Naive SGEMM, exactly as GPGPU-Sim ran it for the reference figures (16x16 blocks)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, launch_matmul_16x16, spec


def gpgpusim_matrices(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The reference inputs: ``A[i] = (i*7) % 13 - 6``, ``B[i] = (i*5) % 11 - 5`` (row-major)."""
    i = np.arange(n * n, dtype=np.int64)
    a = ((i * 7) % 13 - 6).astype(np.float32).reshape(n, n)
    b = ((i * 5) % 11 - 5).astype(np.float32).reshape(n, n)
    return a, b


@register
class SgemmNaive(Workload):
    name = "sgemm_naive"
    suite = "builtin"
    description = "C = A @ B, one thread per output, 16x16 blocks (the GPGPU-Sim reference matmul)"
    sources = ("sgemm_naive.cu",)
    # "gpgpusim" is the exact launch of the reference figures (n = 256, a 16x16 grid).
    scales = {"tiny": {"n": 40}, "small": {"n": 256}, "paper": {"n": 512}, "gpgpusim": {"n": 256}}
    # Inputs are small integers: every partial sum is an integer below 2^24, so float32 is exact.

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        a, b = gpgpusim_matrices(p["n"])
        return {"A": a, "B": b}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return launch_matmul_16x16(ctx, "matmul", inp, p["n"])

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        c = inp["A"].astype(np.int64) @ inp["B"].astype(np.int64)
        return {"C": c.astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"C": spec((p["n"], p["n"]), np.float32)}
