"""``ndpgpu analyze <mechanism>``: the mechanisms' static analyses on the command line.

``ndpgpu.cli`` calls :func:`add_subcommands`; each mechanism adds its parser under ``analyze``.
"""

from __future__ import annotations

from typing import Any


def add_subcommands(subparsers: Any) -> None:
    """Register ``analyze`` and its per-mechanism subcommands on an ``argparse`` subparsers object."""
    from .tom.cli import add_parser as add_tom

    p = subparsers.add_parser("analyze", help="static analyses of the near-data mechanisms (e.g. `analyze tom`)",
                              description="Static compiler analyses of the near-data mechanisms.")
    mechanisms = p.add_subparsers(dest="mechanism", metavar="MECHANISM", required=True)
    add_tom(mechanisms)
