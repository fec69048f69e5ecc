"""HSP: Rodinia HotSpot; global-memory (Baseline/TELEPORT) and hand-written shared-memory (ghost-zone) versions."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, ceil_div, grid2d, spec

# Rodinia hotspot's chip constants
T_CHIP = 0.0005
CHIP_HEIGHT = 0.016
CHIP_WIDTH = 0.016
AMB_TEMP = 80.0
FACTOR_CHIP = 0.5
SPEC_HEAT_SI = 1.75e6
K_SI = 100.0
MAX_PD = 3.0e6
PRECISION = 0.001

COEF_DTYPE = np.dtype(
    [("step_div_cap", np.float32), ("rx_1", np.float32), ("ry_1", np.float32), ("rz_1", np.float32),
     ("amb_temp", np.float32)]
)


def coefficients(rows: int, cols: int) -> np.ndarray:
    """Rodinia's step/Cap and inverse resistances for a rows x cols grid (computed in double, passed as floats)."""
    grid_height = CHIP_HEIGHT / rows
    grid_width = CHIP_WIDTH / cols
    cap = FACTOR_CHIP * SPEC_HEAT_SI * T_CHIP * grid_width * grid_height
    rx = grid_width / (2.0 * K_SI * T_CHIP * grid_height)
    ry = grid_height / (2.0 * K_SI * T_CHIP * grid_width)
    rz = T_CHIP / (K_SI * grid_height * grid_width)
    max_slope = MAX_PD / (FACTOR_CHIP * T_CHIP * SPEC_HEAT_SI)
    step = PRECISION / max_slope
    k = np.zeros((), dtype=COEF_DTYPE)
    k["step_div_cap"], k["rx_1"], k["ry_1"], k["rz_1"], k["amb_temp"] = step / cap, 1 / rx, 1 / ry, 1 / rz, AMB_TEMP
    return k


def hotspot_reference(temp: np.ndarray, power: np.ndarray, k: np.ndarray, iterations: int) -> np.ndarray:
    """The explicit steps in float32 with the kernel's operation order (the module is built with -fmad=false)."""
    sdc, rx1, ry1, rz1, amb = (np.float32(k[f]) for f in COEF_DTYPE.names)
    two = np.float32(2.0)
    t = temp.copy()
    for _ in range(iterations):
        p = np.pad(t, 1, mode="edge")
        tn, ts, tw, te = p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
        inner = ((power + ((ts + tn) - two * t) * ry1) + ((te + tw) - two * t) * rx1) + (amb - t) * rz1
        t = t + sdc * inner
    return t


@register
class Hotspot(TeleportWorkload):
    name = "tp_hotspot"
    kernel = "hotspot"
    description = (
        "TELEPORT HSP, Baseline/TELEPORT kernel: Rodinia HotSpot's explicit thermal step on a rows x cols "
        "grid (five temperature loads and one power load per cell, edge neighbours clamped), 16 x 16 blocks, "
        "one launch per step"
    )
    deviations = (
        "Written after Rodinia's algorithm and constants. Rodinia's own kernel is the ghost-zone shared-memory "
        "one (tp_hotspot_shared, pyramid height 1 here); this global-memory Baseline is ours, as the paper's "
        "was the authors'. temp_512/power_512 are not shipped: temperatures are generated uniform in "
        "[323, 343] K and power uniform in [0, 1e-3) W per cell (the files' ranges, approximately). Built with "
        "-fmad=false so the float32 reference is bit-exact. Paper scale: 512 x 512, 2 steps (Rodinia's run)."
    )
    sources = ("hotspot.cu",)
    options = ("-fmad=false",)
    scales = {
        "tiny": {"rows": 64, "cols": 80, "iterations": 2},
        "small": {"rows": 256, "cols": 256, "iterations": 4},
        "paper": {"rows": 512, "cols": 512, "iterations": 2},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        shape = (p["rows"], p["cols"])
        return {
            "temp": rng.uniform(323.0, 343.0, size=shape).astype(np.float32),
            "power": rng.uniform(0.0, 1e-3, size=shape).astype(np.float32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows, cols = p["rows"], p["cols"]
        power = ndpgpu.asarray(inp["power"])
        src = ndpgpu.asarray(inp["temp"])
        dst = ndpgpu.zeros((rows, cols), np.float32)
        k = coefficients(rows, cols)
        if self.variant == "shared":
            grid = (ceil_div(cols, 14), ceil_div(rows, 14))
        else:
            grid = grid2d(cols, rows)
        fn = ctx.module.get_function(self.kernel)
        for _ in range(p["iterations"]):
            fn(grid, (16, 16), (power, src, dst, np.int32(rows), np.int32(cols), k))
            src, dst = dst, src
        return {"temp": src.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        k = coefficients(p["rows"], p["cols"])
        return {"temp": hotspot_reference(inp["temp"], inp["power"], k, p["iterations"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"temp": spec((p["rows"], p["cols"]), np.float32)}


@register
class HotspotShared(Hotspot):
    name = "tp_hotspot_shared"
    kernel = "hotspot_shared"
    variant = "shared"
    description = (
        "TELEPORT HSP, hand-written version (Rodinia's ghost-zone form, pyramid height 1): a 16 x 16 block "
        "stages 16 x 16 temperature and power tiles in shared memory and updates the inner 14 x 14 cells"
    )
