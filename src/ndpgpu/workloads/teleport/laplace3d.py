"""LPS: Laplace 3D Jacobi sweeps (GPGPU-Sim ISPASS-2009 laplace3d's algorithm), analysis-only in TELEPORT."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, ceil_div, spec


def laplace_reference(u: np.ndarray, iterations: int) -> np.ndarray:
    """Sweeps in float32 with the kernel's summation order (bit-exact)."""
    sixth = np.float32(1.0) / np.float32(6.0)
    u = u.copy()
    for _ in range(iterations):
        new = u.copy()
        c = (slice(1, -1),) * 3
        s = (((u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) + u[1:-1, :-2, 1:-1]) + u[1:-1, 2:, 1:-1]) + u[:-2, 1:-1, 1:-1]
        new[c] = (s + u[2:, 1:-1, 1:-1]) * sixth
        u = new
    return u


@register
class Laplace3d(TeleportWorkload):
    name = "tp_laplace3d"
    kernel = "laplace3d"
    description = (
        "TELEPORT LPS, Laplace 3D: Jacobi sweeps of an nx x ny x nz float grid (interior points the mean of "
        "their six neighbours, boundary copied), 32 x 4 blocks over x-y, each thread marching along z; one "
        "launch per sweep. In the paper's analysis only"
    )
    deviations = (
        "Written after the algorithm of M. Giles's laplace3d (GPGPU-Sim ISPASS-2009 suite). The input is the "
        "original's (boundary 1.0) with a uniform [0, 1) interior instead of 0. The paper gives no size; paper "
        "scale uses 100^3 and 10 sweeps."
    )
    sources = ("laplace3d.cu",)
    scales = {
        "tiny": {"n": (40, 24, 16), "iterations": 2},
        "small": {"n": (64, 64, 64), "iterations": 4},
        "paper": {"n": (100, 100, 100), "iterations": 10},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        nx, ny, nz = p["n"]
        u = np.ones((nz, ny, nx), dtype=np.float32)
        u[1:-1, 1:-1, 1:-1] = rng.random((nz - 2, ny - 2, nx - 2), dtype=np.float32)
        return {"u": u}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        nx, ny, nz = p["n"]
        a = ndpgpu.asarray(inp["u"])
        b = ndpgpu.zeros((nz, ny, nx), np.float32)
        fn = ctx.module.get_function("laplace3d")
        for _ in range(p["iterations"]):
            fn((ceil_div(nx, 32), ceil_div(ny, 4)), (32, 4), (np.int32(nx), np.int32(ny), np.int32(nz), a, b))
            a, b = b, a
        return {"u": a.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"u": laplace_reference(inp["u"], p["iterations"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        nx, ny, nz = p["n"]
        return {"u": spec((nz, ny, nx), np.float32)}
