"""JAC: Jacobi 3 x 3 smoothing after the PGI accelerator example; global-memory and hand-written versions."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, grid2d, spec


def jacobi_reference(u: np.ndarray, iterations: int) -> np.ndarray:
    """The sweeps in float32 with the kernel's summation order (so the result is bit-exact)."""
    u = u.copy()
    ninth = np.float32(1.0 / 9.0)
    for _ in range(iterations):
        a = u[:-2, :-2] + u[:-2, 1:-1]
        b = u[:-2, 2:] + u[1:-1, :-2]
        c = u[1:-1, 2:] + u[2:, :-2]
        d = u[2:, 1:-1] + u[2:, 2:]
        new = u.copy()
        new[1:-1, 1:-1] = (((a + b) + (c + d)) + u[1:-1, 1:-1]) * ninth
        u = new
    return u


@register
class Jacobi(TeleportWorkload):
    name = "tp_jacobi"
    kernel = "jacobi"
    description = (
        "TELEPORT JAC, Baseline/TELEPORT kernel: Jacobi smoothing of an n x n float grid, each interior "
        "point the mean of its 3 x 3 neighbourhood (nine global loads), boundary copied; 16 x 16 blocks, "
        "one launch per sweep"
    )
    deviations = (
        "Written after the paper's description (nine-point smoothing, 16 x 16 tiles) of the PGI Jacobi "
        "example; the grid size and sweep count are not given, paper scale uses 1024 x 1024 and 10 sweeps. "
        "Input: uniform [0, 1) interior with a hot (1.0) top edge."
    )
    sources = ("jacobi.cu",)
    scales = {
        "tiny": {"n": 96, "iterations": 3},
        "small": {"n": 512, "iterations": 4},
        "paper": {"n": 1024, "iterations": 10},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        u = rng.random((p["n"], p["n"]), dtype=np.float32)
        u[0, :] = 1.0
        return {"u": u}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        a = ndpgpu.asarray(inp["u"])
        b = ndpgpu.zeros((n, n), np.float32)
        fn = ctx.module.get_function(self.kernel)
        for _ in range(p["iterations"]):
            fn(grid2d(n, n), (16, 16), (a, b, np.int32(n)))
            a, b = b, a
        return {"u": a.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"u": jacobi_reference(inp["u"], p["iterations"])}  # same float32 operations and order: exact

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"u": spec((p["n"], p["n"]), np.float32)}


@register
class JacobiShared(Jacobi):
    name = "tp_jacobi_shared"
    kernel = "jacobi_shared"
    variant = "shared"
    description = (
        "TELEPORT JAC, hand-written version: each 16 x 16 block stages its 18 x 18 halo tile in shared "
        "memory ((16+2)^2 global loads instead of 16*16*9), then smooths from there"
    )
