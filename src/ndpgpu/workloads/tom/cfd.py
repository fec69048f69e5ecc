"""CFD: Rodinia's unstructured-grid Euler solver (euler3d) on a generated mesh with 4 faces per element."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, set_global, spec
from ndpgpu.workloads.tom import TOM_NVCC_OPTIONS

NDIM = 3
NNB = 4
NVAR = 5
RK = 3
GAMMA = np.float32(1.4)
FF_MACH = 1.2
DEG_ANGLE_OF_ATTACK = 0.0
BLOCK = 192  # Rodinia's block size for every cfd kernel
WALL = -1
FAR_FIELD = -2


def generate_mesh(nel: int, rng: np.random.Generator, window: int = 64) -> dict[str, np.ndarray]:
    """A 4-neighbour finite-volume mesh standing in for fvcorr.domn.097K, padded to a multiple of BLOCK.

    Elements are the first ``nel`` sites of an ``nx x ny`` lattice (2:1 channel) around a wall segment
    (the middle third of the bottom edge); other boundary faces are far field. Each interior face has one
    perturbed normal, shared with opposite sign by its two elements; volumes vary by +-20%. Element ids
    are shuffled within a sliding window of ``window`` so neighbours are near but irregular, as in a
    generated mesh's numbering. Padding elements copy the last element, as Rodinia pads.
    """
    nx = int(np.ceil(np.sqrt(2.0 * nel)))
    h = np.float64(1.0 / nx)
    area = h * h
    sites = np.arange(nel)
    x, y = sites % nx, sites // nx

    def face_normals(direction: int, count: int) -> np.ndarray:
        n = np.zeros((count, NDIM))
        n[:, direction] = area * (0.8 + 0.4 * rng.random(count))
        return n + 0.1 * area * (rng.random((count, NDIM)) - 0.5)

    nb = np.empty((NNB, nel), dtype=np.int64)
    normals = np.empty((NDIM, NNB, nel))
    # faces j = 0 (+x), 1 (-x), 2 (+y), 3 (-y); an interior face's normal is drawn once, for its lower side
    has_right = (x < nx - 1) & (sites + 1 < nel)
    has_up = sites + nx < nel
    fx = face_normals(0, nel)
    fy = face_normals(1, nel)
    nb[0] = np.where(has_right, sites + 1, FAR_FIELD)
    normals[:, 0] = fx.T
    left = x > 0
    nb[1] = np.where(left, sites - 1, FAR_FIELD)
    normals[:, 1] = np.where(left, -fx[np.maximum(sites - 1, 0)].T, -face_normals(0, nel).T)
    nb[2] = np.where(has_up, sites + nx, FAR_FIELD)
    normals[:, 2] = fy.T
    down = y > 0
    wall = ~down & (x >= nx // 3) & (x < 2 * nx // 3)
    nb[3] = np.where(down, sites - nx, np.where(wall, WALL, FAR_FIELD))
    normals[:, 3] = np.where(down, -fy[np.maximum(sites - nx, 0)].T, -face_normals(1, nel).T)
    volumes = h**3 * (0.8 + 0.4 * rng.random(nel))

    order = np.argsort(sites + rng.uniform(0, window, nel), kind="stable")  # new id k is site order[k]
    new_id = np.empty(nel, dtype=np.int64)
    new_id[order] = np.arange(nel)
    nb = nb[:, order]
    nb = np.where(nb >= 0, new_id[np.maximum(nb, 0)], nb)
    normals = normals[:, :, order]
    volumes = volumes[order]

    nelr = BLOCK * ceil_div(nel, BLOCK)
    pad = nelr - nel
    nb = np.concatenate([nb, np.repeat(nb[:, -1:], pad, axis=1)], axis=1)
    normals = np.concatenate([normals, np.repeat(normals[:, :, -1:], pad, axis=2)], axis=2)
    volumes = np.concatenate([volumes, np.repeat(volumes[-1:], pad)])
    return {
        "elements_surrounding_elements": nb.astype(np.int32),
        "normals": normals.astype(np.float32),
        "areas": volumes.astype(np.float32),
    }


def _flux_contribution(mom: list[np.ndarray], de: np.ndarray, p: np.ndarray, vel: list[np.ndarray]) -> list:
    """Rows (momentum x, y, z, density-energy) of the flux contribution, each a 3-list (x, y, z)."""
    mx = [vel[0] * mom[0] + p, vel[0] * mom[1], vel[0] * mom[2]]
    my = [mx[1], vel[1] * mom[1] + p, vel[1] * mom[2]]
    mz = [mx[2], my[2], vel[2] * mom[2] + p]
    de_p = de + p
    return [mx, my, mz, [vel[0] * de_p, vel[1] * de_p, vel[2] * de_p]]


def free_stream() -> tuple[np.ndarray, np.ndarray]:
    """The free-stream variables and flux contributions (float32), as Rodinia's host computes them."""
    f32 = np.float32
    angle = f32(np.pi / 180.0) * f32(DEG_ANGLE_OF_ATTACK)
    density = f32(1.4)
    pressure = f32(1.0)
    sound = np.sqrt(GAMMA * pressure / density)
    speed = f32(FF_MACH) * sound
    vel = [speed * np.cos(angle), speed * np.sin(angle), f32(0.0)]
    mom = [density * v for v in vel]
    energy = density * (f32(0.5) * (speed * speed)) + pressure / (GAMMA - f32(1.0))
    ff_var = np.array([density, *mom, energy], dtype=np.float32)
    fc = _flux_contribution([np.float32(m) for m in mom], energy, pressure, vel)
    return ff_var, np.array(fc, dtype=np.float32)


