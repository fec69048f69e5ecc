"""What ``ndpgpu run W --machine M`` prints by default: a summary a person reads in one screen.

One block per launch (kernel, grid and block, cycles, IPC, L1D and L2 hit rates, DRAM bandwidth, and the
attached mechanism's one or two headline rows), then the totals (cycles, time, host copies, energy over the
kernels' window and over the application's). ``--all`` prints every row instead (the totals' full table), and
``--json`` carries every row of every launch under ``launch_stats`` (``launches`` is their number).

Built only from :class:`~ndpgpu.timing.stats.LaunchStats`' public reading methods (``get``, ``rows``) and the
launches' traces, so it needs nothing of the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# The attached mechanism's headline rows: (path, metric, label); a launch shows those its statistics have, at
# most two (the first path present decides the mechanism)
HEADLINES: dict[str, tuple[tuple[str, str], ...]] = {
    "offload.blocks": (("offload.blocks", "offloaded"), ("offload.blocks", "instruction_share")),  # TOM
    "offload.chains": (("offload.chains", "offloaded"), ("offload.chains", "offload_rate")),  # LLC-Compute
    "teleport": (("teleport", "coverage"), ("teleport.mthwp", "coverage")),  # TELEPORT, MTHWP
    "ipndp.prefetcher": (("ipndp.prefetcher", "used"), ("ipndp.prefetcher", "accuracy")),  # IP-NDP
    "mpu.instructions": (("mpu.instructions", "near_share_of_alu"), ("mpu.registers", "moves")),  # MPU
}
# of a headline row: the count it is out of (shown as "N of M")
OUT_OF = {("offload.blocks", "offloaded"): ("offload.blocks", "instances"),
          ("offload.chains", "offloaded"): ("offload.chains", "instances")}
# of a headline row: shown only when this row is nonzero (MTHWP's coverage when it prefetched at all)
SHOWN_WHEN = {("teleport.mthwp", "coverage"): ("teleport.mthwp", "issued")}
MAX_LAUNCH_BLOCKS = 8  # launches shown as blocks; more are summarised per kernel
MAX_POLICY_ROWS = 12


def _num(v: Any) -> str:
    """A count with separators, or a float with 4 significant digits."""
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    f = float(v)
    if f == int(f) and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:,.4g}" if abs(f) < 1e4 else f"{f:,.0f}"


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100.0 * float(v):.1f}%"


def _scaled(v: Any, units: Sequence[tuple[float, str]]) -> str:
    """``v`` in the largest unit of ``units`` ((factor from the base unit, name), ascending) it reaches."""
    if v is None:
        return "-"
    f = float(v)
    factor, name = units[0]
    for fac, nm in units:
        if abs(f) >= fac:
            factor, name = fac, nm
    return f"{f / factor:,.4g} {name}"


def time_text(ns: Any) -> str:
    """A time given in ns, in ns, us, ms or s."""
    return _scaled(ns, ((1.0, "ns"), (1e3, "us"), (1e6, "ms"), (1e9, "s")))


def energy_text(pj: Any) -> str:
    """An energy given in pJ, in pJ, nJ, uJ, mJ or J."""
    return _scaled(pj, ((1.0, "pJ"), (1e3, "nJ"), (1e6, "uJ"), (1e9, "mJ"), (1e12, "J")))


def bytes_text(n: Any) -> str:
    return _scaled(n, ((1.0, "B"), (1024.0, "KiB"), (1024.0**2, "MiB"), (1024.0**3, "GiB")))


def _dims(d: Sequence[int]) -> str:
    return "x".join(str(int(x)) for x in d)


def headline_rows(st: Any) -> list[tuple[str, str]]:
    """The attached mechanism's headline rows of one launch (or of the totals): ``(path.metric, text)``."""
    for rows in HEADLINES.values():
        if st.get(*rows[0]) is None:
            continue
        out = []
        for path, metric in rows:
            v = st.get(path, metric)
            if v is None or ((path, metric) in SHOWN_WHEN and not st.get(*SHOWN_WHEN[(path, metric)])):
                continue
            if (path, metric) in OUT_OF:
                total = st.get(*OUT_OF[(path, metric)])
                text = f"{_num(v)} of {_num(total)}"
            elif metric in ("coverage", "accuracy", "offload_rate", "instruction_share", "near_share_of_alu"):
                text = _pct(v)
            else:
                text = _num(v)
            out.append((f"{path}.{metric}", text))
        return out
    return []


def launch_block(i: int, st: Any, trace: Any | None) -> list[str]:
    """The lines of one launch: identity, cycles and IPC, hit rates, DRAM bandwidth, headline rows."""
    head = f"launch {i}: {st.kernel}"
    if trace is not None:
        head += f"  grid {_dims(trace.launch.grid)}  block {_dims(trace.launch.block)}"
    g = st.get
    lines = [head,
             f"  cycles {_num(st.cycles):>14}   IPC {_num(g('kernel', 'ipc_thread')):>9} thread-instr/cycle "
             f"({_num(g('kernel', 'ipc_warp'))} warp-instr/cycle)",
             f"  L1D hit rate {_pct(g('l1d', 'hit_rate')):>8}   L2 hit rate {_pct(g('l2', 'hit_rate')):>7}   "
             f"DRAM {_num(g('dram', 'bandwidth'))} GB/s"
             + (f" (peak {_num(g('dram', 'peak_bandwidth'))})" if g("dram", "peak_bandwidth") else "")]
    head_rows = headline_rows(st)
    if head_rows:
        lines.append("  " + "   ".join(f"{name} {text}" for name, text in head_rows))
    return lines


