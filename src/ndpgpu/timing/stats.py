"""Statistics of timed launches: raw engine counters and the metrics derived from them, with units.

A :class:`LaunchStats` keeps the raw counters of one launch (or the sum over several, for totals) and
derives every metric from them on demand, so a total is exactly the same arithmetic over summed
counters. Export as rows ``(path, metric, value, unit)`` (each counter declared once per component, as
Ramulator 2's stats and MGPUSim's metric rows are), a nested dict, or a readable table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import numpy as np

from . import engine as E

Row = tuple[str, str, Any, str]

_CTR_INDEX = {name: i for i, name in enumerate(E.CTR_NAMES)}
# the engine components whose ``metrics(stats, put, ratio)`` declare rows, in the order of the rows
COMPONENT_METRICS = ("issue", "ldst", "ccache", "icache", "l2", "xbar", "dram", "links", "mesh")


@dataclasses.dataclass
class LaunchStats:
    """Raw counters of one launch (or of several, summed); metrics derive from them."""

    kernel: str
    launch_id: int
    machine: str
    config_hash: str
    cycles: int  # core-clock cycles of the launch(es)
    time_ps: int
    ctr: np.ndarray
    per_sm: np.ndarray
    per_slice: np.ndarray
    per_channel: np.ndarray
    per_class: np.ndarray
    per_prio: np.ndarray
    net_ports: np.ndarray
    packet_kinds: np.ndarray
    per_pc: np.ndarray | None = None
    per_bank: np.ndarray | None = None  # (channel x banks + bank, BKS_*): requests, activates, row hits
    pc_info: list[tuple[str, int]] | None = None  # (opcode, PTX line) per PC
    time_series: dict[str, np.ndarray] | None = None
    consts: dict[str, float] = dataclasses.field(default_factory=dict)
    occupancy: dict[str, Any] = dataclasses.field(default_factory=dict)
    copies: dict[str, float] = dataclasses.field(default_factory=dict)
    capped: bool = False
    launches: int = 1
    extra: dict[str, int] = dataclasses.field(default_factory=dict)
    packet_names: dict[int, str] = dataclasses.field(default_factory=dict)
    mesh: dict[str, Any] | None = None  # router network counters, mesh or butterfly (EngineState.mesh_snapshot)
    mechanism: str | None = None  # the attached mechanism's name (``mechanism.MechanismHardware``)
    mechanism_counters: dict[str, int] = dataclasses.field(default_factory=dict)
    mechanism_metrics: Any = None  # its ``metrics(stats, put, ratio)``, which declares its rows
    sampled: dict[str, Any] | None = None  # a sampled launch's projection (``timing.sampling``); totals: the sums

    # -------------------------------------------------------------- raw access
    def c(self, name: str) -> int:
        """Raw counter ``name``: the engine's (``engine.CTR_NAMES``) or the attached mechanism's."""
        if name in self.mechanism_counters:
            return int(self.mechanism_counters[name])
        return int(self.ctr[_CTR_INDEX[name]])

    def counters(self) -> dict[str, int]:
        """Every raw counter by name, the engine's then the mechanism's."""
        return {**{n: int(v) for n, v in zip(E.CTR_NAMES, self.ctr, strict=True)}, **self.mechanism_counters}

    # -------------------------------------------------------------- derived metrics
    def metrics(self) -> dict[str, dict[str, tuple[Any, str]]]:
        """``{path: {metric: (value, unit)}}``."""
        out: dict[str, dict[str, tuple[Any, str]]] = {}

        def put(path: str, metric: str, value: Any, unit: str) -> None:
            out.setdefault(path, {})[metric] = (value, unit)

        def ratio(a: float, b: float) -> float:
            return float(a) / b if b else 0.0

        for component in COMPONENT_METRICS:  # each component declares its own rows
            getattr(E, component).metrics(self, put, ratio)
        if self.mechanism_metrics is not None:  # and the attached mechanism its own
            self.mechanism_metrics(self, put, ratio)
        copy_metrics(self, put, ratio)
        sampling_metrics(self, put, ratio)
        # energy last (docs/power.md): the machine's power model prices the counts above
        self._metrics_cache = out
        from .power.model import put_rows

        put_rows(self, put)
        return out

    # -------------------------------------------------------------- access and export
    def get(self, path: str, metric: str, default: Any = None) -> Any:
        """One metric's value (``default`` when absent)."""
        m = getattr(self, "_metrics_cache", None)
        if m is None:
            m = self.metrics()
        v = m.get(path, {}).get(metric)
        return default if v is None else v[0]

    def __getitem__(self, key: str) -> Any:
        """``st["l2.hit_rate"]``: the last dotted part is the metric."""
        path, _, metric = key.rpartition(".")
        v = self.get(path, metric)
        if v is None:
            raise KeyError(key)
        return v

    def rows(self) -> list[Row]:
        """``[(path, metric, value, unit), ...]`` with the launch's identity first."""
        base: list[Row] = [("launch", "kernel", self.kernel, ""), ("launch", "launch_id", self.launch_id, ""),
                           ("launch", "machine", self.machine, ""), ("launch", "config_hash", self.config_hash, "")]
        return base + [(p, k, v, u) for p, d in self.metrics().items() for k, (v, u) in d.items()]

    def as_dict(self) -> dict[str, Any]:
        """Nested dict mirroring the paths: ``d["l2"]["hit_rate"]``."""
        out: dict[str, Any] = {}
        for p, d in self.metrics().items():
            node = out
            for part in p.split("."):
                node = node.setdefault(part, {})
            for k, (v, _u) in d.items():
                node[k] = v
        return out

    def table(self, paths: Iterable[str] | None = None) -> str:
        """Readable text: one block per path (per-channel and per-PC blocks only when asked for)."""
        m = self.metrics()
        want = list(paths) if paths is not None else [
            p for p in m if not (p.startswith("dram.channel") or p.startswith("pc.") or ".kind." in p
                                 or (p.startswith("energy.") and "total" not in m[p]))]
        lines = [f"{self.kernel} (launch {self.launch_id}) on {self.machine} [{self.config_hash}]"]
        for p in want:
            if p not in m:
                continue
            lines.append(f"  {p}")
            for k, (v, u) in m[p].items():
                if isinstance(v, float):
                    vs = f"{v:,.4g}" if abs(v) < 1e3 else (f"{v:,.1f}" if abs(v) < 1e6 else f"{v:,.0f}")
                elif isinstance(v, (int, np.integer)):
                    vs = f"{int(v):,}"
                else:
                    vs = str(v)
                lines.append(f"    {k:<28} {vs:>18} {u}")
        return "\n".join(lines)

    def to_pandas(self) -> Any:
        """The rows as a long pandas DataFrame: kernel, launch_id, machine, path, metric, value (float64),
        text (a text row's value), unit (category); ``attrs["units"]`` by ``path.metric``. Needs pandas."""
        from ..frames import stats_to_pandas

        return stats_to_pandas(self.rows())

    def to_polars(self) -> Any:
        """The rows as a long polars DataFrame (the columns of :meth:`to_pandas`). Needs polars."""
        from ..frames import stats_to_polars

        return stats_to_polars(self.rows())

    def _repr_html_(self) -> str:
        """Notebook display: one table of the summary paths (those :meth:`table` shows)."""
        from ..frames import html_table

        m = self.metrics()
        keep = [p for p in m if not (p.startswith("dram.channel") or p.startswith("pc.") or ".kind." in p
                                     or (p.startswith("energy.") and not any(k == "energy" for k in m[p])))]
        rows = [(p, k, v, u) for p in keep for k, (v, u) in m[p].items()]
        caption = f"{self.kernel} (launch {self.launch_id}) on {self.machine} [{self.config_hash}]"
        return html_table(("path", "metric", "value", "unit"), rows, caption)

    def pc_table(self) -> str:
        """Per-PC issued instructions, stall cycles and misses, busiest first."""
        if self.per_pc is None:
            return "(no per-PC statistics in totals)"
        order = np.argsort(-(self.per_pc[:, E.PCS_STALL] + self.per_pc[:, E.PCS_ISSUED]), kind="stable")
        lines = [f"{'pc':>5} {'opcode':<22} {'line':>5} {'issued':>10} {'stalls':>12} {'l1 miss':>9} {'l2 miss':>9}"]
        for pc in order:
            row = self.per_pc[pc]
            if not row.any():
                continue
            op, ln = self.pc_info[pc] if self.pc_info else ("", 0)
            lines.append(f"{pc:>5} {op:<22} {ln:>5} {row[E.PCS_ISSUED]:>10} {row[E.PCS_STALL]:>12} "
                         f"{row[E.PCS_L1_MISS]:>9} {row[E.PCS_L2_MISS]:>9}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<LaunchStats {self.kernel} launch={self.launch_id} cycles={self.cycles} "
                f"ipc={self.get('kernel', 'ipc_thread'):.1f} on {self.machine}>")


