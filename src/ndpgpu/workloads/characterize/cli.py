"""``ndpgpu workloads characterize``: select workloads, run them isolated, print and write the tables."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .render import (
    char_cells,
    char_columns,
    jsonable,
    markdown_table,
    paper_cells,
    paper_columns,
    render_block,
    rich_table,
    write_docs,
)
from .runs import characterize_workload, run_isolated


# ------------------------------------------------------------------------------------------- CLI
def _select(names: Sequence[str], suite: str | None) -> list[str]:
    from ..base import all_workloads

    registry = all_workloads()
    if names:
        return list(names)  # unknown names become failed rows
    return [n for n, c in registry.items() if not suite or c.suite == suite]


def timing_mode(copies: bool) -> str:
    """What the timing columns replay, shown with them."""
    if copies:
        return ("kernels and the program's host copies, in program order (the one measuring path: as `ndpgpu run` "
                "and sweeps time them)")
    return "kernels only, from cold caches (--no-copies: no host copies timed, none warms the L2)"


def characterize_main(args: Any) -> int:
    """``ndpgpu workloads characterize``: see :func:`ndpgpu.cli.build_parser` for the options."""
    from ..base import all_workloads

    fmt = "json" if getattr(args, "json", False) else (getattr(args, "format", None) or "table")
    names = _select(getattr(args, "names", []) or [], getattr(args, "suite", None))
    scale = args.scale
    machine = getattr(args, "machine", None)
    jobs = int(getattr(args, "jobs", 1) or 1)
    timeout = getattr(args, "timeout", None)
    time_limit = float(getattr(args, "time_limit", 600.0) or 600.0)
    do_char = not getattr(args, "no_characterize", False)
    do_paper = bool(getattr(args, "paper_times", False))
    copies = not bool(getattr(args, "no_copies", False))
    quiet = fmt == "json"

    def progress(row: dict[str, Any]) -> None:
        if quiet:
            return
        status = "ok" if "error" not in row and not row.get("over_limit") else (
            "over limit" if row.get("over_limit") else "FAILED " + row["error"][:100])
        secs = row.get("seconds", row.get("wall_seconds", 0.0)) or 0.0
        print(f"  {row['name']:<22} {status}  {secs:.1f} s", flush=True)

    t0 = time.perf_counter()
    char: list[dict[str, Any]] = []
    if do_char:
        if not quiet:
            print(f"characterizing {len(names)} workloads at {scale!r}" + (f" on {machine}" if machine else ""),
                  flush=True)
            if machine:
                print("  timing: " + timing_mode(copies), flush=True)
        if jobs > 1 or timeout:
            char = run_isolated("characterize_workload", names, (scale, machine, copies), time_limit=timeout, jobs=jobs,
                                on_result=progress)
        else:
            for n in names:
                row = characterize_workload(n, scale, machine, copies)
                progress(row)
                char.append(row)
    paper: list[dict[str, Any]] = []
    if do_paper:
        if not quiet:
            print(f"paper-scale functional runs of {len(names)} workloads (limit {time_limit:.0f} s each)", flush=True)
        paper = run_isolated("paper_time", names, ("paper",), time_limit=time_limit, jobs=1, on_result=progress)
    elapsed = time.perf_counter() - t0

    has_machine = bool(machine)
    char_rows = {r["name"]: char_cells(r, has_machine) for r in char}
    paper_rows = {r["name"]: paper_cells(r) for r in paper}
    if fmt == "json":
        print(json.dumps(jsonable({"scale": scale, "machine": machine, "copies": copies,
                                    "timing_mode": timing_mode(copies) if machine else None,
                                    "seconds": elapsed, "workloads": char,
                                    "paper_times": paper}), indent=1))
    elif fmt == "markdown":
        text = ""
        if do_char:
            text += markdown_table(char_columns(has_machine), list(char_rows.values())) + "\n"
        if do_paper:
            text += "\n" + markdown_table(paper_columns(), list(paper_rows.values())) + "\n"
        print(text)
    else:
        if do_char:
            rich_table(f"{len(char)} workloads at {scale}"
                        + (f" on {machine} (timing: {timing_mode(copies)})" if machine else ""),
                        char_columns(has_machine), list(char_rows.values()))
        if do_paper:
            rich_table(f"paper-scale functional run (limit {time_limit:.0f} s)", paper_columns(),
                        list(paper_rows.values()))
    out = getattr(args, "out", None)
    if out:
        parts = []
        if do_char:
            parts.append(markdown_table(char_columns(has_machine), list(char_rows.values())))
        if do_paper:
            parts.append(markdown_table(paper_columns(), list(paper_rows.values())))
        Path(out).write_text("\n\n".join(parts) + "\n")
    docs = getattr(args, "write_docs", None)
    if docs:
        order = list(all_workloads())
        write_docs(docs, lambda old: render_block(old, char_rows if do_char else None, paper_rows if do_paper else None,
                                                  scale=scale, machine=machine, order=order, time_limit=time_limit))
        if not quiet:
            print(f"wrote the characterization block of {docs}")
    if not quiet:
        failed = [r["name"] for r in char + paper if "error" in r or r.get("over_limit")]
        print(f"{len(char)} characterized, {len(paper)} paper runs in {elapsed:.1f} s"
              + (f"; failed or over limit: {', '.join(failed)}" if failed else ""))
    return 0
