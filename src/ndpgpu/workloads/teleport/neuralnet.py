"""NN: the GPGPU-Sim ISPASS-2009 convolutional neural network (four layers, four kernels)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Tolerance, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, spec

IN, L1, L1_MAPS, L2, L2_MAPS, L3, L4, K = 29, 13, 6, 5, 50, 100, 10, 5


def act(x: np.ndarray) -> np.ndarray:
    return 1.7159 * np.tanh(0.66666667 * x)


def conv_layer(x: np.ndarray, w: np.ndarray, out_size: int) -> np.ndarray:
    """x: (batch, maps_in, s, s); w: (maps_out, 1 + maps_in*K*K) -> (batch, maps_out, out, out), 5x5 stride 2."""
    b, c = x.shape[:2]
    patches = np.empty((b, out_size, out_size, c, K, K))
    for ky in range(K):
        for kx in range(K):
            patches[:, :, :, :, ky, kx] = x[:, :, ky : ky + 2 * out_size : 2, kx : kx + 2 * out_size : 2].transpose(
                0, 2, 3, 1
            )
    s = patches.reshape(b, out_size, out_size, -1) @ w[:, 1:].T + w[:, 0]
    return act(s).transpose(0, 3, 1, 2)


def dense_layer(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return act(x @ w[:, 1:].T + w[:, 0])


@register
class NeuralNet(TeleportWorkload):
    name = "tp_neuralnet"
    kernel = "nn_layer1"
    description = (
        "TELEPORT NN, the ISPASS-2009 convolutional digit recogniser: 29x29 input -> 6x13x13 (5x5 conv, stride "
        "2) -> 50x5x5 (5x5 conv over all maps, stride 2) -> 100 -> 10, activation 1.7159 tanh(2x/3); one kernel "
        "per layer, one thread block per image, weight and input loops indexed by loop variables"
    )
    deviations = (
        "Kernels written fresh after the network's structure (layer 2 has one bias per output map: 50 x 151 "
        "weights). The trained weights and digit images are not shipped: weights are uniform in "
        "+-2.4/fan_in and pixels uniform [0, 1). The paper does not give the batch; paper scale uses 1000 "
        "images. Reference in float64: tolerance covers float32 accumulation (up to 1251 terms) and tanhf's "
        "2 ulp."
    )
    sources = ("neuralnet.cu",)
    scales = {
        "tiny": {"images": 4},
        "small": {"images": 64},
        "paper": {"images": 1000},
    }
    tolerance = {  # observed at tiny/small: at most 1.8e-7 absolute (values within +-1.7)
        "layer1": Tolerance(rtol=1e-5, atol=2e-6),
        "layer2": Tolerance(rtol=1e-5, atol=2e-6),
        "layer3": Tolerance(rtol=1e-5, atol=2e-6),
        "output": Tolerance(rtol=1e-5, atol=2e-6),
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        def weights(n_out: int, fan_in: int) -> np.ndarray:
            return rng.uniform(-2.4 / fan_in, 2.4 / fan_in, size=(n_out, 1 + fan_in)).astype(np.float32)

        return {
            "images": rng.random((p["images"], IN, IN), dtype=np.float32),
            "w1": weights(L1_MAPS, K * K),
            "w2": weights(L2_MAPS, L1_MAPS * K * K),
            "w3": weights(L3, L2_MAPS * L2 * L2),
            "w4": weights(L4, L3),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        b = p["images"]
        x = ndpgpu.asarray(inp["images"])
        w1, w2, w3, w4 = (ndpgpu.asarray(inp[k]) for k in ("w1", "w2", "w3", "w4"))
        l1 = ndpgpu.zeros((b, L1_MAPS, L1, L1), np.float32)
        l2 = ndpgpu.zeros((b, L2_MAPS, L2, L2), np.float32)
        l3 = ndpgpu.zeros((b, L3), np.float32)
        out = ndpgpu.zeros((b, L4), np.float32)
        ctx.module.get_function("nn_layer1")(b, (L1, L1), (x, w1, l1))
        ctx.module.get_function("nn_layer2")(b, (L2, L2), (l1, w2, l2))
        dense = ctx.module.get_function("nn_dense")
        dense(b, L3, (l2, w3, l3, np.int32(L2_MAPS * L2 * L2)))
        dense(b, L4, (l3, w4, out, np.int32(L3)))
        return {"layer1": l1.get(), "layer2": l2.get(), "layer3": l3.get(), "output": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        w1, w2, w3, w4 = (inp[k].astype(np.float64) for k in ("w1", "w2", "w3", "w4"))
        l1 = conv_layer(inp["images"][:, None].astype(np.float64), w1, L1)
        l2 = conv_layer(l1, w2, L2)
        l3 = dense_layer(l2.reshape(l2.shape[0], -1), w3)
        out = dense_layer(l3, w4)
        return {k: v.astype(np.float32) for k, v in (("layer1", l1), ("layer2", l2), ("layer3", l3), ("output", out))}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        b = p["images"]
        return {
            "layer1": spec((b, L1_MAPS, L1, L1), np.float32),
            "layer2": spec((b, L2_MAPS, L2, L2), np.float32),
            "layer3": spec((b, L3), np.float32),
            "output": spec((b, L4), np.float32),
        }
