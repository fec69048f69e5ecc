"""BP: Rodinia back propagation, one training step of a 1-hidden-layer network (GPU input layer)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec

HID = 16  # hidden units = the block width
OUT = 1
HEIGHT = 16
ETA = np.float32(0.3)
MOMENTUM = np.float32(0.3)
TARGET = np.float32(0.1)


def _fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 fused multiply-add through float64 (the product is exact there; one extra rounding of the
    sum can differ from the hardware's single rounding in rare halfway cases)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


def _tree_tiles(products: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The shared tile after the kernel's tree over rows, and the per-block sums (row 0), in float32.

    ``products`` is ``(blocks, 16, hid)``; after the tree a row ``t != 0`` whose lowest set bit is ``2**k``
    holds the sum of rows ``t .. t + 2**k - 1`` (rows added in the kernel's pairwise order).
    """
    tile = products.copy()
    stride = 1
    while stride < HEIGHT:
        tile[:, :: 2 * stride] = tile[:, :: 2 * stride] + tile[:, stride :: 2 * stride]
        stride *= 2
    return tile, tile[:, 0, :].copy()


def hidden_delta(partial: np.ndarray, inp: dict[str, Any]) -> np.ndarray:
    """Host part of the step (as Rodinia's CPU code): hidden and output units, errors, hidden deltas.

    Returns the ``hid + 1`` deltas (index 0 unused) the adjust kernel reads.
    """
    w_in = inp["input_weights"]
    blocks = partial.size // HID
    sums = partial.reshape(blocks, HID).astype(np.float64).sum(axis=0) + w_in[0, 1:].astype(np.float64)
    hidden = np.empty(HID + 1, dtype=np.float64)
    hidden[0] = 1.0
    hidden[1:] = 1.0 / (1.0 + np.exp(-sums))
    w_ho = inp["hidden_weights"].astype(np.float64)  # (HID + 1) x (OUT + 1)
    out = 1.0 / (1.0 + np.exp(-(hidden @ w_ho[:, 1:])))
    delta_o = out * (1.0 - out) * (float(TARGET) - out)
    delta_h = hidden[1:] * (1.0 - hidden[1:]) * (w_ho[1:, 1:] @ delta_o)
    delta = np.zeros(HID + 1, dtype=np.float32)
    delta[1:] = delta_h.astype(np.float32)
    return delta


@register
class Backprop(Workload):
    name = "backprop"
    suite = "tom"
    papers = ("TOM", "TELEPORT")
    description = (
        "Rodinia back propagation: layerforward (16x16 blocks, shared-memory tree over inputs) and "
        "adjust_weights over an (in+1) x 17 weight matrix, with the host computing the small layers"
    )
    deviations = (
        "Kernels written fresh after Rodinia's algorithm; the tree loop uses integer strides instead of "
        "__powf/__log2f, and layerforward's unused output_hidden argument is dropped. Rodinia's write-back "
        "of the reduced tile over the input weights is kept, so adjust_weights updates those values as in "
        "Rodinia. Weights are drawn in [-1, 1) scaled by 1/sqrt(in) (Rodinia draws them in [0, 1), which "
        "saturates every hidden sigmoid at 65536 inputs and makes all deltas zero); inputs in [0, 1)."
    )
    sources = ("backprop.cu",)
    scales = {
        "tiny": {"in": 2048},
        "small": {"in": 16384},
        "paper": {"in": 65536},  # Rodinia's standard run: backprop 65536
    }
    # partial sums are bit-exact (mul then adds in the kernel's order); the weight updates use fma, emulated
    tolerance = {
        "input_weights": Tolerance(rtol=1e-6, atol=1e-7),
        "prev_weights": Tolerance(rtol=1e-6, atol=1e-7),
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["in"]
        units = rng.random(n + 1, dtype=np.float32)
        units[0] = 1.0
        scale = np.float32(1.0 / np.sqrt(n))
        w_in = ((rng.random((n + 1, HID + 1), dtype=np.float32) * 2 - 1) * scale).astype(np.float32)
        w_ho = (rng.random((HID + 1, OUT + 1), dtype=np.float32) * 2 - 1).astype(np.float32)
        return {"input_units": units, "input_weights": w_in, "hidden_weights": w_ho}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["in"]
        blocks = n // HEIGHT
        units = ndpgpu.asarray(inp["input_units"])
        weights = ndpgpu.asarray(inp["input_weights"])
        partial = ndpgpu.zeros(blocks * HID, np.float32)
        prev = ndpgpu.zeros((n + 1, HID + 1), np.float32)
        grid, block = (1, blocks), (HID, HEIGHT)
        ctx.module.get_function("bp_layerforward")(grid, block, (units, weights, partial, np.int32(n), np.int32(HID)))
        partial_host = partial.get()
        delta = ndpgpu.asarray(hidden_delta(partial_host, inp))
        ctx.module.get_function("bp_adjust_weights")(
            grid, block, (delta, np.int32(HID), units, np.int32(n), weights, prev)
        )
        return {"partial_sum": partial_host, "input_weights": weights.get(), "prev_weights": prev.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["in"]
        blocks = n // HEIGHT
        units = inp["input_units"]
        w = inp["input_weights"]
        products = w[1:, 1:].reshape(blocks, HEIGHT, HID) * units[1:].reshape(blocks, HEIGHT, 1)
        tile, sums = _tree_tiles(products)
        partial = sums.reshape(-1)
        delta = hidden_delta(partial, inp)
        new_w = w.copy()
        new_w[1:, 1:] = tile.reshape(n, HID)
        oldw = np.zeros_like(w)
        dw = _fma32((ETA * delta[1:])[None, :], units[1:, None], MOMENTUM * oldw[1:, 1:])
        new_w[1:, 1:] = new_w[1:, 1:] + dw
        db = _fma32(delta[1:], np.full(HID, ETA), MOMENTUM * oldw[0, 1:])
        new_w[0, 1:] = new_w[0, 1:] + db
        prev = np.zeros_like(w)
        prev[1:, 1:] = dw
        prev[0, 1:] = db
        return {"partial_sum": partial, "input_weights": new_w, "prev_weights": prev}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        n = p["in"]
        return {
            "partial_sum": spec(n // HEIGHT * HID, np.float32),
            "input_weights": spec((n + 1, HID + 1), np.float32),
            "prev_weights": spec((n + 1, HID + 1), np.float32),
        }
