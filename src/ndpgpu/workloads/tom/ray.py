"""RAY: GPGPU-Sim-suite-style ray tracer, scene in constant memory, per-thread bounce stack in local memory."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, set_global, spec
from ndpgpu.workloads.tom import TOM_NVCC_OPTIONS

OBJECT_DTYPE = np.dtype(
    [("cx", np.float32), ("cy", np.float32), ("cz", np.float32), ("radius", np.float32), ("red", np.float32),
     ("green", np.float32), ("blue", np.float32), ("is_plane", np.int32)],
    align=True,
)
MAX_OBJECTS = 64
MAX_DEPTH = 5
CAMERA = (np.float32(0.0), np.float32(1.5), np.float32(6.0))
LIGHT = (np.float32(8.0), np.float32(12.0), np.float32(10.0))
BLOCK = (16, 16)

f32 = np.float32
FAR = f32(10000.0)
OFFSET = f32(1e-3)


def make_scene(spheres: int, rng: np.random.Generator) -> np.ndarray:
    """A ground plane (y = 0) and ``spheres`` coloured spheres resting above it in front of the camera."""
    scene = np.zeros(spheres + 1, dtype=OBJECT_DTYPE)
    scene[0] = (0.0, 0.0, 0.0, 0.0, 0.6, 0.6, 0.6, 1)
    radius = 0.3 + 0.7 * rng.random(spheres)
    scene["cx"][1:] = rng.uniform(-4.0, 4.0, spheres)
    scene["cy"][1:] = radius + 0.5 * rng.random(spheres)
    scene["cz"][1:] = rng.uniform(-6.0, 2.0, spheres)
    scene["radius"][1:] = radius
    for channel in ("red", "green", "blue"):
        scene[channel][1:] = 0.2 + 0.8 * rng.random(spheres)
    return scene


def _dot(a: tuple, b: tuple) -> np.ndarray:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _normalize(a: tuple) -> tuple:
    length = np.sqrt(_dot(a, a))
    return a[0] / length, a[1] / length, a[2] / length


def _intersect(o: np.void, origin: tuple, d: tuple) -> np.ndarray:
    """The kernel's intersect() for one object and every ray (NO_HIT = 0)."""
    zero = f32(0.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if o["is_plane"]:
            t = (o["cy"] - origin[1]) / d[1]
            return np.where((np.abs(d[1]) < f32(1e-4)) | ~(t > zero), zero, t)
        oc = (origin[0] - o["cx"], origin[1] - o["cy"], origin[2] - o["cz"])
        b = _dot(oc, d)
        c = _dot(oc, oc) - o["radius"] * o["radius"]
        disc = b * b - c
        q = np.sqrt(np.maximum(disc, zero))
        t1 = -b - q
        t2 = -b + q
        return np.where(disc <= zero, zero, np.where(t1 > zero, t1, np.where(t2 > zero, t2, zero)))


def render(scene: np.ndarray, width: int, height: int, max_depth: int) -> np.ndarray:
    """The packed RGBA image, evaluated in float32 in the kernel's exact operation order."""
    yy, xx = np.mgrid[0:height, 0:width]
    x = xx.reshape(-1).astype(f32)
    y = yy.reshape(-1).astype(f32)
    npx = x.size
    pixel = f32(2.0) / f32(min(width, height))
    d = _normalize(((x - f32(width) * f32(0.5)) * pixel, (f32(height) * f32(0.5) - y) * pixel,
                    np.full(npx, f32(-2.0))))
    origin = tuple(np.full(npx, c, dtype=f32) for c in CAMERA)
    pile = np.zeros((MAX_DEPTH, 4, npx), dtype=f32)
    pile[:, 3] = f32(1.0)
    n = np.zeros(npx, dtype=np.int64)
    active = np.ones(npx, dtype=bool)
    for i in range(max_depth):
        nearest = np.full(npx, FAR, dtype=f32)
        hit = np.full(npx, -1, dtype=np.int64)
        for j in range(scene.size):
            t = _intersect(scene[j], origin, d)
            closer = (t > 0) & (t < nearest)
            nearest = np.where(closer, t, nearest)
            hit = np.where(closer, j, hit)
        active &= hit >= 0
        if not active.any():
            break
        n[active] += 1
        hs = scene[np.maximum(hit, 0)]
        color = (hs["red"], hs["green"], hs["blue"])
        p = tuple(origin[k] + d[k] * nearest for k in range(3))
        with np.errstate(invalid="ignore", divide="ignore"):
            sn = _normalize((p[0] - hs["cx"], p[1] - hs["cy"], p[2] - hs["cz"]))
        plane = hs["is_plane"] != 0
        normal = (np.where(plane, f32(0.0), sn[0]), np.where(plane, f32(1.0), sn[1]), np.where(plane, f32(0.0), sn[2]))
        view = (-d[0], -d[1], -d[2])
        flip = _dot(normal, view) < 0
        normal = tuple(np.where(flip, -c, c) for c in normal)
        to_light = (LIGHT[0] - p[0], LIGHT[1] - p[1], LIGHT[2] - p[2])
        light_dist = np.sqrt(_dot(to_light, to_light))
        to_light = (to_light[0] / light_dist, to_light[1] / light_dist, to_light[2] / light_dist)
        lambert = _dot(normal, to_light)
        s_origin = tuple(p[k] + to_light[k] * OFFSET for k in range(3))
        shadow = np.zeros(npx, dtype=bool)
        for j in range(scene.size):
            t = _intersect(scene[j], s_origin, to_light)
            shadow |= (t > 0) & (t < light_dist)
        lit = active & (lambert > 0) & ~shadow
        diffuse = f32(0.3) * np.minimum(f32(1.0), lambert)
        half = _normalize((to_light[0] + view[0], to_light[1] + view[1], to_light[2] + view[2]))
        s = np.maximum(f32(0.0), np.minimum(f32(1.0), _dot(normal, half)))
        s2 = s * s
        s4 = s2 * s2
        s8 = s4 * s4
        s16 = s8 * s8
        s32 = s16 * s16
        spc = f32(0.8) * (s32 * s16 * s2)
        for k in range(3):
            base = f32(0.05) * color[k]
            pile[i, k] = np.where(active, np.where(lit, base + (color[k] * diffuse + spc), base), pile[i, k])
        nv = _dot(normal, view)
        new_d = _normalize(tuple(normal[k] * (f32(2.0) * nv) - view[k] for k in range(3)))
        new_o = tuple(p[k] + new_d[k] * OFFSET for k in range(3))
        d = tuple(np.where(active, new_d[k], d[k]) for k in range(3))
        origin = tuple(np.where(active, new_o[k], origin[k]) for k in range(3))
    for i in range(MAX_DEPTH - 1, 0, -1):
        fold = i < n
        pile[i - 1] = np.where(fold, pile[i - 1] + f32(0.8) * pile[i], pile[i - 1])
    rgba = (np.clip(pile[0], f32(0.0), f32(1.0)) * f32(255.0)).astype(np.uint32)
    packed = (rgba[3] << 24) | (rgba[2] << 16) | (rgba[1] << 8) | rgba[0]
    return packed.reshape(height, width).astype(np.uint32)


@register
class Ray(Workload):
    name = "ray"
    suite = "tom"
    papers = ("TOM",)
    description = (
        "ray tracer (GPGPU-Sim suite RAY style): per pixel, up to 5 mirror bounces against spheres and a "
        "plane in constant memory, shadow rays, Phong shading; per-thread colour stack pile[5] in local memory"
    )
    deviations = (
        "Written fresh after the structure of the suite's RAY render kernel (constant-memory scene, local "
        "float4 pile[5] of bounce colours folded with weight 0.8, shadow ray per hit, s^50 highlight, RGBA8 "
        "output written as result = 0 ... result += colour). Our scene (a ground plane and random spheres), "
        "camera, light and resolutions are choices (the suite's scene file and run arguments are not "
        "reproduced); normalisation uses sqrtf and division instead of rsqrtf, the bounce limit is a kernel "
        "argument, and the module is compiled with -fmad=false so the NumPy reference is bit-exact."
    )
    sources = ("ray.cu",)
    options = (*TOM_NVCC_OPTIONS, "-fmad=false")  # the TOM rule (workloads/tom/__init__.py) and no FMA
    scales = {
        "tiny": {"width": 64, "height": 64, "spheres": 6, "max_depth": 3},
        # small: 4608 warps; tom-baseline's links then busy > 50% of the kernel time (docs/tom.md)
        "small": {"width": 384, "height": 384, "spheres": 12, "max_depth": 5},
        "paper": {"width": 512, "height": 512, "spheres": 24, "max_depth": 5},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"scene": make_scene(p["spheres"], rng)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        w, h = p["width"], p["height"]
        scene = np.zeros(MAX_OBJECTS, dtype=OBJECT_DTYPE)
        scene[: inp["scene"].size] = inp["scene"]
        set_global(ctx.module, "c_scene", scene)
        result = ndpgpu.zeros((h, w), np.uint32)
        grid = (ceil_div(w, BLOCK[0]), ceil_div(h, BLOCK[1]))
        ctx.module.get_function("ray_render")(
            grid, BLOCK,
            (result, np.int32(w), np.int32(h), np.int32(inp["scene"].size), np.int32(p["max_depth"]), *CAMERA, *LIGHT),
        )
        return {"image": result.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"image": render(inp["scene"], p["width"], p["height"], p["max_depth"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"image": spec((p["height"], p["width"]), np.uint32)}
