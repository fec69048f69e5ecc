"""Shared by the command-line entry points: argument types (a bad value is refused by argparse, naming it)
and :class:`Subcommands`, which refuses a subcommand name added twice."""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType
from typing import Any

from .registry import Registry

EXIT_USAGE = 2
"""The exit status of every usage error (argparse's own, a bad option value, an unknown name)."""


class UsageError(Exception):
    """The command line is wrong: ``ndpgpu`` prints the message and exits with :data:`EXIT_USAGE`."""


def _integer(text: str, low: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what} integer, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"expected {what} integer, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (worker counts)."""
    return _integer(text, 1, "a positive")


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (worker counts where 0 means "in this process")."""
    return _integer(text, 0, "a non-negative")


class Subcommands:
    """An ``argparse`` subparsers object that refuses a subcommand name two modules both add.

    ``owned_by(module)`` is what a module's ``add_subcommands`` receives: its ``add_parser`` registers the
    name (and aliases) in :attr:`registry` as the module's, then adds the parser. A name another module
    already added raises :class:`ndpgpu.registry.DuplicateName` naming both modules.
    """

    def __init__(self, subparsers: Any, kind: str = "CLI subcommand", command: str | None = None) -> None:
        self.subparsers = subparsers
        self.registry: Registry[ModuleType] = Registry(kind)
        # the subcommand the command line names (None: unknown, build everything); a module may build the
        # parsers of other subcommands lightly (name and help only: what `ndpgpu --help` lists)
        self.command = command

    def owned_by(self, owner: ModuleType | str) -> _OwnedSubcommands:
        """The subparsers as seen by ``owner`` (a module, or its name)."""
        module = importlib.import_module(owner) if isinstance(owner, str) else owner
        return _OwnedSubcommands(self, module)


class _OwnedSubcommands:
    def __init__(self, parent: Subcommands, owner: ModuleType) -> None:
        self._parent = parent
        self._owner = owner

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        for each in (name, *kwargs.get("aliases", ())):
            self._parent.registry.register(each, self._owner)
        return self._parent.subparsers.add_parser(name, **kwargs)

    @property
    def command(self) -> str | None:
        """The subcommand the command line names, or None (see :class:`Subcommands`)."""
        return self._parent.command

    def needs(self, name: str) -> bool:
        """Whether subcommand ``name`` must be built in full (it is the one run, or the command is unknown)."""
        return self._parent.command in (None, name)

    def __getattr__(self, attr: str) -> Any:  # everything else (metavar, choices...) is argparse's
        return getattr(self._parent.subparsers, attr)
