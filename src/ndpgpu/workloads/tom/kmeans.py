"""KM: Rodinia k-means with features in global memory (Rogers et al.'s variant), host-driven iterations."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, ceil_div, spec

THREADS_PER_BLOCK = 256


def kdd_like_points(npoints: int, nfeatures: int, blobs: int, rng: np.random.Generator) -> np.ndarray:
    """Points from a mixture of ``blobs`` Gaussian blobs of different spreads and weights in the unit cube
    (a stand-in for kdd_cup's normalised features), float32, point-major."""
    centres = rng.random((blobs, nfeatures))
    spread = 0.02 + 0.15 * rng.random(blobs)
    weights = rng.random(blobs) + 0.2
    label = rng.choice(blobs, size=npoints, p=weights / weights.sum())
    pts = centres[label] + spread[label, None] * rng.standard_normal((npoints, nfeatures))
    return pts.astype(np.float32)


def nearest(features: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """Index of the nearest centre per point, adding rounded squares in feature order as the kernel does."""
    best = np.zeros(features.shape[0], dtype=np.int32)
    best_dist = np.full(features.shape[0], np.finfo(np.float32).max, dtype=np.float32)
    for c in range(clusters.shape[0]):
        dist = np.zeros(features.shape[0], dtype=np.float32)
        for f in range(features.shape[1]):
            diff = features[:, f] - clusters[c, f]
            dist = dist + diff * diff
        closer = dist < best_dist
        best_dist = np.where(closer, dist, best_dist)
        best[closer] = c
    return best


def new_centres(features: np.ndarray, membership: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """Host step: every centre moves to the mean of its points (an empty cluster keeps its centre)."""
    k = clusters.shape[0]
    counts = np.bincount(membership, minlength=k)
    out = clusters.copy()
    for f in range(features.shape[1]):
        sums = np.bincount(membership, weights=features[:, f].astype(np.float64), minlength=k)
        nonempty = counts > 0
        out[nonempty, f] = (sums[nonempty] / counts[nonempty]).astype(np.float32)
    return out


@register
class Kmeans(Workload):
    name = "kmeans"
    suite = "tom"
    papers = ("TOM", "LLC-Compute")
    description = (
        "Rodinia k-means (Rogers et al.'s global-memory variant): invert_mapping transposes the features, "
        "then the assign kernel is relaunched, the host moving the centres, until no point changes cluster"
    )
    deviations = (
        "Kernels written fresh after Rodinia's algorithm; features and centres are read from global memory "
        "(no texture/constant), as in the variant TOM uses. The squared difference is rounded before it is "
        "accumulated (__fmul_rn, no fma) so memberships match the NumPy reference exactly. The input is a "
        "generated Gaussian mixture with kdd_cup's shape (494020 points x 34 features, 5 clusters) instead "
        "of the kdd_cup file; the initial centres are random points. The host centre update accumulates in "
        "float64. Iterations stop when no membership changes or after max_iters (Rodinia: 500)."
    )
    sources = ("kmeans.cu",)
    scales = {
        "tiny": {"npoints": 2048, "nfeatures": 34, "nclusters": 5, "blobs": 12, "max_iters": 3},
        # small: 128 blocks of 8 warps; tom-baseline's links then busy > 50% of the kernel time (docs/tom.md)
        "small": {"npoints": 32768, "nfeatures": 34, "nclusters": 5, "blobs": 12, "max_iters": 3},
        "paper": {"npoints": 494020, "nfeatures": 34, "nclusters": 5, "blobs": 12, "max_iters": 500},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        features = kdd_like_points(p["npoints"], p["nfeatures"], p["blobs"], rng)
        start = rng.choice(p["npoints"], size=p["nclusters"], replace=False)
        return {"features": features, "clusters": features[start].copy()}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n, nf, k = p["npoints"], p["nfeatures"], p["nclusters"]
        host_features = inp["features"]
        features = ndpgpu.asarray(host_features)
        flipped = ndpgpu.empty(n * nf, np.float32)
        membership = ndpgpu.zeros(n, np.int32)
        blocks = ceil_div(n, THREADS_PER_BLOCK)
        per_dim = int(np.sqrt(blocks))
        while per_dim * per_dim < blocks:
            per_dim += 1
        ctx.module.get_function("km_invert_mapping")(
            blocks, THREADS_PER_BLOCK, (features, flipped, np.int32(n), np.int32(nf))
        )
        assign = ctx.module.get_function("km_assign")
        clusters = inp["clusters"].copy()
        d_clusters = ndpgpu.asarray(clusters)
        old = np.full(n, -1, dtype=np.int32)
        iterations = 0
        while True:
            d_clusters.set(clusters)
            assign((per_dim, per_dim), THREADS_PER_BLOCK,
                   (flipped, d_clusters, membership, np.int32(n), np.int32(k), np.int32(nf)))
            iterations += 1
            new = membership.get()
            changed = int((new != old).sum())
            clusters = new_centres(host_features, new, clusters)
            old = new
            if changed == 0 or iterations >= p["max_iters"]:
                break
        return {"membership": old, "clusters": clusters, "iterations": np.array([iterations], dtype=np.int32)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        features = inp["features"]
        clusters = inp["clusters"].copy()
        old = np.full(features.shape[0], -1, dtype=np.int32)
        iterations = 0
        while True:
            new = nearest(features, clusters)
            iterations += 1
            changed = int((new != old).sum())
            clusters = new_centres(features, new, clusters)
            old = new
            if changed == 0 or iterations >= p["max_iters"]:
                break
        return {"membership": old, "clusters": clusters, "iterations": np.array([iterations], dtype=np.int32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {
            "membership": spec(p["npoints"], np.int32),
            "clusters": spec((p["nclusters"], p["nfeatures"]), np.float32),
            "iterations": spec(1, np.int32),
        }
