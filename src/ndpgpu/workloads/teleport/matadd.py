"""MMA: matrix-matrix add, TELEPORT's own benchmark; global-memory and hand-written shared-memory versions."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, grid2d, spec

# TELEPORT Table 4: static PTX instruction mix of MMA (TELEPORT = Baseline kernel, Hand-written)
PAPER_PTX_MIX = {
    "matadd": {"ld": 6, "bar": 0, "cvt": 3, "mov": 4, "st": 1, "add": 7, "mul": 4, "exit": 1, "total": 26},
    "matadd_shared": {"ld": 8, "bar": 1, "cvt": 5, "mov": 6, "st": 3, "add": 10, "mul": 6, "exit": 1, "total": 40},
}


def ptx_mix(ptx: str, kernel: str) -> dict[str, int]:
    """Static instruction counts of one kernel entry, by opcode root (``ld.global.f32`` -> ``ld``).

    ``cvta`` counts as ``cvt`` and ``ret`` as ``exit`` (the paper's nvcc used ``cvt`` and ``exit`` where a
    current one emits ``cvta`` and ``ret``); every other root is its own row. ``total`` counts them all.
    """
    start = ptx.index(f".entry {kernel}(")
    body = ptx[ptx.index("{", start) + 1 :]
    body = body[: body.index("\n}")]
    counts: dict[str, int] = {}
    for line in body.splitlines():
        s = line.strip()
        if not s or s.startswith(("//", ".", "$", "{", "}")):
            continue
        if s.startswith("@"):
            s = s.split(None, 1)[1]
        root = s.split()[0].rstrip(";").split(".")[0]
        root = {"cvta": "cvt", "ret": "exit"}.get(root, root)
        counts[root] = counts.get(root, 0) + 1
    counts["total"] = sum(counts.values())
    return counts


@register
class MatAdd(TeleportWorkload):
    name = "tp_matadd"
    kernel = "matadd"
    description = (
        "TELEPORT MMA, Baseline/TELEPORT kernel: C = A + B over n x n floats, 16 x 16 blocks (256 threads, "
        "12 B of data per thread: 3 KB per block), one element per thread, global memory only"
    )
    deviations = (
        "Written after the paper's description (the authors' code is not public). The matrix size is not "
        "given in the paper; paper scale uses 4096 x 4096. Static PTX from nvcc 13 (sm_75) has 25 "
        "instructions, not Table 4's 26: a current nvcc reads the special registers with 32-bit mov (6, not "
        "the old 16-bit mov/cvt pairs) and fuses index arithmetic into 3 mad (see test_mma_static_ptx_mix)."
    )
    sources = ("matadd.cu",)
    scales = {
        "tiny": {"n": 128},
        "small": {"n": 1024},
        "paper": {"n": 4096},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["n"]
        return {"A": rng.random((n, n), dtype=np.float32), "B": rng.random((n, n), dtype=np.float32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["n"]
        a, b = ndpgpu.asarray(inp["A"]), ndpgpu.asarray(inp["B"])
        c = ndpgpu.zeros((n, n), np.float32)
        ctx.module.get_function(self.kernel)(grid2d(n, n), (16, 16), (a, b, c, np.int32(n)))
        return {"C": c.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"C": inp["A"] + inp["B"]}  # one float32 add: exact

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"C": spec((p["n"], p["n"]), np.float32)}


@register
class MatAddShared(MatAdd):
    name = "tp_matadd_shared"
    kernel = "matadd_shared"
    variant = "shared"
    description = (
        "TELEPORT MMA, hand-written version: each 16 x 16 block stores its A and B tiles in shared memory, "
        "synchronises, and adds them from there (same output as tp_matadd)"
    )
    deviations = (
        "Written after the paper's description of the hand-written kernel (2 extra shared loads, 2 shared "
        "stores, 1 barrier, shared addressing). Static PTX from nvcc 13 (sm_75) has 38 instructions, not "
        "Table 4's 40 (32-bit special-register moves, mad and shl for the addressing; 13 more than tp_matadd "
        "where the paper has 14). Paper scale 4096 x 4096."
    )
