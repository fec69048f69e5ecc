"""A timed run over time: IPC, DRAM bandwidth, occupancy and L2 miss rate per sampling interval, as arrays and as
a figure.

A machine samples its counters every ``sim.time_series_interval`` core cycles when that is set (0, the default,
records nothing): ``LaunchStats.time_series`` holds, per sample, the core cycle since the launch began and the
cumulative warp-instructions, L2 accesses and misses and DRAM bytes, and the warps resident at that moment
(docs/timing.md). :func:`derive` turns one launch's samples into rates per interval; :func:`plot_time_series`
draws one or several launches (back to back on a kernel-time axis, launch boundaries dashed) to a PNG, SVG or
PDF file. ``ndpgpu run W --machine M --plot out.png`` does both for a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# what derive() gives, with the axis label of each
SERIES = {
    "ipc": "IPC (warp-instr./cycle)",
    "dram_gbs": "DRAM bandwidth (GB/s)",
    "occupancy": "occupancy (resident warps / max)",
    "l2_miss_rate": "L2 miss rate",
}
DEFAULT_SERIES = ("ipc", "dram_gbs", "occupancy")
DEFAULT_INTERVAL = 100  # core cycles, when `ndpgpu run --plot` is not given sim.time_series_interval


class NoTimeSeries(ValueError):
    """The statistics hold no samples: the machine was not given ``sim.time_series_interval``, or every launch
    was shorter than one interval."""


def derive(st: Any) -> dict[str, np.ndarray]:
    """One launch's samples as rates over each interval: ``cycle`` (core cycles since the launch began, at each
    interval's end), ``time_us``, ``ipc`` (warp-instructions per core cycle, all SMs), ``dram_gbs`` (DRAM reads
    and writes), ``occupancy`` (resident warps over all SMs' maximum, at the interval's end) and
    ``l2_miss_rate`` (NaN for an interval without L2 accesses)."""
    ts = getattr(st, "time_series", None)
    if not ts or len(ts.get("cycle", ())) == 0:
        raise NoTimeSeries(f"{getattr(st, 'kernel', 'the launch')}: no time series; time it with "
                           "sim.time_series_interval=N (e.g. --set sim.time_series_interval=100), shorter than "
                           "the kernel")
    consts = getattr(st, "consts", {}) or {}
    cycle = np.asarray(ts["cycle"], dtype=np.float64)
    dcyc = np.diff(cycle, prepend=0.0)
    dcyc[dcyc <= 0] = np.nan

    def per_interval(name: str) -> np.ndarray:
        return np.diff(np.asarray(ts[name], dtype=np.float64), prepend=0.0)

    core_mhz = float(consts.get("core_mhz") or 1000.0)
    sms = int(consts.get("num_sms") or 1) + int((consts.get("stack_sms") or {}).get("count", 0))
    max_warps = int(consts.get("max_warps") or 48)
    dram_bytes = per_interval("dram_read_bytes") + per_interval("dram_write_bytes")
    l2_acc = per_interval("l2_accesses")
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "cycle": cycle,
            "time_us": cycle / core_mhz,
            "ipc": per_interval("warp_insts") / dcyc,
            "dram_gbs": dram_bytes * core_mhz / dcyc / 1e3,  # bytes per (dcyc / core_mhz) us, in GB/s
            "occupancy": np.asarray(ts["active_warps"], dtype=np.float64) / (sms * max_warps),
            "l2_miss_rate": np.where(l2_acc > 0, per_interval("l2_misses") / l2_acc, np.nan),
        }


def plot_time_series(stats: Any | Sequence[Any], path: str | Path, series: Sequence[str] = DEFAULT_SERIES,
                     title: str | None = None, dpi: int = 120) -> Path:
    """Draw ``series`` (keys of :data:`SERIES`) of one launch's statistics, or of several launches back to back,
    one panel each over kernel time in core cycles, to ``path`` (``.png``, ``.svg`` or ``.pdf``, by its
    suffix). Returns the path. Raises :class:`NoTimeSeries` when no launch has samples."""
    launches = list(stats) if isinstance(stats, (list, tuple)) else [stats]
    unknown = [s for s in series if s not in SERIES]
    if unknown:
        raise ValueError(f"unknown series {unknown}; choose from {', '.join(SERIES)}")
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in ("png", "svg", "pdf"):
        raise ValueError(f"{path}: the figure is written as .png, .svg or .pdf (by the file's suffix)")
    parts, bounds, offset = [], [], 0.0
    for st in launches:
        try:
            d = derive(st)
        except NoTimeSeries:
            d = None
        if d is not None:
            parts.append((offset, d, st))
        offset += float(getattr(st, "cycles", 0) or (d["cycle"][-1] if d is not None else 0))
        bounds.append(offset)
    if not parts:
        raise NoTimeSeries("no launch has a time series: time the run with sim.time_series_interval=N (core "
                           "cycles, e.g. --set sim.time_series_interval=100), shorter than its kernels")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ndpgpu"}):
        fig, axes = plt.subplots(len(series), 1, sharex=True, figsize=(7.5, 1.9 * len(series) + 0.6), squeeze=False)
        for ax, name in zip(axes[:, 0], series, strict=True):
            for start, d, _st in parts:
                # each sample is the interval ending at its cycle
                ax.step(start + d["cycle"], d[name], where="pre", color="black", linewidth=1.0)
            for b in bounds[:-1]:
                ax.axvline(b, color="grey", linestyle="--", linewidth=0.6)
            ax.set_ylabel(SERIES[name], fontsize=8)
            ax.tick_params(labelsize=8)
            ax.yaxis.grid(True, linestyle=":", linewidth=0.5, color="grey")
            if name in ("occupancy", "l2_miss_rate"):
                ax.set_ylim(0, 1.05)
            else:
                ax.set_ylim(bottom=0)
        axes[-1, 0].set_xlabel("kernel time (core cycles; launches back to back)", fontsize=8)
        first = parts[0][2]
        kernels = sorted({getattr(st, "kernel", "?") for _, _, st in parts})
        n = len(launches)
        head = title or (f"{', '.join(kernels[:3])}{' ...' if len(kernels) > 3 else ''} on "
                         f"{getattr(first, 'machine', '?')}: {n} launch{'es' if n != 1 else ''}")
        axes[0, 0].set_title(head, fontsize=9)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"Software": None} if fmt == "png" else {"Date": None} if fmt == "svg" else {"CreationDate": None}
        fig.savefig(path, dpi=dpi, metadata=meta)  # no date or software stamp: the same run gives the same bytes
        plt.close(fig)
    return path
