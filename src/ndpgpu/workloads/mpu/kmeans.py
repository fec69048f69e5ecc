"""KMEANS: Rodinia k-means' assignment kernel, the nearest centre of every point (feature-major layout)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec
from ndpgpu.workloads.mpu._common import BLOCKS, THREADS

KM_CLUSTERS = 4  # kmeans.cu's compile-time constants (MPU-Sim's cta_config.h)
KM_FEATURES = 4


def nearest_centre(features: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """Index of the nearest centre of every point, in float32 with the kernel's order of operations (squares
    rounded, added feature by feature; the first of equal distances wins). ``features`` is (nfeatures, npoints)."""
    nfeatures, npoints = features.shape
    best = np.zeros(npoints, dtype=np.int32)
    best_dist = np.full(npoints, np.finfo(np.float32).max, dtype=np.float32)
    for c in range(clusters.shape[0]):
        dist = np.zeros(npoints, dtype=np.float32)
        for f in range(nfeatures):
            d = features[f] - clusters[c, f]
            dist = dist + d * d
        closer = dist < best_dist
        best_dist = np.where(closer, dist, best_dist)
        best[closer] = c
    return best


@register
class MpuKmeans(Workload):
    name = "mpu_kmeans"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "KMEANS (Rodinia kmeans, assignment kernel): membership[p] = argmin_c sum_f (features[f][p] - "
        "clusters[c][f])^2 for npoints points, one point per thread per step of a grid-stride loop; 4 centres and "
        "4 features as compile-time constants (each feature of a point loaded once); features and centres "
        "feature-major, float32 in global memory"
    )
    deviations = (
        "Kernel written fresh after Rodinia's kmeansPoint; one launch of the assignment step (no host loop, no "
        "centre update, no texture or constant memory), as MPU-Sim runs it. The paper states no input; the "
        "size follows MPU-Sim's kmeans (262144 points, 4 features, 4 centres, all uniform in [0, 1); 512 x 128 "
        "threads) instead of Rodinia's kdd_cup (494020 x 34, 5 clusters). Squares are rounded before the sum "
        "(__fmul_rn) so memberships match the float32 reference exactly. Each block stages the centres in "
        "shared memory first, as MPU-Sim's kmeans does (Rodinia reads them from constant memory). As MPU-Sim "
        "compiles it, the numbers of centres and features are compile-time constants (4 and 4, its "
        "cta_config.h; Rodinia passes them at run time), so the loops unroll and a point's 4 features are "
        "loaded once each (16 loads with run-time bounds); the centres are stored feature-major, as MPU-Sim's."
    )
    sources = ("kmeans.cu",)
    scales = {
        "tiny": {"npoints": 8192, "nfeatures": 4, "nclusters": 4, "grid": 64},
        "small": {"npoints": 65536, "nfeatures": 4, "nclusters": 4, "grid": BLOCKS},
        "paper": {"npoints": 262144, "nfeatures": 4, "nclusters": 4, "grid": BLOCKS},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {
            "features": rng.random((p["nfeatures"], p["npoints"]), dtype=np.float32),
            "clusters": rng.random((p["nclusters"], p["nfeatures"]), dtype=np.float32),
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        features = ndpgpu.asarray(inp["features"])
        if (p["nclusters"], p["nfeatures"]) != (KM_CLUSTERS, KM_FEATURES):
            raise ValueError(f"mpu_kmeans is compiled for {KM_CLUSTERS} centres of {KM_FEATURES} features")
        clusters = ndpgpu.asarray(np.ascontiguousarray(inp["clusters"].T))  # feature-major, as the kernel reads
        membership = ndpgpu.zeros(p["npoints"], np.int32)
        ctx.module.get_function("mpu_kmeans_assign")(
            p["grid"], THREADS,
            (features, clusters, membership, np.int32(p["npoints"])),
        )
        return {"membership": membership.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"membership": nearest_centre(inp["features"], inp["clusters"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"membership": spec(p["npoints"], np.int32)}
