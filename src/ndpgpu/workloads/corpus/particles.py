"""An array of structs (``struct Particle``) updated in place, plus a struct passed by value."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, device_view, spec

#: ``struct Particle {float x, y, z; int id;}``: 16 bytes, 4-byte aligned.
PARTICLE = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("id", "<i4")], align=True)
#: ``struct StepParams {float dt; int id_offset; double scale; float vel[3];}``: 32 bytes, 8-byte aligned.
STEP_PARAMS = np.dtype(
    [("dt", "<f4"), ("id_offset", "<i4"), ("scale", "<f8"), ("vel", "<f4", (3,))], align=True
)
assert PARTICLE.itemsize == 16 and STEP_PARAMS.itemsize == 32 and STEP_PARAMS.fields["vel"][1] == 16


@register
class Particles(Workload):
    name = "particles"
    suite = "corpus"
    description = "struct Particle array (numpy structured dtype) and a by-value struct parameter"
    sources = ("particles.cu",)
    scales = {"tiny": {"n": 3000}, "small": {"n": 1 << 16}, "paper": {"n": 1 << 20}}
    # x + dt*v is one fma in the kernel, two roundings in the reference: at most ~1 ulp of |x| <= 10
    # apart. z and radius2 are fma.f64 then one rounding to float32, the reference rounds in double first
    # (a rare 1-ulp difference); radius2 also inherits the differences of x and y.
    tolerance = {
        "x": Tolerance(rtol=1e-6, atol=2e-6),
        "y": Tolerance(rtol=1e-6, atol=2e-6),
        "z": Tolerance(rtol=1e-6, atol=1e-6),
        "radius2": Tolerance(rtol=1e-6, atol=1e-5),
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        parts = np.zeros(n, dtype=PARTICLE)
        for f in ("x", "y", "z"):
            parts[f] = rng.uniform(-10, 10, size=n).astype(np.float32)
        parts["id"] = rng.integers(-(1 << 20), 1 << 20, size=n, dtype=np.int32)
        prm = np.zeros((), dtype=STEP_PARAMS)
        prm["dt"] = np.float32(0.125)
        prm["id_offset"] = np.int32(-7)
        prm["scale"] = np.float64(1.0000001)
        prm["vel"] = np.array([3.5, -1.25, 0.75], dtype=np.float32)
        return {"particles": parts, "params": prm[()]}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        parts = ndpgpu.asarray(inp["particles"])
        radius2 = ndpgpu.zeros(n, np.float32)
        ctx.module.get_function("particles_step")(
            ceil_div(n, 128), 128, (parts, inp["params"], radius2, np.int32(n))
        )
        out = device_view(parts.get(), PARTICLE)
        return {f: out[f].copy() for f in ("x", "y", "z", "id")} | {"radius2": radius2.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        q = inp["particles"]
        prm = inp["params"]
        dt = np.float64(prm["dt"])
        vel = prm["vel"].astype(np.float64)
        x = (q["x"].astype(np.float64) + dt * vel[0]).astype(np.float32)
        y = (q["y"].astype(np.float64) + dt * vel[1]).astype(np.float32)
        z = (q["z"].astype(np.float64) * np.float64(prm["scale"]) + vel[2]).astype(np.float32)
        ids = (q["id"].astype(np.int64) * 2 + int(prm["id_offset"])).astype(np.int32)
        r2 = (x.astype(np.float64) ** 2 + y.astype(np.float64) ** 2).astype(np.float32)
        return {"x": x, "y": y, "z": z, "id": ids, "radius2": r2}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        n = p["n"]
        return {
            "x": spec(n, np.float32),
            "y": spec(n, np.float32),
            "z": spec(n, np.float32),
            "id": spec(n, np.int32),
            "radius2": spec(n, np.float32),
        }