def application_ps(st: LaunchStats) -> int:
    """Kernel time plus the synchronous host<->device copies' time, in ps (the kernel's alone without copies)."""
    return st.time_ps + int(st.copies.get("copy_time", 0.0) * 1000)


def sampling_metrics(st: LaunchStats, put: Any, ratio: Any) -> None:
    """Under ``sampling``, for statistics that include a sampled launch (``sim.sample_waves``, docs/sampling.md):
    how many launches were sampled, the CTAs timed in detail against all, the cycles timed against those
    reported (the rest projected), the launches a mechanism kept from sampling (timed in full), and those whose
    cycles a mechanism's serial work bounded (``sampling.SerialWork``)."""
    sp = st.sampled
    if not sp:
        return
    put("sampling", "launches_sampled", int(sp.get("launches", 1)), "launches")
    put("sampling", "ctas", int(sp["ctas"]), "CTAs")
    put("sampling", "ctas_timed", int(sp["ctas_timed"]), "CTAs")
    put("sampling", "ctas_timed_fraction", ratio(sp["ctas_timed"], sp["ctas"]), "fraction")
    put("sampling", "cycles_timed", int(sp["cycles_timed"]), "cycles")
    put("sampling", "cycles_timed_fraction", ratio(sp["cycles_timed"], st.cycles), "fraction")
    if "insts_timed" in sp:  # statistics stored before the count existed lack it
        insts = int(st.ctr[_CTR_INDEX["WARP_INSTS"]])
        put("sampling", "insts_timed", int(sp["insts_timed"]), "warp-instr")
        put("sampling", "insts_timed_fraction", ratio(sp["insts_timed"], insts), "fraction")
    put("sampling", "launches_stable", int(sp.get("stable", sp.get("kind") == "stable")), "launches")
    put("sampling", "launches_declined", int(sp.get("declined", 0)), "launches")
    put("sampling", "launches_serial_bound", int(sp.get("serial", 0)), "launches")


