"""MPU's twelve data-intensive workloads (seed 003, Table I), written in CUDA C after the public algorithms.

The paper names each workload and its reference library but states no inputs; sizes, launch shapes and the
locality-preserving data layouts follow the authors' public artifact (MPU-Sim, ``benchmark/<name>``), whose
code is not copied. Registry names carry the prefix ``mpu_`` (``kmeans``, ``histogram``, ... exist already);
:data:`MPU_WORKLOADS` maps the paper's abbreviations to them.
"""

from __future__ import annotations

MPU_WORKLOADS: dict[str, str] = {
    "BLUR": "mpu_blur",
    "CONV": "mpu_conv",
    "GEMV": "mpu_gemv",
    "HIST": "mpu_hist",
    "KMEANS": "mpu_kmeans",
    "KNN": "mpu_knn",
    "TTRANS": "mpu_ttrans",
    "MAXP": "mpu_maxp",
    "NW": "mpu_nw",
    "UPSAMP": "mpu_upsamp",
    "AXPY": "mpu_axpy",
    "PR": "mpu_pr",
}
"""The paper's abbreviation of each workload -> its registry name (``ndpgpu.workloads.get_workload``)."""
