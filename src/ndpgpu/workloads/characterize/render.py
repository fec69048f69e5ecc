"""Rows rendered as tables (terminal, Markdown, JSON) and merged into the marked blocks of a Markdown page
(docs/workloads.md), keeping rows of workloads not rerun."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .counts import MIX_GROUPS

BEGIN_MARKER = "<!-- characterization:begin -->"
END_MARKER = "<!-- characterization:end -->"
PAPER_BEGIN = "<!-- paper-times:begin -->"
PAPER_END = "<!-- paper-times:end -->"
PAPER_HEADING = "### Paper-scale functional run"

# ------------------------------------------------------------------------------------------- rendering
def _si(v: float) -> str:
    v = float(v)
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.3g}{suf}"
    return f"{v:.0f}"


def _pct(v: float) -> str:
    return f"{100 * v:.1f}" if v >= 0.001 or v == 0 else f"{100 * v:.2g}"


def _short(text: str, n: int = 90) -> str:
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= n else text[: n - 1] + "…"


def char_columns(machine: bool) -> list[str]:
    cols = ["workload", "suite", "papers", "scales", "launches", "warp instr", "thread instr", "SIMD eff",
            "mem %", "int %", "fp %", "sfu %", "other %", "glob B/thr-instr", "sectors/req", "lines/req",
            "shared %", "local %", "atomic %"]
    if machine:
        cols += ["cycles", "IPC", "L1 hit", "L2 hit", "DRAM util", ">50% DRAM"]
    return cols + ["notes"]


def char_cells(row: dict[str, Any], machine: bool) -> list[str]:
    cells = [row["name"], row.get("suite", "?"), ",".join(row.get("papers", [])) or "-",
             ",".join(row.get("scales", []))]
    ncols = len(char_columns(machine))
    if "warp_instructions" not in row:
        note = "FAILED: " + _short(row.get("error", "no result")) if not row.get("over_limit") else \
            f"over limit ({row.get('time_limit', 0):.0f} s)"
        return cells + ["-"] * (ncols - len(cells) - 1) + [note]
    mix = row["mix"]
    cells += [str(row["launches"]), _si(row["warp_instructions"]), _si(row["thread_instructions"]),
              f"{row['simd_efficiency']:.2f}", *(_pct(mix[g]) for g in MIX_GROUPS),
              f"{row['global_bytes_per_thread_instruction']:.3g}",
              f"{row['sectors_per_request']:.2f}" if row["global_requests"] else "-",
              f"{row['lines_per_request']:.2f}" if row["global_requests"] else "-",
              _pct(row["shared"]), _pct(row["local"]), _pct(row["atomic"])]
    notes = []
    if row.get("passed") is False:
        notes.append("check FAILED: " + _short("; ".join(row.get("failed_checks", [])), 60))
    if row.get("truncated_launches"):
        notes.append(f"{row['truncated_launches']} truncated trace(s)")
    if machine:
        t = row.get("timing")
        if t:
            cells += [_si(t["cycles"]), f"{t['ipc']:.1f}", f"{t['l1_hit_rate']:.2f}", f"{t['l2_hit_rate']:.2f}",
                      f"{t['dram_utilisation']:.2f}", "**yes**" if t["tom_selected"] else "no"]
            if t.get("capped"):
                notes.append("timing capped")
        else:
            cells += ["-"] * 6
            notes.append("timing FAILED: " + _short(row.get("timing_error", "?"), 60))
    return cells + ["; ".join(notes)]


def paper_columns() -> list[str]:
    return ["workload", "suite", "status", "wall s", "launch s", "launches", "thread instr", "M thr-instr/s",
            "notes"]


def paper_cells(row: dict[str, Any]) -> list[str]:
    cells = [row["name"], row.get("suite", "?")]
    if row.get("over_limit"):
        return cells + ["over limit", f"> {row['time_limit']:.0f}", "-", "-", "-", "-",
                        f"killed after {row['time_limit']:.0f} s (the next standard scale down is small)"]
    if "thread_instructions" not in row:
        return cells + ["error", "-", "-", "-", "-", "-", "FAILED: " + _short(row.get("error", "no result"))]
    rate = row["thread_instructions"] / max(row["launch_seconds"], 1e-9) / 1e6
    return cells + ["PASS" if row["passed"] else "FAIL", f"{row['wall_seconds']:.1f}", f"{row['launch_seconds']:.1f}",
                    str(row["launches"]), _si(row["thread_instructions"]), f"{rate:.1f}",
                    _short("; ".join(row.get("failed_checks", [])), 80)]


def markdown_table(columns: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def parse_markdown_table(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """The header and the rows (by first cell) of the first Markdown table in ``text``."""
    header: list[str] = []
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            if header:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not header:
            header = cells
        elif all(set(c) <= set("-: ") for c in cells):
            continue
        else:
            rows[cells[0]] = cells
    return header, rows


def merge_rows(columns: list[str], new: dict[str, list[str]], old_text: str, order: Sequence[str]) -> list[list[str]]:
    """New rows, plus the old table's rows for still-registered workloads not re-run (same columns only)."""
    header, old = parse_markdown_table(old_text)
    merged = dict(old) if header == columns else {}
    merged = {k: v for k, v in merged.items() if k in order}
    merged.update(new)
    pos = {n: i for i, n in enumerate(order)}
    return [merged[k] for k in sorted(merged, key=lambda k: pos.get(k, len(pos)))]


