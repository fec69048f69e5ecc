"""The GPGPU-Sim cross-check table: our ``gtx480`` and ``v100`` presets against GPGPU-Sim 4.0.0's
``SM2_GTX480`` and ``SM7_QV100`` on the two reference kernels (their outputs recorded in ``REFERENCE`` below).

GPGPU-Sim is a comparison, not ground truth: it has its own errors against hardware.
"""

from __future__ import annotations

from ..plots import BarChart
from ..points import Point, SweepSpec
from ..report import Check, Reproduction, register_reproduction
from ..results import ResultSet, Table
from ._metrics import CYCLES, IPC, L2_MISS_RATE, THREAD_INSTRUCTIONS, WARP_INSTRUCTIONS, pick_metric

# The reference launches: vector add of 2^20 floats, matmul n = 256 (scales of those workloads).
KERNELS = {"vecadd": "paper", "sgemm_naive": "gpgpusim"}
MACHINES = ("gtx480", "v100")

# GPGPU-Sim 4.0.0's outputs for the reference launches; None where its output was not recorded.
REFERENCE: dict[str, dict[str, dict[str, float | None]]] = {
    "gtx480": {
        "vecadd": {
            "cycles": 86_605,
            "thread_instructions": 22_020_096,
            "warp_instructions": 720_896,
            "ipc": 254.3,
            "l2_miss_rate": 0.9996,
            "occupancy": 0.871,
            "l1d_accesses": 98_304,
            "l1d_misses": 98_304,
            "l2_accesses": 393_366,
            "l2_bandwidth_gbs": 101.7,
            "dram_read_bytes": 8_388_928,
            "dram_write_bytes": 1_950_016,
            "avg_fetch_latency": 564,
        },
        "sgemm_naive": {
            "cycles": 340_751,
            "thread_instructions": 90_636_288,
            "warp_instructions": 2_840_576,
            "ipc": 266.0,
            "l2_miss_rate": 0.0071,
            "occupancy": 0.626,
            "l1d_accesses": 1_576_960,
            "l1d_misses": 291_048,
            "l2_accesses": 1_156_354,
            "l2_bandwidth_gbs": 76.0,
            "dram_read_bytes": 1_088,
            "dram_write_bytes": 0,
            "avg_fetch_latency": 165,
        },
    },
    "v100": {
        "vecadd": {
            "cycles": 20_750,
            "thread_instructions": None,
            "warp_instructions": None,
            "ipc": 1061.2,
            "l2_miss_rate": 0.896,
            "occupancy": 0.886,
            "l1d_accesses": 393_216,
            "l1d_misses": 393_216,
            "l2_accesses": 393_216,
            "l2_bandwidth_gbs": 686.5,
            "dram_read_bytes": 7_085_312,
            "dram_write_bytes": 1_862_528,
            "avg_fetch_latency": 929,
        },
        "sgemm_naive": {
            "cycles": 67_777,
            "thread_instructions": None,
            "warp_instructions": None,
            "ipc": 1337.3,
            "l2_miss_rate": 0.045,
            "occupancy": 0.4,
            "l1d_accesses": 2_105_344,
            "l1d_misses": 1_187_166,
            "l2_accesses": 180_224,
            "l2_bandwidth_gbs": 96.3,
            "dram_read_bytes": 0,
            "dram_write_bytes": 0,
            "avg_fetch_latency": 188,
        },
    },
}
OURS = {
    "cycles": CYCLES,
    "thread_instructions": THREAD_INSTRUCTIONS,
    "warp_instructions": WARP_INSTRUCTIONS,
    "ipc": IPC,
    "l2_miss_rate": L2_MISS_RATE,
    "occupancy": ("core.occupancy",),
    "l1d_accesses": ("l1d.accesses",),
    "l1d_misses": ("l1d.misses",),
    "l2_accesses": ("l2.accesses",),
    "l2_bandwidth_gbs": ("l2.bandwidth",),
    "dram_read_bytes": ("dram.read_bytes",),  # GPGPU-Sim's DRAM reads are 32-B accesses: reads x 32
    "dram_write_bytes": ("dram.write_bytes",),  # GPGPU-Sim's write-backs x 32 B
    "avg_fetch_latency": ("latency.average",),  # core cycles from L1 miss to reply
}
CYCLE_TOLERANCE = 0.5  # a different simulator of the same machine: agreement within 50% is the bar
INSTRUCTION_TOLERANCE = 0.10  # nvcc 13 PTX against GPGPU-Sim's older nvcc: close, not equal


