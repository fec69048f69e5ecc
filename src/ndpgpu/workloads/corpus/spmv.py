"""CSR sparse matrix-vector product: scalar (thread per row) and vector (warp per row) kernels."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec


@register
class SpmvCsr(Workload):
    name = "spmv_csr"
    suite = "corpus"
    description = "CSR SpMV over a random matrix (0..max_nnz nonzeros per row): scalar and vector kernels"
    sources = ("spmv.cu",)
    scales = {
        "tiny": {"rows": 1000, "cols": 1200, "max_nnz": 40},
        "small": {"rows": 1 << 15, "cols": 1 << 15, "max_nnz": 64},
        "paper": {"rows": 1 << 18, "cols": 1 << 18, "max_nnz": 64},
    }
    # At most 64 products of [-1, 1) values, summed in two different orders with fma: a few float32
    # ulps of the partial sums (|partial| < 64), far below 1e-4 in the worst case.
    tolerance = {"y_scalar": Tolerance(rtol=1e-5, atol=2e-5), "y_vector": Tolerance(rtol=1e-5, atol=2e-5)}

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows, cols = p["rows"], p["cols"]
        nnz = rng.integers(0, p["max_nnz"] + 1, size=rows)
        row_ptr = np.zeros(rows + 1, dtype=np.int32)
        np.cumsum(nnz, out=row_ptr[1:])
        total = int(row_ptr[-1])
        return {
            "row_ptr": row_ptr,
            "col_idx": rng.integers(0, cols, size=total, dtype=np.int32),
            "vals": rng.uniform(-1, 1, size=total).astype(np.float32),
            "x": rng.uniform(-1, 1, size=cols).astype(np.float32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        rows = p["rows"]
        args = [ndpgpu.asarray(inp[k]) for k in ("row_ptr", "col_idx", "vals", "x")]
        y_scalar = ndpgpu.zeros(rows, np.float32)
        y_vector = ndpgpu.zeros(rows, np.float32)
        ctx.module.get_function("spmv_csr_scalar")(
            ceil_div(rows, 128), 128, (*args, y_scalar, np.int32(rows))
        )
        ctx.module.get_function("spmv_csr_vector")(
            ceil_div(rows * 32, 128), 128, (*args, y_vector, np.int32(rows))
        )
        return {"y_scalar": y_scalar.get(), "y_vector": y_vector.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        row_ptr = inp["row_ptr"].astype(np.int64)
        prods = inp["vals"].astype(np.float64) * inp["x"].astype(np.float64)[inp["col_idx"]]
        sums = np.zeros(p["rows"], dtype=np.float64)
        rows_of = np.repeat(np.arange(p["rows"]), np.diff(row_ptr))
        np.add.at(sums, rows_of, prods)
        y = sums.astype(np.float32)
        return {"y_scalar": y, "y_vector": y.copy()}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"y_scalar": spec(p["rows"], np.float32), "y_vector": spec(p["rows"], np.float32)}