def _state(v: np.ndarray) -> tuple[np.ndarray, list, np.ndarray, list, np.ndarray, np.ndarray, np.ndarray]:
    """Density, momentum, energy, velocity, speed squared, pressure and speed of sound of states ``v``."""
    density = v[0]
    mom = [v[1], v[2], v[3]]
    de = v[4]
    vel = [m / density for m in mom]
    speed_sqd = vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]
    pressure = (GAMMA - np.float32(1.0)) * (de - np.float32(0.5) * density * speed_sqd)
    sound = np.sqrt(GAMMA * pressure / density)
    return density, mom, de, vel, speed_sqd, pressure, sound


def compute_flux(v: np.ndarray, mesh: dict[str, np.ndarray], ff_var: np.ndarray, ff_fc: np.ndarray) -> np.ndarray:
    """The flux kernel over every element at once (float32, the kernel's order, no fma)."""
    f32 = np.float32
    density_i, mom_i, de_i, vel_i, ssq_i, p_i, c_i = _state(v)
    speed_i = np.sqrt(ssq_i)
    fc_i = _flux_contribution(mom_i, de_i, p_i, vel_i)
    f_d = np.zeros_like(density_i)
    f_m = [np.zeros_like(density_i) for _ in range(3)]
    f_e = np.zeros_like(density_i)
    ese = mesh["elements_surrounding_elements"]
    for j in range(NNB):
        nb = ese[j]
        n = [mesh["normals"][k, j] for k in range(NDIM)]
        n_len = np.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
        inner = nb >= 0
        density_nb, mom_nb, de_nb, vel_nb, ssq_nb, p_nb, c_nb = _state(v[:, np.maximum(nb, 0)])
        fc_nb = _flux_contribution(mom_nb, de_nb, p_nb, vel_nb)
        with np.errstate(invalid="ignore", divide="ignore"):  # boundary faces compute a dummy neighbour
            factor = -n_len * f32(0.2) * f32(0.5) * (speed_i + np.sqrt(ssq_nb) + c_i + c_nb)
            d_in = factor * (density_i - density_nb)
            e_in = factor * (de_i - de_nb)
            m_in = [factor * (mom_i[k] - mom_nb[k]) for k in range(3)]
            # the kernel accumulates into the running sums; keep that order
            acc_d, acc_e, acc_m = f_d + d_in, f_e + e_in, [f_m[k] + m_in[k] for k in range(3)]
            for a in range(NDIM):
                factor = f32(0.5) * n[a]
                acc_d = acc_d + factor * (mom_nb[a] + mom_i[a])
                acc_e = acc_e + factor * (fc_nb[3][a] + fc_i[3][a])
                acc_m = [acc_m[k] + factor * (fc_nb[k][a] + fc_i[k][a]) for k in range(3)]
        wall = nb == WALL
        far = nb == FAR_FIELD
        ff_d, ff_e, ff_m = f_d, f_e, list(f_m)
        for a in range(NDIM):
            factor = f32(0.5) * n[a]
            ff_d = ff_d + factor * (ff_var[1 + a] + mom_i[a])
            ff_e = ff_e + factor * (ff_fc[3, a] + fc_i[3][a])
            ff_m = [ff_m[k] + factor * (ff_fc[k, a] + fc_i[k][a]) for k in range(3)]
        f_d = np.where(inner, acc_d, np.where(far, ff_d, f_d))
        f_e = np.where(inner, acc_e, np.where(far, ff_e, f_e))
        f_m = [
            np.where(inner, acc_m[k], np.where(far, ff_m[k], np.where(wall, f_m[k] + n[k] * p_i, f_m[k])))
            for k in range(3)
        ]
    return np.stack([f_d, f_m[0], f_m[1], f_m[2], f_e])


