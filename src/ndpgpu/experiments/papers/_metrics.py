"""Finding a metric in results whose exact names depend on the timing engine's stat declarations."""

from __future__ import annotations

from collections.abc import Callable, Sequence

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


def kernel_energy(get: Callable[[str], float | None], component: str | None = None) -> float | None:
    """A point's energy over its kernels' window (pJ; of one ``component``, e.g. ``"noc"``, or of the whole
    machine), from its metrics (``get(name)``). The power model prices static power over the application's
    time, host copies included; the kernel window (GPUWattch's, which the papers used) counts only the kernels'
    share of it: dynamic + static x kernel time / application time, the ``energy.kernel.*`` and
    ``energy.<component>.kernel`` rows (docs/metrics.md). Computed from the dynamic and static rows so it also
    reads points stored before those rows existed. None when a metric is missing."""
    path = f"energy.{component}" if component else "energy"
    dyn, stat = get(f"{path}.dynamic"), get(f"{path}.static")
    kt, at = get("kernel.time"), get("application.time")
    if dyn is None or stat is None or kt is None or not at:
        return None
    return dyn + stat * kt / at


class BenchmarkRatios:
    """Per-benchmark speedups and metric ratios of a configuration against another.

    A reproduction mixes this in and defines ``_value(results, config, bench, metric)``; a ratio is None where
    either side has no value (a point that failed or was not run), never a silent zero.
    """

    def _value(self, results: ResultSet, config: str, bench: str, metric: str) -> float | None:
        raise NotImplementedError

    def _speedup(self, results: ResultSet, config: str, benches, base: str = "baseline") -> dict[str, float | None]:
        """``base``'s kernel cycles over ``config``'s, per benchmark."""
        out: dict[str, float | None] = {}
        for b in benches:
            b0, b1 = self._value(results, base, b, "kernel.cycles"), self._value(results, config, b, "kernel.cycles")
            out[b] = b0 / b1 if b0 and b1 else None
        return out

    def _ratio(self, results: ResultSet, config: str, benches, metric: str) -> dict[str, float | None]:
        """``config``'s ``metric`` over the baseline's, per benchmark."""
        out: dict[str, float | None] = {}
        for b in benches:
            b0, b1 = self._value(results, "baseline", b, metric), self._value(results, config, b, metric)
            out[b] = b1 / b0 if b0 and b1 is not None else None
        return out
