"""Single-precision math functions and conversions, against float64 NumPy within CUDA's ulp bounds."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

#: Rows of the kernel's float output, in order.
FUNCS = ("exp", "log", "sin7", "sqrt", "rsqrt", "pow", "fast_exp", "fmin", "fmax", "floor3", "div", "cos")

_ULP = 2.0**-23  # float32 ulp relative to the value (between 2^-24 and 2^-23 of it)

# CUDA programming guide, maximum ulp errors: expf 2, logf 1, sinf/cosf 2, rsqrtf 2, powf 4; sqrtf and
# division are correctly rounded (IEEE). __expf: 2 + floor(|1.173 x|) ulp, so up to ~8 ulp for |x| < 5.
# The reference is the exact function rounded once to float32, so a bound of k ulp needs rtol k * 2^-23.
# sinf/cosf are checked with an absolute bound near their zeros (ulps of the argument reduction).
# On an H100 the worst errors used at most 47% of these tolerances (exp, log).
TOLERANCES = {
    "exp": Tolerance(rtol=3 * _ULP),
    "log": Tolerance(rtol=2 * _ULP, atol=1e-7),
    "sin7": Tolerance(rtol=3 * _ULP, atol=2e-7),
    "sqrt": Tolerance(),
    "rsqrt": Tolerance(rtol=3 * _ULP),
    "pow": Tolerance(rtol=5 * _ULP),
    "fast_exp": Tolerance(rtol=9 * _ULP),
    "div": Tolerance(),
    "cos": Tolerance(rtol=3 * _ULP, atol=2e-7),
}


@register
class MathFuncs(Workload):
    name = "math_funcs"
    suite = "corpus"
    description = "expf logf sinf cosf sqrtf rsqrtf powf __expf fminf fmaxf floorf, casts, division"
    sources = ("math_funcs.cu",)
    scales = {"tiny": {"n": 2000}, "small": {"n": 1 << 16}, "paper": {"n": 1 << 20}}
    tolerance = TOLERANCES

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        x = rng.uniform(-5, 5, size=n).astype(np.float32)
        y = rng.uniform(-3, 3, size=n).astype(np.float32)
        y[y == 0] = np.float32(0.5)
        pos = np.exp(rng.uniform(np.log(1e-3), np.log(100.0), size=n)).astype(np.float32)
        x[: min(n, 4)] = np.array([-0.0, 2.5, -2.5, 1e-3], dtype=np.float32)[: min(n, 4)]  # cast edge cases
        return {"x": x, "y": y, "p": pos}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        x, y, pos = (ndpgpu.asarray(inp[k]) for k in ("x", "y", "p"))
        out = ndpgpu.zeros((len(FUNCS), n), np.float32)
        iout = ndpgpu.zeros(n, np.int32)
        uout = ndpgpu.zeros(n, np.uint32)
        ctx.module.get_function("math_funcs")(
            ceil_div(n, 128), 128, (x, y, pos, out, iout, uout, np.int32(n))
        )
        host = out.get()
        result = {name: host[k].copy() for k, name in enumerate(FUNCS)}
        return result | {"to_int": iout.get(), "to_uint": uout.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        x, y, pos = inp["x"], inp["y"], inp["p"]
        xd, yd, pd = x.astype(np.float64), y.astype(np.float64), pos.astype(np.float64)
        f32 = np.float32
        ref = {
            "exp": np.exp(xd),
            "log": np.log(pd),
            "sin7": np.sin((x * f32(7)).astype(np.float64)),  # the product is rounded to float32 first
            "sqrt": np.sqrt(pos),  # correctly rounded in float32
            "rsqrt": 1.0 / np.sqrt(pd),
            "pow": np.power(pd, yd),
            "fast_exp": np.exp(xd),
            "fmin": np.minimum(x, y),
            "fmax": np.maximum(x, y),
            "floor3": np.floor(x * f32(3)),
            "div": x / y,  # correctly rounded in float32
            "cos": np.cos(yd),
        }
        result = {k: np.asarray(v).astype(np.float32) for k, v in ref.items()}
        result["to_int"] = np.trunc(x * f32(1000)).astype(np.int32)
        result["to_uint"] = np.trunc(pos * f32(1e6)).astype(np.uint32)
        return result

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        n = p["n"]
        specs = {name: spec(n, np.float32) for name in FUNCS}
        return specs | {"to_int": spec(n, np.int32), "to_uint": spec(n, np.uint32)}
