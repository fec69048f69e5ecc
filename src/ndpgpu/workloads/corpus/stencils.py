"""1D (shared-memory halo), 2D 5-point Jacobi and 3D 7-point stencils."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

RADIUS = 3


@register
class Stencil1D(Workload):
    name = "stencil1d"
    suite = "corpus"
    description = "1D radius-3 box stencil through a shared-memory tile with halos (dynamic shared memory)"
    sources = ("stencils.cu",)
    scales = {
        "tiny": {"n": 5000, "block": 128},
        "small": {"n": 1 << 18, "block": 256},
        "paper": {"n": 1 << 22, "block": 256},
    }
    # The reference adds the same float32 values in the kernel's order: bit-exact.

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"x": rng.uniform(-1, 1, size=p["n"]).astype(np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n, block = p["n"], p["block"]
        x = ndpgpu.asarray(inp["x"])
        y = ndpgpu.zeros(n, np.float32)
        shared = (block + 2 * RADIUS) * 4
        ctx.module.get_function("stencil1d")(
            ceil_div(n, block), block, (x, y, np.int32(n)), shared_mem=shared
        )
        return {"y": y.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        padded = np.zeros(n + 2 * RADIUS, dtype=np.float32)
        padded[RADIUS : RADIUS + n] = inp["x"]
        s = np.zeros(n, dtype=np.float32)
        for o in range(2 * RADIUS + 1):
            s = s + padded[o : o + n]
        return {"y": s}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"y": spec(p["n"], np.float32)}


def jacobi_step(a: np.ndarray) -> np.ndarray:
    """One sweep of ``jacobi2d`` in float32, in the kernel's order of additions."""
    out = a.copy()
    c = a[1:-1, 1:-1]
    s = c + a[1:-1, :-2]
    s = s + a[1:-1, 2:]
    s = s + a[:-2, 1:-1]
    s = s + a[2:, 1:-1]
    out[1:-1, 1:-1] = np.float32(0.2) * s
    return out


@register
class Jacobi2D(Workload):
    name = "jacobi2d"
    suite = "corpus"
    description = "2D 5-point Jacobi, ping-pong buffers over several host-side iterations"
    sources = ("stencils.cu",)
    scales = {
        "tiny": {"nx": 67, "ny": 45, "iters": 3},
        "small": {"nx": 512, "ny": 384, "iters": 5},
        "paper": {"nx": 2048, "ny": 2048, "iters": 10},
    }
    # Same float32 operations in the same order (no multiply-add to contract): bit-exact.

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"grid": rng.random((p["ny"], p["nx"]), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        nx, ny = p["nx"], p["ny"]
        a = ndpgpu.asarray(inp["grid"])
        b = ndpgpu.zeros((ny, nx), np.float32)
        fn = ctx.module.get_function("jacobi2d")
        grid = (ceil_div(nx, 16), ceil_div(ny, 16))
        for _ in range(p["iters"]):
            fn(grid, (16, 16), (a, b, np.int32(nx), np.int32(ny)))
            a, b = b, a
        return {"grid": a.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        a = inp["grid"]
        for _ in range(p["iters"]):
            a = jacobi_step(a)
        return {"grid": a}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"grid": spec((p["ny"], p["nx"]), np.float32)}


@register
class Stencil3D(Workload):
    name = "stencil3d"
    suite = "corpus"
    description = "3D 7-point stencil on a 3D grid of (8, 8, 4) blocks, two ping-pong sweeps"
    sources = ("stencils.cu",)
    scales = {
        "tiny": {"nx": 20, "ny": 18, "nz": 12, "iters": 2},
        "small": {"nx": 64, "ny": 64, "nz": 64, "iters": 2},
        "paper": {"nx": 256, "ny": 256, "nz": 128, "iters": 2},
    }
    # c0*x + c1*s may be contracted to an fma: results within a couple of ulps of values below ~1.
    tolerance = {"grid": Tolerance(rtol=1e-6, atol=1e-6)}
    c0 = np.float32(0.4)
    c1 = np.float32(0.1)

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"grid": rng.random((p["nz"], p["ny"], p["nx"]), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        nx, ny, nz = p["nx"], p["ny"], p["nz"]
        a = ndpgpu.asarray(inp["grid"])
        b = ndpgpu.zeros((nz, ny, nx), np.float32)
        fn = ctx.module.get_function("stencil3d")
        block = (8, 8, 4)
        grid = (ceil_div(nx, 8), ceil_div(ny, 8), ceil_div(nz, 4))
        for _ in range(p["iters"]):
            fn(grid, block, (a, b, np.int32(nx), np.int32(ny), np.int32(nz), self.c0, self.c1))
            a, b = b, a
        return {"grid": a.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        a = inp["grid"]
        for _ in range(p["iters"]):
            out = a.copy()
            c = a[1:-1, 1:-1, 1:-1]
            s = a[1:-1, 1:-1, :-2] + a[1:-1, 1:-1, 2:]
            s = s + a[1:-1, :-2, 1:-1]
            s = s + a[1:-1, 2:, 1:-1]
            s = s + a[:-2, 1:-1, 1:-1]
            s = s + a[2:, 1:-1, 1:-1]
            inner = np.float64(self.c0) * c.astype(np.float64) + np.float64(self.c1) * s.astype(np.float64)
            out[1:-1, 1:-1, 1:-1] = inner.astype(np.float32)
            a = out
        return {"grid": a}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"grid": spec((p["nz"], p["ny"], p["nx"]), np.float32)}