def combine_sampled(stats: list[LaunchStats]) -> dict[str, Any] | None:
    """The sampling summary of several launches, ``None`` when none was sampled: launches sampled, and CTAs and
    cycles timed against all (a launch timed in full counts its own CTAs and cycles on both sides)."""
    if not any(s.sampled for s in stats):
        return None
    out = {"launches": 0, "ctas": 0, "ctas_timed": 0, "cycles_timed": 0, "insts_timed": 0, "declined": 0,
           "stable": 0, "serial": 0}
    for s in stats:
        if s.sampled:
            out["launches"] += int(s.sampled.get("launches", 1))
            out["declined"] += int(s.sampled.get("declined", 0))
            out["serial"] += int(s.sampled.get("serial", 0))
            out["stable"] += int(s.sampled.get("stable", s.sampled.get("kind") == "stable"))
            for k in ("ctas", "ctas_timed", "cycles_timed"):
                out[k] += int(s.sampled[k])
            out["insts_timed"] += int(s.sampled.get("insts_timed", s.ctr[_CTR_INDEX["WARP_INSTS"]]))
        else:
            n = int(s.ctr[_CTR_INDEX["CTAS_LAUNCHED"]])
            out["ctas"] += n
            out["ctas_timed"] += n
            out["cycles_timed"] += int(s.cycles)
            out["insts_timed"] += int(s.ctr[_CTR_INDEX["WARP_INSTS"]])
    return out


def copy_metrics(st: LaunchStats, put: Any, ratio: Any) -> None:
    """Host<->device copies over PCIe under ``copies``, and ``application.time`` beside ``kernel.time``.

    Only a session's totals carry copies (a launch's statistics do not): every rate of the components is over
    ``kernel.time``, which never includes copy time; ``application.time`` = ``kernel.time`` + ``copies.time``
    (copies are synchronous: nothing overlaps them).
    """
    cp = st.copies
    if not cp:
        return
    h2d, d2h = int(cp.get("h2d_bytes", 0)), int(cp.get("d2h_bytes", 0))
    t_ns = float(cp.get("copy_time", 0.0))
    put("copies", "count", int(cp.get("copies", 0)), "copies")
    put("copies", "h2d_bytes", h2d, "bytes")
    put("copies", "d2h_bytes", d2h, "bytes")
    put("copies", "bytes", h2d + d2h, "bytes")
    put("copies", "time", t_ns, "ns")
    put("copies", "bandwidth", ratio(h2d + d2h, t_ns * 1e-9) / 1e9, "GB/s")
    put("application", "time", application_ps(st) / 1000.0, "ns")
    put("application", "kernel_fraction", ratio(st.time_ps, application_ps(st)), "fraction")


