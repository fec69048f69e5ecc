"""FLD: one PARSEC fluidanimate SPH step (densities, forces, advance) over cell-sorted particles."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, ceil_div, spec

# PARSEC fluidanimate's constants
KERNEL_RADIUS_MULTIPLIER = 1.695
STIFFNESS_PRESSURE = 3.0
REST_DENSITY = 1000.0
VISCOSITY = 0.4
TIME_STEP = 0.001
GRAVITY_Y = -9.8
PARTICLES_PER_METER = 204.0  # rest spacing ~4.9 mm, about in_35K's

COEF_DTYPE = np.dtype([(f, np.float32) for f in (
    "h2", "h", "density_coeff", "self_density", "pressure_coeff", "viscosity_coeff", "rest_density2", "gravity_y",
    "dt")])


def coefficients() -> np.ndarray:
    h = KERNEL_RADIUS_MULTIPLIER / PARTICLES_PER_METER
    mass = 0.5 * 2 * REST_DENSITY / PARTICLES_PER_METER**3
    k = np.zeros((), dtype=COEF_DTYPE)
    k["h2"], k["h"] = h * h, h
    k["density_coeff"] = mass * 315.0 / (64.0 * np.pi * h**9)
    k["self_density"] = h**6
    k["pressure_coeff"] = 3.0 * 15.0 / (np.pi * h**6) * 0.5 * STIFFNESS_PRESSURE * mass
    k["viscosity_coeff"] = VISCOSITY * 45.0 / (np.pi * h**6) * mass
    k["rest_density2"] = 2 * REST_DENSITY
    k["gravity_y"], k["dt"] = GRAVITY_Y, TIME_STEP
    return k


def neighbour_pairs(inp: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (p, q), p != q, with q in one of the 27 cells around p's cell."""
    nx, ny, nz = (int(v) for v in inp["grid"])
    cell = inp["cell_of"].astype(np.int64)
    cx, cy, cz = cell % nx, (cell // nx) % ny, cell // (nx * ny)
    ps, qs = [], []
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                ax, ay, az = cx + dx, cy + dy, cz + dz
                ok = (ax >= 0) & (ay >= 0) & (az >= 0) & (ax < nx) & (ay < ny) & (az < nz)
                p = np.nonzero(ok)[0]
                c = (az[p] * ny + ay[p]) * nx + ax[p]
                cnt = inp["cell_count"][c].astype(np.int64)
                rep = np.repeat(p, cnt)
                first = np.repeat(inp["cell_start"][c].astype(np.int64) - np.cumsum(cnt) + cnt, cnt)
                q = first + np.arange(rep.size)
                keep = q != rep
                ps.append(rep[keep])
                qs.append(q[keep])
    return np.concatenate(ps), np.concatenate(qs)


@register
class FluidAnimate(TeleportWorkload):
    name = "tp_fluidanimate"
    kernel = "fluid_density"
    description = (
        "TELEPORT FLD, PARSEC fluidanimate's SPH step on the GPU: particles sorted by grid cell (cell edge h), "
        "one thread per particle visiting the 27 neighbouring cells through cell_start/cell_count: densities, "
        "pressure + viscosity + gravity accelerations, symplectic Euler advance. In the paper's analysis only"
    )
    deviations = (
        "Written after fluidanimate's SPH formulas and constants (a CUDA port, the paper's source, is not "
        "public); one time step without fluidanimate's wall collisions and its per-cell particle caps; positions "
        "and velocities as separate float arrays. The .fluid input is not shipped: particles sit on a jittered "
        "cubic lattice at the rest spacing (about 4.9 per cell, as fluidanimate's), velocities uniform +-0.05 "
        "m/s. Paper scale: 35K particles (simsmall's in_35K; the paper does not name the input). Reference in "
        "float64 over the same neighbour cells: tolerances cover float32 accumulation and the cut-off test."
    )
    sources = ("fluid.cu",)
    scales = {
        "tiny": {"lattice": (16, 12, 10)},
        "small": {"lattice": (24, 20, 20)},
        "paper": {"lattice": (40, 30, 30)},  # 36,000 particles
    }
    tolerance = {  # observed at tiny/small: density 2.4e-4 (of ~1000), acceleration 1.2e-4 (of ~10),
        # velocity 1.3e-7 (of ~0.05), position 7e-9 (of ~0.1): float32 sums against float64
        "density": Tolerance(rtol=1e-5, atol=1e-3),
        "acceleration": Tolerance(rtol=1e-4, atol=2e-3),
        "velocity": Tolerance(rtol=1e-5, atol=2e-6),
        "position": Tolerance(rtol=1e-6, atol=1e-7),
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        lx, ly, lz = p["lattice"]
        spacing = 1.0 / PARTICLES_PER_METER
        h = KERNEL_RADIUS_MULTIPLIER / PARTICLES_PER_METER
        idx = np.stack(np.meshgrid(np.arange(lx), np.arange(ly), np.arange(lz), indexing="ij"), -1).reshape(-1, 3)
        pos = (idx + 0.5 + rng.uniform(-0.2, 0.2, size=idx.shape)) * spacing
        grid = np.array([int(np.ceil(d * spacing / h)) for d in (lx, ly, lz)])  # cells of edge h
        c = np.minimum((pos / h).astype(np.int64), grid - 1)
        cell = (c[:, 2] * grid[1] + c[:, 1]) * grid[0] + c[:, 0]
        order = np.argsort(cell, kind="stable")
        pos, cell = pos[order].astype(np.float32), cell[order]
        ncell = int(np.prod(grid))
        count = np.bincount(cell, minlength=ncell).astype(np.int32)
        start = (np.cumsum(count) - count).astype(np.int32)
        vel = rng.uniform(-0.05, 0.05, size=pos.shape).astype(np.float32)
        return {"pos": pos, "vel": vel, "cell_of": cell.astype(np.int32), "cell_start": start, "cell_count": count,
                "grid": grid.astype(np.int32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = inp["pos"].shape[0]
        nx, ny, nz = (np.int32(v) for v in inp["grid"])
        k = coefficients()
        px, py, pz = (ndpgpu.asarray(np.ascontiguousarray(inp["pos"][:, i])) for i in range(3))
        vx, vy, vz = (ndpgpu.asarray(np.ascontiguousarray(inp["vel"][:, i])) for i in range(3))
        cell_of, start, count = (ndpgpu.asarray(inp[f]) for f in ("cell_of", "cell_start", "cell_count"))
        density = ndpgpu.zeros(n, np.float32)
        ax, ay, az = (ndpgpu.zeros(n, np.float32) for _ in range(3))
        grid, block, n32 = ceil_div(n, 128), 128, np.int32(n)
        ctx.module.get_function("fluid_density")(
            grid, block, (px, py, pz, cell_of, start, count, density, n32, nx, ny, nz, k))
        ctx.module.get_function("fluid_forces")(
            grid, block, (px, py, pz, vx, vy, vz, density, cell_of, start, count, ax, ay, az, n32, nx, ny, nz, k))
        acc = np.stack([a.get() for a in (ax, ay, az)], axis=1)
        ctx.module.get_function("fluid_advance")(grid, block, (px, py, pz, vx, vy, vz, ax, ay, az, n32, k))
        return {"density": density.get(), "acceleration": acc,
                "velocity": np.stack([v.get() for v in (vx, vy, vz)], axis=1),
                "position": np.stack([q.get() for q in (px, py, pz)], axis=1)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        k = {f: float(coefficients()[f]) for f in COEF_DTYPE.names}
        pos, vel = inp["pos"].astype(np.float64), inp["vel"].astype(np.float64)
        n = pos.shape[0]
        pi, qi = neighbour_pairs(inp)
        disp = pos[pi] - pos[qi]
        d2 = (disp * disp).sum(axis=1)
        near = d2 < k["h2"]
        pi, qi, disp, d2 = pi[near], qi[near], disp[near], d2[near]
        rho = np.bincount(pi, weights=(k["h2"] - d2) ** 3, minlength=n)
        rho = (rho + k["self_density"]) * k["density_coeff"]
        dist = np.sqrt(np.maximum(d2, 1e-12))
        hmr = k["h"] - dist
        pr = k["pressure_coeff"] * (hmr * hmr / dist) * (rho[pi] + rho[qi] - k["rest_density2"])
        f = (disp * pr[:, None] + (vel[qi] - vel[pi]) * (k["viscosity_coeff"] * hmr)[:, None]) / (
            rho[pi] * rho[qi])[:, None]
        acc = np.stack([np.bincount(pi, weights=f[:, i], minlength=n) for i in range(3)], axis=1)
        acc[:, 1] += k["gravity_y"]
        v = vel + acc * k["dt"]
        x = pos + v * k["dt"]
        return {"density": rho.astype(np.float32), "acceleration": acc.astype(np.float32),
                "velocity": v.astype(np.float32), "position": x.astype(np.float32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        n = int(np.prod(p["lattice"]))
        return {"density": spec(n, np.float32), "acceleration": spec((n, 3), np.float32),
                "velocity": spec((n, 3), np.float32), "position": spec((n, 3), np.float32)}
