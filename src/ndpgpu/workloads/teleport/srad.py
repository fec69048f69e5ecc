"""SRD: Rodinia SRAD (srad_v2's algorithm), two global-memory kernels per iteration."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, grid2d, spec


def q0sqr(J: np.ndarray, r1: int, r2: int, c1: int, c2: int) -> np.float32:
    """srad_v2's speckle scale from the region of interest (host side, in double)."""
    roi = J[r1 : r2 + 1, c1 : c2 + 1].astype(np.float64)
    mean = roi.mean()
    var = (roi * roi).mean() - mean * mean
    return np.float32(var / (mean * mean))


def srad_reference(J: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """The iterations in float32 with the kernels' operation order (the module is built with -fmad=false)."""
    f = np.float32
    lam = f(p["lambda"])
    J = J.copy()
    for _ in range(p["iterations"]):
        q0 = q0sqr(J, p["r1"], p["r2"], p["c1"], p["c2"])
        P = np.pad(J, 1, mode="edge")
        n, s = P[:-2, 1:-1] - J, P[2:, 1:-1] - J
        w, e = P[1:-1, :-2] - J, P[1:-1, 2:] - J
        g2 = (((n * n + s * s) + w * w) + e * e) / (J * J)
        lap = (((n + s) + w) + e) / J
        num = f(0.5) * g2 - f(0.0625) * (lap * lap)
        den = f(1.0) + f(0.25) * lap
        qsqr = num / (den * den)
        den = (qsqr - q0) / (q0 * (f(1.0) + q0))
        c = np.clip(f(1.0) / (f(1.0) + den), f(0.0), f(1.0))
        Cp = np.pad(c, ((0, 1), (0, 1)), mode="edge")
        cs, ce = Cp[1:, :-1], Cp[:-1, 1:]
        d = ((c * n + cs * s) + c * w) + ce * e
        J = J + (f(0.25) * lam) * d
    return J


@register
class Srad(TeleportWorkload):
    name = "tp_srad"
    kernel = "srad_coef"
    description = (
        "TELEPORT SRD, Rodinia SRAD (srad_v2's algorithm) on a rows x cols float image: per iteration the host "
        "computes q0^2 from a region of interest, srad_coef writes the four derivatives and the diffusion "
        "coefficient of every pixel, srad_update applies the divergence; 16 x 16 blocks, global memory only"
    )
    deviations = (
        "Kernels written fresh after srad_v2's algorithm but without its shared-memory tiles (TELEPORT treats "
        "SRD as a shared-memory-free benchmark); the neighbour indexes are clamped inline instead of srad_v1's "
        "iN/iS/jW/jE arrays. The input is generated as srad_v2 does (exp of uniform [0, 1)). Built with "
        "-fmad=false so the float32 reference is bit-exact. Paper scale: srad_v2's run, 2048 x 2048, ROI "
        "[0, 127]^2, lambda 0.5, 2 iterations."
    )
    sources = ("srad.cu",)
    options = ("-fmad=false",)
    scales = {
        "tiny": {"rows": 64, "cols": 96, "r1": 0, "r2": 31, "c1": 0, "c2": 31, "lambda": 0.5, "iterations": 2},
        "small": {"rows": 512, "cols": 512, "r1": 0, "r2": 127, "c1": 0, "c2": 127, "lambda": 0.5, "iterations": 2},
        "paper": {"rows": 2048, "cols": 2048, "r1": 0, "r2": 127, "c1": 0, "c2": 127, "lambda": 0.5,
                  "iterations": 2},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"J": np.exp(rng.random((p["rows"], p["cols"]))).astype(np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows, cols = p["rows"], p["cols"]
        J = ndpgpu.asarray(inp["J"])
        dN, dS, dW, dE, C = (ndpgpu.zeros((rows, cols), np.float32) for _ in range(5))
        coef = ctx.module.get_function("srad_coef")
        update = ctx.module.get_function("srad_update")
        grid = grid2d(cols, rows)
        r, c = np.int32(rows), np.int32(cols)
        for _ in range(p["iterations"]):
            q0 = q0sqr(J.get(), p["r1"], p["r2"], p["c1"], p["c2"])  # srad_v2 copies J back for the ROI
            coef(grid, (16, 16), (J, dN, dS, dW, dE, C, r, c, q0))
            update(grid, (16, 16), (J, dN, dS, dW, dE, C, r, c, np.float32(p["lambda"])))
        return {"J": J.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"J": srad_reference(inp["J"], p)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"J": spec((p["rows"], p["cols"]), np.float32)}