def combine(stats: list[LaunchStats], *, copies: dict[str, float] | None = None, time_ps: int | None = None,
            machine: str = "", config_hash: str = "", consts: dict | None = None) -> LaunchStats:
    """Totals over several launches: counters and cycles summed, metrics re-derived."""
    if not stats:
        zero = np.zeros(E.NCTR, np.int64)
        return LaunchStats("(no launches)", -1, machine, config_hash, 0, time_ps or 0, zero,
                           np.zeros((1, E.NSMS), np.int64), np.zeros((1, E.NSLS), np.int64),
                           np.zeros((1, E.NCHS), np.int64), np.zeros(32, np.int64),
                           np.zeros((E.NPRIO, E.NPRS), np.int64), np.zeros((2, 2, 1), np.int64),
                           np.zeros((E.NPK, 4), np.int64), consts=dict(consts or {}), copies=dict(copies or {}),
                           launches=0)
    first = stats[0]
    extra: dict[str, int] = {}
    for s in stats:
        for k, v in s.extra.items():
            extra[k] = max(extra.get(k, v), v) if is_maximum_counter(k) else extra.get(k, 0) + v
    return LaunchStats(
        kernel="(total)", launch_id=-1, machine=first.machine, config_hash=first.config_hash,
        cycles=sum(s.cycles for s in stats), time_ps=time_ps if time_ps is not None else sum(s.time_ps for s in stats),
        ctr=sum(s.ctr for s in stats), per_sm=sum(s.per_sm for s in stats), per_slice=sum(s.per_slice for s in stats),
        per_channel=sum(s.per_channel for s in stats), per_class=sum(s.per_class for s in stats),
        per_prio=sum(s.per_prio for s in stats), net_ports=sum(s.net_ports for s in stats),
        packet_kinds=sum(s.packet_kinds for s in stats), consts=first.consts, copies=dict(copies or {}),
        per_bank=sum(s.per_bank for s in stats) if all(s.per_bank is not None for s in stats) else None,
        capped=any(s.capped for s in stats), launches=sum(s.launches for s in stats), extra=extra,
        packet_names=first.packet_names, mesh=_combine_mesh(stats), **_combine_mechanism(stats),
        sampled=combine_sampled(stats),
    )


def is_maximum_counter(name: str) -> bool:
    """A counter that holds a maximum (a queue's high-water mark, the busiest unit's time): its name has the word
    ``MAX`` (``CH_OQ_MAX``, ``TSV_BUSY_MAX_PS``). Over several launches it is the largest launch's, not a sum."""
    return "MAX" in name.upper().split("_")


def _combine_mechanism(stats: list[LaunchStats]) -> dict[str, Any]:
    """The mechanism's counters over the launches it ran in: summed, except maxima (:func:`is_maximum_counter`),
    which stay maxima."""
    with_mech = [s for s in stats if s.mechanism is not None]
    if not with_mech:
        return {}
    counters: dict[str, int] = {}
    for s in with_mech:
        for k, v in s.mechanism_counters.items():
            if is_maximum_counter(k):
                counters[k] = max(counters.get(k, v), v)
            else:
                counters[k] = counters.get(k, 0) + v
    first = with_mech[0]
    return {"mechanism": first.mechanism, "mechanism_counters": counters, "mechanism_metrics": first.mechanism_metrics}


def _combine_mesh(stats: list[LaunchStats]) -> dict[str, Any] | None:
    """Mesh counters summed over launches (the maximum router occupancy is the maximum)."""
    ms = [s.mesh for s in stats if s.mesh]
    if not ms:
        return None
    totals = sum(m["totals"] for m in ms)
    totals[:, E.MS_MAX_OCC] = np.max([m["totals"][:, E.MS_MAX_OCC] for m in ms], axis=0)
    out = {k: v for k, v in ms[0].items() if k not in ("ports", "totals", "kinds")}  # width; a butterfly's shape
    out.update(ports=sum(m["ports"] for m in ms), totals=totals, kinds=sum(m["kinds"] for m in ms))
    return out