@register_reproduction
class GPGPUSimCrossCheck(Reproduction):
    name = "gpgpusim"
    title = "Cross-check against GPGPU-Sim 4.0.0 (GTX480 and QV100)"
    paper = "GPGPU-Sim 4.0.0 reference runs (SM2_GTX480, SM7_QV100)"
    default_scale = "paper"
    paper_numbers = REFERENCE
    key_metrics = tuple(name for names in OURS.values() for name in names)
    differences = (
        "GPGPU-Sim counts instructions of PTX from an older nvcc, and places cudaMemcpy'd data in L2 on its "
        "QV100 configuration (so its matmul has no DRAM traffic there). Its numbers are another simulator's, "
        "not hardware's. Only the `paper` scale is the reference launch; at other scales the table is shown "
        "without checks."
    )

    def spec(self, scale: str) -> SweepSpec:
        points = [
            Point(workload=w, scale=KERNELS[w] if scale == "paper" else scale, machine=m)
            for w in KERNELS
            for m in MACHINES
        ]
        return SweepSpec(name=f"gpgpusim-{scale}", description="GPGPU-Sim reference kernels", points=points)

    def _pairs(self, results: ResultSet) -> list[tuple[str, str, str, float | None, float | None]]:
        """(machine, kernel, metric, GPGPU-Sim, ours) for every reference number."""
        out = []
        for m in MACHINES:
            for w in KERNELS:
                for metric, candidates in OURS.items():
                    ref = REFERENCE[m][w][metric]
                    name = pick_metric(results, candidates)
                    ours = results.value(w, m, name) if name else None
                    out.append((m, w, metric, ref, ours))
        return out

    def tables(self, results: ResultSet) -> list[Table]:
        rows = []
        for m, w, metric, ref, ours in self._pairs(results):
            ratio = ours / ref if ours is not None and ref else None
            rows.append([m, w, metric, ref, ours, ratio])
        return [
            Table(
                "gpgpusim_crosscheck",
                "GPGPU-Sim cross-check",
                ["machine", "kernel", "metric", "GPGPU-Sim", "ndpgpu", "ndpgpu / GPGPU-Sim"],
                rows,
            )
        ]

    def figures(self, results: ResultSet) -> list[BarChart]:
        cats, cyc, ipc = [], [], []
        for m in MACHINES:
            for w in KERNELS:
                cats.append(f"{w} {m}")
                for series, metric in ((cyc, "cycles"), (ipc, "ipc")):
                    name = pick_metric(results, OURS[metric])
                    ours = results.value(w, m, name) if name else None
                    ref = REFERENCE[m][w][metric]
                    series.append(ours / ref if ours is not None and ref else None)
        return [
            BarChart(
                "gpgpusim_ratio",
                "ndpgpu relative to GPGPU-Sim",
                "ndpgpu / GPGPU-Sim",
                cats,
                {"cycles": cyc, "IPC": ipc},
                reference_line=1.0,
                mean=None,
            )
        ]

    def checks(self, results: ResultSet) -> list[Check]:
        if not results.results or results.results[0].point.scale not in KERNELS.values():
            return []
        checks = []
        for m, w, metric, ref, ours in self._pairs(results):
            if ref is None:
                continue
            if metric == "cycles":
                checks.append(Check.close(f"{w} on {m}: cycles", ref, ours, CYCLE_TOLERANCE, "cycles"))
            elif metric == "thread_instructions":
                checks.append(Check.close(f"{w} on {m}: thread-instructions", ref, ours, INSTRUCTION_TOLERANCE))
        return checks
