"""``ndpgpu analyze <mechanism>``: the mechanisms' static analyses on the command line.

``ndpgpu.cli`` calls :func:`add_subcommands`, which adds ``analyze`` and, under it, what the ``cli`` module
of every mechanism package (``ndpgpu.mechanisms.<m>.cli``, found by package) adds with its
``add_parser(subparsers)``. Two mechanisms adding the same name are refused; a module that fails to
import raises.
"""

from __future__ import annotations

from typing import Any

from ..cliargs import Subcommands
from ..registry import discover

MECHANISM_MODULE = "cli"


def add_subcommands(subparsers: Any) -> None:
    """Register ``analyze`` and its per-mechanism subcommands on an ``argparse`` subparsers object."""
    p = subparsers.add_parser("analyze", help="static analyses of the near-data mechanisms (e.g. `analyze tom`)",
                              description="Static compiler analyses of the near-data mechanisms.")
    mechanisms = Subcommands(p.add_subparsers(dest="mechanism", metavar="MECHANISM", required=True),
                             kind="analyze subcommand")
    if not getattr(subparsers, "needs", lambda name: True)("analyze"):
        return  # another subcommand runs: importing every mechanism's analyses would only slow it down
    for module in discover("ndpgpu.mechanisms", MECHANISM_MODULE):
        module.add_parser(mechanisms.owned_by(module))