def step_factor(v: np.ndarray, areas: np.ndarray) -> np.ndarray:
    """The step-factor kernel over every element."""
    _, _, _, _, ssq, _, c = _state(v)
    return np.float32(0.5) / (np.sqrt(areas) * (np.sqrt(ssq) + c))


@register
class Cfd(Workload):
    name = "cfd"
    suite = "tom"
    papers = ("TOM",)
    description = (
        "Rodinia cfd (euler3d): per element, compute_step_factor, then 3 Runge-Kutta stages of "
        "compute_flux over 4 neighbours from a connectivity list and time_step; 192-thread blocks"
    )
    deviations = (
        "Kernels written fresh after Rodinia's algorithm (same variable-major layout, free stream in "
        "__constant__ memory, Mach 1.2, angle of attack 0). The mesh is generated (see generate_mesh: a "
        "4-neighbour lattice with perturbed face normals, a wall segment and far-field boundaries, numbered "
        "with local shuffling) with fvcorr.domn.097K's 97046 elements instead of reading that file. "
        "The per-step device-to-device copy of the variables goes through the host. Rodinia runs 2000 "
        "time steps; the paper scale runs 13 (2.05 billion thread instructions), about the 2-billion-"
        "instruction window TOM simulates of every workload."
    )
    sources = ("cfd.cu",)
    options = TOM_NVCC_OPTIONS  # the TOM workloads' compilation rule (workloads/tom/__init__.py)
    scales = {
        "tiny": {"nel": 4000, "iterations": 1},
        "small": {"nel": 12000, "iterations": 2},
        "paper": {"nel": 97046, "iterations": 13},
    }
    # fma contraction in the kernels vs. separate rounding in NumPy; a few steps keep errors near 1e-6
    tolerance = {"variables": Tolerance(rtol=1e-4, atol=1e-5)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        mesh = generate_mesh(p["nel"], rng)
        ff_var, ff_fc = free_stream()
        return {**mesh, "ff_variable": ff_var, "ff_flux_contribution": ff_fc}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        mod = ctx.module
        nelr = inp["areas"].size
        grid = nelr // BLOCK
        n = np.int32(nelr)
        set_global(mod, "ff_variable", inp["ff_variable"])
        set_global(mod, "ff_flux_contribution", inp["ff_flux_contribution"])
        ese = ndpgpu.asarray(inp["elements_surrounding_elements"])
        normals = ndpgpu.asarray(inp["normals"])
        areas = ndpgpu.asarray(inp["areas"])
        variables = ndpgpu.empty((NVAR, nelr), np.float32)
        old_variables = ndpgpu.empty((NVAR, nelr), np.float32)
        fluxes = ndpgpu.empty((NVAR, nelr), np.float32)
        step_factors = ndpgpu.empty(nelr, np.float32)
        mod.get_function("cfd_initialize_variables")(grid, BLOCK, (n, variables))
        compute_step = mod.get_function("cfd_compute_step_factor")
        compute = mod.get_function("cfd_compute_flux")
        time_step = mod.get_function("cfd_time_step")
        for _ in range(p["iterations"]):
            old_variables.set(variables.get())
            compute_step(grid, BLOCK, (n, variables, areas, step_factors))
            for j in range(RK):
                compute(grid, BLOCK, (n, ese, normals, variables, fluxes))
                time_step(grid, BLOCK, (np.int32(j), n, old_variables, variables, step_factors, fluxes))
        return {"variables": variables.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        nelr = inp["areas"].size
        v = np.repeat(inp["ff_variable"][:, None], nelr, axis=1)
        for _ in range(p["iterations"]):
            old = v.copy()
            sf = step_factor(v, inp["areas"])
            for j in range(RK):
                flux = compute_flux(v, inp, inp["ff_variable"], inp["ff_flux_contribution"])
                factor = sf / np.float32(RK + 1 - j)
                v = old + factor * flux
        return {"variables": v}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"variables": spec((NVAR, BLOCK * ceil_div(p["nel"], BLOCK)), np.float32)}