def _between(text: str, begin: str, end: str) -> str | None:
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        return None
    return text[i + len(begin) : j]


def replace_marked_block(text: str, body: str, begin: str = BEGIN_MARKER, end: str = END_MARKER) -> str:
    """``text`` with everything between the markers replaced by ``body`` (markers kept)."""
    i = text.find(begin)
    j = text.find(end, i + len(begin)) if i >= 0 else -1
    if i < 0 or j < 0:
        raise ValueError(f"the markers {begin} ... {end} are missing")
    return text[: i + len(begin)] + "\n" + body.strip("\n") + "\n" + text[j:]


def write_docs(path: str | Path, render: Callable[[str], str]) -> None:
    """Replace the marked block of ``path`` by ``render(old_block)``; nothing else of the file changes.

    The file is read and written back at once (other writers may append to it meanwhile).
    """
    path = Path(path)
    text = path.read_text()
    old = _between(text, BEGIN_MARKER, END_MARKER)
    if old is None:
        raise ValueError(f"{path}: the markers {BEGIN_MARKER} ... {END_MARKER} are missing")
    body = render(old)
    text = path.read_text()  # re-read just before writing: keep what others appended meanwhile
    path.write_text(replace_marked_block(text, body))


DOC_HEADER = """\
## Characterization (generated)

Generated by `ndpgpu workloads characterize --scale small --format markdown --write-docs docs/workloads.md`
(add `--machine gtx480` for timing columns; `--paper-times` re-measures the paper-scale table below;
workload names limit either pass to those workloads and keep the other rows; `--jobs 2 --timeout 900` runs
each workload in its own process; `--no-characterize` only re-renders). Only the text between the
`characterization` markers is rewritten; a workload that fails shows its error in its row.

Columns, from one traced functional run at `{scale}`: launches; dynamic warp- and thread-instructions;
SIMD efficiency (thread / (32 x warp) instructions); instruction mix as % of warp-instructions (mem =
load/store/atomic, int = integer, move, convert, compare, fp = fp32/fp64/fp16/divide, sfu = special
functions, other = branch, barrier, fence, shuffle/vote, nop); global bytes per thread-instruction (bytes
accessed by the active lanes of global loads, stores and atomics); coalescing degree (distinct 32-B
sectors and 128-B lines per warp global memory instruction); shared %, local % and atomic %
(warp-instructions accessing shared or local memory, or atomic in any space, as % of warp-instructions).
With `--machine`: cycles, IPC (thread-instructions per core cycle), L1/L2 hit rates, DRAM utilisation
(achieved DRAM bandwidth / the preset's peak; kernels only) and whether it exceeds 50% (TOM's selection
criterion). Definitions: `src/ndpgpu/workloads/characterize/`.
"""


def render_block(old_block: str, char_rows: dict[str, list[str]] | None, paper_rows: dict[str, list[str]] | None,
                 *, scale: str, machine: str | None, order: Sequence[str], time_limit: float) -> str:
    """The whole marked block: header, the characterization table, the paper-scale table (merged)."""
    old_paper = _between(old_block, PAPER_BEGIN, PAPER_END) or ""
    old_char = old_block.split(PAPER_BEGIN)[0].split(PAPER_HEADING)[0]
    cols = char_columns(bool(machine))
    out = [DOC_HEADER.format(scale=scale)]
    if char_rows is not None:
        rows = merge_rows(cols, char_rows, old_char, order)
        out.append(f"Scale `{scale}`" + (f", timed on `{machine}`" if machine else "")
                   + f"; {len(rows)} workloads, generated {time.strftime('%Y-%m-%d')}.\n")
        out.append(markdown_table(cols, rows))
    else:
        i = old_char.find("Scale `")
        out.append(old_char[i:].strip() if i >= 0 else "(not generated yet)")
    out.append("\n" + PAPER_HEADING + "\n")
    out.append(PAPER_BEGIN)
    if paper_rows is not None:
        pcols = paper_columns()
        rows = merge_rows(pcols, paper_rows, old_paper, order)
        out.append(f"Each workload at `paper` in functional mode (no trace), checked against its reference, in "
                   f"its own process with a per-workload limit (`--time-limit`, default 600 s; this update: "
                   f"{time_limit:.0f} s); wall s includes inputs, compilation and the check, launch s only the "
                   f"kernels. Updated {time.strftime('%Y-%m-%d')}.\n")
        out.append(markdown_table(pcols, rows))
    else:
        out.append(old_paper.strip() or "(not measured yet: `ndpgpu workloads characterize --paper-times`)")
    out.append(PAPER_END)
    return "\n".join(out) + "\n"


def rich_table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    from ...clitable import print_table

    print_table(columns, [[re.sub(r"\*\*(.*?)\*\*", r"\1", c) for c in r] for r in rows], title)


def jsonable(o: Any) -> Any:
    if isinstance(o, dict):
        return {k: jsonable(v) for k, v in o.items() if k != "traceback"}
    if isinstance(o, (list, tuple)):
        return [jsonable(v) for v in o]
    if isinstance(o, np.generic):
        return o.item()
    return o
