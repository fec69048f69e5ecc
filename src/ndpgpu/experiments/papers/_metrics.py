"""Finding a metric in results whose exact names depend on the timing engine's stat declarations."""

from __future__ import annotations

from collections.abc import Sequence

from ..results import ResultSet


def pick_metric(results: ResultSet, candidates: Sequence[str]) -> str | None:
    """The first of ``candidates`` (full or bare names) that some finished point has; None when none does."""
    for name in candidates:
        for r in results.results:
            if r.status != "ok":
                continue
            try:
                if r.get(name) is not None:
                    return name
            except KeyError:  # a bare name matching several full names: try the next candidate
                break
    return None


CYCLES = ("kernel.cycles", "cycles", "gpu.cycles", "total_cycles")
IPC = ("kernel.ipc_thread", "ipc", "gpu.ipc")
THREAD_INSTRUCTIONS = ("thread_instructions", "functional.thread_instructions", "gpu.thread_instructions")
WARP_INSTRUCTIONS = ("warp_instructions", "functional.warp_instructions", "gpu.warp_instructions")
DRAM_BYTES = ("dram.bytes", "dram.bytes_total", "dram_bytes")
L2_MISS_RATE = ("l2.miss_rate", "l2_miss_rate")
L1D_MISS_RATE = ("l1d.miss_rate", "l1d_miss_rate")