def _kernel_groups(stats: Sequence[Any]) -> list[str]:
    """Launches beyond those shown as blocks, by kernel: count, cycles."""
    by: dict[str, list[int]] = {}
    for st in stats:
        by.setdefault(st.kernel, []).append(int(st.cycles))
    return [f"  {k}: {len(c)} launch{'es' if len(c) != 1 else ''}, {sum(c):,} cycles" for k, c in by.items()]


def totals_block(tot: Any) -> list[str]:
    """Totals over every launch: cycles and time, copies, energy in both windows."""
    g = tot.get
    n = int(g("kernel", "launches") or tot.launches)
    lines = [f"totals over {n} launch{'es' if n != 1 else ''}",
             f"  kernel cycles {_num(tot.cycles):>14}   kernel time {time_text(g('kernel', 'time'))}   "
             f"IPC {_num(g('kernel', 'ipc_thread'))} thread-instr/cycle"]
    if g("copies", "count") is not None:
        lines.append(f"  copies {_num(g('copies', 'count'))} ({bytes_text(g('copies', 'bytes'))}, "
                     f"{time_text(g('copies', 'time'))})   application time {time_text(g('application', 'time'))}")
    else:
        lines.append("  copies: none timed")
    ek, ea = g("energy.kernel", "total"), g("energy.application", "total")
    if ek is not None or ea is not None:
        lines.append(f"  energy.kernel.total {energy_text(ek)} (the kernels' window)   "
                     f"energy.application.total {energy_text(ea)} (copies included)")
    if g("kernel", "capped"):
        lines.append("  CAPPED: the instruction window stopped the run early (kernel.capped)")
    if g("sampling", "launches_sampled"):
        prefix = int(g("sampling", "launches_stable") or 0)
        lines.append(f"  SAMPLED: {_num(g('sampling', 'launches_sampled'))} launch(es) projected"
                     + (f" ({prefix} stopped once their rate was stable)" if prefix else "")
                     + f"; {_pct(g('sampling', 'cycles_timed_fraction'))} of the cycles timed in detail"
                     + (f", {_pct(g('sampling', 'insts_timed_fraction'))} of the warp-instructions"
                        if g("sampling", "insts_timed_fraction") is not None else "")
                     + " (sampling.*; docs/sampling.md)")
    return lines


def summary(m: Any, traces: Sequence[Any] | None = None, policy: str | None = None) -> str:
    """The one-screen summary of a :class:`~ndpgpu.timing.measure.Measurement` (``traces``: its launches', for
    the grid and block of each; ``policy``: the policy's name, for its rows)."""
    stats = list(m.launch_stats)
    traces = list(traces or [])
    lines: list[str] = []
    shown = stats if len(stats) <= MAX_LAUNCH_BLOCKS else stats[: MAX_LAUNCH_BLOCKS - 1]
    for i, st in enumerate(shown):
        lines += launch_block(i, st, traces[i] if i < len(traces) else None)
    if len(shown) < len(stats):
        rest = stats[len(shown):]
        lines.append(f"... {len(rest)} more launches ({len(shown)} to {len(stats) - 1}; each launch's rows: --json):")
        lines += _kernel_groups(rest)
    tot = m.totals()
    lines += totals_block(tot)
    if len(stats) > 1:  # the mechanism over the whole run
        head_rows = headline_rows(tot)
        if head_rows:
            lines.append("  " + "   ".join(f"{name} {text}" for name, text in head_rows))
    rows = m.policy_rows()
    if rows:
        lines.append(f"[{policy}] the policy's rows")
        for path, metric, value, unit in rows[:MAX_POLICY_ROWS]:
            lines.append(f"  {path + '.' + metric:<40} {_num(value):>14} {unit}")
        if len(rows) > MAX_POLICY_ROWS:
            lines.append(f"  ... {len(rows) - MAX_POLICY_ROWS} more (--all)")
    n_rows = len(tot.rows()) + len(rows)
    lines.append(f"(a summary: every one of the {n_rows:,} rows with --all; each launch's rows with --json)")
    return "\n".join(lines)


def launches_json(m: Any, traces: Sequence[Any] | None = None) -> list[dict[str, Any]]:
    """``ndpgpu run --json``'s ``launch_stats``: per launch its identity, grid, block and every row."""
    traces = list(traces or [])
    out = []
    for i, st in enumerate(m.launch_stats):
        tr = traces[i] if i < len(traces) else None
        out.append({
            "launch": i, "kernel": st.kernel,
            "grid": list(tr.launch.grid) if tr is not None else None,
            "block": list(tr.launch.block) if tr is not None else None,
            "cycles": int(st.cycles),
            "rows": [{"path": p, "metric": k, "value": v, "unit": u} for p, k, v, u in st.rows()],
        })
    return out
