"""Tables on the command line: fitted to the terminal when stdout is one, tab-separated values otherwise
(``ndpgpu workloads | cut -f1``, ``ndpgpu results > r.tsv``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any


def _plain(value: Any) -> str:
    if value is None:
        return ""
    return str(value).replace("\t", " ").replace("\n", " ")


def print_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], title: str = "",
                fmt: Callable[[Any], str] = str, *, file: Any = None) -> None:
    """Print a table: rich, as wide as the terminal, when ``file`` (stdout) is a terminal; else TSV with a
    header line and full-precision values (``fmt`` formats values for the terminal only)."""
    out = file or sys.stdout
    if not out.isatty():
        out.write("\t".join(columns) + "\n")
        for row in rows:
            out.write("\t".join(_plain(v) for v in row) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title or None)
    for c in columns:
        table.add_column(c, overflow="fold")
    for row in rows:
        table.add_row(*[fmt(v) for v in row])
    Console(file=out).print(table)
